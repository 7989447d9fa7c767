/**
 * Bringing a whole repository, with its history, into a repository of Quire's (repository imports): from a git
 * URL over git's smart HTTP, from a git bundle, or from the files of a repository (a zip of a `.git` folder or of a
 * bare repository). The result is one branch, `main`, of a bare repository laid out like a space's
 * (GitStore.repositoryPath), with the source's commits unchanged: same oids.
 *
 * Safety:
 * - Over HTTP, git connects only to the address the caller checked, follows no redirect and takes no credential but
 *   the headers given (./pinned-http.ts).
 * - Every transfer has a time limit and a size limit (the incoming pack is watched while it grows).
 * - Objects always arrive through git's pack protocol (index-pack hashes every object), also from a bundle or
 *   files; of a repository's files only objects, refs, packed-refs and HEAD are used, checked for their form:
 *   never its config, hooks or `objects/info/alternates` (which could point at any repository on this disk).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { GitStore } from './repositories.js';
import { GitCommandError, runGit } from './run.js';
import { pinnedHttpGit, type PinnedAddress } from './pinned-http.js';

export interface TransferLimits {
  timeoutMs: number;
  /** Bytes the repository's objects may take on disk. */
  maxBytes: number;
}

export const TRANSFER_LIMITS: Readonly<TransferLimits> = Object.freeze({ timeoutMs: 5 * 60 * 1000, maxBytes: 512 * 1024 * 1024 });

/** Why a transfer failed: `source` means the source is not what it should be (not a repository, no such ref). */
export class TransferFailure extends Error {
  constructor(
    readonly reason: 'timeout' | 'too-large' | 'source',
    message: string,
  ) {
    super(message);
  }
}

export type { PinnedAddress };

const MAIN = 'refs/heads/main';
const OID = /^[0-9a-f]{40}$/;
const REF_NAME = /^(HEAD|refs\/[A-Za-z0-9._/-]+)$/;

/** An empty bare repository at `id` (no hooks, no commit): what a transfer fills. Fails if it exists. */
export async function createEmptyRepository(store: GitStore, id: string): Promise<void> {
  const gitDir = store.repositoryPath(id);
  await fs.mkdir(path.dirname(gitDir), { recursive: true });
  await fs.mkdir(gitDir);
  await runGit(['init', '--bare', '--quiet', '--initial-branch=main', gitDir]);
}

/** Bytes under a folder (the objects of a repository, growing during a fetch). */
async function folderBytes(folder: string): Promise<number> {
  let total = 0;
  const entries = await fs.readdir(folder, { withFileTypes: true, recursive: true }).catch(() => []);
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const stat = await fs.stat(path.join(entry.parentPath ?? (entry as unknown as { path: string }).path, entry.name)).catch(() => undefined);
    total += stat?.size ?? 0;
  }
  return total;
}

/** Runs a git command that receives objects into `gitDir`, stopped when it takes too long or brings too much. */
async function receive(gitDir: string, args: string[], limits: TransferLimits, env: Record<string, string> = {}): Promise<void> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new TransferFailure('timeout', `took longer than ${Math.round(limits.timeoutMs / 1000)} s`)), limits.timeoutMs);
  const watcher = setInterval(() => {
    void folderBytes(path.join(gitDir, 'objects')).then((bytes) => {
      if (bytes > limits.maxBytes) controller.abort(new TransferFailure('too-large', `is larger than ${limits.maxBytes} bytes`));
    });
  }, 500);
  try {
    await runGit(args, { gitDir, env, signal: controller.signal });
  } catch (error) {
    if (error instanceof TransferFailure) throw error;
    if (error instanceof GitCommandError) throw new TransferFailure('source', lastLine(error.stderr) || `git ${args[0]} failed`);
    throw error;
  } finally {
    clearTimeout(timer);
    clearInterval(watcher);
  }
  if ((await folderBytes(path.join(gitDir, 'objects'))) > limits.maxBytes) throw new TransferFailure('too-large', `is larger than ${limits.maxBytes} bytes`);
}

function lastLine(text: string): string {
  const lines = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  return (lines[lines.length - 1] ?? '').replace(/^(fatal|error): /, '');
}

function refspec(ref: string | undefined): string {
  const source = ref ?? 'HEAD';
  if (!REF_NAME.test(source) && !/^[A-Za-z0-9._/-]+$/.test(source)) throw new TransferFailure('source', `"${source}" is not a ref name`);
  return `+${source}:${MAIN}`;
}

/**
 * Fetches `ref` (the remote's HEAD by default) of the repository at `url` (http or https) into main of the empty
 * repository `id`, with its whole history. git connects only to `pin.address`.
 */
export async function fetchFromUrl(store: GitStore, id: string, url: string, ref: string | undefined, pin: PinnedAddress, limits: TransferLimits = TRANSFER_LIMITS): Promise<void> {
  await fetchRefsFromUrl(store, id, url, [refspec(ref)], pin, {}, limits);
}

/**
 * Fetches `refspecs` of the repository at `url` (http or https) into the repository `id`. git connects only to
 * `pin.address`; `headers` (an Authorization) reach it through the environment, never the command line, where
 * other users of the machine could read them.
 */
export async function fetchRefsFromUrl(
  store: GitStore,
  id: string,
  url: string,
  refspecs: string[],
  pin: PinnedAddress,
  headers: Record<string, string> = {},
  limits: TransferLimits = TRANSFER_LIMITS,
): Promise<void> {
  const { args, env } = pinnedHttpGit(pin, headers, { lowSpeedLimit: 1000, lowSpeedTime: 30 });
  await receive(
    store.repositoryPath(id),
    [...args, 'fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--', url, ...refspecs],
    limits,
    env,
  );
}

/** The branch a bundle or repository offers when no ref is named: HEAD, else main, else master, else its only branch. */
function defaultRef(refs: string[]): string | undefined {
  for (const candidate of ['HEAD', 'refs/heads/main', 'refs/heads/master']) if (refs.includes(candidate)) return candidate;
  const branches = refs.filter((ref) => ref.startsWith('refs/heads/'));
  return branches.length === 1 ? branches[0] : undefined;
}

/** Fetches `ref` (see defaultRef) of a git bundle into main of the empty repository `id`. */
export async function fetchFromBundle(store: GitStore, id: string, bundle: Buffer, ref: string | undefined, limits: TransferLimits = TRANSFER_LIMITS): Promise<void> {
  const gitDir = store.repositoryPath(id);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-bundle-'));
  const file = path.join(dir, 'import.bundle');
  try {
    await fs.writeFile(file, bundle);
    let heads: string;
    try {
      // A bundle with prerequisites (an incremental one) cannot stand alone: verify says so.
      await runGit(['bundle', 'verify', '--quiet', file], { gitDir });
      heads = (await runGit(['bundle', 'list-heads', file], { gitDir })).toString('utf8');
    } catch (error) {
      if (error instanceof GitCommandError) throw new TransferFailure('source', `is not a complete git bundle: ${lastLine(error.stderr)}`);
      throw error;
    }
    const refs = heads
      .split('\n')
      .map((line) => line.split(' ')[1])
      .filter((name): name is string => Boolean(name));
    const chosen = ref ?? defaultRef(refs);
    if (!chosen) throw new TransferFailure('source', `names no HEAD, main or master branch; name the ref to import (it has ${refs.join(', ') || 'no refs'})`);
    await receive(gitDir, ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--', file, refspec(chosen)], limits);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

export interface RepositoryFile {
  /** Path inside the git directory (`objects/pack/pack-1.pack`, `refs/heads/main`, `HEAD`...). */
  path: string;
  bytes: Buffer;
}

const OBJECT_FILE = /^objects\/([0-9a-f]{2}\/[0-9a-f]{38}|pack\/pack-[0-9a-f]{40,64}\.(pack|idx))$/;

/**
 * Fetches `ref` (see defaultRef) of a repository given as the files of its git directory (a `.git` folder or a
 * bare repository, e.g. from a zip) into main of the empty repository `id`. Only objects, refs, packed-refs and
 * HEAD are taken, each checked for its form; the files go into a fresh repository of Quire's own first, and the
 * objects come over from there through the pack protocol, which checks each of them.
 */
export async function fetchFromRepositoryFiles(
  store: GitStore,
  id: string,
  files: RepositoryFile[],
  ref: string | undefined,
  limits: TransferLimits = TRANSFER_LIMITS,
): Promise<void> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-unpacked-'));
  const source = path.join(dir, 'source.git');
  try {
    await runGit(['init', '--bare', '--quiet', source]);
    const refs: string[] = [];
    for (const file of files) {
      const text = file.bytes.toString('utf8').trim();
      if (OBJECT_FILE.test(file.path)) {
        await fs.mkdir(path.dirname(path.join(source, file.path)), { recursive: true });
        await fs.writeFile(path.join(source, file.path), file.bytes);
      } else if (file.path === 'HEAD' || (REF_NAME.test(file.path) && file.path.startsWith('refs/') && !file.path.split('/').includes('..'))) {
        if (!OID.test(text) && !/^ref: refs\/[A-Za-z0-9._/-]+$/.test(text)) continue;
        await fs.mkdir(path.dirname(path.join(source, file.path)), { recursive: true });
        await fs.writeFile(path.join(source, file.path), `${text}\n`);
        refs.push(file.path);
      } else if (file.path === 'packed-refs') {
        const lines = file.bytes
          .toString('utf8')
          .split('\n')
          .filter((line) => /^(#.*|\^[0-9a-f]{40}|[0-9a-f]{40} refs\/[A-Za-z0-9._/-]+)$/.test(line));
        await fs.writeFile(path.join(source, 'packed-refs'), `${lines.join('\n')}\n`);
        for (const line of lines) if (OID.test(line.slice(0, 40)) && line[40] === ' ') refs.push(line.slice(41));
      }
    }
    const chosen = ref ?? defaultRef(refs);
    if (!chosen) throw new TransferFailure('source', 'holds no git repository (a .git folder with HEAD, refs and objects)');
    await receive(store.repositoryPath(id), ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--', source, refspec(chosen)], limits);
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/**
 * Copies main of repository `fromId` with its history into repository `toId`, as `refs/quire/import` (the caller
 * moves main to it by compare-and-swap). Objects arrive through the pack protocol.
 */
export async function bringBranch(store: GitStore, fromId: string, toId: string): Promise<void> {
  await bringRefs(store, fromId, toId, [`+${MAIN}:refs/quire/import`]);
}

/** Fetches `refspecs` of repository `fromId` into repository `toId`, under its ref lock, through the pack protocol. */
export async function bringRefs(store: GitStore, fromId: string, toId: string, refspecs: string[]): Promise<void> {
  await store.withRefLock(toId, () =>
    runGit(['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--', store.repositoryPath(fromId), ...refspecs], {
      gitDir: store.repositoryPath(toId),
    }),
  );
}
