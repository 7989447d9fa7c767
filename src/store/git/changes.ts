/**
 * What each commit changed against its first parent, for many commits in one `git diff-tree --stdin` process
 * (renames detected by git, `-M`). The history facts (src/domain/content/history.ts) are built from these changes,
 * so a long history costs one process, not one per commit, and no tree is listed whole except a root commit's.
 */
import type { GitStore } from './repositories.js';

/** One changed path: `A`dded, `M`odified, `T`ype changed, `D`eleted, `R`enamed (from `from`), `C`opied. */
export interface PathChange {
  status: 'A' | 'M' | 'T' | 'D' | 'R' | 'C';
  path: string;
  /** The source path of a rename or copy. */
  from?: string;
  /** The new blob oid (all zeros for a deletion). */
  oid: string;
  mode: string;
}

export interface CommitChanges {
  oid: string;
  changes: PathChange[];
}

/** A commit to diff, against `parent` (its first parent), or against nothing (a root commit). */
export interface CommitToDiff {
  oid: string;
  parent?: string;
}

const OID = /^[0-9a-f]{40}$/;

/**
 * Reads git's `-z --raw` output as it streams: a header token per commit (its oid, printed because of
 * `--always`), then per change a `:modes oids status` token followed by one path, or two for renames and copies.
 * Paths are consumed by count, so a path that looks like a header or an entry is never mistaken for one.
 */
class RawDiffParser {
  private pending: Buffer = Buffer.alloc(0);
  private paths: { status: PathChange['status']; mode: string; oid: string; needed: number; got: string[] } | undefined;
  private current: CommitChanges | undefined;
  readonly done: CommitChanges[] = [];

  push(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    let start = 0;
    for (let nul = this.pending.indexOf(0, start); nul >= 0; nul = this.pending.indexOf(0, start)) {
      this.token(this.pending.subarray(start, nul));
      start = nul + 1;
    }
    this.pending = this.pending.subarray(start);
  }

  end(): void {
    if (this.current) this.done.push(this.current);
    this.current = undefined;
  }

  private token(bytes: Buffer): void {
    if (this.paths) {
      this.paths.got.push(bytes.toString('utf8'));
      if (this.paths.got.length === this.paths.needed) {
        const { status, mode, oid, got } = this.paths;
        this.current!.changes.push(got.length === 2 ? { status, from: got[0], path: got[1], oid, mode } : { status, path: got[0], oid, mode });
        this.paths = undefined;
      }
      return;
    }
    const text = bytes.toString('latin1').replace(/^\n/, '');
    if (text.startsWith(':')) {
      // `:<old mode> <new mode> <old oid> <new oid> <status letter and score, e.g. R087>`
      const [, mode, , oid, score] = text.slice(1).split(' ');
      const status = (score ?? 'M')[0] as PathChange['status'];
      this.paths = { status, mode, oid, needed: status === 'R' || status === 'C' ? 2 : 1, got: [] };
      return;
    }
    if (OID.test(text)) {
      if (this.current) this.done.push(this.current);
      this.current = { oid: text, changes: [] };
    }
  }
}

/**
 * The changes of each commit against its first parent, in the order given, yielded as git produces them. One
 * `git diff-tree --stdin` process for the whole list.
 */
export async function* commitChanges(store: GitStore, spaceId: string, commits: CommitToDiff[]): AsyncGenerator<CommitChanges> {
  if (commits.length === 0) return;
  const child = store.launcher.spawn('git', ['diff-tree', '--stdin', '-r', '-M', '-z', '--raw', '--always', '--root', '--no-abbrev', '--no-color'], {
    env: { ...process.env, GIT_DIR: store.repositoryPath(spaceId), GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < 4096) stderr += chunk.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  // Not awaited when the caller stops reading early (then the process is stopped below).
  exited.catch(() => {});
  child.stdin.on('error', () => {
    // git may exit early (a missing object); its exit code tells.
  });
  child.stdin.end(commits.map((c) => (c.parent ? `${c.oid} ${c.parent}\n` : `${c.oid}\n`)).join(''));
  const parser = new RawDiffParser();
  try {
    for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
      parser.push(chunk);
      // The newest commit may still be receiving entries: yield all but it.
      while (parser.done.length > 0) yield parser.done.shift()!;
    }
    parser.end();
    while (parser.done.length > 0) yield parser.done.shift()!;
    const code = await exited;
    if (code !== 0) throw new Error(`git diff-tree failed (${code}): ${stderr.trim()}`);
  } finally {
    if (child.exitCode === null) child.kill();
  }
}
