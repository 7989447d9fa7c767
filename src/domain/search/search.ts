/**
 * Full-text search over the pages of spaces (issue 5): #49 in one space, #92 across an organization's spaces the
 * caller can see.
 *
 * Index (src/store/sql/search.ts): a portable posting table, term -> (space, page) with the term's frequency in the
 * page title, in its headings and in its text, beside the pages and their sections. It is the same SQL on SQLite and
 * PostgreSQL (no FTS5 / tsvector pair to keep in step, one ranking on both), and it is small enough here: a page
 * has a few hundred distinct terms. Terms are tokenized by src/content/search-text.ts.
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
 *   4. more occurrences of the query terms in its text;
 *   then by space id and page id, so the order is total and pages are stable.
 * So a title match ranks above body matches, and more matching terms above fewer.
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
import {
  matchTerm,
  pageSections,
  queryTerms,
  termCount,
  termCounts,
  termsWithOffsets,
  tokenize,
  type SearchTerms,
} from '../../content/search-text.js';
import {
  applySearchChange,
  bestPagesPerSpace,
  rankedPages,
  searchStates,
  sectionsOf,
  storedSearchPages,
  type PageMatchRow,
  type SearchIndexChange,
  type SearchPageRows,
  type SectionRow,
  type TermMatch,
} from '../../store/sql/search.js';
import { findSpace, liveSpacesOfOrganization, lockSpaceRow, type SpaceRow } from '../../store/sql/content.js';

/** The indexing rules of the stored rows; a space indexed with other rules is indexed again, whole. */
export const SEARCH_VERSION = 1;

const MAX_SECTION_TEXT = 20_000;
const SECTIONS_PER_PAGE = 5;
const PAGES_PER_SPACE = 10;
const EXCERPT = 200;

// ---- indexing

function signatureOf(page: DocumentPage): string {
  return `${page.blobOid} ${page.title}`;
}

/** The search rows of one page: its sections and its terms' frequencies in title, headings and text. */
export function pageRows(page: DocumentPage): SearchPageRows {
  const sections = pageSections(page.markdown);
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
    postings: [...terms].map((term) => ({ term, title_tf: title.get(term) ?? 0, heading_tf: headings.get(term) ?? 0, body_tf: body.get(term) ?? 0 })),
  };
}

export type IndexOutcome = 'indexed' | 'current' | 'skipped';

/**
 * Indexes main's current revision of a space (see the top of this file). `skipped`: the space is deleted or gone;
 * `current`: the stored revision is main's already.
 */
export async function indexSearch(ctx: Context, spaceId: string): Promise<IndexOutcome> {
  const space = await findSpace(ctx.db, spaceId);
  if (!space || space.deleted_at) return 'skipped';
  const main = await ctx.reader.resolveRef(spaceId, MAIN_REF);
  if (!main) return 'skipped';
  const isCurrent = (state: { commit_oid: string; version: number } | undefined) => state?.commit_oid === main && state.version === SEARCH_VERSION;
  if (isCurrent((await searchStates(ctx.db, [spaceId])).get(spaceId))) return 'current';
  const content = await loadRevision(ctx, spaceId, main);
  const pages = [...content.pagesById.values()].filter((p): p is DocumentPage => p.type === 'document' || p.type === 'computed');
  // Parse, outside the transaction, the pages whose rows are missing or out of date.
  const before = await storedSearchPages(ctx.db, spaceId);
  const parsed = new Map<string, SearchPageRows>();
  for (const page of pages) if (before.get(page.id)?.signature !== signatureOf(page)) parsed.set(page.id, pageRows(page));
  return ctx.db.transaction().execute(async (trx) => {
    // One indexing of a space at a time (in any process): the others find the work done, or do what is left.
    await lockSpaceRow(trx, spaceId);
    const state = (await searchStates(trx, [spaceId])).get(spaceId);
    if (isCurrent(state)) return 'current';
    const stored = await storedSearchPages(trx, spaceId);
    const sameRules = state?.version === SEARCH_VERSION;
    const live = new Set(pages.map((p) => p.id));
    const change: SearchIndexChange = { removed: [...stored.keys()].filter((id) => !sameRules || !live.has(id)), added: [], moved: [] };
    for (const page of pages) {
      const old = sameRules ? stored.get(page.id) : undefined;
      if (old?.signature !== signatureOf(page)) change.added.push(parsed.get(page.id) ?? pageRows(page));
      else if (old.path !== page.path) change.moved.push({ page_id: page.id, path: page.path });
    }
    await applySearchChange(trx, spaceId, { commit_oid: main, version: SEARCH_VERSION, indexed_at: nowIso() }, change);
    return 'indexed' as const;
  });
}

// Concurrent searches of one never-indexed space share one indexing.
const indexing = new Map<string, Promise<IndexOutcome>>();

/** Indexes the spaces that were never indexed (spaces indexed before are left to the job). */
async function ensureIndexed(ctx: Context, spaceIds: readonly string[]): Promise<void> {
  const states = await searchStates(ctx.db, spaceIds);
  for (const spaceId of spaceIds) {
    if (states.has(spaceId)) continue;
    let running = indexing.get(spaceId);
    if (!running) {
      running = indexSearch(ctx, spaceId).finally(() => indexing.delete(spaceId));
      indexing.set(spaceId, running);
    }
    await running;
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

/** The term match of a query for the store: the prefix as a range of terms in byte order. */
function termMatch(terms: SearchTerms): TermMatch {
  if (terms.prefix === undefined) return { exact: terms.exact };
  const last = terms.prefix.codePointAt(terms.prefix.length - 1)!;
  const stem = terms.prefix.slice(0, terms.prefix.length - String.fromCodePoint(last).length);
  return { exact: terms.exact, range: { from: terms.prefix, to: stem + String.fromCodePoint(last + 1) } };
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
    const inTitle = new Set<number>();
    for (const term of tokenize(section.title)) {
      const q = matchTerm(terms, term);
      if (q >= 0) inTitle.add(q);
    }
    const matched = new Set(inTitle);
    let occurrences = 0;
    let first: number | undefined;
    for (const { term, offset } of termsWithOffsets(section.body)) {
      const q = matchTerm(terms, term);
      if (q < 0) continue;
      matched.add(q);
      occurrences += 1;
      first ??= offset;
    }
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

async function withSections(ctx: Context, rows: PageMatchRow[], terms: SearchTerms): Promise<PageHit[]> {
  const sections = await sectionsOf(ctx.db, rows.map((row) => ({ spaceId: row.space_id, pageId: row.page_id })));
  const byPage = new Map<string, SectionRow[]>();
  for (const section of sections) {
    const key = `${section.space_id} ${section.page_id}`;
    byPage.set(key, [...(byPage.get(key) ?? []), section]);
  }
  return rows.map((row) => ({
    spaceId: row.space_id,
    id: row.page_id,
    title: row.title,
    path: row.path,
    sections: sectionHits(row.path, byPage.get(`${row.space_id} ${row.page_id}`) ?? [], terms),
  }));
}

function rankPosition(row: PageMatchRow): unknown[] {
  return [row.title_terms, row.terms, row.heading_terms, row.body_tf, row.space_id, row.page_id];
}

/** Pages of one space matching `query`, best first (read permission on the space). */
export async function searchSpace(ctx: Context, caller: Caller, spaceId: string, query: string, request: PageRequest): Promise<Page<PageHit>> {
  await loadSpace(ctx, caller, spaceId);
  await ensureIndexed(ctx, [spaceId]);
  const terms = queryTerms(query);
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `search:${spaceId}:${JSON.stringify(terms)}`,
    request,
    fetch: (after, n) => (termCount(terms) === 0 ? Promise.resolve([]) : rankedPages(ctx.db, [spaceId], termMatch(terms), after, n)),
    positionOf: rankPosition,
    present: (row) => row,
  });
  return { items: await withSections(ctx, page.items, terms), next: page.next };
}

/** Compares two rank positions (rankPosition of a space's best page): <0 when `a` ranks first. */
function compareRank(a: unknown[], b: unknown[]): number {
  for (let i = 0; i < 4; i++) if (a[i] !== b[i]) return Number(b[i]) - Number(a[i]);
  const x = String(a[4]);
  const y = String(b[4]);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Spaces of an organization matching `query`: only live spaces the caller can read (the organization's members;
 * 404 for others), ranked by their best page, each with its best pages.
 */
export async function searchOrganization(ctx: Context, caller: Caller, organizationId: string, query: string, request: PageRequest): Promise<Page<SpaceHit>> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  const spaces = (await liveSpacesOfOrganization(ctx.db, organizationId)).filter((space) => atLeast(spaceRole(access, space), 'read'));
  const terms = queryTerms(query);
  const ids = spaces.map((s) => s.id);
  let rows: PageMatchRow[] = [];
  if (termCount(terms) > 0 && ids.length > 0) {
    await ensureIndexed(ctx, ids);
    rows = await bestPagesPerSpace(ctx.db, ids, termMatch(terms), PAGES_PER_SPACE);
  }
  const bySpace = new Map<string, PageMatchRow[]>();
  for (const row of rows) bySpace.set(row.space_id, [...(bySpace.get(row.space_id) ?? []), row]);
  // Spaces in the order of their best page (each list is in ranking order already).
  const ranked = [...bySpace.values()].map((pages) => ({ position: rankPosition(pages[0]).slice(0, 5), pages }));
  ranked.sort((a, b) => compareRank(a.position, b.position));
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `org-search:${organizationId}:${JSON.stringify(terms)}`,
    request,
    fetch: async (after, n) => {
      const start = after ? ranked.findIndex((r) => compareRank(r.position, after) > 0) : 0;
      return start < 0 ? [] : ranked.slice(start, start + n);
    },
    positionOf: (r) => r.position,
    present: (r) => r,
  });
  const hits = await withSections(ctx, page.items.flatMap((r) => r.pages), terms);
  const spaceById = new Map(spaces.map((s) => [s.id, s]));
  return {
    items: page.items.map((r) => ({ space: spaceById.get(r.pages[0].space_id)!, pages: hits.filter((hit) => hit.spaceId === r.pages[0].space_id) })),
    next: page.next,
  };
}
