/**
 * The reference's `exportToGitRepository`: a one-off push of the space's main to a branch of a repository on another
 * host, as the same commits (no connection is made or kept). The branch moves only forward: absent, or holding
 * nothing the space lacks. A branch with commits of its own is replaced only when the caller says `force`, and even
 * then by compare-and-swap on what was read (commits pushed there meanwhile are never replaced unseen). Quire writes
 * no commit of its own, so `commitMessage` is not needed for anything: the commits keep their messages.
 *
 * The URL may carry HTTP Basic credentials, as the reference allows: they are taken out of it, sent as a header
 * through git's environment (src/store/git/pinned-http.ts), and kept nowhere.
 */
import type { Caller, Context } from '../context.js';
import { Conflict, InvalidArgument } from '../errors.js';
import { loadSpace } from '../content/spaces.js';
import { requireSpacePermission } from '../permissions.js';
import { MAIN_REF } from '../content/refs.js';
import { basicAuthorization, fetchRemoteBranch, pushToRemoteBranch, RemoteFailure, type RemoteBranch } from '../../store/git/remote-branch.js';
import { checkedHttpUrl, checkedRef } from './connections.js';

export interface ExportInput {
  url: string;
  ref: string;
  commitMessage: string;
  force?: boolean;
}

/** Where an export reads the host's branch into (overwritten by each export: a picture, not a record). */
const EXPORT_REMOTE_REF = 'refs/quire/export/remote';

/** The URL without its credentials, and the Authorization they make. */
function credentialsOut(raw: string): { url: string; authorization?: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidArgument('url: must be an absolute https URL of a git repository');
  }
  if (!url.username && !url.password) return { url: raw };
  const authorization = basicAuthorization(decodeURIComponent(url.username), decodeURIComponent(url.password));
  url.username = '';
  url.password = '';
  return { url: url.href, authorization };
}

/** What the push to the host failed on, as the caller's error (never naming the credentials). */
function refusalOf(error: RemoteFailure): Error {
  if (error.reason === 'refused') return new Conflict(`ref: ${error.message}`);
  if (error.reason === 'moved') return new Conflict('ref: the branch moved on the host during the export; export again');
  // The credentials refused, the host unreachable or not a git repository there.
  return new InvalidArgument(`url: ${error.message}`);
}

/** Pushes the space's main to `ref` of the repository at `url`; 'pushed', or 'up-to-date' when the branch holds it already. */
export async function exportToGitRepository(ctx: Context, caller: Caller, spaceId: string, input: ExportInput): Promise<'pushed' | 'up-to-date'> {
  const { role } = await loadSpace(ctx, caller, spaceId);
  requireSpacePermission(role, spaceId, 'triggerGitSync', 'export it to a git repository');
  const { url: bare, authorization } = credentialsOut(input.url);
  const url = await checkedHttpUrl(ctx, bare);
  const ref = checkedRef(input.ref);
  const main = await ctx.reader.resolveRef(spaceId, MAIN_REF);
  if (!main) throw new Conflict(`spaceId: space "${spaceId}" has no main branch`);
  const remote: RemoteBranch = { url, ref, transport: { kind: 'http', pin: await ctx.fetcher.resolvePinned(url), ...(authorization ? { authorization } : {}) } };
  try {
    const head = await fetchRemoteBranch(ctx.git, spaceId, remote, EXPORT_REMOTE_REF);
    if (head === main || (head !== undefined && (await ctx.git.isAncestor(spaceId, main, head)))) return 'up-to-date';
    if (head !== undefined && !(await ctx.git.isAncestor(spaceId, head, main)) && !input.force) {
      throw new Conflict(`force: the branch ${ref} holds commits the space does not have; export with force: true to replace them, or to a new branch`);
    }
    await pushToRemoteBranch(ctx.git, spaceId, remote, main, head);
    return 'pushed';
  } catch (error) {
    if (error instanceof RemoteFailure) throw refusalOf(error);
    throw error;
  }
}
