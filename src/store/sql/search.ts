/**
 * The full-text search index: per space, the revision of main it was made from, its pages, their sections, and
 * postings (term -> page, with the term's frequency in the title, the headings and the text). Portable SQL: the
 * same tables and queries on SQLite and PostgreSQL (terms compare byte by byte on both, see migration 0004).
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.js';
import { keysetQuery, type KeysetKey } from './keyset.js';

export interface SearchState {
  commit_oid: string;
  version: number;
}

export async function searchStates(db: Kysely<Database>, spaceIds: readonly string[]): Promise<Map<string, SearchState>> {
  if (spaceIds.length === 0) return new Map();
  const rows = await db.selectFrom('search_spaces').select(['space_id', 'commit_oid', 'version']).where('space_id', 'in', [...spaceIds]).execute();
  return new Map(rows.map((row) => [row.space_id, { commit_oid: row.commit_oid, version: Number(row.version) }]));
}

export interface StoredSearchPage {
  title: string;
  path: string;
  signature: string;
}

export async function storedSearchPages(db: Kysely<Database>, spaceId: string): Promise<Map<string, StoredSearchPage>> {
  const rows = await db.selectFrom('search_pages').select(['page_id', 'title', 'path', 'signature']).where('space_id', '=', spaceId).execute();
  return new Map(rows.map((row) => [row.page_id, { title: row.title, path: row.path, signature: row.signature }]));
}

/** The rows of one page. */
export interface SearchPageRows {
  page: { page_id: string; title: string; path: string; signature: string };
  sections: Array<{ position: number; anchor: string; title: string; body: string }>;
  postings: Array<{ term: string; title_tf: number; heading_tf: number; body_tf: number }>;
}

/** What one indexing changes: pages whose rows go, pages written (anew), pages only moved (new path). */
export interface SearchIndexChange {
  removed: string[];
  added: SearchPageRows[];
  moved: Array<{ page_id: string; path: string }>;
}

const CHUNK = 500;

function chunks<T>(items: readonly T[], size = CHUNK): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Applies a change to a space's rows and records the revision they now come from. Run it in a transaction. */
export async function applySearchChange(
  db: Kysely<Database>,
  spaceId: string,
  state: SearchState & { indexed_at: string },
  change: SearchIndexChange,
): Promise<void> {
  const gone = [...change.removed, ...change.added.map((rows) => rows.page.page_id)];
  for (const ids of chunks(gone)) {
    for (const table of ['search_postings', 'search_sections', 'search_pages'] as const) {
      await db.deleteFrom(table).where('space_id', '=', spaceId).where('page_id', 'in', ids).execute();
    }
  }
  for (const moved of change.moved) {
    await db.updateTable('search_pages').set({ path: moved.path }).where('space_id', '=', spaceId).where('page_id', '=', moved.page_id).execute();
  }
  const pages = change.added.map((rows) => ({ space_id: spaceId, ...rows.page }));
  const sections = change.added.flatMap((rows) => rows.sections.map((s) => ({ space_id: spaceId, page_id: rows.page.page_id, ...s })));
  const postings = change.added.flatMap((rows) => rows.postings.map((p) => ({ space_id: spaceId, page_id: rows.page.page_id, ...p })));
  for (const values of chunks(pages)) await db.insertInto('search_pages').values(values).execute();
  for (const values of chunks(sections, 200)) await db.insertInto('search_sections').values(values).execute();
  for (const values of chunks(postings, 1000)) await db.insertInto('search_postings').values(values).execute();
  await db
    .insertInto('search_spaces')
    .values({ space_id: spaceId, ...state })
    .onConflict((oc) => oc.column('space_id').doUpdateSet({ commit_oid: state.commit_oid, version: state.version, indexed_at: state.indexed_at }))
    .execute();
}

/** The terms a search matches: exact terms (in this order), and a range of terms for the prefix of the last word. */
export interface TermMatch {
  exact: string[];
  /** Terms t with from <= t < to (byte order). */
  range?: { from: string; to: string };
}

/**
 * Postings of the matched terms in the spaces, each with `q`: which query term it matches (the index of the exact
 * term, or exact.length for the prefix range).
 */
function matchedPostings(db: Kysely<Database>, spaceIds: readonly string[], match: TermMatch) {
  const cases = match.exact.map((term, i) => sql`when term = ${term} then ${sql.lit(i)}`);
  const q = cases.length > 0 ? sql<number>`case ${sql.join(cases, sql` `)} else ${sql.lit(match.exact.length)} end` : sql<number>`0`;
  return db
    .selectFrom('search_postings')
    .select(['space_id', 'page_id', 'title_tf', 'heading_tf', 'body_tf', q.as('q')])
    .where('space_id', 'in', [...spaceIds])
    .where((eb) => {
      const any = [];
      if (match.exact.length > 0) any.push(eb('term', 'in', match.exact));
      if (match.range) any.push(eb.and([eb('term', '>=', match.range.from), eb('term', '<', match.range.to)]));
      return eb.or(any);
    });
}

/**
 * One row per matching page: how many query terms its title has, how many it has anywhere, how many its headings
 * have, and how often they occur in its text.
 */
function pageScores(db: Kysely<Database>, spaceIds: readonly string[], match: TermMatch) {
  return db
    .selectFrom(matchedPostings(db, spaceIds, match).as('m'))
    .select([
      'm.space_id',
      'm.page_id',
      sql<number>`count(distinct case when m.title_tf > 0 then m.q end)`.as('title_terms'),
      sql<number>`count(distinct m.q)`.as('terms'),
      sql<number>`count(distinct case when m.heading_tf > 0 then m.q end)`.as('heading_terms'),
      sql<number>`sum(m.body_tf)`.as('body_tf'),
    ])
    .groupBy(['m.space_id', 'm.page_id']);
}

export interface PageMatchRow {
  space_id: string;
  page_id: string;
  title: string;
  path: string;
  title_terms: number;
  terms: number;
  heading_terms: number;
  body_tf: number;
}

/** The ranking order: see src/domain/search/search.ts. */
export const RANK_KEYS: KeysetKey[] = [
  { column: 'r.title_terms', direction: 'desc' },
  { column: 'r.terms', direction: 'desc' },
  { column: 'r.heading_terms', direction: 'desc' },
  { column: 'r.body_tf', direction: 'desc' },
  { column: 'r.space_id', direction: 'asc' },
  { column: 'r.page_id', direction: 'asc' },
];

function numbers(row: PageMatchRow): PageMatchRow {
  return { ...row, title_terms: Number(row.title_terms), terms: Number(row.terms), heading_terms: Number(row.heading_terms), body_tf: Number(row.body_tf) };
}

/** Matching pages of the spaces, best first, after a keyset position of RANK_KEYS. */
export async function rankedPages(
  db: Kysely<Database>,
  spaceIds: readonly string[],
  match: TermMatch,
  after: unknown[] | undefined,
  limit: number,
): Promise<PageMatchRow[]> {
  if (spaceIds.length === 0) return [];
  const query = db
    .selectFrom(pageScores(db, spaceIds, match).as('r'))
    .innerJoin('search_pages as p', (join) => join.onRef('p.space_id', '=', 'r.space_id').onRef('p.page_id', '=', 'r.page_id'))
    .select(['r.space_id', 'r.page_id', 'p.title', 'p.path', 'r.title_terms', 'r.terms', 'r.heading_terms', 'r.body_tf']);
  const rows = await keysetQuery(query, RANK_KEYS, after, limit).execute();
  return (rows as PageMatchRow[]).map(numbers);
}

/** The best `perSpace` matching pages of each space, in ranking order within each space. */
export async function bestPagesPerSpace(db: Kysely<Database>, spaceIds: readonly string[], match: TermMatch, perSpace: number): Promise<PageMatchRow[]> {
  if (spaceIds.length === 0) return [];
  const ranked = db
    .selectFrom(pageScores(db, spaceIds, match).as('r'))
    .selectAll('r')
    .select(
      sql<number>`row_number() over (partition by r.space_id order by r.title_terms desc, r.terms desc, r.heading_terms desc, r.body_tf desc, r.page_id asc)`.as('rank'),
    );
  const rows = await db
    .selectFrom(ranked.as('k'))
    .innerJoin('search_pages as p', (join) => join.onRef('p.space_id', '=', 'k.space_id').onRef('p.page_id', '=', 'k.page_id'))
    .select(['k.space_id', 'k.page_id', 'p.title', 'p.path', 'k.title_terms', 'k.terms', 'k.heading_terms', 'k.body_tf'])
    .where('k.rank', '<=', perSpace)
    .orderBy('k.space_id')
    .orderBy('k.rank')
    .execute();
  return (rows as PageMatchRow[]).map(numbers);
}

export interface SectionRow {
  space_id: string;
  page_id: string;
  position: number;
  anchor: string;
  title: string;
  body: string;
}

/** The sections (after the first heading) of these pages, in page order. */
export async function sectionsOf(db: Kysely<Database>, pages: ReadonlyArray<{ spaceId: string; pageId: string }>): Promise<SectionRow[]> {
  if (pages.length === 0) return [];
  const wanted = new Set(pages.map((p) => `${p.spaceId} ${p.pageId}`));
  const rows = await db
    .selectFrom('search_sections')
    .selectAll()
    .where('space_id', 'in', [...new Set(pages.map((p) => p.spaceId))])
    .where('page_id', 'in', [...new Set(pages.map((p) => p.pageId))])
    .where('position', '>', 0)
    .orderBy('position')
    .execute();
  return rows.filter((row) => wanted.has(`${row.space_id} ${row.page_id}`)).map((row) => ({ ...row, position: Number(row.position) }));
}
