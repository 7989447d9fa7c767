/**
 * The full-text search index: per space, the revision of main it was made from, its pages, their sections, and
 * postings (term -> page, with the term's score in the page). Portable SQL: the same tables and queries on SQLite
 * and PostgreSQL (terms compare byte by byte on both, see migration 0004).
 */
import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { Database } from './schema.js';

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
  postings: Array<{ term: string; score: number }>;
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

/**
 * One list of postings of a search: an exact term, or the terms of a range (`after` < term < `to`, byte order) but
 * a few. `q` says which word of the query the list is for (a prefix has two lists: the word, and longer terms).
 */
export type TermList = { q: number } & ({ exact: string } | { range: { after: string; to: string }; except: string[] });

type Postings = ExpressionBuilder<Database, 'search_postings'>;

function termIs(eb: Postings, list: TermList): Expression<SqlBool> {
  if ('exact' in list) return eb('term', '=', list.exact);
  const range = [eb('term', '>', list.range.after), eb('term', '<', list.range.to)];
  if (list.except.length > 0) range.push(eb('term', 'not in', list.except));
  return eb.and(range);
}

/** One statement of the queries, one for each arm. */
function unionAll<Q extends { unionAll(other: Q): Q }>(arms: Q[]): Q {
  return arms.slice(1).reduce((query, arm) => query.unionAll(arm), arms[0]);
}

// Queries read each list on its own (one arm of a UNION ALL per list), never `term = a OR term = b`: a condition
// on one term, or one range, is what lets both databases seek the key (space, term, …) or (space, page, term, …)
// instead of reading every posting of a space or of a page.

/** Per space, how many postings each list has (by list index). */
export async function countPostings(db: Kysely<Database>, spaceIds: readonly string[], lists: readonly TermList[]): Promise<Map<string, number[]>> {
  const counts = new Map(spaceIds.map((id) => [id, lists.map(() => 0)]));
  if (spaceIds.length === 0 || lists.length === 0) return counts;
  const arms = lists.map((list, i) =>
    db
      .selectFrom('search_postings')
      .select(['space_id', sql<number>`${sql.lit(i)}`.as('i'), (eb) => eb.fn.countAll<number>().as('n')])
      .where('space_id', 'in', [...spaceIds])
      .where((eb) => termIs(eb, list))
      .groupBy('space_id'),
  );
  for (const row of await unionAll(arms).execute()) counts.get(row.space_id)![Number(row.i)] = Number(row.n);
  return counts;
}

/** Every posting of each list (by list index `i`) in the spaces named for that list. */
export async function readLists(
  db: Kysely<Database>,
  lists: readonly TermList[],
  spacesOfList: ReadonlyArray<readonly string[]>,
): Promise<Array<{ space_id: string; page_id: string; i: number; score: number }>> {
  const arms = lists
    .map((list, i) => ({ list, i, spaceIds: spacesOfList[i] ?? [] }))
    .filter((arm) => arm.spaceIds.length > 0)
    .map(({ list, i, spaceIds }) =>
      db
        .selectFrom('search_postings')
        .select(['space_id', 'page_id', sql<number>`${sql.lit(i)}`.as('i'), 'score'])
        .where('space_id', 'in', [...spaceIds])
        .where((eb) => termIs(eb, list)),
    );
  if (arms.length === 0) return [];
  if (arms.length === 0) return [];
  const rows = await unionAll(arms).execute();
  return rows.map((row) => ({ space_id: row.space_id, page_id: row.page_id, i: Number(row.i), score: Number(row.score) }));
}

/**
 * The best `limit` postings of one list per space: highest score first, ties by page id descending (the order of
 * the table's key, read backwards, for an exact term). A page may appear more than once in a range list.
 */
export async function topPostings(
  db: Kysely<Database>,
  wanted: ReadonlyArray<{ spaceId: string; list: TermList }>,
  limit: number,
): Promise<Map<string, Array<{ page_id: string; score: number }>>> {
  const out = new Map(wanted.map((w) => [w.spaceId, [] as Array<{ page_id: string; score: number }>]));
  if (wanted.length === 0) return out;
  const arms = wanted.map((w) =>
    db
      .selectFrom(
        db
          .selectFrom('search_postings')
          .select(['space_id', 'page_id', 'score'])
          .where('space_id', '=', w.spaceId)
          .where((eb) => termIs(eb, w.list))
          .orderBy('score', 'desc')
          .orderBy('page_id', 'desc')
          .limit(limit)
          .as('t'),
      )
      .selectAll(),
  );
  for (const row of await unionAll(arms).execute()) out.get(row.space_id)!.push({ page_id: row.page_id, score: Number(row.score) });
  // Each arm is in order; the union keeps arms apart but not necessarily their order.
  for (const rows of out.values()) rows.sort((a, b) => b.score - a.score || (a.page_id < b.page_id ? 1 : a.page_id > b.page_id ? -1 : 0));
  return out;
}

/**
 * The best score of each given page in lists (by list index `i`) it has a term of: in each space, the lists
 * `listsOf(space)` names. One arm per space and list, so each reads the given pages' postings of that list only.
 */
export async function termScores(
  db: Kysely<Database>,
  pages: ReadonlyArray<{ spaceId: string; pageId: string }>,
  lists: readonly TermList[],
  listsOf: (spaceId: string) => readonly number[],
): Promise<Array<{ space_id: string; page_id: string; i: number; score: number }>> {
  if (pages.length === 0 || lists.length === 0) return [];
  const arms = [...bySpace(pages)].flatMap(([spaceId, pageIds]) =>
    listsOf(spaceId).map((i) => [lists[i], i] as const).map(([list, i]) =>
      db
        .selectFrom('search_postings')
        .select(['space_id', 'page_id', sql<number>`${sql.lit(i)}`.as('i'), (eb) => eb.fn.max('score').as('score')])
        .where('space_id', '=', spaceId)
        .where('page_id', 'in', pageIds)
        .where((eb) => termIs(eb, list))
        .groupBy(['space_id', 'page_id']),
    ),
  );
  if (arms.length === 0) return [];
  const rows = await unionAll(arms).execute();
  return rows.map((row) => ({ space_id: row.space_id, page_id: row.page_id, i: Number(row.i), score: Number(row.score) }));
}

/** The given pages grouped by space. */
function bySpace(pages: ReadonlyArray<{ spaceId: string; pageId: string }>): Map<string, string[]> {
  const grouped = new Map<string, string[]>();
  for (const page of pages) grouped.set(page.spaceId, [...(grouped.get(page.spaceId) ?? []), page.pageId]);
  return grouped;
}

/** Title and path of pages, by `space page`. */
export async function searchPagesByIds(db: Kysely<Database>, pages: ReadonlyArray<{ spaceId: string; pageId: string }>): Promise<Map<string, { title: string; path: string }>> {
  if (pages.length === 0) return new Map();
  const arms = [...bySpace(pages)].map(([spaceId, pageIds]) =>
    db.selectFrom('search_pages').select(['space_id', 'page_id', 'title', 'path']).where('space_id', '=', spaceId).where('page_id', 'in', pageIds),
  );
  const rows = await unionAll(arms).execute();
  return new Map(rows.map((row) => [`${row.space_id} ${row.page_id}`, { title: row.title, path: row.path }]));
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
  const arms = [...bySpace(pages)].map(([spaceId, pageIds]) =>
    db.selectFrom('search_sections').selectAll().where('space_id', '=', spaceId).where('page_id', 'in', pageIds).where('position', '>', 0),
  );
  const rows = await unionAll(arms).execute();
  return rows.map((row) => ({ ...row, position: Number(row.position) })).sort((a, b) => a.position - b.position);
}
