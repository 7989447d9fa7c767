/**
 * Where space repositories live and how they are created, copied and removed. The only code that knows the
 * disk layout: `<dataDir>/repositories/<first two chars of id>/<id>.git`, and Git Sync's mirrors of other hosts'
 * branches, `<dataDir>/git-sync-mirrors/<first two hex digits>/<sha-256 of the mirror's key>.git`. A push's incoming
 * objects are read by ./incoming-push.ts.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { PUSH_CHANNEL_VARIABLE, PUSH_SERVER_PID_VARIABLE, PushChannels, QUARANTINE_VARIABLES, type PushChannel } from './push-channel.js';
import { PushesUnderWay } from './pushes-under-way.js';
import { RefLocks, type RefLock } from './ref-lock.js';
import { GitCommandError, runGit, runGitStatus, type RunGitOptions } from './run.js';
import { ProcessLauncher, type GitChild } from './launcher.js';
import { replaceFile } from '../replace-file.js';

const SAFE_ID = /^[a-zA-Z0-9_-]+$/;

export interface Signature {
  name: string;
  email: string;
}

export interface InitialFile {
  path: string;
  content: string;
}

export const QUIRE_SIGNATURE: Signature = { name: 'Quire', email: 'quire@localhost' };

/** The two programs behind git's smart HTTP protocol. */
export type GitService = 'upload-pack' | 'receive-pack';

/**
 * The pre-receive hook of every repository: a POSIX sh script that hands the push to the Quire process that spawned
 * this receive-pack (src/store/git/push-channel.ts) and prints its answer; no program starts per push. Without the
 * channel (git run on the repository directly, not through the Quire server) it refuses: nothing moves a ref
 * unchecked. Every expansion is quoted, so paths with spaces are safe.
 */
const PRE_RECEIVE_HOOK = `#!/bin/sh
# Installed by Quire. Every push is checked by the Quire server before any ref moves; do not edit (it is
# rewritten when it differs).
channel=$${PUSH_CHANNEL_VARIABLE}
if [ -z "$channel" ] || [ ! -p "$channel/request" ] || [ ! -p "$channel/answer" ]; then
  echo "Quire: pushes are accepted only through the Quire server (git over HTTP)" >&2
  exit 1
fi
if [ -n "$${PUSH_SERVER_PID_VARIABLE}" ] && ! kill -0 "$${PUSH_SERVER_PID_VARIABLE}" 2>/dev/null; then
  echo "Quire: the server that received this push is gone; nothing was changed: push again" >&2
  exit 1
fi
# The server holds both FIFOs open: these opens do not block, and its answer ends with an "exit N" line (a server
# gone meanwhile: end of file, refused).
exec 3<"$channel/answer"
{
${QUARANTINE_VARIABLES.map((name) => `  printf 'env ${name}=%s\\n' "$${name}"`).join('\n')}
  while read -r old new ref; do
    printf 'update %s %s %s\\n' "$old" "$new" "$ref"
  done
  printf 'end\\n'
} >"$channel/request"
status=1
while IFS= read -r line <&3; do
  case $line in
    'say '*) printf '%s\\n' "\${line#say }" >&2 ;;
    'exit '*) status=\${line#exit }; break ;;
  esac
done
exec 3<&-
exit "$status"
`;

/**
 * A signature git accepts. Git refuses an ident whose name is only "crud" (`.`, `,`, `:`, `;`, `<`, `>`, quotes,
 * spaces) and strips angle brackets and line breaks; display names are free text, so such names fall back to the
 * e-mail's local part, then to "Quire user".
 */
export function gitSignature(signature: Signature): Signature {
  const clean = (text: string) => text.replace(/[<>\0\r\n]/g, '').trim();
  const usable = (text: string) => /[^\s.,:;<>"'\\]/.test(text);
  const email = clean(signature.email);
  const candidates = [clean(signature.name), email.split('@')[0]];
  return { name: candidates.find(usable) ?? 'Quire user', email };
}

/**
 * git's own checks of every object a push brings (receive.fsckObjects), before the hook runs: a malformed tree
 * (a "/" inside an entry's name, an empty name, duplicate or unsorted entries, a bad .gitmodules) is refused. The
 * header quirks that old tools wrote into commits (bad time zones, dates, e-mails) only warn: real histories carry
 * them, and their content is sound. ".", ".." and ".git" entries are left to validatePush, which refuses them
 * naming the path (git would refuse them too, its strict mode making every default warning an error).
 */
const RECEIVE_CHECKS = [
  'receive.fsckObjects=true',
  'receive.fsck.fullPathname=error',
  'receive.fsck.emptyName=error',
  ...['hasDot', 'hasDotdot', 'hasDotgit'].map((id) => `receive.fsck.${id}=ignore`),
  ...['badDate', 'badDateOverflow', 'badEmail', 'badName', 'badTimezone', 'missingEmail', 'missingNameBeforeEmail', 'missingSpaceBeforeDate', 'missingSpaceBeforeEmail', 'zeroPaddedDate'].map(
    (id) => `receive.fsck.${id}=warn`,
  ),
];

/**
 * Partial clones and fetches (`git clone --filter=blob:none`): upload-pack takes object filters, and only the cheap
 * ones (no blobs, blobs up to a size, trees to a depth, objects of a type, and these combined); `sparse:oid` makes
 * the server walk every path against a pattern file and is left out. Nothing else is widened: wants stay limited to
 * what git allows by default (the advertised tips in protocol v0, objects this repository holds in v2, which is what
 * a partial clone's later fetch of missing blobs asks), never objects of another repository.
 */
const UPLOAD_FILTERS = [
  'uploadpack.allowFilter=true',
  'uploadpackfilter.allow=false',
  ...['blob:none', 'blob:limit', 'tree', 'object:type', 'combine'].map((filter) => `uploadpackfilter.${filter}.allow=true`),
];

/** How long a writer waits for the other writers of a repository before giving up (RefLockTimeout, a 503). */
export const REF_LOCK_TIMEOUT_MS = 30_000;

export class GitStore {
  readonly root: string;
  /** Git Sync's mirrors (see mirrorPath). */
  readonly mirrorsRoot: string;
  private readonly refLocks = new RefLocks();
  /** Turns of the writers of each space, in this process (see PushesUnderWay). */
  readonly pushesUnderWay = new PushesUnderWay();

  /** What starts its git processes (see launcher.ts). */
  readonly launcher: ProcessLauncher;
  private readonly pushChannels: PushChannels;

  /** `launcher`: the container's; none: git processes start directly. */
  constructor(dataDir: string, options: { launcher?: ProcessLauncher } = {}) {
    this.root = path.join(dataDir, 'repositories');
    this.mirrorsRoot = path.join(dataDir, 'git-sync-mirrors');
    this.launcher = options.launcher ?? new ProcessLauncher(Infinity);
    this.pushChannels = new PushChannels(this.launcher);
  }

  /** Closes what it keeps open between pushes (a push channel opened ahead). */
  close(): Promise<void> {
    return this.pushChannels.close();
  }

  private git(args: readonly string[], options: RunGitOptions = {}): Promise<Buffer> {
    return runGit(args, { ...options, launcher: this.launcher });
  }

  private gitStatus(args: readonly string[], options: RunGitOptions = {}): ReturnType<typeof runGitStatus> {
    return runGitStatus(args, { ...options, launcher: this.launcher });
  }

  /**
   * Takes the space's ref lock (src/store/git/ref-lock.ts): one writer of its refs at a time, across processes.
   * Every ref move of the server holds it; release it once. Waits at most `timeoutMs`, then rejects with
   * RefLockTimeout.
   */
  lockRefs(spaceId: string, timeoutMs = REF_LOCK_TIMEOUT_MS): Promise<RefLock> {
    return this.refLocks.acquire(this.repositoryPath(spaceId), timeoutMs);
  }

  /** Runs `work` holding the space's ref lock (see lockRefs). Never call another ref-moving method inside it. */
  withRefLock<T>(spaceId: string, work: () => Promise<T>): Promise<T> {
    return this.refLocks.withLock(this.repositoryPath(spaceId), REF_LOCK_TIMEOUT_MS, work);
  }

  /** A channel for the pre-receive hook of a receive-pack to be spawned (src/store/git/push-channel.ts). */
  openPushChannel(): Promise<PushChannel> {
    return this.pushChannels.open();
  }

  /** Absolute path of a space's bare repository. Ids outside `[a-zA-Z0-9_-]` are refused, so no `..` escapes. */
  repositoryPath(spaceId: string): string {
    if (!SAFE_ID.test(spaceId) || spaceId.length < 2) throw new Error(`unsafe repository id "${spaceId}"`);
    return path.join(this.root, spaceId.slice(0, 2), `${spaceId}.git`);
  }

  /**
   * Absolute path of the mirror of `key` (Git Sync's local copy of a host's branch, shared by the spaces that read it
   * alike: ../../domain/git-sync/mirrors.ts makes the key). Only the key's SHA-256 becomes the path: whatever the key holds
   * (a URL, a ref), nothing of it reaches the file system.
   */
  mirrorPath(key: string): string {
    const digest = crypto.createHash('sha256').update(key, 'utf8').digest('hex');
    return path.join(this.mirrorsRoot, digest.slice(0, 2), `${digest}.git`);
  }

  /**
   * Runs `work` on the mirror of `key` (made, empty, on first use) holding its ref lock, so one process at a time
   * writes it, across the processes sharing the data directory; waits at most `timeoutMs` (RefLockTimeout).
   */
  async withMirror<T>(key: string, timeoutMs: number, work: (gitDir: string) => Promise<T>): Promise<T> {
    const gitDir = this.mirrorPath(key);
    await fs.mkdir(gitDir, { recursive: true });
    return this.refLocks.withLock(gitDir, timeoutMs, async () => {
      // Under the lock, so two processes never init it at once; the lock file in the folder does not stop git.
      if (!(await fs.stat(path.join(gitDir, 'HEAD')).catch(() => undefined))) await this.git(['init', '--bare', '--quiet', gitDir]);
      return work(gitDir);
    });
  }

  /**
   * Removes the mirror of `key`, holding its lock so that no fetch through it is cut in half; waits at most
   * `timeoutMs` (RefLockTimeout).
   */
  async removeMirror(key: string, timeoutMs: number): Promise<void> {
    const gitDir = this.mirrorPath(key);
    if (!(await fs.stat(gitDir).catch(() => undefined))) return;
    await this.refLocks.withLock(gitDir, timeoutMs, () => fs.rm(gitDir, { recursive: true, force: true }));
  }

  /**
   * Creates the bare repository with a first commit on main holding `files`, and returns that commit's oid.
   * Objects are written with plumbing (hash-object, mktree, commit-tree), so no working tree is involved. Fails
   * (EEXIST) when the repository already exists; a repository left half-made by a failing step is removed.
   */
  async createRepository(spaceId: string, files: InitialFile[], message: string, author: Signature): Promise<string> {
    const gitDir = this.repositoryPath(spaceId);
    await fs.mkdir(path.dirname(gitDir), { recursive: true });
    // Claimed exclusively (EEXIST otherwise), so the cleanup below only ever removes what this call made.
    await fs.mkdir(gitDir);
    try {
      return await this.initialize(gitDir, files, message, author);
    } catch (error) {
      await fs.rm(gitDir, { recursive: true, force: true });
      throw error;
    }
  }

  private async initialize(gitDir: string, files: InitialFile[], message: string, author: Signature): Promise<string> {
    await this.git(['init', '--bare', '--quiet', '--initial-branch=main', gitDir]);
    // Pushes are checked by Quire itself; receive.denyNonFastForwards would block legitimate force-pushes to CRs.
    await this.git(['config', 'core.logAllRefUpdates', 'true'], { gitDir });
    await installHooks(gitDir);
    const tree = await this.writeFlatTree(gitDir, files);
    const commit = await writeCommit(this.launcher, gitDir, tree, [], message, author);
    // The all-zero old value makes this a compare-and-swap: it fails if main already exists.
    await this.refLocks.withLock(gitDir, REF_LOCK_TIMEOUT_MS, () => this.git(['update-ref', 'refs/heads/main', commit, '0'.repeat(40)], { gitDir }));
    return commit;
  }

  /** Files at the top level only; nested trees come with the content writer. */
  private async writeFlatTree(gitDir: string, files: InitialFile[]): Promise<string> {
    const entries: string[] = [];
    for (const file of files) {
      if (file.path.includes('/')) throw new Error('writeFlatTree: nested paths are not supported');
      const blob = (await this.git(['hash-object', '-w', '--stdin'], { gitDir, input: file.content })).toString().trim();
      entries.push(`100644 blob ${blob}\t${file.path}`);
    }
    return (await this.git(['mktree'], { gitDir, input: entries.join('\n') + '\n' })).toString().trim();
  }

  /**
   * Makes `toId` a copy of `fromId`'s main branch with its whole history. Change-request branches stay behind, and
   * so do their objects: the copy is packed from what main reaches (`--no-local`), not hard-linked from the whole
   * object store, since a copy may be given to people who never could read the original's change requests and
   * files are served by object id. Fails if `toId` exists; a half-made copy is removed.
   */
  async copyRepository(fromId: string, toId: string): Promise<void> {
    const from = this.repositoryPath(fromId);
    const to = this.repositoryPath(toId);
    await fs.mkdir(path.dirname(to), { recursive: true });
    try {
      await this.git(['clone', '--bare', '--quiet', '--no-local', '--single-branch', '--branch', 'main', '--no-tags', from, to]);
      // The copy stands alone: no remote pointing back at the original.
      await this.git(['remote', 'remove', 'origin'], { gitDir: to });
      await this.git(['config', 'core.logAllRefUpdates', 'true'], { gitDir: to });
      await installHooks(to);
    } catch (error) {
      await fs.rm(to, { recursive: true, force: true });
      throw error;
    }
  }

  async exists(spaceId: string): Promise<boolean> {
    try {
      await fs.access(path.join(this.repositoryPath(spaceId), 'HEAD'));
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Installs (or repairs) the repository's hooks; repositories made before hooks existed get them here, before
   * their first push. Cheap when they are in place (one read).
   */
  async ensureHooks(spaceId: string): Promise<void> {
    await installHooks(this.repositoryPath(spaceId));
  }

  /**
   * Starts `git upload-pack` or `git receive-pack` in stateless-RPC mode on the space's repository (git's smart
   * HTTP protocol): with `advertiseRefs`, it prints the ref advertisement and exits; otherwise it answers the
   * request written to its stdin. `env` reaches git and, for receive-pack, its hooks (GIT_PROTOCOL, the push
   * channel's variables). Hooks always come from the repository's own hooks folder, whatever the configuration says.
   */
  spawnService(spaceId: string, service: GitService, options: { advertiseRefs: boolean; env: Record<string, string> }): GitChild {
    const gitDir = this.repositoryPath(spaceId);
    const args = [
      ...(service === 'receive-pack' ? [...RECEIVE_CHECKS, `core.hooksPath=${path.join(gitDir, 'hooks')}`] : UPLOAD_FILTERS).flatMap((setting) => ['-c', setting]),
      service,
      '--stateless-rpc',
      ...(options.advertiseRefs ? ['--advertise-refs'] : []),
      gitDir,
    ];
    return this.launcher.spawn('git', args, { env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', ...options.env } });
  }

  /** Points `ref` at `oid`, whatever it pointed at (for refs only one writer can own, e.g. a new change request's). */
  async setRef(spaceId: string, ref: string, oid: string): Promise<void> {
    await this.withRefLock(spaceId, () => this.git(['update-ref', ref, oid], { gitDir: this.repositoryPath(spaceId) }));
  }

  /** True when `ancestor` is reachable from `descendant` (or is it). */
  async isAncestor(spaceId: string, ancestor: string, descendant: string): Promise<boolean> {
    try {
      await this.git(['merge-base', '--is-ancestor', ancestor, descendant], { gitDir: this.repositoryPath(spaceId) });
      return true;
    } catch (error) {
      if ((error as { exitCode?: number }).exitCode === 1) return false;
      throw error;
    }
  }

  /**
   * The branches under `prefix` (e.g. `refs/heads/change-requests/`) whose heads `commit` contains, with their
   * heads: one `git for-each-ref --merged` however many branches there are.
   */
  async branchesContainedIn(spaceId: string, commit: string, prefix: string): Promise<Map<string, string>> {
    const stdout = await this.git(['for-each-ref', `--merged=${commit}`, '--format=%(objectname) %(refname)', prefix], { gitDir: this.repositoryPath(spaceId) });
    const branches = new Map<string, string>();
    for (const line of stdout.toString('utf8').split('\n')) {
      const space = line.indexOf(' ');
      if (space > 0) branches.set(line.slice(space + 1), line.slice(0, space));
    }
    return branches;
  }

  /**
   * Merges two commits without a working tree (`git merge-tree --write-tree`): the merged tree, or the paths that
   * conflict (then nothing was written that anything points at).
   */
  async mergeTree(spaceId: string, ours: string, theirs: string): Promise<{ tree: string; conflicts: string[] }> {
    const { code, stdout, stderr } = await this.gitStatus(['merge-tree', '--write-tree', '--name-only', '--no-messages', '-z', ours, theirs], {
      gitDir: this.repositoryPath(spaceId),
    });
    if (code !== 0 && code !== 1) throw new Error(`git merge-tree failed (${code}): ${stderr.trim()}`);
    const [tree, ...paths] = stdout.toString('utf8').split('\0').filter((field) => field.length > 0);
    return { tree, conflicts: code === 1 ? [...new Set(paths)] : [] };
  }

  /** How many commits `to` has that `from` has not (all of `to`'s when `from` is undefined). */
  async countCommits(spaceId: string, to: string, from: string | undefined): Promise<number> {
    const stdout = await this.git(['rev-list', '--count', to, ...(from === undefined ? [] : [`^${from}`]), '--'], { gitDir: this.repositoryPath(spaceId) });
    return Number(stdout.toString().trim());
  }

  /** The best common ancestor of two commits, if any. */
  async mergeBase(spaceId: string, a: string, b: string): Promise<string | undefined> {
    const { code, stdout } = await this.gitStatus(['merge-base', a, b], { gitDir: this.repositoryPath(spaceId) });
    return code === 0 ? stdout.toString().trim() : undefined;
  }

  /**
   * What `git diff` shows from one commit to another (renames found), under `directory` ('' for the whole tree), at
   * most `maxBytes` of it: git is stopped once that much is read, and `truncated` says so.
   */
  async diffText(spaceId: string, from: string, to: string, directory: string, maxBytes: number): Promise<{ text: string; truncated: boolean }> {
    const args = ['--literal-pathspecs', 'diff', '--no-color', '--no-ext-diff', '--no-textconv', '-M', from, to, '--', ...(directory === '' ? [] : [directory])];
    const child = this.launcher.spawn('git', args, {
      env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', GIT_DIR: this.repositoryPath(spaceId) },
    });
    return new Promise((resolve, reject) => {
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      let size = 0;
      let truncated = false;
      child.stdout.on('data', (chunk: Buffer) => {
        if (truncated) return;
        out.push(chunk);
        size += chunk.length;
        if (size > maxBytes) {
          truncated = true;
          child.kill('SIGTERM');
        }
      });
      child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
      child.on('error', reject);
      child.on('close', (code) => {
        if (!truncated && code !== 0) reject(new GitCommandError(args, code, Buffer.concat(err).toString('utf8')));
        else resolve({ text: Buffer.concat(out).subarray(0, maxBytes).toString('utf8'), truncated });
      });
      // git reads nothing here: an early exit closing its stdin is no error.
      child.stdin.on('error', () => undefined);
      child.stdin.end();
    });
  }

  /**
   * Three-way merge of texts with `git merge-file` (`union` keeps both sides of a conflict, ours first): the result
   * and whether it was clean.
   */
  async mergeText(base: string, ours: string, theirs: string, options: { union?: boolean } = {}): Promise<{ text: string; clean: boolean }> {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-merge-'));
    try {
      const files = ['ours', 'base', 'theirs'].map((name) => path.join(dir, name));
      await Promise.all([fs.writeFile(files[0], ours), fs.writeFile(files[1], base), fs.writeFile(files[2], theirs)]);
      const { code, stdout } = await this.gitStatus(['merge-file', '-p', ...(options.union ? ['--union'] : []), ...files]);
      if (code < 0 || code > 127) throw new Error(`git merge-file failed (${code})`);
      return { text: stdout.toString('utf8'), clean: code === 0 };
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }

  /**
   * A copy of `tree` with some files' contents replaced or added (a temporary index; the repository's refs do not
   * move). However many files, four git processes: the blobs are written by one `hash-object --stdin-paths` and
   * entered by one `update-index --index-info`.
   */
  async replaceInTree(spaceId: string, tree: string, files: Map<string, string | Buffer>): Promise<string> {
    const gitDir = this.repositoryPath(spaceId);
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-index-'));
    const env = { GIT_INDEX_FILE: path.join(dir, 'index') };
    try {
      await this.git(['read-tree', tree], { gitDir, env });
      const entries = [...files];
      if (entries.length > 0) {
        const blobs = entries.map((_, i) => path.join(dir, `blob-${i}`));
        await Promise.all(entries.map(([, content], i) => fs.writeFile(blobs[i], content)));
        const out = await this.git(['hash-object', '-w', '--no-filters', '--stdin-paths'], { gitDir, input: `${blobs.join('\n')}\n` });
        const oids = out.toString('utf8').trim().split('\n');
        if (oids.length !== entries.length) throw new Error(`git hash-object wrote ${oids.length} blobs for ${entries.length} files`);
        const info = entries.map(([file], i) => `100644 ${oids[i]}\t${file}\0`).join('');
        await this.git(['update-index', '-z', '--index-info'], { gitDir, env, input: info });
      }
      return (await this.git(['write-tree'], { gitDir, env })).toString().trim();
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  }

  /** The newest commit reachable from `ref` whose message contains `text`; undefined when none does (or no ref). */
  async findCommitByMessage(spaceId: string, ref: string, text: string): Promise<string | undefined> {
    const { code, stdout } = await this.gitStatus(['log', '-n', '1', '--format=%H', '--fixed-strings', `--grep=${text}`, ref, '--'], {
      gitDir: this.repositoryPath(spaceId),
    });
    const oid = stdout.toString('utf8').trim();
    return code === 0 && oid !== '' ? oid : undefined;
  }

  /** Writes a commit of `tree` with `parents`, authored by `author` and committed by Quire; returns its oid. */
  async commitTree(spaceId: string, tree: string, parents: string[], message: string, author: Signature): Promise<string> {
    return writeCommit(this.launcher, this.repositoryPath(spaceId), tree, parents, message, author);
  }

  /** Moves `ref` from `oldOid` to `newOid` only if it still points at `oldOid` (compare-and-swap); false otherwise. */
  async compareAndSwapRef(spaceId: string, ref: string, newOid: string, oldOid: string): Promise<boolean> {
    const { code } = await this.withRefLock(spaceId, () => this.gitStatus(['update-ref', ref, newOid, oldOid], { gitDir: this.repositoryPath(spaceId) }));
    return code === 0;
  }

  /** Removes the repository for good. */
  async removeRepository(spaceId: string): Promise<void> {
    await fs.rm(this.repositoryPath(spaceId), { recursive: true, force: true });
  }
}

/** A commit of `tree` with `parents`, authored by `author` and committed by Quire, now; returns its oid. */
async function writeCommit(launcher: ProcessLauncher, gitDir: string, tree: string, parents: string[], message: string, author: Signature): Promise<string> {
  const signature = gitSignature(author);
  const when = `${Math.floor(Date.now() / 1000)} +0000`;
  const env = {
    GIT_AUTHOR_NAME: signature.name,
    GIT_AUTHOR_EMAIL: signature.email,
    GIT_AUTHOR_DATE: when,
    GIT_COMMITTER_NAME: QUIRE_SIGNATURE.name,
    GIT_COMMITTER_EMAIL: QUIRE_SIGNATURE.email,
    GIT_COMMITTER_DATE: when,
  };
  const args = ['commit-tree', tree, ...parents.flatMap((p) => ['-p', p]), '-m', message];
  return (await runGit(args, { gitDir, env, launcher })).toString().trim();
}

/** Writes the hook files that differ from Quire's (atomically: a push running at the same time sees old or new). */
async function installHooks(gitDir: string): Promise<void> {
  const file = path.join(gitDir, 'hooks', 'pre-receive');
  const current = await fs.readFile(file, 'utf8').catch(() => undefined);
  if (current === PRE_RECEIVE_HOOK && ((await fs.stat(file)).mode & 0o111) !== 0) return;
  await fs.mkdir(path.dirname(file), { recursive: true });
  await replaceFile(file, PRE_RECEIVE_HOOK, 0o755);
}
