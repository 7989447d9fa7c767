/**
 * Reads repositories: refs straight from the ref files (always fresh, whichever process wrote them), objects
 * through one long-lived cat-file process per active repository (a bounded pool; idle ones are closed).
 */
import { readFileSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { GitChild } from './launcher.js';
import type { GitService, GitStore } from './repositories.js';
import { receivePackAdvertisement, receivePackCapabilities } from './advertisement.js';
import { CatFileProcess, type GitObject } from './catfile.js';
import { writeBlobFiles, type BlobFile } from './blob-files.js';

/** Everything a git process prints, once it exited with 0. */
function collect(child: GitChild): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const out: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.stdin.end();
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`git exited with ${code}: ${stderr.trim()}`))));
  });
}

export interface CommitObject {
  oid: string;
  tree: string;
  parents: string[];
  authorName: string;
  authorEmail: string;
  /** ISO-8601 author and committer dates. */
  authoredAt: string;
  committedAt: string;
  committerName: string;
  committerEmail: string;
  message: string;
}

export interface BlobEntry {
  path: string;
  mode: string;
  oid: string;
  size: number;
}

export interface TreeItem {
  name: string;
  mode: string;
  oid: string;
  /** True for a subtree. */
  isTree: boolean;
}

const OID = /^[0-9a-f]{40}$/;
/** A ref name as git writes them (check-ref-format's forbidden characters and `..` are never in one). */
const REF_NAME = /^refs\/(?!.*\.\.)[^\s\0-\x1f\x7f~^:?*[\\]+$/;

function parseSignature(line: string): { name: string; email: string; date: string } {
  const match = /^(.*?) <([^>]*)> (\d+) ([+-]\d{4})$/.exec(line);
  if (!match) return { name: line, email: '', date: new Date(0).toISOString() };
  return { name: match[1], email: match[2], date: new Date(Number(match[3]) * 1000).toISOString() };
}

export function parseCommit(oid: string, data: Buffer): CommitObject {
  const text = data.toString('utf8');
  const split = text.indexOf('\n\n');
  const headers = (split < 0 ? text : text.slice(0, split)).split('\n');
  const message = split < 0 ? '' : text.slice(split + 2);
  const commit: CommitObject = {
    oid,
    tree: '',
    parents: [],
    authorName: '',
    authorEmail: '',
    authoredAt: '',
    committedAt: '',
    committerName: '',
    committerEmail: '',
    message,
  };
  for (const line of headers) {
    if (line.startsWith('tree ')) commit.tree = line.slice(5);
    else if (line.startsWith('parent ')) commit.parents.push(line.slice(7));
    else if (line.startsWith('author ')) {
      const s = parseSignature(line.slice(7));
      Object.assign(commit, { authorName: s.name, authorEmail: s.email, authoredAt: s.date });
    } else if (line.startsWith('committer ')) {
      const s = parseSignature(line.slice(10));
      Object.assign(commit, { committerName: s.name, committerEmail: s.email, committedAt: s.date });
    }
  }
  return commit;
}

/** Entries of a tree object: `<mode> <name>\0<20-byte oid>` repeated. */
export function parseTree(data: Buffer): TreeItem[] {
  const items: TreeItem[] = [];
  let offset = 0;
  while (offset < data.length) {
    const space = data.indexOf(32, offset);
    const nul = data.indexOf(0, space);
    const mode = data.subarray(offset, space).toString('latin1');
    const name = data.subarray(space + 1, nul).toString('utf8');
    const oid = data.subarray(nul + 1, nul + 21).toString('hex');
    items.push({ name, mode, oid, isTree: mode === '40000' || mode === '040000' });
    offset = nul + 21;
  }
  return items;
}

/** A tree's own entries, blobs with their sizes (subtrees: 0). */
export type ListedTree = ReadonlyArray<TreeItem & { size: number }>;

/** Trees listed before, by oid (the container's bounded cache: a tree's oid names its entries in any repository). */
export interface TreeListingStore {
  get(treeOid: string): ListedTree | undefined;
  set(treeOid: string, tree: ListedTree): void;
}

export interface GitReaderOptions {
  /** Most cat-file processes kept at once (least recently used ones are closed). */
  maxProcesses?: number;
  /** Where listBlobs keeps the trees it listed (none: every tree is read each time). */
  listings?: TreeListingStore;
  /** Processes unused this long are closed. */
  idleMs?: number;
}

export class GitReader {
  private readonly processes = new Map<string, CatFileProcess>();
  private readonly maxProcesses: number;
  private readonly idleMs: number;
  private readonly listings?: TreeListingStore;
  private readonly sweeper: NodeJS.Timeout;
  /** git's own ref advertisement per service, as learned once (see advertisement). */
  private readonly advertisements = new Map<GitService, Promise<Buffer>>();

  constructor(
    private readonly store: GitStore,
    options: GitReaderOptions = {},
  ) {
    this.maxProcesses = options.maxProcesses ?? 64;
    this.idleMs = options.idleMs ?? 60_000;
    this.listings = options.listings;
    this.sweeper = setInterval(() => this.sweep(), Math.min(this.idleMs, 30_000));
    this.sweeper.unref();
  }

  private process(spaceId: string): CatFileProcess {
    let proc = this.processes.get(spaceId);
    if (proc && !proc.alive) {
      this.processes.delete(spaceId);
      proc = undefined;
    }
    if (!proc) {
      proc = new CatFileProcess(this.store.repositoryPath(spaceId), {}, this.store.launcher);
      this.processes.set(spaceId, proc);
      // The least recently used process is closed, unless it is still answering reads (closing it would fail
      // another request's reads): the limit is then exceeded for a while (the sweep closes processes left idle).
      if (this.processes.size > this.maxProcesses) {
        const idle = [...this.processes.entries()].filter(([, other]) => other !== proc && !other.busy);
        const oldest = idle.sort((a, b) => a[1].lastUsed - b[1].lastUsed)[0];
        if (oldest) {
          oldest[1].close();
          this.processes.delete(oldest[0]);
        }
      }
    }
    return proc;
  }

  private sweep(): void {
    const now = Date.now();
    for (const [spaceId, proc] of this.processes) {
      if (now - proc.lastUsed > this.idleMs) {
        proc.close();
        this.processes.delete(spaceId);
      }
    }
  }

  /** Closes every process (at shutdown, or before a repository is removed). */
  close(spaceId?: string): void {
    for (const [id, proc] of this.processes) {
      if (spaceId && id !== spaceId) continue;
      proc.close();
      this.processes.delete(id);
    }
    if (!spaceId) clearInterval(this.sweeper);
  }

  async readObject(spaceId: string, oid: string): Promise<GitObject | undefined> {
    return this.process(spaceId).read(oid);
  }

  async readBlob(spaceId: string, oid: string): Promise<Buffer> {
    const object = await this.readObject(spaceId, oid);
    if (!object || object.type !== 'blob') throw new Error(`blob ${oid} not found`);
    return object.data;
  }

  /**
   * A blob's content as the parts it was read in (CatFileProcess.readParts: never copied into one buffer), for
   * content passed on as it is or read only in part; undefined when there is no such blob.
   */
  async readBlobParts(spaceId: string, oid: string): Promise<Buffer[] | undefined> {
    const object = await this.process(spaceId).readParts(oid);
    return object?.type === 'blob' ? object.parts : undefined;
  }

  /**
   * Writes blobs of a space as files under `dir`, by git itself (blob-files.ts: every path writableByGit); resolves
   * with those written. What is no blob of the repository (missing) is left out.
   */
  async writeBlobFiles(spaceId: string, dir: string, files: readonly BlobFile[]): Promise<BlobFile[]> {
    const infos = await this.process(spaceId).infoMany(files.map((file) => file.oid));
    const blobs = files.filter((_, i) => infos[i]?.type === 'blob');
    await writeBlobFiles(this.store.repositoryPath(spaceId), dir, blobs, this.store.launcher);
    return blobs;
  }

  async readCommit(spaceId: string, oid: string): Promise<CommitObject | undefined> {
    if (!OID.test(oid)) return undefined;
    const object = await this.readObject(spaceId, oid);
    if (!object || object.type !== 'commit') return undefined;
    return parseCommit(oid, object.data);
  }

  async readTree(spaceId: string, oid: string): Promise<TreeItem[]> {
    const object = await this.readObject(spaceId, oid);
    if (!object || object.type !== 'tree') throw new Error(`tree ${oid} not found`);
    return parseTree(object.data);
  }

  /**
   * Every blob (and symlink, submodule) below a tree, with full paths and sizes. Trees listed before are taken from
   * `listings` (a tree never changes): a commit that edits one page reads its root tree and that page's folders.
   */
  async listBlobs(spaceId: string, treeOid: string): Promise<BlobEntry[]> {
    const proc = this.process(spaceId);
    const blobs: BlobEntry[] = [];
    // Breadth-first, each level's trees read concurrently (pipelined through the one process).
    let level: Array<{ prefix: string; oid: string }> = [{ prefix: '', oid: treeOid }];
    while (level.length > 0) {
      const trees = await Promise.all(level.map(async (t) => ({ prefix: t.prefix, items: await this.listTree(proc, t.oid) })));
      level = [];
      for (const { prefix, items } of trees) {
        for (const item of items) {
          const full = prefix + item.name;
          if (item.isTree) level.push({ prefix: `${full}/`, oid: item.oid });
          else blobs.push({ path: full, mode: item.mode, oid: item.oid, size: item.size });
        }
      }
    }
    return blobs;
  }

  /** A tree's own entries, its blobs with their sizes (asked in one request; a submodule's commit: size 0). */
  private async listTree(proc: CatFileProcess, oid: string): Promise<ListedTree> {
    const known = this.listings?.get(oid);
    if (known) return known;
    const object = await proc.read(oid);
    if (!object || object.type !== 'tree') throw new Error(`tree ${oid} not found`);
    const items = parseTree(object.data);
    const blobs = items.filter((item) => !item.isTree && item.mode !== '160000');
    const infos = await proc.infoMany(blobs.map((item) => item.oid));
    const sizes = new Map(blobs.map((item, i) => [item.oid, infos[i]?.size ?? 0]));
    const listed = items.map((item) => ({ ...item, size: sizes.get(item.oid) ?? 0 }));
    this.listings?.set(oid, listed);
    return listed;
  }

  /**
   * The ref advertisement of `service` for a client speaking protocol `version` (src/store/git/advertisement.ts),
   * or undefined where git must make it (upload-pack before protocol v2). What git advertises besides the refs is
   * learned from git once per process, on the first such request.
   */
  async advertisement(spaceId: string, service: GitService, version: number): Promise<Buffer | undefined> {
    if (service === 'upload-pack') {
      return version >= 2 ? this.learned(spaceId, 'upload-pack', { GIT_PROTOCOL: 'version=2' }) : undefined;
    }
    const [refs, learned] = await Promise.all([this.listRefs(spaceId), this.learned(spaceId, 'receive-pack', {})]);
    const capabilities = receivePackCapabilities(learned);
    if (capabilities === undefined) throw new Error('git receive-pack advertised no capabilities');
    return receivePackAdvertisement(refs, capabilities);
  }

  /** git's own advertisement of `service` (the first one made by this process, kept). */
  private learned(spaceId: string, service: GitService, env: Record<string, string>): Promise<Buffer> {
    let answer = this.advertisements.get(service);
    if (!answer) {
      answer = collect(this.store.spawnService(spaceId, service, { advertiseRefs: true, env }));
      this.advertisements.set(service, answer);
      answer.catch(() => this.advertisements.delete(service));
    }
    return answer;
  }

  /**
   * Every ref under `refs/` with the oid it points at (symbolic refs resolved, dangling ones left out), sorted by
   * name as git sorts them (bytewise): what `git for-each-ref` lists, read from the ref files as resolveRef reads.
   */
  async listRefs(spaceId: string): Promise<Array<{ ref: string; oid: string }>> {
    const gitDir = this.store.repositoryPath(spaceId);
    const found = new Map<string, string>();
    const packed = await fs.readFile(path.join(gitDir, 'packed-refs'), 'utf8').catch(() => '');
    for (const line of packed.split('\n')) {
      const ref = line.slice(41);
      if (OID.test(line.slice(0, 40)) && line[40] === ' ' && REF_NAME.test(ref)) found.set(ref, line.slice(0, 40));
    }
    const symbolic = new Map<string, string>();
    const entries = await fs.readdir(path.join(gitDir, 'refs'), { recursive: true, withFileTypes: true }).catch(() => []);
    await Promise.all(
      entries.map(async (entry) => {
        if (!entry.isFile() || entry.name.endsWith('.lock')) return;
        const folder = entry.parentPath ?? (entry as unknown as { path: string }).path;
        const ref = path.relative(gitDir, path.join(folder, entry.name)).split(path.sep).join('/');
        if (!REF_NAME.test(ref)) return;
        // A ref removed meanwhile (packed, or deleted) reads as nothing: packed-refs has it, or it is gone.
        const text = (await fs.readFile(path.join(gitDir, ref), 'utf8').catch(() => '')).trim();
        if (OID.test(text)) found.set(ref, text);
        else if (text.startsWith('ref: ')) symbolic.set(ref, text.slice(5));
      }),
    );
    for (const [ref, target] of symbolic) {
      const oid = found.get(target);
      if (oid) found.set(ref, oid);
    }
    return [...found.entries()]
      .map(([ref, oid]) => ({ ref, oid }))
      .sort((a, b) => Buffer.compare(Buffer.from(a.ref), Buffer.from(b.ref)));
  }

  /**
   * The oid a ref points at, read from the repository's ref files: a loose ref, else packed-refs.
   * Fresh on every call, so pushes through any process are seen at once. A loose ref (41 bytes) is read at once:
   * every read of a page asks, and the four round trips of an asynchronous read (open, stat, read, close) were a
   * third of a warm published page's time; packed-refs, which grows with the refs, is read asynchronously.
   */
  async resolveRef(spaceId: string, ref: string): Promise<string | undefined> {
    if (!/^refs\/[A-Za-z0-9._/-]+$/.test(ref) || ref.includes('..')) return undefined;
    const gitDir = this.store.repositoryPath(spaceId);
    try {
      const text = readFileSync(path.join(gitDir, ref), 'utf8').trim();
      if (OID.test(text)) return text;
      if (text.startsWith('ref: ')) return this.resolveRef(spaceId, text.slice(5));
    } catch {
      // Not loose: look in packed-refs.
    }
    try {
      const packed = await fs.readFile(path.join(gitDir, 'packed-refs'), 'utf8');
      for (const line of packed.split('\n')) {
        if (line.endsWith(` ${ref}`) && OID.test(line.slice(0, 40))) return line.slice(0, 40);
      }
    } catch {
      // No packed refs.
    }
    return undefined;
  }
}
