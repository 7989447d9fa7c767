/**
 * Connecting a space to a branch of a repository on another git host (Git Sync), reading the connection's state and
 * disconnecting; what a run does is in ./run.ts, the rule it follows in ./sync-step.ts.
 *
 * Connecting queues a first run (the `git-sync` job, as every later move of main does: src/domain/content/indexing.ts).
 * Only a space's admins connect or disconnect it (a connection pushes the space's history to the host and takes the
 * host's into it); its readers see the state. An https URL is checked as repository imports check theirs (no
 * credentials in it; plain http only to a host QUIRE_FETCH_ALLOW vouches for) and takes a token; an SSH URL
 * (./ssh-url.ts) takes a deploy key, checked by ssh's own reader before it is kept; either way the host must be one
 * the fetch guard lets Quire reach. The token or key is sealed before it is stored (ctx.secrets) and never returned.
 * Connecting again forgets the SSH host key trusted so far: the next run trusts the key the host shows then.
 * Disconnecting leaves the content as it is on both sides. With `branches: true`, the host's branches that match a
 * pattern and the space's change requests are kept in step too (./branches.ts).
 */
import type { Caller, Context } from '../context.js';
import { InvalidArgument, NotFound } from '../errors.js';
import { nowIso } from '../ids.js';
import { loadSpace } from '../content/spaces.js';
import { requireSpacePermission } from '../permissions.js';
import { requireWritable } from '../imports/imports.js';
import { MAIN_REF } from '../content/refs.js';
import { normalizeProjectDirectory } from '../../content/project-directory.js';
import { deleteGitSyncConnection, findGitSyncConnection, saveGitSyncConnection, type NewGitSyncConnection } from '../../store/sql/git-sync.js';
import { FetchFailure } from '../../store/net/guarded-fetch.js';
import { normalizedPrivateKey, SshKeyRefused, sshPublicKeyOf } from '../../store/keys/ssh-private-key.js';
import { updateSpaceRow } from '../../store/sql/spaces.js';
import { enqueueIndexingAfterPush } from '../content/indexing.js';
import { forgetGitSyncBranches, gitSyncBranchesOf } from '../../store/sql/git-sync-branches.js';
import { checkedBranchPattern } from './branches.js';
import { gitSyncState, type GitSyncState } from './state.js';
import { sealContext } from './credentials.js';
import { removeMirrorIfUnused } from './mirrors.js';
import { looksLikeSsh, sshRemote, type SshRemote } from './ssh-url.js';

export interface ConnectInput {
  url: string;
  ref?: string;
  projectDirectory?: string;
  auth?: { username?: string; token?: string; sshPrivateKey?: string };
  firstSync: string;
  webhookSecret?: string;
  /** Keep the host's branches (`branchPattern`, default `docs/*`) and change requests in step too (./branches.ts). */
  branches?: boolean;
  branchPattern?: string;
}

const FIRST_SYNCS: readonly string[] = ['import', 'export'];
const REF = /^refs\/heads\/[A-Za-z0-9._/-]+$/;
/** The user name sent with a token when none is given: hosts take a token with any name (GitHub documents this one). */
export const TOKEN_USERNAME = 'x-access-token';


/** What the fetch guard says of a host, as a 400 naming `url`. */
async function reachable<T>(resolve: () => Promise<T>): Promise<T> {
  try {
    return await resolve();
  } catch (error) {
    if (error instanceof FetchFailure) throw new InvalidArgument(`url: ${error.message.replace(/^url: /, '')}`);
    throw error;
  }
}

/** The https URL as the connection keeps it: checked, and reachable as the fetch guard allows. */
export async function checkedHttpUrl(ctx: Context, raw: string): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidArgument('url: must be an absolute https URL of a git repository, or an ssh one (ssh://git@host/owner/name.git)');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new InvalidArgument(`url: must be an https or ssh URL of a git repository, not ${url.protocol}`);
  if (url.username || url.password) throw new InvalidArgument('url: must not carry a user name or token; give the token as auth.token');
  if (url.search || url.hash) throw new InvalidArgument('url: must not have a query or a fragment');
  const pin = await reachable(() => ctx.fetcher.resolvePinned(url.href));
  if (url.protocol === 'http:' && !ctx.fetcher.allowedByConfiguration(pin.address, pin.host)) {
    throw new InvalidArgument('url: must be https (plain http only to a host QUIRE_FETCH_ALLOW allows)');
  }
  return url.href;
}

/** The secret a connection keeps, sealed when stored, and how it is used. */
interface Credentials {
  kind: 'none' | 'token' | 'ssh-key';
  username: string | null;
  secret: string | undefined;
}

/** The deploy key as ssh reads it; InvalidArgument naming it when ssh cannot use it (unreadable, or a passphrase). */
async function checkedDeployKey(text: string): Promise<string> {
  const key = normalizedPrivateKey(text);
  try {
    await sshPublicKeyOf(key);
  } catch (error) {
    if (error instanceof SshKeyRefused) throw new InvalidArgument(`auth.sshPrivateKey: ${error.message}`);
    throw error;
  }
  return key;
}

/** The credentials of `auth` for a URL reached by SSH or not: a deploy key goes with SSH, a token with https. */
async function checkedCredentials(ssh: boolean, auth: ConnectInput['auth']): Promise<Credentials> {
  if (ssh) {
    if (auth?.token !== undefined) throw new InvalidArgument('auth.token: an ssh URL takes a deploy key (auth.sshPrivateKey), not a token; or give the repository\'s https URL with the token');
    if (auth?.username !== undefined) throw new InvalidArgument('auth.username: with an ssh URL the user goes in the URL (ssh://user@host/owner/name.git)');
    if (auth?.sshPrivateKey === undefined) {
      throw new InvalidArgument('auth.sshPrivateKey: an ssh URL needs a deploy key: the private key (OpenSSH or PEM, without passphrase) whose public key the host has, with write access');
    }
    return { kind: 'ssh-key', username: null, secret: await checkedDeployKey(auth.sshPrivateKey) };
  }
  if (auth?.sshPrivateKey !== undefined) {
    throw new InvalidArgument('auth.sshPrivateKey: a deploy key goes with an ssh URL (ssh://git@host/owner/name.git or git@host:owner/name.git); an https URL takes auth.token');
  }
  if (auth === undefined) return { kind: 'none', username: null, secret: undefined };
  if (typeof auth.token !== 'string' || auth.token.length === 0) throw new InvalidArgument('auth.token: must be the token the host gave (a personal access token or a deploy token)');
  if (auth.username !== undefined && !/^[^:\s]{1,100}$/.test(auth.username)) throw new InvalidArgument('auth.username: must be a name without spaces or ":"');
  return { kind: 'token', username: auth.username ?? TOKEN_USERNAME, secret: auth.token };
}

export function checkedRef(ref: string | undefined): string {
  if (ref === undefined) return 'refs/heads/main';
  const full = ref.startsWith('refs/') ? ref : `refs/heads/${ref}`;
  if (!REF.test(full) || full.includes('..') || full.endsWith('/') || full.endsWith('.lock') || full.includes('//')) {
    throw new InvalidArgument('ref: must be a branch, such as "refs/heads/main" or "main"');
  }
  return full;
}

/** Connects the space (replacing its connection) and queues its first run; answers the state as connected. */
export async function connectGitSync(ctx: Context, caller: Caller, spaceId: string, input: ConnectInput): Promise<GitSyncState> {
  const { space, role } = await loadSpace(ctx, caller, spaceId);
  requireSpacePermission(role, spaceId, 'admin', 'connect it to a git repository');
  requireWritable(space);
  if (!FIRST_SYNCS.includes(input.firstSync)) throw new InvalidArgument('firstSync: must be "import" (the repository\'s history becomes the space\'s) or "export" (the space\'s history is pushed to the branch)');
  // What can be told without the network first: a missing key is named before the host is looked up.
  const ssh: SshRemote | undefined = looksLikeSsh(input.url) ? sshRemote(input.url) : undefined;
  const ref = checkedRef(input.ref);
  const directory = input.projectDirectory === undefined ? (space.project_directory ?? '') : normalizeProjectDirectory(input.projectDirectory);
  if (directory === undefined) throw new InvalidArgument(`projectDirectory: "${input.projectDirectory}" is not a folder inside the repository`);
  if (input.branchPattern !== undefined && input.branches !== true) throw new InvalidArgument('branchPattern: goes with "branches": true');
  const branchPattern = input.branches === true ? checkedBranchPattern(input.branchPattern) : null;
  const credentials = await checkedCredentials(ssh !== undefined, input.auth);
  let url: string;
  if (ssh) {
    await reachable(() => ctx.fetcher.resolvePinnedHost(ssh.host, ssh.port));
    url = ssh.url;
  } else {
    url = await checkedHttpUrl(ctx, input.url);
  }
  const now = nowIso();
  const row: NewGitSyncConnection = {
    space_id: spaceId,
    url,
    ref,
    project_directory: directory,
    first_sync: input.firstSync,
    auth_kind: credentials.kind,
    auth_username: credentials.username,
    auth_secret: credentials.secret === undefined ? null : ctx.secrets.seal(credentials.secret, sealContext(spaceId, 'auth')),
    webhook_secret: input.webhookSecret ? ctx.secrets.seal(input.webhookSecret, sealContext(spaceId, 'webhook')) : null,
    // Trust on first use: the next run trusts the key the host shows then (./run.ts).
    host_key: null,
    status: 'syncing',
    error: null,
    remote_commit: null,
    local_commit: null,
    last_synced_at: null,
    change_request_id: null,
    connected_by: caller.user.id,
    notice: null,
    branch_pattern: branchPattern,
    created_at: now,
    updated_at: now,
  };
  const before = await findGitSyncConnection(ctx.db, spaceId);
  await saveGitSyncConnection(ctx.db, row);
  // The branches kept in step belong to the repository and branch followed: another one starts afresh.
  if (before && (before.url !== url || before.ref !== ref || branchPattern === null)) await forgetGitSyncBranches(ctx.db, spaceId);
  if (before) await removeMirrorIfUnused(ctx, before);
  const main = await ctx.reader.resolveRef(spaceId, MAIN_REF);
  if (directory !== (space.project_directory ?? '')) {
    // The space shows the connection's folder of the repository from now on (a monorepo's project), as an import does.
    await updateSpaceRow(ctx.db, spaceId, { project_directory: directory, updated_at: now });
    ctx.cache.invalidate();
    if (main) await enqueueIndexingAfterPush(ctx, { spaceId, revision: main });
  }
  if (main) await ctx.jobs.enqueueWhenReachable({ name: 'git-sync', payload: { spaceId, commit: main } });
  return gitSyncState({ ...row, failures: 0 }, await gitSyncBranchesOf(ctx.db, spaceId));
}

/** The space's connection, for whoever may read the space; NotFound when it has none. */
export async function readGitSync(ctx: Context, caller: Caller, spaceId: string): Promise<GitSyncState> {
  await loadSpace(ctx, caller, spaceId);
  const row = await findGitSyncConnection(ctx.db, spaceId);
  if (!row) throw new NotFound(`spaceId: space "${spaceId}" is not connected to a git repository`);
  return gitSyncState(row, await gitSyncBranchesOf(ctx.db, spaceId));
}

/** Disconnects the space (admins); the content stays as it is on both sides. NotFound when it had no connection. */
export async function disconnectGitSync(ctx: Context, caller: Caller, spaceId: string): Promise<void> {
  const { role } = await loadSpace(ctx, caller, spaceId);
  requireSpacePermission(role, spaceId, 'admin', 'disconnect it from its git repository');
  const before = await findGitSyncConnection(ctx.db, spaceId);
  if (!before || !(await deleteGitSyncConnection(ctx.db, spaceId))) throw new NotFound(`spaceId: space "${spaceId}" is not connected to a git repository`);
  await removeMirrorIfUnused(ctx, before);
}
