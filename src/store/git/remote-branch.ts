/**
 * One branch of a repository on another git host, as Git Sync reads and writes it over HTTP(S): where it is
 * (`remoteHead`), its commits brought into a ref of the space's repository (`fetchRemoteBranch`), and a commit of the
 * space's pushed to it (`pushToRemoteBranch`), the same commit objects both ways. A push is a compare-and-swap on the
 * host: `--force-with-lease` names the commit the branch must still be at (or that it must not exist), so a push never
 * replaces commits the host received meanwhile; the host then answers `moved` and the sync fetches again. Never a
 * plain force.
 *
 * Connections follow ./pinned-http.ts (the checked address only, no redirect, credentials in the environment), and
 * what a failure says never holds the credentials: git is given none on its command line or in a URL, and its
 * message is cut to its last line.
 */
import type { GitStore } from './repositories.js';
import { GitCommandError, runGit } from './run.js';
import { pinnedHttpGit, type PinnedAddress } from './pinned-http.js';

/** A branch of a remote repository, and how to reach it. */
export interface RemoteBranch {
  /** `https://host/owner/name.git` (http only where the caller allows it), without credentials. */
  url: string;
  /** The full ref name on the host: `refs/heads/main`. */
  ref: string;
  pin: PinnedAddress;
  /** The Authorization header's value, if the host needs one. */
  authorization?: string;
  /** Longest a transfer may take. */
  timeoutMs?: number;
}

/**
 * Why talking to the host failed: `auth` (the host refused the credentials), `unreachable` (no answer, not a git
 * repository there), `refused` (the host refused the push: branch protection, a hook; `message` is its reason),
 * `moved` (the branch is not where the push expected it).
 */
export class RemoteFailure extends Error {
  constructor(
    readonly reason: 'auth' | 'unreachable' | 'refused' | 'moved',
    message: string,
  ) {
    super(message);
  }
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;
const OID = /^[0-9a-f]{40}$/;

/** HTTP Basic credentials as git hosts take a token: `username` (any name the host accepts) and the token. */
export function basicAuthorization(username: string, token: string): string {
  return `Basic ${Buffer.from(`${username}:${token}`, 'utf8').toString('base64')}`;
}

function lastLine(text: string): string {
  const lines = text.split('\n').map((line) => line.trim()).filter((line) => line.length > 0);
  return (lines[lines.length - 1] ?? '').replace(/^(fatal|error): /, '');
}

/** The failure a git command's error stands for. */
function failureOf(error: unknown, what: string): RemoteFailure {
  if (!(error instanceof GitCommandError)) {
    const message = error instanceof Error ? error.message : String(error);
    return new RemoteFailure('unreachable', `${what}: ${message}`);
  }
  const text = error.stderr;
  if (/Authentication failed|could not read Username|HTTP 401|HTTP 403|returned error: 40[13]/i.test(text)) {
    return new RemoteFailure('auth', `${what}: the host refused the credentials (${lastLine(text)})`);
  }
  if (/stale info|\(fetch first\)|non-fast-forward/.test(text)) return new RemoteFailure('moved', `${what}: the branch moved on the host meanwhile`);
  // The host's own refusal: its hook's lines (`remote: ...`) and git's `! [remote rejected] ... (reason)`.
  const rejected = /\[remote rejected\][^(]*\((.*)\)/.exec(text)?.[1];
  if (rejected !== undefined) {
    const said = text.split('\n').filter((line) => line.startsWith('remote: ')).map((line) => line.slice(8).trim()).filter(Boolean);
    return new RemoteFailure('refused', `${what}: the host refused the push: ${[...said, rejected].join(' / ')}`);
  }
  return new RemoteFailure('unreachable', `${what}: ${lastLine(text) || `git ${error.args[0]} failed`}`);
}

async function runRemote(store: GitStore, spaceId: string, remote: RemoteBranch, command: string[], what: string): Promise<Buffer> {
  const { args, env } = pinnedHttpGit(remote.pin, remote.authorization ? { Authorization: remote.authorization } : {}, { lowSpeedLimit: 1, lowSpeedTime: 60 });
  try {
    return await runGit([...args, ...command], { gitDir: store.repositoryPath(spaceId), env, signal: AbortSignal.timeout(remote.timeoutMs ?? DEFAULT_TIMEOUT_MS) });
  } catch (error) {
    throw failureOf(error, what);
  }
}

/** The refs an `ls-remote` listed, by name. */
function parseRefList(out: string): Map<string, string> {
  const refs = new Map<string, string>();
  for (const line of out.split('\n')) {
    const [oid, name] = line.split('\t');
    if (name !== undefined && OID.test(oid)) refs.set(name, oid);
  }
  return refs;
}

/** The commit the remote branch is at; undefined when the host has no such branch. */
export async function remoteHead(store: GitStore, spaceId: string, remote: RemoteBranch): Promise<string | undefined> {
  const out = (await runRemote(store, spaceId, remote, ['ls-remote', '--', remote.url, remote.ref], `reading ${remote.ref} of ${remote.url}`)).toString('utf8');
  return parseRefList(out).get(remote.ref);
}

/**
 * Every branch of the repository and its commit, in one ref read (a poll reads a repository once for all the spaces
 * connected to it). `spaceId`'s repository is only where git runs; nothing is written to it.
 */
export async function remoteBranches(store: GitStore, spaceId: string, remote: RemoteBranch): Promise<Map<string, string>> {
  const out = (await runRemote(store, spaceId, remote, ['ls-remote', '--heads', '--', remote.url], `reading the branches of ${remote.url}`)).toString('utf8');
  return parseRefList(out);
}

/**
 * Brings the remote branch's commits into `localRef` of the space's repository (moved whatever it held: it is the
 * sync's picture of the host); the commit it is at, or undefined when the host has no such branch.
 */
export async function fetchRemoteBranch(store: GitStore, spaceId: string, remote: RemoteBranch, localRef: string): Promise<string | undefined> {
  const head = await remoteHead(store, spaceId, remote);
  if (head === undefined) return undefined;
  await runRemote(store, spaceId, remote, ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--', remote.url, `+${remote.ref}:${localRef}`], `fetching ${remote.ref} of ${remote.url}`);
  return head;
}

/**
 * Pushes `commit` of the space's repository to the remote branch, provided the branch is still at `expected`
 * (undefined: that it does not exist). Throws RemoteFailure `moved` when it is not, `refused` when the host says no.
 */
export async function pushToRemoteBranch(store: GitStore, spaceId: string, remote: RemoteBranch, commit: string, expected: string | undefined): Promise<void> {
  if (!OID.test(commit) || (expected !== undefined && !OID.test(expected))) throw new Error('pushToRemoteBranch: commits are full object ids');
  await runRemote(
    store,
    spaceId,
    remote,
    ['push', '--quiet', '--no-verify', `--force-with-lease=${remote.ref}:${expected ?? ''}`, '--', remote.url, `${commit}:${remote.ref}`],
    `pushing to ${remote.ref} of ${remote.url}`,
  );
}
