/**
 * Full-text search over the pages of spaces (issue 5): #49 in one space, #92 across an organization's spaces the
 * caller can see.
 *
 * Index (src/store/sql/search.ts): a portable posting table, term -> (space, page, score), beside the pages and
 * their sections. It is the same SQL on SQLite and PostgreSQL (no FTS5 / tsvector pair to keep in step, one ranking
 * on both). Terms are tokenized by src/content/search-text.ts.
 * - The `index-search` job indexes main's current revision of a space (whatever commit the job names: a late job
 *   indexes the newest revision, or finds it done). Only pages whose blob or title changed are parsed again; pages
 *   that only moved get their new path. It is idempotent: nothing happens when the stored revision is main's.
 * - A search in a space that was never indexed indexes it first (same function); afterwards searches read what
 *   is stored, and the job brings it up to date after each new revision of main.
 * - Only document pages are indexed (groups and link pages have no text).
 *
 * Query: the words of `query` as terms (stop words dropped when other words remain); the last word, from two
 * characters, also matches as a prefix (`inst` finds `install`). A page matches when it has any of the terms.
 *
 * Ranking, best first (the same on both databases):
 *   1. more query terms in the page title;
 *   2. more query terms anywhere in the page (title, headings, text);
 *   3. more query terms in its section headings;
 *   4. more occurrences of the query terms in its text (at most 1,000 counted per term);
 *   then by page id (descending: the index's order), and across spaces by space id.
 * So a title match ranks above body matches, and more matching terms above fewer. Each posting stores its term's
 * part of that order as one number (digits in base 2^15: title, present, heading, occurrences), so a page's rank
 * is the sum over the query terms of its postings' scores, and the best pages are found without reading every
 * posting of a common term: the postings of the other terms are read whole, those of the most common one best
 * first, deeper until no page not seen yet can beat the k-th page found (the threshold algorithm, Fagin).
 * Sections of a page result: the sections (split at headings) whose heading or text has a query term, best first by
 * the same rules (heading terms, terms, occurrences, then page order), at most 5, each with an excerpt of its text
 * around the first match. Organization results are spaces ranked by their best page, each with its best 10 pages.
 */
import type { Context, Caller } from '../context.js';
import { nowIso } from '../ids.js';
import { collectPage, type Page, type PageRequest } from '../lists.js';
import { atLeast, spaceRole } from '../permissions.js';
import { loadSpace } from '../content/spaces.js';
import { loadRevision } from '../content/revisions.js';
import { MAIN_REF } from '../change-requests/change-requests.js';
import { organizationAccess } from '../organizations/organizations.js';
import type { DocumentPage } from '../../content/model.js';
import { indexedPart, MAX_INDEXED_TEXT } from '../../content/bounded-markdown.js';
import {
  findTerms,
  pageSections,
  queryTerms,
  termCount,
  termCounts,
  type SearchTerms,
} from '../../content/search-text.js';
import {
  applySearchChange,
  countPostings,
  readLists,
  searchPagesByIds,
  searchStates,
  sectionsOf,
  storedSearchPages,
  termScores,
  topPostings,
  type SearchIndexChange,
  type SearchPageRows,
  type SectionRow,
  type TermList,
} from '../../store/sql/search.js';
import { findSpace, liveSpacesOfOrganization, lockSpaceRow, type SpaceRow } from '../../store/sql/content.js';

/** The indexing rules of the stored rows; a space indexed with other rules is indexed again, whole. */
export const SEARCH_VERSION = 1;

const MAX_SECTION_TEXT = 20_000;
const SECTIONS_PER_PAGE = 5;
const PAGES_PER_SPACE = 10;
const EXCERPT = 200;

// ---- indexing

function signatureOf(page: Pick<DocumentPage, 'blobOid' | 'title'>): string {
  return `${page.blobOid} ${page.title}`;
}

// A term's score in a page, digits in base 2^15 (sums over a query's terms never carry; see the top of this file).
const DIGIT = 2 ** 15;
const MAX_OCCURRENCES = 1000;

/** The score of a term in a page: in the title, present, in a heading, occurrences in the text. */
export function termScore(inTitle: number, inHeadings: number, inText: number): number {
  return (inTitle > 0 ? DIGIT ** 3 : 0) + DIGIT ** 2 + (inHeadings > 0 ? DIGIT : 0) + Math.min(inText, MAX_OCCURRENCES);
}

/** What pageRows reads of a page (plain data, for the CPU pool). */
export type SearchablePage = Pick<DocumentPage, 'id' | 'title' | 'path' | 'blobOid' | 'markdown' | 'description'>;

/**
 * The search rows of one page: its sections and the score of each of its terms. Only the first MAX_INDEXED_TEXT
 * characters of its markdown are read (src/content/bounded-markdown.ts).
 */
export function pageRows(page: SearchablePage): SearchPageRows {
  const sections = pageSections(indexedPart(page.markdown).text);
  if (page.description) sections[0].body = sections[0].body ? `${page.description}\n${sections[0].body}` : page.description;
  const title = termCounts(page.title);
  const headings = new Map<string, number>();
  const body = new Map<string, number>();
  for (const section of sections) {
    termCounts(section.title, headings);
    termCounts(section.body, body);
  }
  const terms = new Set([...title.keys(), ...headings.keys(), ...body.keys()]);
  return {
    page: { page_id: page.id, title: page.title, path: page.path, signature: signatureOf(page) },
    sections: sections.map((s) => ({ ...s, body: s.body.slice(0, MAX_SECTION_TEXT) })),
    postings: [...terms].map((term) => ({ term, score: termScore(title.get(term) ?? 0, headings.get(term) ?? 0, body.get(term) ?? 0) })),
  };
}

export type IndexOutcome = 'indexed' | 'current' | 'skipped' | 'superseded';

// Pages per task of the CPU pool: several tasks let both threads work, and each message stays small.
const PAGES_PER_TASK = 100;

/**
 * pageRows of the pages, on the CPU pool. A page longer than the index reads is logged as indexed partly (the push
 * that brought it printed the same warning).
 */
async function rowsInPool(ctx: Context, spaceId: string, pages: DocumentPage[]): Promise<SearchPageRows[]> {
  const tasks: Promise<SearchPageRows[]>[] = [];
  for (let i = 0; i < pages.length; i += PAGES_PER_TASK) {
    // Only what the index reads crosses to the thread (a copy: a 5 MB page costs the event loop 1 MB of it).
    const batch = pages
      .slice(i, i + PAGES_PER_TASK)
      .map(({ id, title, path, blobOid, markdown, description }) => ({ id, title, path, blobOid, markdown: indexedPart(markdown).text, description }));
    tasks.push(ctx.cpu.run('searchRows', batch));
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

/**
 * Indexes `main`, the commit main was at when the indexing began. `superseded`: main moved on meanwhile, and
 * nothing was written: an indexing that began earlier and ends later must never put an older revision over a
 * newer one (a worker running two jobs of one space at once).
 */
export async function indexSearchAt(ctx: Context, spaceId: string, main: string): Promise<IndexOutcome> {
  const space = await findSpace(ctx.db, spaceId);
  if (!space || space.deleted_at) return 'skipped';
  const isCurrent = (state: { commit_oid: string; version: number } | undefined) => state?.commit_oid === main && state.version === SEARCH_VERSION;
  if (isCurrent((await searchStates(ctx.db, [spaceId])).get(spaceId))) return 'current';
  const content = await loadRevision(ctx, spaceId, main, { final: true });
  const pages = [...content.pagesById.values()].filter((p): p is DocumentPage => p.type === 'document' || p.type === 'computed');
  // Parse, outside the transaction and off the event loop, the pages whose rows are missing or out of date.
  const before = await storedSearchPages(ctx.db, spaceId);
  const parsed = new Map<string, SearchPageRows>();
  for (const rows of await rowsInPool(ctx, spaceId, pages.filter((page) => before.get(page.id)?.signature !== signatureOf(page)))) {
    parsed.set(rows.page.page_id, rows);
  }
  return ctx.db.transaction().execute(async (trx) => {
    // One indexing of a space at a time (in any process): the others find the work done, or do what is left.
    await lockSpaceRow(trx, spaceId);
    if ((await ctx.reader.resolveRef(spaceId, MAIN_REF)) !== main) return 'superseded';
    const state = (await searchStates(trx, [spaceId])).get(spaceId);
    if (isCurrent(state)) return 'current';
    const stored = await storedSearchPages(trx, spaceId);
    const sameRules = state?.version === SEARCH_VERSION;
    const live = new Set(pages.map((p) => p.id));
    const change: SearchIndexChange = { removed: [...stored.keys()].filter((id) => !sameRules || !live.has(id)), added: [], moved: [] };
    const added: DocumentPage[] = [];
    for (const page of pages) {
      const old = sameRules ? stored.get(page.id) : undefined;
      if (old?.signature !== signatureOf(page)) added.push(page);
      else if (old.path !== page.path) change.moved.push({ page_id: page.id, path: page.path });
    }
    // Pages another indexing stored meanwhile with other content (rare) are parsed here.
    const missing = await rowsInPool(ctx, spaceId, added.filter((page) => !parsed.has(page.id)));
    for (const rows of missing) parsed.set(rows.page.page_id, rows);
    change.added = added.map((page) => parsed.get(page.id)!);
    await applySearchChange(trx, spaceId, { commit_oid: main, version: SEARCH_VERSION, indexed_at: nowIso() }, change);
    return 'indexed' as const;
  });
}

/** Indexes the spaces that were never indexed (spaces indexed before are left to the job). */
async function ensureIndexed(ctx: Context, spaceIds: readonly string[]): Promise<void> {
  const states = await searchStates(ctx.db, spaceIds);
  for (const spaceId of spaceIds) {
    // Concurrent searches of one never-indexed space share one indexing.
    if (!states.has(spaceId)) await ctx.shared.run(`index-search:${spaceId}`, () => indexSearch(ctx, spaceId));
  }
}

// ---- searching

export interface SectionHit {
  /** The heading's anchor. */
  id: string;
  title: string;
  /** The page's path, `#`, the anchor. */
  path: string;
  /** An excerpt of the section's text around the first match. */
  body: string;
}

export interface PageHit {
  spaceId: string;
  id: string;
  title: string;
  path: string;
  sections: SectionHit[];
}

export interface SpaceHit {
  space: SpaceRow;
  pages: PageHit[];
}

/**
 * The lists of postings of a query: one per exact term; for the last word, matched as a prefix, the word itself and
 * the range of longer terms that start with it (but the exact terms). A word is often a term of its own and the
 * most common of its range: read as an exact term, its postings come best first from the key.
 */
function termLists(terms: SearchTerms): TermList[] {
  const lists: TermList[] = terms.exact.map((exact, q) => ({ q, exact }));
  if (terms.prefix !== undefined) {
    const q = terms.exact.length;
    const prefix = terms.prefix;
    const last = prefix.codePointAt(prefix.length - 1)!;
    const to = prefix.slice(0, prefix.length - String.fromCodePoint(last).length) + String.fromCodePoint(last + 1);
    if (!terms.exact.includes(prefix)) lists.push({ q, exact: prefix });
    lists.push({ q, range: { after: prefix, to }, except: terms.exact });
  }
  return lists;
}

/** An excerpt of at most about EXCERPT characters of `text`, starting a little before `offset`. */
export function excerpt(text: string, offset = 0): string {
  const flat = (s: string) => s.replace(/\s+/g, ' ').trim();
  if (text.length <= EXCERPT) return flat(text);
  let start = Math.max(0, offset - 60);
  if (start > 0) {
    const space = text.indexOf(' ', start);
    if (space >= 0 && space < offset) start = space + 1;
  }
  let end = Math.min(text.length, start + EXCERPT);
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    if (space > start + EXCERPT / 2) end = space;
  }
  return `${start > 0 ? '…' : ''}${flat(text.slice(start, end))}${end < text.length ? '…' : ''}`;
}

/** The sections of a page that have a query term, best first (see the top of this file). */
export function sectionHits(pagePath: string, sections: ReadonlyArray<Pick<SectionRow, 'position' | 'anchor' | 'title' | 'body'>>, terms: SearchTerms): SectionHit[] {
  const scored = [];
  for (const section of sections) {
    const inTitle = findTerms(section.title, terms).matched;
    const { matched: inBody, occurrences, first } = findTerms(section.body, terms);
    const matched = new Set([...inTitle, ...inBody]);
    if (matched.size === 0) continue;
    scored.push({ section, inTitle: inTitle.size, matched: matched.size, occurrences, first });
  }
  scored.sort((a, b) => b.inTitle - a.inTitle || b.matched - a.matched || b.occurrences - a.occurrences || a.section.position - b.section.position);
  return scored.slice(0, SECTIONS_PER_PAGE).map(({ section, first }) => ({
    id: section.anchor,
    title: section.title,
    path: `${pagePath}#${section.anchor}`,
    body: excerpt(section.body, first),
  }));
}

/** A page of a space and its rank score (the sum of its terms' scores). */
interface Ranked {
  pageId: string;
  score: number;
}

/** True when `a` ranks before `b`: higher score, then higher page id. */
function before(a: Ranked, b: Ranked): boolean {
  return a.score !== b.score ? a.score > b.score : a.pageId > b.pageId;
}

const byRank = (a: Ranked, b: Ranked) => (before(a, b) ? -1 : before(b, a) ? 1 : 0);

/**
 * How topPages reads (tests set other values to take every path). `readWhole`: lists this long or shorter are read
 * whole, one range read costing less than seeking page after page; `lookUp`: at most this many pages are looked up
 * one by one in the longest list, more and it is read whole.
 */
export const searchTuning = { readWhole: 256, lookUp: 128 };

/**
 * The best `k` pages of each space for the query's lists (after a position, for one space's next page). In each
 * space every list but the longest is read whole; the longest is read best first, deeper and deeper (the threshold
 * algorithm with one sorted list, see the top of this file): a page seen in none of the lists has only the longest
 * list's term, so it ranks after the place where that list stopped, and the k-th page found is final once it ranks
 * before that place. Pages of the other lists not seen in the longest one get their score there by a look-up (or
 * the longest list is read whole when they are many). All spaces are read together: a few statements per search,
 * whatever the number of spaces.
 */
async function topPages(ctx: Context, spaceIds: readonly string[], lists: TermList[], k: number, after?: Ranked): Promise<Map<string, Ranked[]>> {
  const result = new Map<string, Ranked[]>();
  if (lists.length === 0 || k <= 0) return result;
  const counts = await countPostings(ctx.db, spaceIds, lists);
  const longest = new Map<string, number>();
  for (const [spaceId, sizes] of counts) {
    const max = Math.max(...sizes);
    if (max > 0) longest.set(spaceId, sizes.indexOf(max));
  }
  // Per space and page: the best score for each word of the query, and whether its score in the longest list is known.
  const known = new Map<string, Map<string, { words: Map<number, number>; inLongest: boolean }>>([...longest.keys()].map((id) => [id, new Map()]));
  const page = (spaceId: string, pageId: string) => {
    const pages = known.get(spaceId)!;
    let entry = pages.get(pageId);
    if (!entry) pages.set(pageId, (entry = { words: new Map(), inLongest: false }));
    return entry;
  };
  const add = (row: { space_id: string; page_id: string; i: number; score: number }) => {
    const entry = page(row.space_id, row.page_id);
    const q = lists[row.i].q;
    entry.words.set(q, Math.max(entry.words.get(q) ?? 0, row.score));
    if (row.i === longest.get(row.space_id)) entry.inLongest = true;
  };
  const wholeLongest = new Set([...longest].filter(([spaceId, i]) => counts.get(spaceId)![i] <= searchTuning.readWhole).map(([spaceId]) => spaceId));
  const readWhole = async (spaces: Set<string>, includeLongest: boolean) => {
    const spacesOfList = lists.map((_, i) =>
      [...spaces].filter((spaceId) => counts.get(spaceId)![i] > 0 && (includeLongest || longest.get(spaceId) !== i)),
    );
    for (const row of await readLists(ctx.db, lists, spacesOfList)) add(row);
  };
  const ranked = (spaceId: string) =>
    [...known.get(spaceId)!]
      .map(([pageId, { words }]) => ({ pageId, score: [...words.values()].reduce((sum, s) => sum + s, 0) }))
      .filter((p) => !after || before(after, p))
      .sort(byRank);
  // Short longest lists are read whole with the others: every score is then known.
  await Promise.all([readWhole(wholeLongest, true), readWhole(new Set([...longest.keys()].filter((id) => !wholeLongest.has(id))), false)]);
  for (const spaceId of wholeLongest) result.set(spaceId, ranked(spaceId).slice(0, k));
  let open = [...longest.keys()].filter((id) => !wholeLongest.has(id));
  for (let depth = Math.max(32, 2 * k); open.length > 0; depth *= 4) {
    const read = await topPostings(ctx.db, open.map((spaceId) => ({ spaceId, list: lists[longest.get(spaceId)!] })), depth);
    for (const [spaceId, rows] of read) for (const row of rows) add({ space_id: spaceId, page_id: row.page_id, i: longest.get(spaceId)!, score: row.score });
    // Pages of the other lists whose score in the longest list is not known yet: looked up, or the list read whole.
    const unknown = open.map((spaceId) => ({ spaceId, pageIds: [...known.get(spaceId)!].filter(([, e]) => !e.inLongest).map(([id]) => id) }));
    const exhausted = new Set(open.filter((spaceId) => read.get(spaceId)!.length < depth));
    const many = new Set(unknown.filter((u) => !exhausted.has(u.spaceId) && u.pageIds.length > searchTuning.lookUp).map((u) => u.spaceId));
    const lookUp = unknown.filter((u) => !exhausted.has(u.spaceId) && !many.has(u.spaceId)).flatMap((u) => u.pageIds.map((pageId) => ({ spaceId: u.spaceId, pageId })));
    const lookedUp = termScores(ctx.db, lookUp, lists, (spaceId) => [longest.get(spaceId)!]);
    const wholly = many.size > 0 ? readLists(ctx.db, lists, lists.map((_, i) => [...many].filter((spaceId) => longest.get(spaceId) === i))) : Promise.resolve([]);
    for (const row of [...(await lookedUp), ...(await wholly)]) if (row.i === longest.get(row.space_id)) add(row);
    for (const u of unknown) for (const pageId of u.pageIds) page(u.spaceId, pageId).inLongest = true;
    open = open.filter((spaceId) => {
      const rows = read.get(spaceId)!;
      const best = ranked(spaceId);
      const last = rows[rows.length - 1];
      const done = exhausted.has(spaceId) || many.has(spaceId) || (best.length >= k && !before({ pageId: last.page_id, score: last.score }, best[k - 1]));
      if (done) result.set(spaceId, best.slice(0, k));
      return !done;
    });
  }
  return result;
}

async function withSections(ctx: Context, ranked: Array<{ spaceId: string; pages: Ranked[] }>, terms: SearchTerms): Promise<Map<string, PageHit[]>> {
  const keys = ranked.flatMap(({ spaceId, pages }) => pages.map((r) => ({ spaceId, pageId: r.pageId })));
  const [pages, sections] = await Promise.all([searchPagesByIds(ctx.db, keys), sectionsOf(ctx.db, keys)]);
  const byPage = new Map<string, SectionRow[]>();
  for (const section of sections) {
    const key = `${section.space_id} ${section.page_id}`;
    byPage.set(key, [...(byPage.get(key) ?? []), section]);
  }
  return new Map(
    ranked.map(({ spaceId, pages: hits }) => [
      spaceId,
      hits.flatMap((r) => {
        const key = `${spaceId} ${r.pageId}`;
        const page = pages.get(key);
        return page ? [{ spaceId, id: r.pageId, title: page.title, path: page.path, sections: sectionHits(page.path, byPage.get(key) ?? [], terms) }] : [];
      }),
    ]),
  );
}

/** Pages of one space matching `query`, best first (read permission on the space). */
export async function searchSpace(ctx: Context, caller: Caller, spaceId: string, query: string, request: PageRequest): Promise<Page<PageHit>> {
  await loadSpace(ctx, caller, spaceId);
  await ensureIndexed(ctx, [spaceId]);
  const terms = queryTerms(query);
  const lists = termLists(terms);
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `search:${spaceId}:${JSON.stringify(terms)}`,
    request,
    fetch: async (after, n) => (await topPages(ctx, [spaceId], lists, n, after ? { score: Number(after[0]), pageId: String(after[1]) } : undefined)).get(spaceId) ?? [],
    positionOf: (r) => [r.score, r.pageId],
    present: (r) => r,
  });
  const hits = await withSections(ctx, [{ spaceId, pages: page.items }], terms);
  return { items: hits.get(spaceId) ?? [], next: page.next };
}

/**
 * Spaces of an organization matching `query`: only live spaces the caller can read (the organization's members;
 * 404 for others), ranked by their best page (then by space id), each with its best pages.
 */
export async function searchOrganization(ctx: Context, caller: Caller, organizationId: string, query: string, request: PageRequest): Promise<Page<SpaceHit>> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  const spaces = (await liveSpacesOfOrganization(ctx.db, organizationId)).filter((space) => atLeast(spaceRole(access, space), 'read'));
  const terms = queryTerms(query);
  const lists = termLists(terms);
  const found: Array<{ space: SpaceRow; pages: Ranked[] }> = [];
  if (termCount(terms) > 0 && spaces.length > 0) {
    await ensureIndexed(ctx, spaces.map((s) => s.id));
    const best = await topPages(ctx, spaces.map((s) => s.id), lists, PAGES_PER_SPACE);
    for (const space of spaces) {
      const pages = best.get(space.id);
      if (pages && pages.length > 0) found.push({ space, pages });
    }
  }
  const position = (hit: { space: SpaceRow; pages: Ranked[] }): [number, string] => [hit.pages[0].score, hit.space.id];
  const compare = (a: [number, string], b: [number, string]) => (a[0] !== b[0] ? b[0] - a[0] : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0);
  found.sort((a, b) => compare(position(a), position(b)));
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `org-search:${organizationId}:${JSON.stringify(terms)}`,
    request,
    fetch: async (after, n) => {
      const start = after ? found.findIndex((hit) => compare(position(hit), [Number(after[0]), String(after[1])]) > 0) : 0;
      return start < 0 ? [] : found.slice(start, start + n);
    },
    positionOf: position,
    present: (hit) => hit,
  });
  const hits = await withSections(ctx, page.items.map((hit) => ({ spaceId: hit.space.id, pages: hit.pages })), terms);
  return { items: page.items.map((hit) => ({ space: hit.space, pages: hits.get(hit.space.id) ?? [] })), next: page.next };
}

/**
 * The best pages of `spaceIds` for `query`, across them, best first (a published site's search: whoever reads the
 * site reads its spaces, which the caller checked).
 */
export async function searchSpaces(ctx: Context, spaceIds: readonly string[], query: string, limit = 20): Promise<PageHit[]> {
  const terms = queryTerms(query);
  if (termCount(terms) === 0 || spaceIds.length === 0) return [];
  await ensureIndexed(ctx, spaceIds);
  const best = await topPages(ctx, spaceIds, termLists(terms), limit);
  const top = [...best]
    .flatMap(([spaceId, pages]) => pages.map((page) => ({ spaceId, page })))
    .sort((a, b) => byRank(a.page, b.page) || (a.spaceId < b.spaceId ? -1 : a.spaceId > b.spaceId ? 1 : 0))
    .slice(0, limit);
  const hits = await withSections(ctx, [...new Set(top.map((t) => t.spaceId))].map((spaceId) => ({ spaceId, pages: top.filter((t) => t.spaceId === spaceId).map((t) => t.page) })), terms);
  const byKey = new Map([...hits.values()].flat().map((hit) => [`${hit.spaceId} ${hit.id}`, hit]));
  return top.flatMap((t) => byKey.get(`${t.spaceId} ${t.page.pageId}`) ?? []);
}
