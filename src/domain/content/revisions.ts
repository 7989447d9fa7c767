/**
 * Reading a space's content: the revision at a ref (main, or a change request's branch), its pages and files.
 *
 * A revision is parsed once per commit and kept in the container's bounded cache (commits never change, so an
 * entry built from final history facts needs no invalidation); only the ref is read per request, from the ref file.
 * An entry built from provisional facts (a long history still being computed) is rebuilt once the facts are final.
 * A commit that only changes the contents of pages (most pushes) is built from its parent's entry when the cache
 * keeps it (reviseTree): one changed page of 10,000 is parsed, and the others walked once for their ids and dates.
 */
import type { Context, Caller } from '../context.js';
import { DomainError, NotFound } from '../errors.js';
import { ReadCache } from '../cache.js';
import { collectPage, type Page as ListPage, type PageRequest } from '../lists.js';
import { WeightedLru } from '../lru.js';
import type { RawLink } from '../../content/links.js';
import { requireSpacePermission, type Role } from '../permissions.js';
import { loadSpace, projectDirectoryOf, resolveSpaceRef } from './spaces.js';
import { derivedId, pathId, type ReadFacts } from './history.js';
import type { ParsedPage, ParsedPageStore } from '../../content/page.js';
import type { KeptSummary, ParsedSummaryStore } from '../../content/summary.js';
import type { ContentCheck } from '../../content/validate-content.js';
import type { ContentCheckStore } from '../../content/validate-push.js';
import { inProjectDirectory } from '../../content/project-directory.js';
import { trimSlashes } from '../../content/paths.js';
import type { CommitInfo, HistoryFacts, Page, Revision, RevisionFile } from '../../content/model.js';
import type { TreeSource } from '../../content/tree-source.js';
import type { TreeAnalysis } from '../../content/revision.js';
import { QUIRE_SIGNATURE } from '../../store/git/repositories.js';
import type { ListedTree, TreeListingStore } from '../../store/git/reader.js';
import type { SpaceRow } from '../../store/sql/content.js';
import { MAIN_REF } from './refs.js';

/** A parsed revision with lookups by id and path. */
export interface IndexedRevision {
  spaceId: string;
  revision: Revision;
  pagesById: Map<string, Page>;
  pagesByPath: Map<string, Page>;
  filesById: Map<string, RevisionFile>;
  /** Files in a stable order (by path), for paged lists. */
  files: RevisionFile[];
  /** The id a path gets before history is read (a provisional read shows it): still found once facts are final. */
  provisionalIdOf: (gitPath: string) => string;
  /** Pages and files by provisional id, made on the first lookup that misses. */
  aliases?: Map<string, Page | RevisionFile>;
  /**
   * Answers of this revision as JSON (and their gzipped bytes, a promise while they are being compressed), by route
   * and options (a revision never changes), kept while the revision stays in the cache, which counts them in its
   * weight (`weigh`: the revision of a 1,000-page space is ~2 MB).
   */
  answers?: Map<string, string | Buffer | Promise<Buffer>>;
  /** Tells the cache that holds this revision that it holds `bytes` more (its answers). */
  weigh?: (bytes: number) => void;
  /**
   * URLs answered from this revision's kept answers, with the answer (its key, bytes and type): a request for the same
   * URL is answered again without the route's work (src/http/replay-lane.ts, src/http/present.ts replayKept). An
   * answer of a revision depends only on the URL (never on who asks), so the map is shared by every caller allowed to
   * read it.
   */
  replays?: Map<string, KeptReplay>;
}

/** A kept answer as a URL replays it: its key among the revision's answers, its bytes and its content type. */
export interface KeptReplay {
  key: string;
  bytes: Buffer;
  type: string;
}

type Dimensions = { width: number; height: number };

interface CachedRevision {
  revision: Promise<IndexedRevision>;
  /** The revision, once built (what `peekContent` answers). */
  built?: IndexedRevision;
  /** Built from final history facts (else provisional ones: rebuilt when the final ones are known). */
  final: boolean;
  /**
   * What the revision was built from, once built: a child commit that only changes the contents of pages is built
   * from it (reviseTree), whatever facts either was built with (the child's are asked again for every page).
   */
  analysis?: TreeAnalysis;
}

/**
 * What the cache's entries hold in V8's heap besides their text, in bytes: measured by
 * test/domain/revisions-weight.test.ts (a space of 2,000 pages read through the API, heap after a full collection),
 * which fails when the weights drift from what is held.
 */
const HEAP = {
  /** A page of a revision: its object, its places in the maps by id and by path, its own strings (id, path...). */
  page: 450,
  /** A file of a revision, likewise. */
  file: 300,
  /** A revision's own objects (maps, commit, tree), whatever its size. */
  revision: 4096,
  /** A kept page parse besides its text: the parse, its fields and front matter, its key, its slot in the store. */
  parse: 900,
  /** A link written in a page (its object and href), and the list of one page's links. */
  link: 120,
  links: 100,
  /** A page's check (src/content/validate-push.ts) kept for the next push, or with a revision's analysis. */
  pageCheck: 160,
  /**
   * An entry of the tree listing a revision's analysis keeps (its object and path; its oid and mode are the
   * listing's), and an entry of its manifest's maps (path, id and slot). Measured in isolation (2,000 of each).
   */
  treeEntry: 110,
  manifestEntry: 120,
  /** An image's dimensions by blob oid; a containment fact by its key. */
  dimensions: 150,
  containment: 250,
  /** A tree's listing (its array and key), and each entry of it (its object, name, mode and oid). */
  listing: 200,
  listedEntry: 180,
  /** A kept SUMMARY.md parse, per character of its text: its items, titles, targets and the paths it asked about. */
  summaryPerCharacter: 6,
} as const;

/** What V8 keeps of a string's characters: one byte each for Latin-1 text, two otherwise. */
export function stringBytes(text: string): number {
  return /[^\u0000-\u00ff]/.test(text) ? text.length * 2 : text.length;
}

/**
 * The container's content cache, bounded by what its entries hold in the heap (estimated by HEAP and the text they
 * keep, within a factor of the measured heap): QUIRE_CONTENT_CACHE_MB (default 96, of which 84 here, the rest for
 * history facts), split between
 * - parsed revisions by `space:directory:commit` (page objects, the analysis the next commit's revision is built
 *   from, and the answers made from them, e.g. a 1,000-page space of 1.5 KB pages: ~0.7 MB, and its `/content`
 *   answer ~2 MB), 40/96: the default (35 MB) keeps a 10,000-page space (29 MB with its `/content` answer). A
 *   revision built from its parent's shares the pages it did not change with it: each is counted in both while
 *   both are kept;
 * - page parses by blob (parsedPageKey), which hold the pages' text (~2.3 MB for those 1,000 pages): a new revision
 *   and the checks of a push parse only the pages that changed, 35/96 (30 MB: a 10,000-page space's 24 MB). A
 *   cached revision's pages share their text with these parses, so the text is counted here only; a space's parses
 *   weigh about what its revision and answers do, so with near-equal shares they are not evicted long before the
 *   revision (which would then hold its text uncounted);
 * - the links of pages (7/96: a 10,000-page space's ~4 MB), the content checks of pushed commits, the trees listed
 *   and SUMMARY.md parses (4/96 each: a 10,000-page space's 200 trees take ~2 MB, its 10,000-line SUMMARY.md ~2.5
 *   MB), image dimensions and commits' containment (1/96 each).
 */
export class RevisionCache {
  private readonly entries: WeightedLru<string, CachedRevision>;
  private readonly dimensions: WeightedLru<string, Dimensions | null>;
  private readonly containment: WeightedLru<string, Promise<boolean>>;
  private readonly links: WeightedLru<string, RawLink[]>;
  private readonly parses: WeightedLru<string, ParsedPage>;
  private readonly checks: WeightedLru<string, ContentCheck>;
  private readonly summaries: WeightedLru<string, KeptSummary>;
  private readonly listings: WeightedLru<string, ListedTree>;

  /** The links written in a page, by its blob oid (a new revision re-parses only the pages it changed). */
  readonly linksByBlob = {
    get: (oid: string): RawLink[] | undefined => this.links.get(oid),
    set: (oid: string, links: RawLink[]): void =>
      this.links.set(oid, links, links.reduce((bytes: number, link) => bytes + HEAP.link + stringBytes(link.href), HEAP.links)),
  };

  /**
   * Page files parsed by earlier builds and push checks (parsedPageKey): a new revision, and the checks of a push,
   * parse only the pages that changed.
   */
  readonly parsedPages: ParsedPageStore = {
    get: (key) => this.parses.get(key),
    set: (key, page) => this.parses.set(key, page, HEAP.parse + stringBytes(page.page.markdown)),
  };

  /**
   * SUMMARY.md parses of earlier builds and push checks (src/content/summary.ts ParsedSummaryStore).
   */
  readonly parsedSummaries: ParsedSummaryStore = {
    get: (key) => this.summaries.get(key),
    set: (key, kept) => this.summaries.set(key, kept, HEAP.revision + kept.length * HEAP.summaryPerCharacter),
  };

  /**
   * Trees listed before (src/store/git/reader.ts listBlobs): a new commit's listing reads only the trees it changed.
   */
  readonly treeListings: TreeListingStore = {
    get: (oid) => this.listings.get(oid),
    set: (oid, tree) => this.listings.set(oid, tree, HEAP.listing + tree.length * HEAP.listedEntry),
  };

  /**
   * The content checks of commits pushed before (src/content/validate-push.ts): the next push of a branch is checked
   * from its previous commit's check.
   */
  readonly contentChecks: ContentCheckStore = {
    get: (key) => this.checks.get(key),
    set: (key, check) => this.checks.set(key, check, HEAP.revision + check.pageChecks.length * HEAP.pageCheck),
  };

  /** `maxBytes`: QUIRE_CONTENT_CACHE_MB, see above. */
  constructor(maxBytes = 84 * 1024 * 1024) {
    // Shares in 96ths of maxBytes (see above).
    const share = (n: number) => Math.floor((maxBytes * n) / 96);
    this.entries = new WeightedLru(share(40));
    this.parses = new WeightedLru(share(35));
    this.links = new WeightedLru(share(7));
    this.checks = new WeightedLru(share(4));
    this.listings = new WeightedLru(share(4));
    this.summaries = new WeightedLru(share(4));
    this.dimensions = new WeightedLru(share(1));
    this.containment = new WeightedLru(share(1));
  }

  /** The bytes its entries are estimated to hold. */
  get weight(): number {
    const stores = [this.entries, this.parses, this.links, this.checks, this.listings, this.summaries, this.dimensions, this.containment];
    return stores.reduce((sum, store) => sum + store.weight, 0);
  }

  get(key: string): CachedRevision | undefined {
    return this.entries.get(key);
  }

  set(key: string, entry: CachedRevision, weight: number): void {
    this.entries.set(key, entry, weight);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }

  /** Counts `bytes` more in the weight of `entry`, if it is still the one kept under `key`. */
  grow(key: string, entry: CachedRevision, bytes: number): void {
    if (this.entries.get(key) === entry) this.entries.grow(key, bytes);
  }

  /** Whether one commit contains another, by `space:ancestor:descendant` (a fact of two commits): asked once. */
  contains(key: string, ask: () => Promise<boolean>): Promise<boolean> {
    let known = this.containment.get(key);
    if (!known) {
      known = ask();
      this.containment.set(key, known, HEAP.containment);
      known.catch(() => this.containment.delete(key));
    }
    return known;
  }

  /** An image's dimensions by blob oid (blobs never change): read once per process, then remembered. */
  async dimensionsOf(oid: string, read: () => Promise<Buffer>): Promise<Dimensions | undefined> {
    const known = this.dimensions.get(oid);
    if (known !== undefined) return known ?? undefined;
    // Loaded with the content code by the first build (image-size and mime-types are ~30 modules): a command that
    // reads no content starts without them.
    const { imageDimensions } = await import('../../content/files.js');
    const found = imageDimensions(await read());
    this.dimensions.set(oid, found ?? null, HEAP.dimensions);
    return found;
  }
}

function indexRevision(spaceId: string, revision: Revision, provisionalIdOf: (gitPath: string) => string): IndexedRevision {
  const pagesById = new Map<string, Page>();
  const pagesByPath = new Map<string, Page>();
  const walk = (pages: Page[]) => {
    for (const page of pages) {
      pagesById.set(page.id, page);
      if (!pagesByPath.has(page.path)) pagesByPath.set(page.path, page);
      walk(page.pages);
    }
  };
  walk(revision.pages);
  const files = [...revision.files].sort((a, b) => (a.gitPath < b.gitPath ? -1 : a.gitPath > b.gitPath ? 1 : 0));
  return { spaceId, revision, pagesById, pagesByPath, filesById: new Map(files.map((f) => [f.id, f])), files, provisionalIdOf };
}

/** What a revision's objects hold (its pages' text is counted with their parses, see RevisionCache). */
function weightOf(revision: Revision): number {
  let bytes = HEAP.revision + revision.files.length * HEAP.file;
  const walk = (pages: Page[]) => {
    for (const page of pages) {
      bytes += HEAP.page;
      walk(page.pages);
    }
  };
  walk(revision.pages);
  return bytes;
}

/** What a revision's analysis holds besides the revision (TreeAnalysis: its tree's listing, page checks...). */
function analysisWeightOf(analysis: TreeAnalysis): number {
  const { entries, manifestIds } = analysis.basis;
  const manifestEntries = manifestIds.pages.size + manifestIds.files.size;
  return entries.length * HEAP.treeEntry + analysis.pageChecks.length * HEAP.pageCheck + manifestEntries * HEAP.manifestEntry;
}

/**
 * The analysis of a commit's tree: built from an earlier analysis when one is at hand and the tree differs from it
 * only in the contents of pages (a one-page push into a 10,000-page space then parses one page and walks the others
 * once, instead of analyzing the whole tree again), else from scratch. `earlier`: the commit's own provisional
 * build (rebuilt with final facts), its first parent's.
 */
async function analyzeCommit(
  earlier: Array<TreeAnalysis | undefined>,
  source: TreeSource,
  commit: CommitInfo,
  facts: HistoryFacts,
): Promise<TreeAnalysis> {
  // The content code (remark, YAML) is loaded by the first build: commands that read no content start without it.
  const { analyzeTree, reviseTree } = await import('../../content/revision.js');
  for (const before of earlier) {
    const revised = before && (await reviseTree(before, source, commit, facts));
    if (revised) return revised;
  }
  return analyzeTree(source, commit, facts);
}

/** The key of a space's revision in the RevisionCache: monorepo spaces of one repository see different revisions. */
const revisionKey = (spaceId: string, directory: string, commitOid: string) => `${spaceId}:${directory}:${commitOid}`;

/**
 * Parses (or takes from the cache) the revision at a commit of a space. Reads take provisional history facts when
 * a long history is still being computed; `final` waits for the real ones (indexing stores page ids, so it must).
 */
export async function loadRevision(ctx: Context, spaceId: string, commitOid: string, options: { final?: boolean } = {}): Promise<IndexedRevision> {
  // Monorepos: the space sees only its project directory; history facts stay keyed by full path.
  const directory = await projectDirectoryOf(ctx, spaceId);
  const key = revisionKey(spaceId, directory, commitOid);
  const cached = ctx.revisions.get(key);
  if (cached && (cached.final || (!options.final && !ctx.history.isFinal(spaceId, commitOid)))) return cached.revision;
  // A provisional build of this commit, being replaced: the new one starts from it.
  const provisional = cached?.analysis;
  // The load's own promise, which its body compares with what the cache holds.
  const self: { loading?: Promise<IndexedRevision> } = {};
  const loading = (async (): Promise<IndexedRevision> => {
    const commit = await ctx.reader.readCommit(spaceId, commitOid);
    if (!commit) throw new NotFound(`revisionId: no revision "${commitOid}" in this space`);
    const history: Promise<ReadFacts> = options.final
      ? ctx.history.factsOf(spaceId, commitOid).then((facts) => ({ facts, final: true }))
      : ctx.history.forRead(spaceId, commitOid);
    const [blobs, { facts, final }] = await Promise.all([ctx.reader.listBlobs(spaceId, commit.tree), history]);
    if (final) {
      // Readers and indexing jobs that waited for the same facts share one build.
      const other = ctx.revisions.get(key);
      if (other?.final && other.revision !== self.loading) return other.revision;
      ctx.revisions.set(key, { revision: self.loading!, final: true }, 4096);
    }
    const entries = inProjectDirectory(blobs, directory);
    const info: CommitInfo = {
      oid: commit.oid,
      parents: commit.parents,
      message: commit.message,
      authorName: commit.authorName,
      authorEmail: commit.authorEmail,
      createdAt: commit.committedAt,
      createdByQuire: commit.committerEmail === QUIRE_SIGNATURE.email && commit.committerName === QUIRE_SIGNATURE.name,
    };
    const parent = commit.parents.length > 0 ? ctx.revisions.get(revisionKey(spaceId, directory, commit.parents[0]))?.analysis : undefined;
    const analysis = await analyzeCommit(
      [provisional, parent],
      {
        entries,
        readBlob: (oid) => ctx.reader.readBlob(spaceId, oid),
        dimensionsOf: (oid) => ctx.revisions.dimensionsOf(oid, () => ctx.reader.readBlob(spaceId, oid)),
        parsePages: (input) => ctx.cpu.run('parsePages', input),
        parseSummary: (input) => ctx.cpu.run('parseSummary', input),
        parsedPages: ctx.revisions.parsedPages,
        parsedSummaries: ctx.revisions.parsedSummaries,
      },
      info,
      {
        // Groups and link pages have no file: their key (`SUMMARY.md#path`) gets an id stable across commits.
        idOf: (_kind, path) => facts.get(directory + path)?.i ?? derivedId(spaceId, 'structure', path),
        createdAt: (path) => facts.get(directory + path)?.c ?? commit.committedAt,
        updatedAt: (path) => facts.get(directory + path)?.u ?? commit.committedAt,
      },
    );
    const { revision } = analysis;
    const indexed = indexRevision(spaceId, revision, (gitPath) => pathId(spaceId, directory + gitPath));
    // A provisional build never replaces a final one made meanwhile.
    if (final || !ctx.revisions.get(key)?.final) {
      const entry = { revision: Promise.resolve(indexed), built: indexed, final, analysis };
      ctx.revisions.set(key, entry, weightOf(revision) + analysisWeightOf(analysis));
      indexed.weigh = (bytes) => ctx.revisions.grow(key, entry, bytes);
    }
    return indexed;
  })();
  self.loading = loading;
  // Concurrent readers of one commit share the parse; a failure is not cached. A load that waits for final facts
  // (indexing) is shared only once they are known (above): a read must not wait behind a long history's computation.
  if (!options.final) ctx.revisions.set(key, { revision: loading, final: false }, 4096);
  loading.catch(() => {
    if (ctx.revisions.get(key)?.revision === loading) ctx.revisions.delete(key);
  });
  return loading;
}

export interface ContentTarget {
  space: SpaceRow;
  role: Role | null;
  content: IndexedRevision;
  /** The ref it was read at (e.g. `refs/heads/main`), when read through one. */
  ref?: string;
}

/**
 * What a caller's read of a space's content rests on: the space, the caller's role on it (allowed to view), and the
 * commit the ref points at (undefined: the ref does not exist).
 */
interface SpaceRead {
  space: SpaceRow;
  role: Role | null;
  oid: string | undefined;
}

const spaceReadKey = (caller: Caller, spaceId: string, ref: string) => `read:${caller.user.id}:${spaceId}:${ref}`;

/**
 * The caller's read of a space at a ref, kept by the read cache as one entry per user, space and ref (a refusal
 * too): a read then costs one lookup instead of one per check. The entry is loaded past the cache, from the database
 * and the repository: built from cached parts it could outlive them, and a revoked access, a changed role or a
 * moved ref would take up to twice the cache's time to live to show instead of once.
 */
async function readSpace(ctx: Context, caller: Caller, spaceId: string, ref: string): Promise<SpaceRead> {
  const read = await ctx.cache.get(spaceReadKey(caller, spaceId, ref), async (): Promise<SpaceRead | DomainError> => {
    const direct: Context = { ...ctx, cache: new ReadCache(0) };
    try {
      const { space, role } = await loadSpace(direct, caller, spaceId);
      requireSpacePermission(role, spaceId, 'view', 'read its content');
      return { space, role, oid: await resolveSpaceRef(direct, spaceId, ref) };
    } catch (error) {
      if (error instanceof DomainError) return error;
      throw error;
    }
  });
  if (read instanceof DomainError) throw read;
  return read;
}

/** The space (read permission checked) and its content at `ref` (main by default). */
export async function readContent(ctx: Context, caller: Caller, spaceId: string, ref = MAIN_REF): Promise<ContentTarget> {
  const { space, role, oid } = await readSpace(ctx, caller, spaceId, ref);
  if (!oid) throw new NotFound(`spaceId: space "${spaceId}" has no content at ${ref}`);
  const content = await loadRevision(ctx, spaceId, oid);
  return { space, role, content, ref };
}

/**
 * What `readContent` (at main) would answer the caller, when that is at hand without waiting or loading: the
 * caller's read of the space is current in the read cache and its revision is built, from final history facts.
 * Undefined otherwise (then `readContent` does the work). For answers sent from a hook (src/http/present.ts).
 */
export function peekContent(ctx: Context, caller: Caller, spaceId: string): IndexedRevision | undefined {
  const read = ctx.cache.peek<SpaceRead | DomainError>(spaceReadKey(caller, spaceId, MAIN_REF));
  if (!read || read instanceof DomainError || !read.oid) return undefined;
  const cached = ctx.revisions.get(revisionKey(spaceId, read.space.project_directory ?? '', read.oid));
  return cached?.final ? cached.built : undefined;
}

/** A revision of the space by commit oid (any commit of its repository). */
export async function readRevisionById(ctx: Context, caller: Caller, spaceId: string, revisionId: string): Promise<ContentTarget> {
  const { space, role } = await loadSpace(ctx, caller, spaceId);
  if (!/^[0-9a-f]{40}$/.test(revisionId)) throw new NotFound(`revisionId: no revision "${revisionId}" in this space`);
  return { space, role, content: await loadRevision(ctx, spaceId, revisionId) };
}

/**
 * A page or file by the id a provisional read showed (see history.ts): a client that listed pages while a long
 * history was being computed keeps reaching them by those ids afterwards.
 */
function findAlias(content: IndexedRevision, id: string): Page | RevisionFile | undefined {
  if (!content.aliases) {
    const aliases = new Map<string, Page | RevisionFile>();
    for (const page of content.pagesById.values()) {
      if ('gitPath' in page) {
        const alias = content.provisionalIdOf(page.gitPath);
        if (alias !== page.id && !content.pagesById.has(alias)) aliases.set(alias, page);
      }
    }
    for (const file of content.files) {
      const alias = content.provisionalIdOf(file.gitPath);
      if (alias !== file.id && !content.filesById.has(alias)) aliases.set(alias, file);
    }
    content.aliases = aliases;
  }
  return content.aliases.get(id);
}

export function findPage(content: IndexedRevision, pageId: string): Page {
  const page = content.pagesById.get(pageId) ?? findAlias(content, pageId);
  if (!page || !('pages' in page)) throw new NotFound(`pageId: no page "${pageId}" in this revision`);
  return page;
}

export function findPageByPath(content: IndexedRevision, pagePath: string): Page {
  const page = content.pagesByPath.get(trimSlashes(pagePath));
  if (!page) throw new NotFound(`pagePath: no page at "${pagePath}" in this revision`);
  return page;
}

export function findFile(content: IndexedRevision, fileId: string): RevisionFile {
  const file = content.filesById.get(fileId) ?? findAlias(content, fileId);
  if (!file || 'pages' in file) throw new NotFound(`fileId: no file "${fileId}" in this revision`);
  return file;
}

/** Files of the revision, paged by path. */
export async function listFiles(ctx: Context, content: IndexedRevision, request: PageRequest): Promise<ListPage<RevisionFile>> {
  const { files } = content;
  return collectPage({
    codec: ctx.cursors,
    scope: `files:${content.spaceId}:${content.revision.commit.oid}`,
    request,
    fetch: async (after, n) => {
      const start = after ? files.findIndex((f) => f.gitPath > String(after[0])) : 0;
      return start < 0 ? [] : files.slice(start, start + n);
    },
    positionOf: (file) => [file.gitPath],
    present: (file) => file,
  });
}

/**
 * The bytes of a blob of the space, for file downloads (read permission). Any blob of the repository: the same
 * permission covers every branch, and a repository holds only objects its own refs brought (a duplicate is packed
 * from main alone, GitStore.copyRepository).
 */
export async function readFileBlob(ctx: Context, caller: Caller, spaceId: string, oid: string): Promise<Buffer> {
  const { role } = await loadSpace(ctx, caller, spaceId);
  requireSpacePermission(role, spaceId, 'view', 'download its files');
  const object = /^[0-9a-f]{40}$/.test(oid) ? await ctx.reader.readObject(spaceId, oid) : undefined;
  if (!object || object.type !== 'blob') throw new NotFound(`fileId: no file "${oid}" in this space`);
  return object.data;
}

/**
 * The revision at a commit when it is in memory with final history facts (being built, or built); never builds one.
 * For work that can start from an earlier revision when it is at hand and read what it needs otherwise.
 */
export async function keptRevision(ctx: Context, spaceId: string, commitOid: string): Promise<IndexedRevision | undefined> {
  const directory = await projectDirectoryOf(ctx, spaceId);
  const cached = ctx.revisions.get(revisionKey(spaceId, directory, commitOid));
  return cached?.final ? cached.revision.catch(() => undefined) : undefined;
}
