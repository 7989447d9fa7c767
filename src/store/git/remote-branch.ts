/**
 * One branch of a repository on another git host, as Git Sync reads and writes it over HTTP(S) or SSH: where it is
 * (`remoteHead`), its commits brought into a ref of the space's repository (`fetchRemoteBranch`, or through a local
 * mirror shared by the spaces that read the branch alike: `updateMirror`, then `fetchFromMirror`), and a commit of the
 * space's pushed to it (`pushToRemoteBranch`), the same commit objects both ways. A push is a compare-and-swap on the
 * host: `--force-with-lease` names the commit the branch must still be at (or that it must not exist), so a push never
 * replaces commits the host received meanwhile; the host then answers `moved` and the sync fetches again. Never a
 * plain force.
 *
 * Connections follow ./pinned-http.ts (the checked address only, no redirect, credentials in the environment) or
 * ./pinned-ssh.ts (the checked address only, the deploy key in a private file, the host's key trusted on first use),
 * and what a failure says never holds the credentials: git is given none on its command line or in a URL, and its
 * message is cut to one line.
 */
import type { GitStore } from './repositories.js';
import { RefLockTimeout } from './ref-lock.js';
import { GitCommandError, runGit, runGitStatus } from './run.js';
import { advertisedBranches } from './advertisement.js';
import { pinnedHttpGit, type PinnedAddress } from './pinned-http.js';
import { withPinnedSsh, type SshTransport } from './pinned-ssh.js';

/** A host reached by HTTP(S), with the Authorization header's value if it needs one. */
export interface HttpTransport {
  kind: 'http';
  pin: PinnedAddress;
  authorization?: string;
}

/** A branch of a remote repository, and how to reach it. */
export interface RemoteBranch {
  /**
   * `https://host/owner/name.git` (http only where the caller allows it), without credentials, or
   * `ssh://user@host[:port]/path` (the user is not a secret).
   */
  url: string;
  /** The full ref name on the host: `refs/heads/main`. */
  ref: string;
  /** Matches the URL's scheme. */
  transport: HttpTransport | SshTransport;
  /** Longest a transfer may take. */
  timeoutMs?: number;
}

/**
 * Why talking to the host failed: `auth` (the host refused the credentials), `host-key` (the SSH host showed another
 * key than the one trusted), `unreachable` (no answer, not a git repository there), `refused` (the host refused the
 * push: branch protection, a hook; `message` is its reason), `moved` (the branch is not where the push expected it),
 * `absent` (a fetch named a branch the host does not have).
 */
export class RemoteFailure extends Error {
  constructor(
    readonly reason: 'auth' | 'host-key' | 'unreachable' | 'refused' | 'moved' | 'absent',
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

/** What git adds below the reason whenever the ssh connection fails: no news. */
const GIT_SSH_TRAILER = /^(Could not read from remote repository\.|Please make sure you have the correct access rights|and the repository exists\.)$/;

/** The last line of git's message that says something. */
function lastLine(text: string): string {
  const lines = text
    .split('\n')
    .map((line) => line.trim().replace(/^(fatal|error): /, ''))
    .filter((line) => line.length > 0 && !GIT_SSH_TRAILER.test(line));
  return lines[lines.length - 1] ?? '';
}

/** The failure a git command's error stands for. */
function failureOf(error: unknown, what: string): RemoteFailure {
  if (!(error instanceof GitCommandError)) {
    const message = error instanceof Error ? error.message : String(error);
    return new RemoteFailure('unreachable', `${what}: ${message}`);
  }
  const text = error.stderr;
  // ssh's: a key other than the one trusted (changed, or of another type than the one recorded).
  if (/REMOTE HOST IDENTIFICATION HAS CHANGED|Host key verification failed|host key is known for .* requested strict checking/i.test(text)) {
    return new RemoteFailure('host-key', `${what}: the host showed another SSH host key than the one trusted`);
  }
  if (/Authentication failed|could not read Username|HTTP 401|HTTP 403|returned error: 40[13]|Permission denied \(publickey/i.test(text)) {
    return new RemoteFailure('auth', `${what}: the host refused the credentials (${lastLine(text)})`);
  }
  if (/stale info|\(fetch first\)|non-fast-forward/.test(text)) return new RemoteFailure('moved', `${what}: the branch moved on the host meanwhile`);
  if (/couldn't find remote ref/.test(text)) return new RemoteFailure('absent', `${what}: the host has no such branch`);
  // The host's own refusal: its hook's lines (`remote: ...`) and git's `! [remote rejected] ... (reason)`.
  const rejected = /\[remote rejected\][^(]*\((.*)\)/.exec(text)?.[1];
  if (rejected !== undefined) {
    const said = text.split('\n').filter((line) => line.startsWith('remote: ')).map((line) => line.slice(8).trim()).filter(Boolean);
    return new RemoteFailure('refused', `${what}: the host refused the push: ${[...said, rejected].join(' / ')}`);
  }
  return new RemoteFailure('unreachable', `${what}: ${lastLine(text) || `git ${error.args[0]} failed`}`);
}

async function runRemote(store: GitStore, spaceId: string, remote: RemoteBranch, command: string[], what: string): Promise<Buffer> {
  return runRemoteIn(store.repositoryPath(spaceId), remote, command, what);
}

/** Runs git `command` in the repository `gitDir`, talking to the host of `remote` as the top says. */
async function runRemoteIn(gitDir: string, remote: RemoteBranch, command: string[], what: string): Promise<Buffer> {
  const signal = AbortSignal.timeout(remote.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  const run = ({ args, env }: { args: string[]; env: Record<string, string | undefined> }) => runGit([...args, ...command], { gitDir, env, signal });
  const { transport } = remote;
  try {
    if (transport.kind === 'ssh') return await withPinnedSsh(transport, run);
    return await run(pinnedHttpGit(transport.pin, transport.authorization ? { Authorization: transport.authorization } : {}, { lowSpeedLimit: 1, lowSpeedTime: 60 }));
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

/** The largest ref advertisement parsed in this process. */
const MAX_PARSED_ADVERTISEMENT_BYTES = 512 * 1024;

/** What reads a URL over HTTP(S) for the ref reads that need no git process (the guarded fetcher). */
export interface AdvertisementReader {
  fetch(url: string, headers?: Record<string, string>): Promise<{ status: number; contentType: string; body: Buffer }>;
}

/**
 * `remoteBranches` without a git process, for a host reached over HTTP(S): its ref advertisement read with one GET
 * (`info/refs?service=git-upload-pack`, protocol v0) and parsed. A poll reads hundreds of repositories; a git process
 * each costs more than the answer. A host that does not answer as a smart-HTTP git server (a dumb one) is read by
 * git after all; one that refuses the credentials or cannot be reached fails as git would.
 */
export async function advertisedRemoteBranches(reader: AdvertisementReader, store: GitStore, spaceId: string, remote: RemoteBranch): Promise<Map<string, string>> {
  return (await advertisement(reader, remote)) ?? remoteBranches(store, spaceId, remote);
}

/** The branches of the host's ref advertisement (see advertisedRemoteBranches); undefined when they are git's to read. */
async function advertisement(reader: AdvertisementReader, remote: RemoteBranch): Promise<Map<string, string> | undefined> {
  if (remote.transport.kind !== 'http') return undefined;
  const what = `reading the branches of ${remote.url}`;
  let answer;
  try {
    answer = await reader.fetch(`${remote.url.replace(/\/+$/, '')}/info/refs?service=git-upload-pack`, {
      ...(remote.transport.authorization ? { authorization: remote.transport.authorization } : {}),
      'user-agent': 'git/quire',
    });
  } catch (error) {
    throw new RemoteFailure('unreachable', `${what}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (answer.status === 401 || answer.status === 403) throw new RemoteFailure('auth', `${what}: the host refused the credentials (HTTP ${answer.status})`);
  if (answer.status !== 200) throw new RemoteFailure('unreachable', `${what}: the host answered HTTP ${answer.status}`);
  // A repository with a huge ref list is left to git: its parse would hold the event loop (512 KiB, 7,500 branches:
  // under 25 ms here; 4 MiB took 120-200 ms).
  const parsable = answer.contentType.startsWith('application/x-git-upload-pack-advertisement') && answer.body.length <= MAX_PARSED_ADVERTISEMENT_BYTES;
  return parsable ? advertisedBranches(answer.body) : undefined;
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
 * Brings several branches of the host into refs of the space's repository in one fetch (each `[remote ref, local
 * ref]`, the local one moved whatever it held); `remote.ref` is not used. A branch the host no longer has fails the
 * fetch `absent`: the caller read the branches just before.
 */
export async function fetchRemoteBranches(store: GitStore, spaceId: string, remote: RemoteBranch, refs: ReadonlyArray<readonly [string, string]>): Promise<void> {
  if (refs.length === 0) return;
  const refspecs = refs.map(([theirs, ours]) => `+${theirs}:${ours}`);
  await runRemote(store, spaceId, remote, ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--', remote.url, ...refspecs], `fetching ${refs.length} branch${refs.length === 1 ? '' : 'es'} of ${remote.url}`);
}

/**
 * Brings the remote branch into the mirror of `key` (./repositories.ts mirrorPath), under the same ref name: the
 * commit it is at, or undefined when the host has no such branch (the mirror then forgets it). Credentials go as for
 * every transfer here (the environment, or a private file for one command): the mirror's config holds none, nor any
 * remote. A branch the mirror holds already costs the host a ref read and no fetch: with `reader`, over HTTP(S), one
 * GET of the ref advertisement and no git process (as the poll reads); otherwise git's fetch, which asks for no object
 * it has. One process writes a mirror at a time; a process that waited longer than a transfer may take fails
 * `unreachable`.
 */
export async function updateMirror(store: GitStore, key: string, remote: RemoteBranch, reader?: AdvertisementReader): Promise<string | undefined> {
  const what = `fetching ${remote.ref} of ${remote.url}`;
  try {
    return await store.withMirror(key, remote.timeoutMs ?? DEFAULT_TIMEOUT_MS, async (gitDir) => {
      const advertised = reader && (await advertisement(reader, remote))?.get(remote.ref);
      if (advertised !== undefined) {
        const held = await runGitStatus(['rev-parse', '--verify', '--quiet', '--end-of-options', `${remote.ref}^{commit}`], { gitDir, launcher: store.launcher });
        if (held.code === 0 && held.stdout.toString('utf8').trim() === advertised) return advertised;
      }
      try {
        await runRemoteIn(gitDir, remote, ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--', remote.url, `+${remote.ref}:${remote.ref}`], what);
      } catch (error) {
        if (!(error instanceof RemoteFailure && error.reason === 'absent')) throw error;
        await runGit(['update-ref', '-d', remote.ref], { gitDir, launcher: store.launcher });
        return undefined;
      }
      return (await runGit(['rev-parse', '--verify', '--end-of-options', `${remote.ref}^{commit}`], { gitDir, launcher: store.launcher })).toString('utf8').trim();
    });
  } catch (error) {
    if (error instanceof RefLockTimeout) throw new RemoteFailure('unreachable', `${what}: its local mirror stayed busy with another process's fetch; it will be tried again`);
    throw error;
  }
}

/**
 * Brings `ref` of the mirror of `key` into `localRef` of the space's repository (moved whatever it held), a fetch
 * between two local repositories: the commit `localRef` is at afterwards (what the mirror held when read, which a
 * later `updateMirror` may have moved on from the commit that one answered).
 */
export async function fetchFromMirror(store: GitStore, spaceId: string, key: string, ref: string, localRef: string): Promise<string> {
  const gitDir = store.repositoryPath(spaceId);
  try {
    await runGit(['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--', store.mirrorPath(key), `+${ref}:${localRef}`], { gitDir, launcher: store.launcher });
    return (await runGit(['rev-parse', '--verify', '--end-of-options', `${localRef}^{commit}`], { gitDir, launcher: store.launcher })).toString('utf8').trim();
  } catch (error) {
    throw failureOf(error, `fetching ${ref} from its local mirror`);
  }
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

/**
 * Deletes the remote branch, provided it is still at `expected` (a compare-and-swap, as pushes are). Throws
 * RemoteFailure `moved` when it is not, `refused` when the host says no.
 */
export async function deleteRemoteBranch(store: GitStore, spaceId: string, remote: RemoteBranch, expected: string): Promise<void> {
  if (!OID.test(expected)) throw new Error('deleteRemoteBranch: commits are full object ids');
  await runRemote(store, spaceId, remote, ['push', '--quiet', '--no-verify', `--force-with-lease=${remote.ref}:${expected}`, '--', remote.url, `:${remote.ref}`], `deleting ${remote.ref} of ${remote.url}`);
}
