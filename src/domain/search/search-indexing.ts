/**
 * Indexing for full-text search over the pages of spaces; the searches that read the index are in
 * ./search-queries.ts. Apart from them: indexing writes (a job, one space at a time, in parts), searching only reads.
 *
 * Index (src/store/sql/search.ts): the databases' own engines, SQLite's FTS5 and PostgreSQL's
 * tsvector with a GIN index, fed with the same tokens (src/content/search-ranking.ts pageRows, on the CPU pool, with
 * src/content/search-text.ts): each word as written (lower case, Latin accents dropped; Chinese, Japanese and Thai
 * cut into words by Intl.Segmenter) and its stem in the space's language. Beside them, each page's title, path and
 * sections (for excerpts).
 * - The `index-search` job indexes main's current revision of a space (whatever commit the job names: a late job
 *   indexes the newest revision, or finds it done). Only pages whose blob or title changed are parsed again (on the
 *   CPU pool) and rewritten; pages that only moved get their new path. They are told by comparing the stored
 *   revision with the new one when it is still in memory (a push's job: only the rows of those pages and the space's
 *   stop-word sums are read), else the stored rows of every page. It is idempotent: nothing happens when the
 *   stored revision is main's. One indexing of a space at a time (the space row's lock); an indexing that began
 *   before main moved writes nothing (`superseded`).
 * - A search in a space that was never indexed indexes it first (same function); afterwards searches read what
 *   is stored, and the job brings it up to date after each new revision of main.
 * - Only document pages are indexed (groups and link pages have no text).
 *
 * Language: spaces have no language setting; Quire tells it from the text. Each page's stop words are counted per
 * language (SEARCH_LANGUAGES) and stored with its rows; the space's language is the one with the most over all its
 * pages (English when there are too few), stored in search_spaces for the query side. A space indexed for the
 * first time is parsed in the language a sample of its pages shows; when the counts of all pages name another
 * language clearly (twice the votes of the current one), every page is stemmed again in it. So a space created
 * empty (English) becomes German with its first real push of German pages, and a few English pages in a German
 * space change nothing.
 */
import type { Context } from '../context.js';
import { nowIso } from '../ids.js';
import { cachedRevision, loadRevision, type IndexedRevision } from '../content/revisions.js';
import { MAIN_REF, SEARCH_VERSION } from '../content/refs.js';
import type { DocumentPage } from '../../content/model.js';
import { indexedPart, MAX_INDEXED_TEXT } from '../../content/bounded-markdown.js';
import { Turns } from '../../content/turns.js';
import {
  detectLanguage,
  MIN_LANGUAGE_VOTES,
  isSearchLanguage,
  languageVotes,
  tokenize,
  type SearchLanguage,
} from '../../content/search-text.js';
import { otherRequestsFirst, signatureOf } from '../../content/search-ranking.js';
import {
  applySearchChange,
  searchStates,
  storedLanguageVotes,
  storedSearchPages,
  type SearchIndexChange,
  type SearchPageRows,
  type SearchState,
  type StoredSearchPage,
} from '../../store/sql/search.js';
import { findSpace, lockSpaceRow } from '../../store/sql/spaces.js';

/** What a sample of a space's pages says its language is: titles, descriptions and the start of their text. */
function sampleLanguage(pages: readonly DocumentPage[]): SearchLanguage {
  const votes = new Map<SearchLanguage, number>();
  for (const page of pages.slice(0, 200)) {
    // Whole words only: a word cut at the end of the sample may be another language's stop word (`das` of `dashboard`).
    const start = page.markdown.length > 2000 ? page.markdown.slice(0, page.markdown.lastIndexOf(' ', 2000) + 1) : page.markdown;
    languageVotes(tokenize(`${page.title}\n${page.description ?? ''}\n${start}`), votes);
  }
  return detectLanguage(votes);
}

/**
 * The space's language from every page's stop words (stored counts for the pages kept, new ones for the others):
 * `current` unless another language has clearly more (see the top of this file); English when the pages have too
 * few stop words to tell.
 */
function spaceLanguage(current: SearchLanguage, votes: ReadonlyMap<string, number>): SearchLanguage {
  const best = detectLanguage(votes);
  if (!votes.has(best) || votes.get(best)! < MIN_LANGUAGE_VOTES) return 'en';
  return best !== current && votes.get(best)! > 2 * (votes.get(current) ?? 0) ? best : current;
}

/** Adds (`sign` 1) or takes away (-1) the stop words of pages to or from `votes`, by the language each page's are of. */
function countVotes(votes: Map<string, number>, pages: Iterable<Pick<StoredSearchPage, 'language' | 'stop_words'>>, sign = 1): Map<string, number> {
  for (const page of pages) if (page.language) votes.set(page.language, (votes.get(page.language) ?? 0) + sign * page.stop_words);
  return votes;
}

/** The pages of a revision that search indexes. */
const searchedPages = (revision: IndexedRevision): DocumentPage[] => [...revision.pagesById.values()].filter((p): p is DocumentPage => p.type === 'document' || p.type === 'computed');

/** What turns the rows of one revision's pages into another's: pages gone, pages to parse, pages only moved. */
interface PagesDiff {
  removed: string[];
  changed: DocumentPage[];
  moved: Array<{ page_id: string; path: string }>;
}

/** What the stored row of each page says of it (StoredSearchPage), by page id. */
type PageSources = ReadonlyMap<string, Pick<StoredSearchPage, 'signature' | 'path'>>;

/** What a revision's rows say of its pages (its rows made with the same rules and language). */
const sourcesOf = (pages: readonly DocumentPage[]): PageSources => new Map(pages.map((page) => [page.id, { signature: signatureOf(page), path: page.path }]));

/** The pages of `pages` whose rows differ from `before`'s, and the pages of `before` gone. */
function pagesDiff(before: PageSources, pages: readonly DocumentPage[]): PagesDiff {
  const diff: PagesDiff = { removed: [], changed: [], moved: [] };
  const live = new Set<string>();
  for (const page of pages) {
    live.add(page.id);
    const was = before.get(page.id);
    if (was?.signature !== signatureOf(page)) diff.changed.push(page);
    else if (was.path !== page.path) diff.moved.push({ page_id: page.id, path: page.path });
  }
  for (const id of before.keys()) if (!live.has(id)) diff.removed.push(id);
  return diff;
}

// Past this many pages changed or removed, the stored rows are read whole rather than by id.
const MAX_DIFF_PAGES = 500;

export type IndexOutcome = 'indexed' | 'current' | 'skipped' | 'superseded';

// Pages per task of the CPU pool: several tasks let both threads work, and each message stays small.
const PAGES_PER_TASK = 100;

/**
 * pageRows of the pages, on the CPU pool. A page longer than the index reads is logged as indexed partly (the push
 * that brought it printed the same warning).
 */
async function rowsInPool(ctx: Context, spaceId: string, pages: DocumentPage[], language: SearchLanguage): Promise<SearchPageRows[]> {
  const tasks: Promise<SearchPageRows[]>[] = [];
  // Copying 10,000 pages into messages takes tens of milliseconds: other requests run between turns.
  const turns = new Turns();
  for (let i = 0; i < pages.length; i += PAGES_PER_TASK) {
    if (turns.due()) await turns.take();
    // Only what the index reads crosses to the thread (a copy: a 5 MB page costs the event loop 1 MB of it).
    const batch = pages
      .slice(i, i + PAGES_PER_TASK)
      .map(({ id, title, path, blobOid, markdown, description }) => ({ id, title, path, blobOid, markdown: indexedPart(markdown).text, description }));
    tasks.push(ctx.cpu.run('searchRows', { pages: batch, language }));
  }
  for (const page of pages) {
    if (page.markdown.length > MAX_INDEXED_TEXT) {
      process.stderr.write(`${JSON.stringify({ level: 40, msg: 'page indexed partly', space: spaceId, page: page.id, path: page.gitPath, characters: page.markdown.length, indexed: MAX_INDEXED_TEXT })}
`);
    }
  }
  return (await Promise.all(tasks)).flat();
}

/**
 * Indexes main's current revision of a space (see the top of this file). `skipped`: the space is deleted or gone;
 * `current`: the stored revision is main's already.
 */
export async function indexSearch(ctx: Context, spaceId: string): Promise<IndexOutcome> {
  // Main may move while a revision is being indexed: index the newer one (its own job would do it too).
  for (let attempt = 1; ; attempt++) {
    const main = await ctx.reader.resolveRef(spaceId, MAIN_REF);
    if (!main) return 'skipped';
    const outcome = await indexSearchAt(ctx, spaceId, main);
    if (outcome !== 'superseded' || attempt === 3) return outcome;
  }
}

export const languageOf = (state: SearchState | undefined): SearchLanguage => (state && isSearchLanguage(state.language) ? state.language : 'en');

/**
 * Indexes `main`, the commit main was at when the indexing began. `superseded`: main moved on meanwhile, and
 * nothing was written: an indexing that began earlier and ends later must never put an older revision over a
 * newer one (a worker running two jobs of one space at once).
 */
export async function indexSearchAt(ctx: Context, spaceId: string, main: string): Promise<IndexOutcome> {
  const space = await findSpace(ctx.db, spaceId);
  if (!space || space.deleted_at) return 'skipped';
  const isCurrent = (state: SearchState | undefined) => state?.commit_oid === main && state.version === SEARCH_VERSION;
  const state = (await searchStates(ctx.db, [spaceId])).get(spaceId);
  if (isCurrent(state)) return 'current';
  const content = await loadRevision(ctx, spaceId, main, { final: true });
  const pages = searchedPages(content);
  // Parse, outside the transaction and off the event loop, the pages whose rows are missing or out of date: in the
  // stored language, or for a space indexed anew the one a sample of its pages shows.
  const sameVersion = state?.version === SEARCH_VERSION;
  let language = sameVersion ? languageOf(state) : sampleLanguage(pages);
  // The stored rows are the stored revision's: when it is still in memory, the pages that differ are found by
  // comparing the two revisions, and only their rows are read (not the ~10,000 of 10,000 pages, ~30 ms).
  const previous = sameVersion ? await cachedRevision(ctx, spaceId, state.commit_oid) : undefined;
  let known = previous ? pagesDiff(sourcesOf(searchedPages(previous)), pages) : undefined;
  if (known && known.changed.length + known.removed.length > MAX_DIFF_PAGES) known = undefined;
  // Only the rows of the pages that differ are read.
  const byId = known !== undefined;
  const before = !sameVersion
    ? new Map<string, StoredSearchPage>()
    : await storedSearchPages(ctx.db, spaceId, known && [...known.changed.map((page) => page.id), ...known.removed]);
  const diff = known ?? pagesDiff(before, pages);
  const parsed = new Map<string, SearchPageRows>();
  const parse = async (list: DocumentPage[]) => {
    for (const rows of await rowsInPool(ctx, spaceId, list, language)) parsed.set(rows.page.page_id, rows);
  };
  await parse(diff.changed);
  // The stop words of every page: the stored ones, but those of the pages parsed again and of the pages gone.
  const votes = byId
    ? countVotes(countVotes(await storedLanguageVotes(ctx.db, spaceId), before.values(), -1), [...parsed.values()].map((rows) => rows.page))
    : countVotes(new Map(), pages.map((page) => parsed.get(page.id)?.page ?? before.get(page.id)!));
  const told = spaceLanguage(language, votes);
  if (told !== language) {
    language = told;
    parsed.clear();
    await parse(pages);
  }
  // A big change (a first push of 10,000 pages) is written in parts of PAGES_PER_WRITE, each its own transaction:
  // on SQLite a transaction holds the one connection, and writing 10,000 pages at once held every request for a
  // second. Until the last part the stored state names no commit (PARTIAL), so an indexing that stops half-way is
  // done again from the stored rows (those written already are kept), and one that finds another's part written
  // meanwhile starts over (superseded).
  let rows: PagesDiff | undefined;
  let written: string | undefined;
  for (;;) {
    const outcome = await ctx.db.transaction().execute(async (trx) => {
      // One indexing of a space at a time (in any process): the others find the work done, or do what is left.
      await lockSpaceRow(trx, spaceId);
      if ((await ctx.reader.resolveRef(spaceId, MAIN_REF)) !== main) return 'superseded';
      const now = (await searchStates(trx, [spaceId])).get(spaceId);
      if (isCurrent(now)) return 'current';
      if (written !== undefined) {
        if (now?.commit_oid !== PARTIAL || now.indexed_at !== written) return 'superseded';
      } else {
        // The diff stands unless another indexing wrote meanwhile or the language changed: then it is made again from the
        // stored rows (read again, 10,000 pages take ~25 ms, unless all were read before and are still the stored ones).
        const unchanged = sameVersion && now !== undefined && now.commit_oid === state.commit_oid && now.indexed_at === state.indexed_at && now.language === state.language;
        const sameRules = now?.version === SEARCH_VERSION && now.language === language;
        rows = diff;
        if (!unchanged || !sameRules) {
          const stored = unchanged && !byId ? before : await storedSearchPages(trx, spaceId);
          // Rows of other rules or of another language are all made again.
          rows = sameRules ? pagesDiff(stored, pages) : { removed: [...stored.keys()], changed: pages, moved: [] };
          // Pages another indexing stored meanwhile with other content (rare) are parsed here.
          await parse(rows.changed.filter((page) => !parsed.has(page.id)));
        }
      }
      const todo = rows!;
      const part = todo.changed.length > PAGES_PER_WRITE ? todo.changed.slice(0, PAGES_PER_WRITE) : undefined;
      const added = (part ?? todo.changed).map((page) => parsed.get(page.id)!);
      if (part) {
        written = nowIso();
        await applySearchChange(trx, spaceId, { commit_oid: PARTIAL, version: SEARCH_VERSION, language, indexed_at: written }, { removed: todo.removed, added, moved: [] });
        rows = { removed: [], changed: todo.changed.slice(PAGES_PER_WRITE), moved: todo.moved };
        return 'partial' as const;
      }
      const change: SearchIndexChange = { removed: todo.removed, added, moved: todo.moved };
      await applySearchChange(trx, spaceId, { commit_oid: main, version: SEARCH_VERSION, language, indexed_at: nowIso() }, change);
      return 'indexed' as const;
    });
    if (outcome !== 'partial') return outcome;
    await otherRequestsFirst();
  }
}

/** Pages written per transaction by an indexing (see indexSearchAt). */
const PAGES_PER_WRITE = 100;
/** The commit a space's stored state names while an indexing has written only part of its pages: none. */
const PARTIAL = '';


/** Indexes the spaces that were never indexed (spaces indexed before are left to the job); their states. */
export async function ensureIndexed(ctx: Context, spaceIds: readonly string[]): Promise<Map<string, SearchState>> {
  const states = await searchStates(ctx.db, spaceIds);
  const missing = spaceIds.filter((spaceId) => !states.has(spaceId));
  // Concurrent searches of one never-indexed space share one indexing.
  for (const spaceId of missing) await ctx.workByKey.run(`index-search:${spaceId}`, () => indexSearch(ctx, spaceId));
  if (missing.length > 0) for (const [spaceId, state] of await searchStates(ctx.db, missing)) states.set(spaceId, state);
  return states;
}
