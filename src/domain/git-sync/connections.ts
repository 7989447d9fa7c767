/**
 * Connecting a space to a branch of a repository on another git host (Git Sync), reading the connection's state and
 * disconnecting; what a run does is in ./run.ts, the rule it follows in ./sync-step.ts.
 *
 * Connecting queues a first run (the `git-sync` job, as every later move of main does: src/domain/content/indexing.ts).
 * Only a space's admins connect or disconnect it (a connection pushes the space's history to the host and takes the
 * host's into it); its readers see the state. The URL is checked as repository imports check theirs (http(s) only,
 * no credentials in it; plain http only to a host QUIRE_FETCH_ALLOW vouches for), the token is sealed before it is
 * stored (ctx.secrets) and never returned. Disconnecting leaves the content as it is on both sides.
 */
import type { Caller, Context } from '../context.js';
import { InvalidArgument, NotFound, NotImplemented } from '../errors.js';
import { nowIso } from '../ids.js';
import { loadSpace } from '../content/spaces.js';
import { requireSpacePermission } from '../permissions.js';
import { requireWritable } from '../imports/imports.js';
import { MAIN_REF } from '../content/refs.js';
import { normalizeProjectDirectory } from '../../content/project-directory.js';
import { deleteGitSyncConnection, findGitSyncConnection, saveGitSyncConnection, type NewGitSyncConnection } from '../../store/sql/git-sync.js';
import { FetchFailure } from '../../store/net/guarded-fetch.js';
import { gitSyncState, type GitSyncState } from './state.js';

export interface ConnectInput {
  url: string;
  ref?: string;
  projectDirectory?: string;
  auth?: { username?: string; token?: string; sshPrivateKey?: string };
  firstSync: string;
  webhookSecret?: string;
}

const FIRST_SYNCS: readonly string[] = ['import', 'export'];
const REF = /^refs\/heads\/[A-Za-z0-9._/-]+$/;
/** The user name sent with a token when none is given: hosts take a token with any name (GitHub documents this one). */
export const TOKEN_USERNAME = 'x-access-token';

/** The sealed secrets of a space's connection are bound to it: a sealed text copied to another row does not open. */
export const sealContext = (spaceId: string, what: 'auth' | 'webhook') => `git-sync:${spaceId}:${what}`;

/** The URL as the connection keeps it: checked, and reachable as the fetch guard allows. */
export async function checkedUrl(ctx: Context, raw: string): Promise<string> {
  // `ssh://` and the scp-like `git@host:owner/name.git`.
  if (/^ssh:\/\//i.test(raw) || /^[\w.-]+@[\w.-]+:(?!\/\/)/.test(raw)) throw new NotImplemented('url: SSH remotes (deploy keys) are not supported yet; use the repository\'s https URL with a token');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidArgument('url: must be an absolute https URL of a git repository');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new InvalidArgument(`url: must be an https URL of a git repository, not ${url.protocol}`);
  if (url.username || url.password) throw new InvalidArgument('url: must not carry a user name or token; give the token as auth.token');
  if (url.search || url.hash) throw new InvalidArgument('url: must not have a query or a fragment');
  let pin;
  try {
    pin = await ctx.fetcher.resolvePinned(url.href);
  } catch (error) {
    if (error instanceof FetchFailure) throw new InvalidArgument(`url: ${error.message.replace(/^url: /, '')}`);
    throw error;
  }
  if (url.protocol === 'http:' && !ctx.fetcher.allowedByConfiguration(pin.address, pin.host)) {
    throw new InvalidArgument('url: must be https (plain http only to a host QUIRE_FETCH_ALLOW allows)');
  }
  return url.href;
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
  const url = await checkedUrl(ctx, input.url);
  const ref = checkedRef(input.ref);
  const directory = input.projectDirectory === undefined ? (space.project_directory ?? '') : normalizeProjectDirectory(input.projectDirectory);
  if (directory === undefined) throw new InvalidArgument(`projectDirectory: "${input.projectDirectory}" is not a folder inside the repository`);
  const auth = input.auth;
  if (auth?.sshPrivateKey !== undefined) throw new NotImplemented('auth.sshPrivateKey: deploy keys over SSH are not supported yet; use the repository\'s https URL with auth.token');
  if (auth !== undefined && (typeof auth.token !== 'string' || auth.token.length === 0)) throw new InvalidArgument('auth.token: must be the token the host gave (a personal access token or a deploy token)');
  if (auth?.username !== undefined && !/^[^:\s]{1,100}$/.test(auth.username)) throw new InvalidArgument('auth.username: must be a name without spaces or ":"');
  const now = nowIso();
  const row: NewGitSyncConnection = {
    space_id: spaceId,
    url,
    ref,
    project_directory: directory,
    first_sync: input.firstSync,
    auth_kind: auth ? 'token' : 'none',
    auth_username: auth ? (auth.username ?? TOKEN_USERNAME) : null,
    auth_secret: auth?.token ? ctx.secrets.seal(auth.token, sealContext(spaceId, 'auth')) : null,
    webhook_secret: input.webhookSecret ? ctx.secrets.seal(input.webhookSecret, sealContext(spaceId, 'webhook')) : null,
    host_key: null,
    status: 'syncing',
    error: null,
    remote_commit: null,
    local_commit: null,
    last_synced_at: null,
    change_request_id: null,
    connected_by: caller.user.id,
    notice: null,
    created_at: now,
    updated_at: now,
  };
  await saveGitSyncConnection(ctx.db, row);
  const main = await ctx.reader.resolveRef(spaceId, MAIN_REF);
  if (main) await ctx.jobs.enqueueWhenReachable({ name: 'git-sync', payload: { spaceId, commit: main } });
  return gitSyncState({ ...row, failures: 0 });
}

/** The space's connection, for whoever may read the space; NotFound when it has none. */
export async function readGitSync(ctx: Context, caller: Caller, spaceId: string): Promise<GitSyncState> {
  await loadSpace(ctx, caller, spaceId);
  const row = await findGitSyncConnection(ctx.db, spaceId);
  if (!row) throw new NotFound(`spaceId: space "${spaceId}" is not connected to a git repository`);
  return gitSyncState(row);
}

/** Disconnects the space (admins); the content stays as it is on both sides. NotFound when it had no connection. */
export async function disconnectGitSync(ctx: Context, caller: Caller, spaceId: string): Promise<void> {
  const { role } = await loadSpace(ctx, caller, spaceId);
  requireSpacePermission(role, spaceId, 'admin', 'disconnect it from its git repository');
  if (!(await deleteGitSyncConnection(ctx.db, spaceId))) throw new NotFound(`spaceId: space "${spaceId}" is not connected to a git repository`);
}
