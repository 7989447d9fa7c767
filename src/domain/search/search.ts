/**
 * Full-text search over the pages of spaces (issue 5): #49 in one space, #92 across an organization's spaces the
 * caller can see, and a published site's search.
 *
 * Index (src/store/sql/search.ts): the databases' own engines (issue 16 item 2), SQLite's FTS5 and PostgreSQL's
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
 *
 * Query: its words (stop words of the space's language and English dropped when other words remain), each matched
 * as itself or by its stem (`installing` finds `installed`: both stem to `instal`); the last word, from two
 * characters, also matches as the start of words (`inst` finds `install`, `configura` finds `configuration`). A page
 * matches when it has any of them. Ranking, best first: pages with a query word in their title, then in a heading,
 * then in their text only (the same tiers on both databases); within a tier, the engine's score: bm25 on SQLite,
 * ts_rank on PostgreSQL, both with the field weights title 10, headings 5, text 1; then the page's number in the
 * index. The engines' scores differ in detail (bm25 weighs rare words up and long pages down, ts_rank does neither),
 * not in those rules. The best pages per space are picked in SQL (a window function), and the tiers spare the
 * scoring of text matches in spaces whose title and heading matches fill their places: a common word never brings
 * every match of every space into JavaScript, nor has every one scored.
 * Searches rank each space's pages from its term lists instead (src/content/term-ranking.ts,
 * src/store/sql/search-terms.ts): the same rules and FTS5's bm25, over the space's own pages (its figures, not those of
 * every space of the instance), on both databases. The engines score every match, with no early termination: a word on
 * nearly every page of 100 spaces of 1,000 pages took 200-300 ms to rank there, where reading and scoring the same
 * lists takes a few milliseconds; and one space's search on SQLite cost 40 ms for a common word (FTS5's bm25 over every
 * match). A later page of one space's results ranks the pages after the cursor's place the same way. A space not yet
 * indexed with lists (an earlier version's rows, until its indexing) is ranked by the engine. On SQLite, part of an
 * organization's spaces are ranked, and part of the results made, on a CPU pool thread when one is free
 * (splitWithThread).
 * Sections of a page result: the sections (split at headings) whose heading or text has a query word (as written,
 * by stem or prefix: the engine's rule), best first (heading matches, more query words, more occurrences, then page
 * order), at most 5, each with an excerpt of its text around the first match. Organization results are spaces
 * ranked by their best page, each with its best 10 pages. Organization and site searches keep each space's ranking
 * (and an organization's, the results it showed) until the space is indexed again (./rankings.ts).
 */
import type { Context, Caller } from '../context.js';
import { nowIso } from '../ids.js';
import { collectPage, type Page, type PageRequest } from '../lists.js';
import { atLeast, spaceRole } from '../permissions.js';
import { loadSpace } from '../content/spaces.js';
import { keptRevision, loadRevision, type IndexedRevision } from '../content/revisions.js';
import { MAIN_REF, SEARCH_VERSION } from '../content/refs.js';
import { organizationAccess } from '../organizations/organizations.js';
import type { DocumentPage } from '../../content/model.js';
import { indexedPart, MAX_INDEXED_TEXT } from '../../content/bounded-markdown.js';
import { Turns } from '../../content/turns.js';
import {
  detectLanguage,
  MIN_LANGUAGE_VOTES,
  isSearchLanguage,
  languageVotes,
  queryTerms,
  termCount,
  tokenize,
  type SearchLanguage,
  type SearchTerms,
} from '../../content/search-text.js';
import {
  hitsFromPages,
  otherRequestsFirst,
  rankFromTermLists,
  rankingBases,
  signatureOf,
  type PageHit,
} from '../../content/search-ranking.js';
import type { RankingBase } from '../../content/term-ranking.js';
import {
  applySearchChange,
  rankPages,
  ranksBefore,
  resultPages,
  searchStates,
  storedLanguageVotes,
  storedSearchPages,
  type EngineQuery,
  type RankPosition,
  type RankedPage,
  type SearchIndexChange,
  type SearchPageRows,
  type SearchState,
  type StoredSearchPage,
} from '../../store/sql/search.js';
import { termDocs, termLists } from '../../store/sql/search-terms.js';
import { findSpace, liveSpacesOfOrganization, lockSpaceRow, type SpaceRow } from '../../store/sql/content.js';
import type { KeptRanking } from './rankings.js';

// A page's rows, rankings from term lists, and results are pure code (src/content/search-ranking.ts), run here and
// on CPU threads; the names a static export's search reads are offered here too.
export { EXCERPT_PARTS, SECTIONS_PER_PAGE, type PageHit, type SearchablePage, type SectionHit } from '../../content/search-ranking.js';


const PAGES_PER_SPACE = 10;

// ---- indexing

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

const languageOf = (state: SearchState | undefined): SearchLanguage => (state && isSearchLanguage(state.language) ? state.language : 'en');

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
  const previous = sameVersion ? await keptRevision(ctx, spaceId, state.commit_oid) : undefined;
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
const PAGES_PER_WRITE = 250;
/** The commit a space's stored state names while an indexing has written only part of its pages: none. */
const PARTIAL = '';

/** Indexes the spaces that were never indexed (spaces indexed before are left to the job); their states. */
async function ensureIndexed(ctx: Context, spaceIds: readonly string[]): Promise<Map<string, SearchState>> {
  const states = await searchStates(ctx.db, spaceIds);
  const missing = spaceIds.filter((spaceId) => !states.has(spaceId));
  // Concurrent searches of one never-indexed space share one indexing.
  for (const spaceId of missing) await ctx.shared.run(`index-search:${spaceId}`, () => indexSearch(ctx, spaceId));
  if (missing.length > 0) for (const [spaceId, state] of await searchStates(ctx.db, missing)) states.set(spaceId, state);
  return states;
}

// ---- searching

export interface SpaceHit {
  space: SpaceRow;
  pages: PageHit[];
}

/**
 * The tokens a query's terms match in the engines: each whole word as written and its stem; the last word as the
 * start of tokens, and its stem whole (src/content/search-text.ts matchTerm is the same rule, for excerpts).
 */
export function engineQuery(terms: SearchTerms): EngineQuery {
  const whole = new Set([...terms.exact, ...terms.stems.slice(0, terms.exact.length)]);
  if (terms.prefix !== undefined) {
    const stem = terms.stems[terms.exact.length];
    if (!stem.startsWith(terms.prefix)) whole.add(stem);
  }
  return { whole: [...whole], prefixes: terms.prefix !== undefined ? [terms.prefix] : [] };
}

const byRank = (a: RankPosition, b: RankPosition) => (ranksBefore(a, b) ? -1 : ranksBefore(b, a) ? 1 : 0);

/** The query's terms in each language of the given spaces. */
function termsByLanguage(query: string, states: ReadonlyMap<string, SearchState>, spaceIds: readonly string[]): Map<SearchLanguage, { terms: SearchTerms; spaces: Array<{ spaceId: string; key: number }> }> {
  const groups = new Map<SearchLanguage, { terms: SearchTerms; spaces: Array<{ spaceId: string; key: number }> }>();
  for (const spaceId of spaceIds) {
    const state = states.get(spaceId);
    if (!state) continue;
    const language = languageOf(state);
    let group = groups.get(language);
    if (!group) groups.set(language, (group = { terms: queryTerms(query, language), spaces: [] }));
    group.spaces.push({ spaceId, key: state.key });
  }
  return groups;
}

/**
 * The best `k` pages of each space for the query (after a position, for one space's next page), and the terms each
 * space was searched with: one engine query per language among the spaces (usually one). `keep`: rankings are read
 * from and kept in the context's SpaceRankings (./rankings.ts), and only spaces without one are ranked by the engine
 * (first pages only: `after` always asks the engine); `hits` has the results kept with them, and `repeated` the
 * spaces whose ranking was kept (the query was asked of them before, at their current state).
 */
async function topPages(
  ctx: Context,
  query: string,
  states: ReadonlyMap<string, SearchState>,
  spaceIds: readonly string[],
  k: number,
  options: { after?: RankPosition; keep?: boolean } = {},
): Promise<{ pages: Map<string, RankPosition[]>; terms: Map<string, SearchTerms>; hits: Map<string, readonly PageHit[]>; repeated: Set<string> }> {
  const pages = new Map<string, RankPosition[]>();
  const terms = new Map<string, SearchTerms>();
  const hits = new Map<string, readonly PageHit[]>();
  const repeated = new Set<string>();
  const keep = options.keep === true && options.after === undefined;
  const add = (spaceId: string, rows: readonly RankedPage[]) => {
    if (rows.length > 0) pages.set(spaceId, rows.map(({ tier, score, doc }) => ({ tier, score, doc })));
  };
  for (const group of termsByLanguage(query, states, spaceIds).values()) {
    for (const { spaceId } of group.spaces) terms.set(spaceId, group.terms);
    if (termCount(group.terms) === 0) continue;
    const unranked = [];
    for (const space of group.spaces) {
      const kept: KeptRanking | undefined = keep ? ctx.rankings.get(space.spaceId, states.get(space.spaceId)!, group.terms, k) : undefined;
      if (!kept) unranked.push(space);
      else {
        add(space.spaceId, kept.pages);
        repeated.add(space.spaceId);
        if (kept.hits) hits.set(space.spaceId, kept.hits);
      }
    }
    if (unranked.length === 0) continue;
    const bySpace = new Map<string, RankedPage[]>(unranked.map(({ spaceId }) => [spaceId, []]));
    const query = engineQuery(group.terms);
    // From the spaces' term lists; a space without lists (indexed by an earlier version, until it is indexed again):
    // by the engine.
    const ranked = await rankByTermLists(ctx, unranked, states, query, k, options.after);
    for (const row of ranked.rows) bySpace.get(row.space_id)?.push(row);
    const byEngine = unranked.filter(({ spaceId }) => !ranked.spaces.has(spaceId));
    for (const row of await rankPages(ctx.db, byEngine, query, k, options.after, ctx.longRead)) bySpace.get(row.space_id)?.push(row);
    for (const [spaceId, rows] of bySpace) {
      // A space without a match is kept too: most spaces of an organization have none for a rare word.
      if (keep) ctx.rankings.set(spaceId, states.get(spaceId)!, group.terms, k, rows);
      add(spaceId, rows);
    }
  }
  return { pages, terms, hits, repeated };
}

/** Spaces from which their work is split with a thread (for fewer, the thread's round trip costs more than it saves). */
const SPLIT_FROM = 8;

/**
 * The thread's part of the spaces: it takes longer than the event loop for as many (it reads their bases afresh,
 * and its results cross back by structured clone; measured 1.3-1.6 times as long), and with 40% of them both parts
 * end about together (bench/README.md, session 19).
 */
const THREAD_SHARE = 0.4;

/**
 * Work on many spaces done in two parts at once: the last THREAD_SHARE of them on a CPU pool thread (`there`, with
 * the database file the thread reads on its own connection), the others here. An organization's search ranks 100
 * spaces and makes the results of 50: CPU work (decoding term lists, scoring, finding excerpts) that two cores do in
 * less time. Only on SQLite, and only when a thread is free: a search never waits behind other work for a thread, it
 * does all of it here instead. (On PostgreSQL a thread with a connection of its own was slower: it reads its spaces'
 * page lists afresh, through the driver's row parsing; 58 -> 64 ms p50 in bench/search.ts, bench/README.md.) Both
 * parts run the same code; the results are the same either way, and when the thread fails its part (logged), the
 * same as well.
 */
async function splitWithThread<T, R>(
  ctx: Context,
  items: readonly T[],
  here: (part: readonly T[]) => Promise<R>,
  there: (file: string, part: readonly T[]) => Promise<R>,
): Promise<R[]> {
  const file = ctx.threadReadFile;
  if (file === undefined || items.length < SPLIT_FROM || !ctx.cpu.readyNow()) return [await here(items)];
  const split = items.length - Math.round(items.length * THREAD_SHARE);
  const part = items.slice(split);
  // The thread's part is sent first: `here` runs synchronously until its first turn of the event loop. Its failure
  // is held (never left unhandled while `here` runs), and its part is done here instead.
  const theirs = there(file, part).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  const mine = await here(items.slice(0, split));
  const answer = await theirs;
  if ('value' in answer) return [mine, answer.value];
  ctx.log.warn({ err: answer.error }, 'search: a CPU thread failed its part of the work; done on the event loop');
  return [mine, await here(part)];
}

/**
 * The best `k` pages of each space from its term lists (src/content/search-ranking.ts rankFromTermLists); `bases`:
 * the spaces' live pages (a space without one has no lists, and is left out); `after`: only pages ranked after that
 * place. A CPU pool thread does the same on its own connection (src/cpu/tasks.ts rankSpaces).
 */
export async function rankWithTermLists(
  db: Context['db'],
  spaces: ReadonlyArray<{ spaceId: string; key: number }>,
  bases: ReadonlyMap<string, RankingBase>,
  query: EngineQuery,
  k: number,
  after?: RankPosition,
): Promise<RankedPage[]> {
  const lists = await termLists(db, spaces.map((space) => space.spaceId).filter((spaceId) => bases.has(spaceId)), query);
  return rankFromTermLists(spaces, bases, lists, query, k, after);
}

/** The bases of spaces read from their term lists (spaces without lists are left out). */
export async function readRankingBases(db: Context['db'], spaceIds: readonly string[]): Promise<Map<string, RankingBase>> {
  return rankingBases(await termDocs(db, spaceIds));
}

/**
 * The best `k` pages of each space from its term lists; `spaces`: those that have lists (made by this version's
 * rules: the others are left out, for the engine). Half of the spaces may be ranked on a thread (splitWithThread),
 * which reads their bases itself; the bases of the others are kept with their rankings until the space is indexed
 * again.
 */
async function rankByTermLists(
  ctx: Context,
  spaces: ReadonlyArray<{ spaceId: string; key: number }>,
  states: ReadonlyMap<string, SearchState>,
  query: EngineQuery,
  k: number,
  after?: RankPosition,
): Promise<{ rows: RankedPage[]; spaces: Set<string> }> {
  const here = async (part: ReadonlyArray<{ spaceId: string; key: number }>) => {
    const bases = new Map<string, RankingBase>();
    for (const { spaceId } of part) {
      const base = ctx.rankings.base(spaceId, states.get(spaceId)!);
      if (base) bases.set(spaceId, base);
    }
    for (const [spaceId, base] of await readRankingBases(ctx.db, part.map((space) => space.spaceId).filter((spaceId) => !bases.has(spaceId)))) {
      ctx.rankings.setBase(spaceId, states.get(spaceId)!, base);
      bases.set(spaceId, base);
    }
    return { rows: await rankWithTermLists(ctx.db, part, bases, query, k, after), spaces: [...bases.keys()] };
  };
  // Lists made by earlier rules (without prefix lists, until the space's indexing) are left to the engine.
  const current = spaces.filter(({ spaceId }) => states.get(spaceId)?.version === SEARCH_VERSION);
  const parts = await splitWithThread(ctx, current, here, (file, part) => ctx.cpu.run('rankSpaces', { file, spaces: part, query, k, after }));
  await otherRequestsFirst();
  return { rows: parts.flatMap((part) => part.rows), spaces: new Set(parts.flatMap((part) => part.spaces)) };
}

/**
 * The results of pages found, by their numbers (doc), with their sections that hold a query word
 * (src/content/search-ranking.ts hitsFromPages). A CPU pool thread does the same on its own connection
 * (src/cpu/tasks.ts searchHits).
 */
export async function hitsOf(
  db: Context['db'],
  ranked: ReadonlyArray<{ spaceId: string; docs: readonly number[] }>,
  terms: ReadonlyMap<string, SearchTerms>,
): Promise<Map<number, PageHit>> {
  return hitsFromPages(await resultPages(db, ranked.flatMap(({ docs }) => docs)), ranked, terms);
}

/** The results of pages found, by number (hitsOf), part of the spaces' made on a thread when one is free. */
async function withSections(ctx: Context, ranked: Array<{ spaceId: string; pages: readonly RankPosition[] }>, terms: ReadonlyMap<string, SearchTerms>): Promise<Map<number, PageHit>> {
  const shown = ranked.map(({ spaceId, pages }) => ({ spaceId, docs: pages.map((page) => page.doc) }));
  const parts = await splitWithThread(
    ctx,
    shown,
    (part) => hitsOf(ctx.db, part, terms),
    // The thread gets the terms of its spaces only.
    (file, part) => ctx.cpu.run('searchHits', { file, ranked: part, terms: new Map(part.map(({ spaceId }) => [spaceId, terms.get(spaceId)!])) }),
  );
  return new Map(parts.flatMap((part) => [...part]));
}

/** The results of `pages`, in their order (a page gone since it was ranked is left out). */
const hitsIn = (hits: ReadonlyMap<number, PageHit>, pages: readonly RankPosition[]): PageHit[] => pages.flatMap((page) => hits.get(page.doc) ?? []);

/** Pages of one space matching `query`, best first (read permission on the space). */
export async function searchSpace(ctx: Context, caller: Caller, spaceId: string, query: string, request: PageRequest): Promise<Page<PageHit>> {
  await loadSpace(ctx, caller, spaceId);
  const states = await ensureIndexed(ctx, [spaceId]);
  const terms = queryTerms(query, languageOf(states.get(spaceId)));
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `search:${spaceId}:${JSON.stringify(terms)}`,
    request,
    fetch: async (after, n) =>
      (await topPages(ctx, query, states, [spaceId], n, { after: after ? { tier: Number(after[0]), score: Number(after[1]), doc: Number(after[2]) } : undefined })).pages.get(spaceId) ?? [],
    positionOf: (r) => [r.tier, r.score, r.doc],
    present: (r) => r,
  });
  const hits = await withSections(ctx, [{ spaceId, pages: page.items }], new Map([[spaceId, terms]]));
  return { items: hitsIn(hits, page.items), next: page.next };
}

/**
 * Spaces of an organization matching `query`: only live spaces the caller can read (the organization's members;
 * 404 for others), ranked by their best page (then by space id), each with its best pages.
 */
export async function searchOrganization(ctx: Context, caller: Caller, organizationId: string, query: string, request: PageRequest): Promise<Page<SpaceHit>> {
  // The spaces are read while access is checked (one round trip to the database fewer); none is shown unless it passes.
  const [{ access }, live] = await Promise.all([organizationAccess(ctx, caller, organizationId), liveSpacesOfOrganization(ctx.db, organizationId)]);
  const spaces = live.filter((space) => atLeast(spaceRole(access, space), 'read'));
  const found: Array<{ space: SpaceRow; pages: RankPosition[] }> = [];
  let terms = new Map<string, SearchTerms>();
  // Each shown space's results: those kept with its ranking, then those made here.
  let results = new Map<string, readonly PageHit[]>();
  let repeated = new Set<string>();
  let states = new Map<string, SearchState>();
  if (termCount(queryTerms(query)) > 0 && spaces.length > 0) {
    const ids = spaces.map((s) => s.id);
    states = await ensureIndexed(ctx, ids);
    const best = await topPages(ctx, query, states, ids, PAGES_PER_SPACE, { keep: true });
    terms = best.terms;
    results = best.hits;
    repeated = best.repeated;
    for (const space of spaces) {
      const pages = best.pages.get(space.id);
      if (pages && pages.length > 0) found.push({ space, pages });
    }
  }
  // Spaces by their best page (its tier and score), then by id.
  const position = (hit: { space: SpaceRow; pages: RankPosition[] }): [number, number, string] => [hit.pages[0].tier, hit.pages[0].score, hit.space.id];
  const compare = (a: [number, number, string], b: [number, number, string]) =>
    a[0] !== b[0] ? b[0] - a[0] : a[1] !== b[1] ? b[1] - a[1] : a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0;
  found.sort((a, b) => compare(position(a), position(b)));
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `org-search:${organizationId}:${JSON.stringify(queryTerms(query))}`,
    request,
    fetch: async (after, n) => {
      const start = after ? found.findIndex((hit) => compare(position(hit), [Number(after[0]), Number(after[1]), String(after[2])]) > 0) : 0;
      return start < 0 ? [] : found.slice(start, start + n);
    },
    positionOf: position,
    present: (hit) => hit,
  });
  // The results of the spaces shown: kept with their rankings, or made from their sections; kept from a query's
  // second asking on (its ranking was kept). Most queries are asked once, and results kept for them would only
  // outlive a few collections of the young generation to be copied to the old one and collected there: the
  // organization's first searches took 2-3 ms longer when every answer's results were kept (bench/README.md).
  const unmade = page.items.filter((hit) => !results.has(hit.space.id));
  const made = await withSections(ctx, unmade.map((hit) => ({ spaceId: hit.space.id, pages: hit.pages })), terms);
  for (const hit of unmade) {
    const pageHits = hitsIn(made, hit.pages);
    results.set(hit.space.id, pageHits);
    if (repeated.has(hit.space.id)) ctx.rankings.setHits(hit.space.id, states.get(hit.space.id)!, terms.get(hit.space.id)!, PAGES_PER_SPACE, pageHits);
  }
  return { items: page.items.map((hit) => ({ space: hit.space, pages: [...results.get(hit.space.id)!] })), next: page.next };
}

/** Pages a published site's search answers (a static export's search too). */
export const SITE_RESULTS = 20;

/**
 * The best pages of `spaceIds` for `query`, across them, best first (a published site's search: whoever reads the
 * site reads its spaces, which the caller checked).
 */
export async function searchSpaces(ctx: Context, spaceIds: readonly string[], query: string, limit = SITE_RESULTS): Promise<PageHit[]> {
  if (termCount(queryTerms(query)) === 0 || spaceIds.length === 0) return [];
  const best = await topPages(ctx, query, await ensureIndexed(ctx, spaceIds), spaceIds, limit, { keep: true });
  const top = [...best.pages]
    .flatMap(([spaceId, pages]) => pages.map((page) => ({ spaceId, page })))
    .sort((a, b) => (a.page.tier !== b.page.tier || a.page.score !== b.page.score ? byRank(a.page, b.page) : a.spaceId < b.spaceId ? -1 : a.spaceId > b.spaceId ? 1 : 0))
    .slice(0, limit);
  const hits = await withSections(ctx, [...new Set(top.map((t) => t.spaceId))].map((spaceId) => ({ spaceId, pages: top.filter((t) => t.spaceId === spaceId).map((t) => t.page) })), best.terms);
  return hitsIn(hits, top.map((t) => t.page));
}
