/**
 * A push's incoming objects, read in git's quarantine environment while its pre-receive hook waits: IncomingPush,
 * what the push checks read (PushedObjects, src/content/validate-push.ts). Apart from ./repositories.ts, which
 * creates and writes repositories: this only reads a push not yet accepted.
 */
import type { TreeEntry } from '../../content/model.js';
import type { PushedObjects, TreeChange } from '../../content/validate-push.js';
import { runGit } from './run.js';
import type { ProcessLauncher } from './launcher.js';
import { CatFileProcess } from './catfile.js';
import { parseCommit } from './reader.js';

const ZERO_OID = /^0+$/;
const OID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

/**
 * What a pre-receive hook can see of the push being received: git keeps the incoming objects in a quarantine
 * directory that `env` (GIT_OBJECT_DIRECTORY, GIT_ALTERNATE_OBJECT_DIRECTORIES, GIT_QUARANTINE_PATH) makes readable,
 * and the refs have not moved yet. Objects are read through one `git cat-file` process, started on first use (close
 * it when done); every other method runs at most one git process, whatever the size of the push.
 */
export class IncomingPush implements PushedObjects {
  private catFile: CatFileProcess | undefined;
  /** The tree diffs asked for (treeChanges), by `from to`: changedEntries reuses them rather than diff again. */
  private readonly diffs = new Map<string, Promise<TreeChange[]>>();

  constructor(
    readonly gitDir: string,
    readonly env: Record<string, string>,
    private readonly launcher?: ProcessLauncher,
  ) {}

  private run(args: string[], input?: string): Promise<Buffer> {
    return runGit(args, { gitDir: this.gitDir, env: this.env, input, launcher: this.launcher });
  }

  private objects(): CatFileProcess {
    this.catFile ??= new CatFileProcess(this.gitDir, this.env, this.launcher);
    return this.catFile;
  }

  /** Ends the object reader. */
  close(): void {
    this.catFile?.close();
  }

  /** Type and size of each object; missing objects are left out. */
  async objectInfo(oids: readonly string[]): Promise<Map<string, { type: string; size: number }>> {
    const unique = [...new Set(oids)];
    const info = new Map<string, { type: string; size: number }>();
    if (unique.length === 0) return info;
    for (const found of await this.objects().infoMany(unique)) if (found) info.set(found.oid, { type: found.type, size: found.size });
    return info;
  }

  /**
   * What each object leads to through annotated tags (git's `<oid>^{}`: a tag of a tag of a commit leads to the
   * commit; any other object leads to itself): the final object's oid and type. Missing ones are left out.
   */
  async peeled(oids: readonly string[]): Promise<Map<string, { oid: string; type: string }>> {
    const unique = [...new Set(oids)].filter((oid) => OID.test(oid));
    const peeled = new Map<string, { oid: string; type: string }>();
    if (unique.length === 0) return peeled;
    const found = await this.objects().infoMany(unique.map((oid) => `${oid}^{}`));
    unique.forEach((oid, i) => {
      const target = found[i];
      if (target) peeled.set(oid, { oid: target.oid, type: target.type });
    });
    return peeled;
  }

  /** Commits reachable from `tips` that no ref of the repository reaches yet: what the push brings, oldest first. */
  async newCommits(tips: readonly string[]): Promise<string[]> {
    const wanted = tips.filter((oid) => OID.test(oid) && !ZERO_OID.test(oid));
    if (wanted.length === 0) return [];
    const out = await this.run(['rev-list', '--reverse', ...wanted, '--not', '--all']);
    return out.toString('utf8').split('\n').filter((line) => line.length > 0);
  }

  /**
   * Tree entries the commits add or change relative to each of their parents (the whole tree of a root commit),
   * without deletions; recursive, so entries are files, symlinks (mode 120000) and submodules (160000).
   */
  async changedEntries(commits: readonly string[]): Promise<Array<{ path: string; mode: string; oid: string }>> {
    if (commits.length === 0) return [];
    // A diff that failed is asked again below.
    const diffed = await this.diffedAgainstParents(commits).catch(() => undefined);
    if (diffed) {
      const entries = new Map<string, { path: string; mode: string; oid: string }>();
      for (const change of diffed) {
        if (change.newMode !== '000000') entries.set(`${change.newMode} ${change.newOid} ${change.path}`, { path: change.path, mode: change.newMode, oid: change.newOid });
      }
      return [...entries.values()];
    }
    const out = await this.run(['diff-tree', '--stdin', '-r', '-z', '-m', '--root', '--no-commit-id', '--no-renames', '--no-abbrev'], `${commits.join('\n')}\n`);
    const fields = out.toString('utf8').split('\0');
    const entries = new Map<string, { path: string; mode: string; oid: string }>();
    for (let i = 0; i + 1 < fields.length; i++) {
      if (!fields[i].startsWith(':')) continue;
      const [, newMode, , newOid] = fields[i].slice(1).split(' ');
      const entryPath = fields[++i];
      if (newMode === '000000') continue;
      entries.set(`${newMode} ${newOid} ${entryPath}`, { path: entryPath, mode: newMode, oid: newOid });
    }
    return [...entries.values()];
  }

  /**
   * What each commit changed against its only parent, in the commits' order, when treeChanges already diffed every
   * one of them (a push of one commit onto its branch's previous tip, the common case, diffs once instead of
   * twice); undefined otherwise.
   */
  private async diffedAgainstParents(commits: readonly string[]): Promise<TreeChange[] | undefined> {
    if (this.diffs.size === 0) return undefined;
    const objects = await this.objects().readMany(commits);
    const diffs: Array<Promise<TreeChange[]>> = [];
    for (const [i, oid] of commits.entries()) {
      const object = objects[i];
      const parents = object?.type === 'commit' ? parseCommit(oid, object.data).parents : [];
      const diff = parents.length === 1 ? this.diffs.get(`${parents[0]} ${oid}`) : undefined;
      if (!diff) return undefined;
      diffs.push(diff);
    }
    return (await Promise.all(diffs)).flat();
  }

  /** How the tree of commit `to` differs from that of `from`: each path added, changed or deleted (no renames). */
  treeChanges(from: string, to: string): Promise<TreeChange[]> {
    const key = `${from} ${to}`;
    let diff = this.diffs.get(key);
    if (!diff) {
      diff = this.diffTrees(from, to);
      this.diffs.set(key, diff);
    }
    return diff;
  }

  private async diffTrees(from: string, to: string): Promise<TreeChange[]> {
    const out = await this.run(['diff-tree', '-r', '-z', '--no-renames', '--no-abbrev', from, to]);
    const fields = out.toString('utf8').split('\0');
    const changes: TreeChange[] = [];
    for (let i = 0; i + 1 < fields.length; i++) {
      if (!fields[i].startsWith(':')) continue;
      const [oldMode, newMode, , newOid] = fields[i].slice(1).split(' ');
      changes.push({ path: fields[++i], oldMode, newMode, newOid });
    }
    return changes;
  }

  /** Every blob of a commit's tree (files, symlinks, submodules) with its size; one `ls-tree` process. */
  async listTree(commit: string): Promise<TreeEntry[]> {
    const out = await this.run(['ls-tree', '-r', '-l', '-z', '--full-tree', commit]);
    const entries: TreeEntry[] = [];
    for (const record of out.toString('utf8').split('\0')) {
      const tab = record.indexOf('\t');
      if (tab < 0) continue;
      const [mode, , oid, size] = record.slice(0, tab).split(/ +/);
      entries.push({ path: record.slice(tab + 1), mode, oid, size: size === '-' ? 0 : Number(size) });
    }
    return entries;
  }

  /** The contents of blobs (for small ones: symlink targets, markdown files); missing ones and other objects are left out. */
  async readBlobs(oids: readonly string[]): Promise<Map<string, Buffer>> {
    const unique = [...new Set(oids)];
    const blobs = new Map<string, Buffer>();
    if (unique.length === 0) return blobs;
    for (const found of await this.objects().readMany(unique)) if (found?.type === 'blob') blobs.set(found.oid, found.data);
    return blobs;
  }
}
