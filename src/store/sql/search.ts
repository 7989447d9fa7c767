/**
 * The full-text search index, on each database's own engine (migration 0012): per space, the revision of main it
 * was made from and its language (search_spaces); per page, its signature and language votes (search_pages), what
 * results show of it (search_results, migration 0016: id, title, path, and its sections after the first heading
 * packed in one text), and the words of its title, headings and text as tokens (src/content/search-text.ts
 * indexTokens) in the engine:
 * - SQLite: the FTS5 table `search_fts` (title, headings, body; `ascii` tokenizer, so the tokens we made are the
 *   tokens it keeps), contentless: the texts are in search_results already, the index needs no second copy, and
 *   `contentless_delete=1` lets a page's row go by rowid. Its rowid is the page row's `doc`, the space's `key` times
 *   2^24 plus a number within the space: a space's rows are one rowid range, which FTS5 seeks directly (a space
 *   search reads that space's matches only), and the space of a match is read from its rowid, without a look-up.
 *   Ranked by bm25() with column weights 10, 5, 1 (title, headings, text).
 * - PostgreSQL: a tsvector column `document` on search_pages (GIN index), built from the same tokens (title weight A,
 *   headings B, text C; a stem at its word's position) without a text search configuration: both engines see the
 *   same tokens; and `heads`, the title and headings alone (GIN index), which finds title and heading matches
 *   without reading every page's whole document. Ranked by ts_rank with weights 1, 0.5, 0.1 (the same 10 : 5 : 1).
 * Queries are built here from terms the caller made (never from user text): FTS5 strings (`"tok"`, `"tok"*`) and
 * tsquery literals (`'tok'`, `'tok':*`), quotes doubled, passed as parameters. Ranking (rankPages: field tiers,
 * then the engine's score) and the limit per space are SQL (a window function): a search reads its best rows, never
 * every match, into JavaScript. That one query can be long on a large organization: the domain has it run off the
 * event loop (rankPages' `read`). Beside the engines, each space's term lists (./search-terms.ts, written with the
 * rows here), from which organization and site searches rank many spaces at once.
 */
import type { CompiledQuery, Kysely, RawBuilder } from 'kysely';
import { isPostgres } from './dialect.js';
import { sql } from './kysely.js';
import type { Database } from './schema.js';
import { updateTermLists, type PageTerms } from './search-terms.js';
import { chunks } from './chunks.js';
import { DOCS_PER_SPACE, packSections } from '../../content/search-format.js';

// The index's formats are pure code (src/content/search-format.ts), read where the store must not be loaded (CPU
// threads); this module, the index's, offers them as well.
export { DOCS_PER_SPACE, packSections, packedSections, sectionOf, unpackSections, type PackedSection, type StoredSection } from '../../content/search-format.js';

/** The revision of main a space's rows come from, the rules and the language they were made with. */
export interface SearchState {
  /** The space's number in the index (its pages' `doc` are `key * 2^24 + n`). */
  key: number;
  commit_oid: string;
  version: number;
  language: string;
  /** When it was written: with the commit, what the stored pages are as of (one indexing writes one such pair). */
  indexed_at: string;
}


export async function searchStates(db: Kysely<Database>, spaceIds: readonly string[]): Promise<Map<string, SearchState>> {
  if (spaceIds.length === 0) return new Map();
  const out = new Map<string, SearchState>();
  for (const ids of chunks(spaceIds)) {
    const rows = await db.selectFrom('search_spaces').select(['space_id', 'key', 'commit_oid', 'version', 'language', 'indexed_at']).where('space_id', 'in', ids).execute();
    for (const row of rows) out.set(row.space_id, { key: Number(row.key), commit_oid: row.commit_oid, version: Number(row.version), language: row.language, indexed_at: row.indexed_at });
  }
  return out;
}

export interface StoredSearchPage {
  doc: number;
  title: string;
  path: string;
  signature: string;
  /** The language most of the page's stop words are of ('' for none), and how many of its words they are. */
  language: string;
  stop_words: number;
}

/** The stored rows of a space's pages, by page id: all of them, or those of `pageIds`. */
export async function storedSearchPages(db: Kysely<Database>, spaceId: string, pageIds?: readonly string[]): Promise<Map<string, StoredSearchPage>> {
  if (pageIds?.length === 0) return new Map();
  const rows = await db
    .selectFrom('search_pages as p')
    .innerJoin('search_results as r', 'r.doc', 'p.doc')
    .select(['p.page_id', 'p.doc', 'r.title', 'r.path', 'p.signature', 'p.language', 'p.stop_words'])
    .where('p.space_id', '=', spaceId)
    .$if(pageIds !== undefined, (q) => q.where('p.page_id', 'in', pageIds!))
    .execute();
  return new Map(rows.map((row) => [row.page_id, { ...row, doc: Number(row.doc), stop_words: Number(row.stop_words) }]));
}

/** The stop words of a space's stored pages, summed by the language each page's are of (pages of none left out). */
export async function storedLanguageVotes(db: Kysely<Database>, spaceId: string): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('search_pages')
    .select(['language', (eb) => eb.fn.sum<number | string>('stop_words').as('votes')])
    .where('space_id', '=', spaceId)
    .where('language', '<>', '')
    .groupBy('language')
    .execute();
  return new Map(rows.map((row) => [row.language, Number(row.votes)]));
}

/** The rows of one page. */
export interface SearchPageRows {
  page: { page_id: string; title: string; path: string; signature: string; language: string; stop_words: number };
  sections: Array<{ position: number; anchor: string; title: string; body: string }>;
  /** The words of its title, its headings and its text as tokens (src/content/search-text.ts indexTokens). */
  tokens: { title: string; headings: string; body: string };
  /** Its postings in the term lists (pageTerms of its tokens), made with the tokens, off the event loop. */
  terms: PageTerms;
}

/** What one indexing changes: pages whose rows go, pages written (anew), pages only moved (new path). */
export interface SearchIndexChange {
  removed: string[];
  added: SearchPageRows[];
  moved: Array<{ page_id: string; path: string }>;
}

/**
 * Applies a change to a space's rows and records the revision (and language) they now come from. Run it in a
 * transaction.
 */
export async function applySearchChange(
  db: Kysely<Database>,
  spaceId: string,
  state: { commit_oid: string; version: number; language: string; indexed_at: string },
  change: SearchIndexChange,
): Promise<void> {
  await db
    .insertInto('search_spaces')
    .values({ space_id: spaceId, ...state })
    .onConflict((oc) => oc.column('space_id').doUpdateSet({ commit_oid: state.commit_oid, version: state.version, language: state.language, indexed_at: state.indexed_at }))
    .execute();
  const { key, last_doc: lastDoc } = await db.selectFrom('search_spaces').select(['key', 'last_doc']).where('space_id', '=', spaceId).executeTakeFirstOrThrow();
  const gone = [...change.removed, ...change.added.map((rows) => rows.page.page_id)];
  // The numbers of the pages this change removes, writes again or moves: not every stored page (a big indexing
  // writes in parts, and each part would read them all).
  const stored = new Map<string, number>();
  for (const ids of chunks([...gone, ...change.moved.map((moved) => moved.page_id)])) {
    const rows = await db.selectFrom('search_pages').select(['page_id', 'doc']).where('space_id', '=', spaceId).where('page_id', 'in', ids).execute();
    for (const row of rows) stored.set(row.page_id, Number(row.doc));
  }
  const base = Number(key) * DOCS_PER_SPACE;
  // The space's pages are numbered within its range: its highest number, read from the index on `doc`.
  const highest = await db
    .selectFrom('search_pages')
    .select((eb) => eb.fn.max('doc').as('doc'))
    .where('doc', '>=', base)
    .where('doc', '<', base + DOCS_PER_SPACE)
    .executeTakeFirst();
  // A page's search_results row goes with it (a foreign key); on SQLite, its FTS row too (the trigger of migration 0012).
  for (const ids of chunks(gone)) {
    await db.deleteFrom('search_pages').where('space_id', '=', spaceId).where('page_id', 'in', ids).execute();
  }
  for (const moved of change.moved) {
    const doc = stored.get(moved.page_id);
    if (doc !== undefined) await db.updateTable('search_results').set({ path: moved.path }).where('doc', '=', doc).execute();
  }
  // Numbers: every page written takes a number no other page of the space holds, after the highest first (a page
  // written again gets a new one: what an indexing rewrote can be told from what it kept), and above every number
  // the space's term lists ever held (their postings of gone pages stay until compacted).
  let next = Math.max(base + Number(lastDoc) + 1, highest?.doc === null || highest?.doc === undefined ? 0 : Number(highest.doc) + 1);
  // Past the last number of the range (a space that has written 2^24 pages): the numbers no stored page holds.
  const used =
    next + change.added.length > base + DOCS_PER_SPACE
      ? new Set((await db.selectFrom('search_pages').select('doc').where('space_id', '=', spaceId).execute()).map((row) => Number(row.doc)))
      : new Set<number>();
  let free = base + 1;
  const takeDoc = (): number => {
    if (next < base + DOCS_PER_SPACE) return next++;
    while (used.has(free)) free++;
    if (free >= base + DOCS_PER_SPACE) throw new Error(`search index: space ${spaceId} has no page number left`);
    used.add(free);
    return free;
  };
  const pages = change.added.map((rows) => ({ doc: takeDoc(), rows }));
  const postgres = isPostgres(db);
  for (const batch of chunks(pages, 200)) {
    if (postgres) {
      // The document: a tsvector literal (lexemes quoted by tsvectorLiteral), cast by the database.
      const tuples = batch.map(
        ({ doc, rows: { page, tokens } }) =>
          sql`(${spaceId}, ${page.page_id}, ${doc}, ${page.signature}, ${page.language}, ${page.stop_words}, cast(${tsvectorLiteral(tokens)} as tsvector), cast(${tsvectorLiteral({ ...tokens, body: '' })} as tsvector))`,
      );
      await sql`insert into search_pages (space_id, page_id, doc, signature, language, stop_words, document, heads) values ${sql.join(tuples)}`.execute(db);
    } else {
      await db
        .insertInto('search_pages')
        .values(batch.map(({ doc, rows: { page } }) => ({ space_id: spaceId, doc, page_id: page.page_id, signature: page.signature, language: page.language, stop_words: page.stop_words })))
        .execute();
      const tuples = batch.map(({ doc, rows }) => sql`(${doc}, ${rows.tokens.title}, ${rows.tokens.headings}, ${rows.tokens.body})`);
      await sql`insert into search_fts (rowid, title, headings, body) values ${sql.join(tuples)}`.execute(db);
    }
  }
  const results = pages.map(({ doc, rows: { page, sections } }) => ({
    doc,
    page_id: page.page_id,
    title: page.title,
    path: page.path,
    sections: packSections(sections.filter((section) => section.position > 0)),
  }));
  for (const values of chunks(results, 200)) await db.insertInto('search_results').values(values).execute();
  await updateTermLists(db, spaceId, {
    removed: gone.flatMap((pageId) => (stored.has(pageId) ? [stored.get(pageId)! - base] : [])),
    added: pages.map(({ doc, rows }) => ({ n: doc - base, terms: rows.terms })),
  });
}

// ---- PostgreSQL documents

// A tsvector holds positions up to 16383 and at most 1 MB (PostgreSQL's limits). ts_rank weighs a lexeme's
// positions 1, 1/4, 1/9…: past a few, more change nothing, so a lexeme keeps its first ones (title, then headings).
const MAX_POSITION = 16383;
const POSITIONS_PER_LEXEME = 8;
const MAX_TSVECTOR_BYTES = 900_000;

function quoteLexeme(lexeme: string): string {
  return `'${lexeme.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;
}

/** The tsvector of a page, as text: each token at its word's position, with its field's weight. */
export function tsvectorLiteral(tokens: SearchPageRows['tokens']): string {
  const lexemes = new Map<string, Array<{ position: number; weight: string }>>();
  let position = 0;
  for (const [field, weight] of [['title', 'A'], ['headings', 'B'], ['body', 'C']] as const) {
    for (const word of tokens[field].split(' ')) {
      if (!word) continue;
      position = Math.min(position + 1, MAX_POSITION);
      for (const lexeme of word.split('/')) {
        let positions = lexemes.get(lexeme);
        if (!positions) lexemes.set(lexeme, (positions = []));
        const last = positions[positions.length - 1];
        if (positions.length < POSITIONS_PER_LEXEME && last?.position !== position) positions.push({ position, weight });
      }
    }
  }
  // A very long page: fewer positions per lexeme, then fewer lexemes, until the tsvector fits.
  let entries = [...lexemes];
  const size = (keep: number) => entries.reduce((sum, [lexeme, positions]) => sum + Buffer.byteLength(lexeme) + 8 + 2 * Math.min(keep, positions.length), 0);
  let keep = POSITIONS_PER_LEXEME;
  while (keep > 1 && size(keep) > MAX_TSVECTOR_BYTES) keep = Math.floor(keep / 2);
  while (entries.length > 0 && size(keep) > MAX_TSVECTOR_BYTES) entries = entries.slice(0, Math.floor(entries.length * 0.9));
  return entries.map(([lexeme, positions]) => `${quoteLexeme(lexeme)}:${positions.slice(0, keep).map((p) => `${p.position}${p.weight}`).join(',')}`).join(' ');
}

// ---- queries

/** What a search matches: a page matches when one of its tokens is a `whole` one, or starts with a `prefixes` one. */
export interface EngineQuery {
  whole: readonly string[];
  prefixes: readonly string[];
}

/** The FTS5 query: each token an FTS5 string (`"` doubled), prefixes with `*`, joined by OR. */
export function fts5Query(query: EngineQuery): string {
  const quote = (token: string) => `"${token.replace(/"/g, '""')}"`;
  return [...query.whole.map(quote), ...query.prefixes.map((token) => `${quote(token)}*`)].join(' OR ');
}

/** The tsquery (as text): each token a quoted lexeme, prefixes with `:*`, joined by `|`; `weight`: in that field only. */
export function tsqueryLiteral(query: EngineQuery, weight = ''): string {
  return [...query.whole.map((token) => `${quoteLexeme(token)}${weight ? `:${weight}` : ''}`), ...query.prefixes.map((token) => `${quoteLexeme(token)}:*${weight}`)].join(' | ');
}

// bm25 and ts_rank column weights (title, headings, text). bm25 is negative, best lowest: scores are its opposite.
const BM25 = sql.raw('bm25(search_fts, 10.0, 5.0, 1.0)');
const TS_RANK_WEIGHTS = '{0, 0.1, 0.5, 1.0}';
// A literal: better-sqlite3 binds numbers as REAL, and `doc / 16777216.0` would not be the space's key.
const PER_SPACE = sql.lit(DOCS_PER_SPACE);

/**
 * A page's place in a ranking: its tier (2: a query token is in its title, 1: in a heading, 0: in its text only),
 * its engine score (higher first), its doc (lower first).
 */
export interface RankPosition {
  tier: number;
  score: number;
  doc: number;
}

/** A page found (by its number: results read what they show of it, resultPages), its space, and its place. */
export interface RankedPage extends RankPosition {
  space_id: string;
}

/** Whether `a` ranks before `b`. */
export function ranksBefore(a: RankPosition, b: RankPosition): boolean {
  return a.tier !== b.tier ? a.tier > b.tier : a.score !== b.score ? a.score > b.score : a.doc < b.doc;
}

/**
 * The best `perSpace` pages of each space for the query, best first: pages with a query token in their title, then
 * in a heading, then in their text only, each tier by the engine's score (bm25 / ts_rank with the field weights).
 * `after` (one space's next page of results): only pages ranked after that place.
 *
 * The tiers are what keep a common word cheap: a space whose title and heading matches fill its `perSpace` places
 * needs no score for its other matches, so they are never scored (bm25 and ts_rank cost per row, and a word on
 * every page matches 100,000 rows in 100 spaces). The title and heading matches are found by the engine first
 * (SQLite: column filters; PostgreSQL: the small `heads` tsvector and its GIN index).
 *
 * `read` runs the ranking's one query: the context's `readOffLoop` (on SQLite, off the event loop); by default, `db`.
 */
export async function rankPages(
  db: Kysely<Database>,
  spaces: ReadonlyArray<{ spaceId: string; key: number }>,
  query: EngineQuery,
  perSpace: number,
  after?: RankPosition,
  read: (query: CompiledQuery) => Promise<unknown[]> = async (compiled) => (await db.executeQuery(compiled)).rows,
): Promise<RankedPage[]> {
  if (spaces.length === 0 || perSpace <= 0 || query.whole.length + query.prefixes.length === 0) return [];
  // A later page of results may need text matches whatever the first places hold: every match is scored.
  const enough = after ? Number.MAX_SAFE_INTEGER : perSpace;
  let ranking: RawBuilder<RankedPage>;
  if (isPostgres(db)) {
    const ids = spaces.map((s) => s.spaceId);
    const later = after
      ? sql`where tier < ${after.tier} or (tier = ${after.tier} and (score < ${after.score} or (score = ${after.score} and doc > ${after.doc})))`
      : sql``;
    ranking = sql<RankedPage>`
      with q as materialized (select cast(${tsqueryLiteral(query)} as tsquery) as q, cast(${tsqueryLiteral(query, 'A')} as tsquery) as title),
      headed as materialized (
        select p.space_id, p.page_id, p.doc, case when p.heads @@ q.title then 2 else 1 end as tier,
          ts_rank(${TS_RANK_WEIGHTS}::float4[], p.document, q.q)::float8 as score
        from search_pages p, q where p.space_id = any(${ids}::text[]) and p.heads @@ q.q
      ),
      texts as (
        select p.space_id, p.page_id, p.doc, 0 as tier, ts_rank(${TS_RANK_WEIGHTS}::float4[], p.document, q.q)::float8 as score
        from search_pages p, q
        where p.space_id = any(array(select unnest(${ids}::text[]) except select space_id from headed group by space_id having count(*) >= ${enough}))
          and p.document @@ q.q and not (p.heads @@ q.q)
      )
      select space_id, doc, tier, score from (
        select *, row_number() over (partition by space_id order by tier desc, score desc, doc) as n
        from (select * from headed union all select * from texts) matches ${later}
      ) r where n <= ${perSpace}`;
  } else {
    const keys = spaces.map((s) => s.key);
    // One rowid range from the lowest space to the highest (FTS5 reads only that part of each token's list), then
    // the spaces asked for, by the key each rowid holds.
    const low = Math.min(...keys) * DOCS_PER_SPACE;
    const high = (Math.max(...keys) + 1) * DOCS_PER_SPACE - 1;
    // The spaces asked for (others in the range are left out before any is scored).
    const inSpaces = spaces.length === 1 ? sql`` : sql`and search_fts.rowid / ${PER_SPACE} in (select value from json_each(${JSON.stringify(keys)}))`;
    const later = after
      ? sql`and (tier < ${after.tier} or (tier = ${after.tier} and (score < ${after.score} or (score = ${after.score} and doc > ${after.doc}))))`
      : sql``;
    const match = fts5Query(query);
    // Title and heading matches first (column filters), with their tier; then every match, scored only when it has
    // a tier or its space has not enough pages that do (SQLite computes a result column after the WHERE clause).
    ranking = sql<RankedPage>`
      with tiers as materialized (
        select doc, max(tier) as tier from (
          select rowid as doc, 2 as tier from search_fts where search_fts match ${`{title} : (${match})`} and rowid between ${low} and ${high}
          union all
          select rowid as doc, 1 as tier from search_fts where search_fts match ${`{headings} : (${match})`} and rowid between ${low} and ${high}
        ) group by doc
      ),
      filled as materialized (select doc / ${PER_SPACE} as key from tiers group by 1 having count(*) >= ${enough}),
      matches as (
        select search_fts.rowid as doc, -${BM25} as score, coalesce(t.tier, 0) as tier
        from search_fts left join tiers t on t.doc = search_fts.rowid
        where search_fts match ${match} and search_fts.rowid between ${low} and ${high}
          and (t.doc is not null or search_fts.rowid / ${PER_SPACE} not in filled) ${inSpaces}
      )
      select p.space_id, r.doc, r.tier, r.score from (
        select doc, tier, score, row_number() over (partition by doc / ${PER_SPACE} order by tier desc, score desc, doc) as n
        from matches where 1 = 1 ${later}
      ) r join search_pages p on p.doc = r.doc
      where r.n <= ${perSpace}`;
  }
  const rows = (await read(ranking.compile(db))) as RankedPage[];
  return rows
    .map((row) => ({ space_id: row.space_id, doc: Number(row.doc), tier: Number(row.tier), score: Number(row.score) }))
    .sort((a, b) => (ranksBefore(a, b) ? -1 : ranksBefore(b, a) ? 1 : 0));
}

/** A page found, as results show it: its id, title and path, and its sections (packed, unpackSections). */
export interface ResultPage {
  page_id: string;
  title: string;
  path: string;
  sections: string;
}

/**
 * The pages of these numbers (doc) as results show them, with their sections; a number whose page is gone since
 * it was ranked is not in the map. The numbers are one parameter (a JSON array on SQLite, an array on PostgreSQL):
 * the statement's text is the same for every search, where 1,000 placeholders were compiled and prepared anew each
 * time (a large part of the read, bench/README.md).
 */
export async function resultPages(db: Kysely<Database>, docs: readonly number[]): Promise<Map<number, ResultPage>> {
  const out = new Map<number, ResultPage>();
  if (docs.length === 0) return out;
  const wanted = isPostgres(db) ? sql`doc = any(${docs}::bigint[])` : sql`doc in (select value from json_each(${JSON.stringify(docs)}))`;
  const rows = await sql<ResultPage & { doc: number }>`select doc, page_id, title, path, sections from search_results where ${wanted}`.execute(db);
  for (const row of rows.rows) out.set(Number(row.doc), { page_id: row.page_id, title: row.title, path: row.path, sections: row.sections });
  return out;
}

/** How many index rows a space has (pages, and on SQLite its FTS5 rows): for tests and the benchmark. */
export async function searchRowCounts(db: Kysely<Database>, spaceId: string): Promise<{ pages: number; engine: number; docs: number[] }> {
  const docs = (await db.selectFrom('search_pages').select('doc').where('space_id', '=', spaceId).orderBy('doc').execute()).map((row) => Number(row.doc));
  if (isPostgres(db)) {
    const row = await db.selectFrom('search_pages').select((eb) => eb.fn.countAll<number>().as('n')).where('space_id', '=', spaceId).where(sql<boolean>`document is not null`).executeTakeFirstOrThrow();
    return { pages: docs.length, engine: Number(row.n), docs };
  }
  const state = (await searchStates(db, [spaceId])).get(spaceId);
  if (!state) return { pages: docs.length, engine: 0, docs };
  const low = state.key * DOCS_PER_SPACE;
  // A contentless table answers rowid ranges only through a query: count the rows holding the tokens every row has.
  const rows = await sql<{ n: number }>`select count(*) as n from search_fts_docsize where id between ${low} and ${low + DOCS_PER_SPACE - 1}`.execute(db);
  return { pages: docs.length, engine: Number(rows.rows[0].n), docs };
}
