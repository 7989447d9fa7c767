/**
 * The repositories the harness is given, read with the git client: a bare repository (or any git directory), a
 * folder with a `.git`, or a folder of content without git (committed once into a temporary repository, without
 * writing anything into the folder). Sources are only read: pushes go from them, never into them.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

export interface GitRun {
  stdout: string;
  stderr: string;
}

/** Runs git; `safe.directory=*` so repositories owned by another user (mirrors) can be read. */
export async function git(env: NodeJS.ProcessEnv, args: string[], cwd?: string): Promise<GitRun> {
  try {
    return await exec('git', ['-c', 'safe.directory=*', ...args], { cwd, env, maxBuffer: 256 * 1024 * 1024 });
  } catch (error) {
    const e = error as Error & { stderr?: string };
    const said = (e.stderr || e.message)
      .split('\n')
      .filter((line) => line.trim() !== '' && !/^(hint:|To )/.test(line))
      .join(' / ');
    throw new Error(`git ${args.filter((a) => !a.includes('://')).join(' ')}: ${said}`, { cause: error });
  }
}

export interface TreeBlob {
  mode: string;
  oid: string;
  path: string;
}

export interface SourceRepository {
  /** Display name: the folder's name (the parent's for `NAME/repo` and `NAME/.git`). */
  name: string;
  /** The argument as given. */
  input: string;
  gitDir: string;
  /** The commit HEAD names: what is pushed. */
  head: string;
  /** Set when objects were missing and `fillMissing` rewrote the history: how many blobs were replaced. */
  filledBlobs?: number;
  commits: number;
  merges: number;
  /** Every blob of HEAD's tree (no submodules). */
  blobs: TreeBlob[];
  /** A file of HEAD's tree as text, or undefined when absent. */
  readText(gitPath: string): Promise<string | undefined>;
  /** Removes what opening made (the temporary repository of a content folder). */
  dispose(): Promise<void>;
}

async function exists(file: string): Promise<boolean> {
  return fs.stat(file).then(
    () => true,
    () => false,
  );
}

/** `x/AxonIQ+reference-guide/repo/.git` -> `AxonIQ+reference-guide`. */
export function displayName(input: string): string {
  const segments = path.resolve(input).split(path.sep).filter(Boolean);
  if (segments[segments.length - 1] === '.git') segments.pop();
  const last = segments[segments.length - 1] ?? input;
  if (last === 'repo' && segments.length > 1) return segments[segments.length - 2];
  return last.replace(/\.git$/, '');
}

async function isGitDirectory(dir: string): Promise<boolean> {
  return (await exists(path.join(dir, 'HEAD'))) && (await exists(path.join(dir, 'objects'))) && (await exists(path.join(dir, 'refs')));
}

export interface OpenOptions {
  /**
   * A history whose blobs are not all there (a mirror without its largest files) cannot be pushed as it is. With
   * this set, it is copied (fast-export / fast-import, sharing the source's objects) with a small placeholder blob
   * in place of each missing one: the same shape, paths and messages, other commit ids from the first commit that
   * holds a placeholder (and from any signed commit: fast-export drops signatures). Without it, such a source fails.
   */
  fillMissing?: boolean;
}

/** Opens one argument of the harness (see the top of this file). */
export async function openSource(input: string, env: NodeJS.ProcessEnv, options: OpenOptions = {}): Promise<SourceRepository> {
  const full = path.resolve(input);
  if (!(await exists(full))) throw new Error(`${input}: no such file or folder`);
  let gitDir: string;
  const temporaries: string[] = [];
  if (await exists(path.join(full, '.git'))) {
    gitDir = (await git(env, ['-C', full, 'rev-parse', '--absolute-git-dir'])).stdout.trim();
  } else if (await isGitDirectory(full)) {
    gitDir = full;
  } else {
    gitDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-conformance-source-'));
    temporaries.push(gitDir);
    await git(env, ['init', '--quiet', '--bare', gitDir]);
    const work = ['--git-dir', gitDir, '--work-tree', full];
    await git(env, [...work, 'add', '--all']);
    await git(env, [...work, 'commit', '--quiet', '--allow-empty', '-m', `Content of ${displayName(input)}`]);
  }
  let at = ['--git-dir', gitDir];
  let head = (await git(env, [...at, 'rev-parse', '--verify', 'HEAD^{commit}'])).stdout.trim();
  const missing = (await git(env, [...at, 'rev-list', '--objects', '--missing=print', head])).stdout
    .split('\n')
    .filter((line) => line.startsWith('?'))
    .map((line) => line.slice(1));
  let filledBlobs: number | undefined;
  if (missing.length) {
    if (!options.fillMissing) {
      await Promise.all(temporaries.map((dir) => fs.rm(dir, { recursive: true, force: true })));
      throw new Error(`the repository lacks ${missing.length} objects of its history (${missing.slice(0, 2).join(', ')}...): it cannot be pushed as it is (--fill-missing pushes a copy with placeholders)`);
    }
    const copy = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-conformance-source-'));
    temporaries.push(copy);
    head = await copyWithPlaceholders(env, gitDir, copy, new Set(missing));
    gitDir = copy;
    at = ['--git-dir', gitDir];
    filledBlobs = missing.length;
  }
  const [commits, merges, tree] = await Promise.all([
    git(env, [...at, 'rev-list', '--count', head]),
    git(env, [...at, 'rev-list', '--count', '--merges', head]),
    git(env, [...at, 'ls-tree', '-r', '-z', '--full-tree', head]),
  ]);
  const blobs: TreeBlob[] = [];
  for (const record of tree.stdout.split('\0')) {
    const match = /^(\d+) (\w+) ([0-9a-f]+)\t([\s\S]*)$/.exec(record);
    if (match && match[2] === 'blob') blobs.push({ mode: match[1], oid: match[3], path: match[4] });
  }
  const byPath = new Map(blobs.map((b) => [b.path, b]));
  return {
    name: displayName(input),
    input,
    gitDir,
    head,
    filledBlobs,
    commits: Number(commits.stdout.trim()),
    merges: Number(merges.stdout.trim()),
    blobs,
    async readText(gitPath) {
      const blob = byPath.get(gitPath);
      if (!blob) return undefined;
      return (await git(env, [...at, 'cat-file', 'blob', blob.oid])).stdout;
    },
    dispose: async () => {
      await Promise.all(temporaries.map((dir) => fs.rm(dir, { recursive: true, force: true })));
    },
  };
}

/** Writes `bytes` to a child's stdin and collects its stdout. */
function pipe(env: NodeJS.ProcessEnv, args: string[], input: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', ['-c', 'safe.directory=*', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`git ${args.join(' ')}: ${stderr.trim()}`))));
    child.stdin.end(input);
  });
}

/**
 * Copies the history of `gitDir`'s HEAD into a new repository `copy` that borrows its objects (alternates), each
 * missing blob replaced by a placeholder: the `--no-data` fast-export stream names blobs by oid, so only the
 * `M <mode> <oid> <path>` lines of missing oids change (commit messages, `data <n>` blocks, are copied untouched).
 * Answers the copy's head.
 */
async function copyWithPlaceholders(env: NodeJS.ProcessEnv, gitDir: string, copy: string, missing: Set<string>): Promise<string> {
  await git(env, ['init', '--quiet', '--bare', copy]);
  await fs.writeFile(path.join(copy, 'objects/info/alternates'), `${path.resolve(gitDir, 'objects')}\n`);
  const placeholders = new Map<string, string>();
  for (const oid of missing) {
    placeholders.set(oid, (await pipe(env, ['--git-dir', copy, 'hash-object', '-w', '--stdin'], Buffer.from(`placeholder for the missing blob ${oid}\n`))).trim());
  }
  // fast-export names commits by the ref HEAD points at (HEAD itself when detached).
  const ref = (await git(env, ['--git-dir', gitDir, 'symbolic-ref', '-q', 'HEAD']).catch(() => ({ stdout: 'HEAD' }))).stdout.trim();
  const stream = await new Promise<Buffer>((resolve, reject) => {
    const args = ['--git-dir', gitDir, 'fast-export', '--no-data', '--reencode=no', '--signed-tags=strip', '--refspec', `${ref}:refs/heads/main`, ref];
    const child = spawn('git', ['-c', 'safe.directory=*', ...args], { env });
    const chunks: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => chunks.push(d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(chunks)) : reject(new Error(`git fast-export: ${stderr.trim()}`))));
  });
  const out: Buffer[] = [];
  let at = 0;
  while (at < stream.length) {
    let end = stream.indexOf(0x0a, at);
    if (end < 0) end = stream.length;
    const line = stream.subarray(at, end).toString('latin1');
    const data = /^data (\d+)$/.exec(line);
    if (data) {
      const next = end + 1 + Number(data[1]);
      out.push(stream.subarray(at, next));
      at = next;
      continue;
    }
    const modify = /^M (\d+) ([0-9a-f]{40}) /.exec(line);
    const placeholder = modify ? placeholders.get(modify[2]) : undefined;
    out.push(placeholder ? Buffer.from(`M ${modify![1]} ${placeholder} ${line.slice(modify![0].length)}`, 'latin1') : stream.subarray(at, end), Buffer.from('\n'));
    at = end + 1;
  }
  await pipe(env, ['--git-dir', copy, 'fast-import', '--quiet'], Buffer.concat(out));
  await git(env, ['--git-dir', copy, 'symbolic-ref', 'HEAD', 'refs/heads/main']);
  return (await git(env, ['--git-dir', copy, 'rev-parse', 'refs/heads/main'])).stdout.trim();
}
