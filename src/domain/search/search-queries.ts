/**
 * Full-text search over the pages of spaces: in one space (`searchSpaceContent`), across an organization's spaces the
 * caller can see (`searchOrganizationContent`), and a published site's search. The index they read is written by ./search-indexing.ts
 * (the index and the space's language are described there).
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
import { collectPage, type Page, type PageRequest } from '../lists.js';
import { atLeast, spaceRole } from '../permissions.js';
import { loadSpace } from '../content/spaces.js';
import { SEARCH_VERSION } from '../content/refs.js';
import { organizationAccess } from '../organizations/organizations.js';
import { queryTerms, termCount, type SearchLanguage, type SearchTerms } from '../../content/search-text.js';
import {
  hitsFromPages,
  otherRequestsFirst,
  rankFromTermLists,
  rankingBases,
  type PageHit,
} from '../../content/search-ranking.js';
import type { RankingBase } from '../../content/term-ranking.js';
import {
  rankPages,
  ranksBefore,
  resultPages,
  type EngineQuery,
  type RankPosition,
  type RankedPage,
  type SearchState,
} from '../../store/sql/search.js';
import { termDocs, termLists } from '../../store/sql/search-terms.js';
import { liveSpacesOfOrganization, type SpaceRow } from '../../store/sql/spaces.js';
import type { KeptRanking } from './rankings.js';
import { ensureIndexed, languageOf } from './search-indexing.js';

// A page's rows, rankings from term lists, and results are pure code (src/content/search-ranking.ts), run here and
// on CPU threads; the names a static export's search reads are offered here too.
export { EXCERPT_PARTS, SECTIONS_PER_PAGE, type PageHit, type SearchablePage, type SectionHit } from '../../content/search-ranking.js';

const PAGES_PER_SPACE = 10;

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
    for (const row of await rankPages(ctx.db, byEngine, query, k, options.after, ctx.readOffLoop)) bySpace.get(row.space_id)?.push(row);
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
 * end about together (bench/README.md).
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
