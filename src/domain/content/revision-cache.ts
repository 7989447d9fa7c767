/**
 * The container's content cache (RevisionCache) and what it holds: parsed revisions with their lookups
 * (IndexedRevision), page parses, links, checks, listings and SUMMARY.md parses by blob, weighed by what they hold in
 * the heap. A module of its own, which the Context names, apart from the reads of ./revisions.ts that use the Context.
 */
import { WeightedLru } from '../lru.js';
import type { RawLink } from '../../content/links.js';
import type { ParsedPage, ParsedPageStore } from '../../content/page.js';
import type { KeptSummary, ParsedSummaryStore } from '../../content/summary-kept.js';
import type { ContentCheck } from '../../content/validate-content.js';
import type { ContentCheckStore } from '../../content/validate-push.js';
import type { Page, Revision, RevisionFile } from '../../content/model.js';
import type { TreeAnalysis } from '../../content/revision.js';
import type { ListedTree, TreeListingStore } from '../../store/git/reader.js';
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
   * Tells the cache that holds this revision that it holds `bytes` more with it: what the HTTP answer cache keeps of
   * this revision (src/http/answer-cache.ts) lives as long as the revision and counts in its weight.
   */
  weigh?: (bytes: number) => void;
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
   * SUMMARY.md parses of earlier builds and push checks (src/content/summary-kept.ts ParsedSummaryStore).
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

  /** An image's dimensions by blob oid (blobs never change): found once per process (`find`), then remembered. */
  async dimensionsOf(oid: string, find: () => Promise<Dimensions | null>): Promise<Dimensions | undefined> {
    const known = this.dimensions.get(oid);
    if (known !== undefined) return known ?? undefined;
    const found = await find();
    this.dimensions.set(oid, found, HEAP.dimensions);
    return found ?? undefined;
  }
}

/** What a revision's objects hold (its pages' text is counted with their parses, see RevisionCache). */
export function weightOf(revision: Revision): number {
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
export function analysisWeightOf(analysis: TreeAnalysis): number {
  const { entries, manifestIds } = analysis.basis;
  const manifestEntries = manifestIds.pages.size + manifestIds.files.size;
  return entries.length * HEAP.treeEntry + analysis.pageChecks.length * HEAP.pageCheck + manifestEntries * HEAP.manifestEntry;
}
