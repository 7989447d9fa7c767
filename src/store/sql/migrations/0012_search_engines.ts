import type { Kysely } from 'kysely';
import { isPostgres } from '../dialect.js';
import { sql } from '../kysely.js';

const text = 'text' as const;

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  // Full-text search moves from our own posting table (0008) to the databases' engines (src/store/sql/search.ts).
  // Nothing is carried over: with no search_spaces row every space counts as never indexed, and is indexed again
  // by the catch-up at start or by its first search.
  for (const table of ['search_postings', 'search_sections', 'search_pages', 'search_spaces']) await db.schema.dropTable(table).execute();
  const postgres = isPostgres(db);

  // Per space: the revision of main its rows come from, the rules (version) and the language they were made with,
  // and its number in the index (`key`: its pages' `doc` are key * 2^24 + n; on SQLite the rowids of its FTS rows).
  let spaces = db.schema.createTable('search_spaces');
  spaces = postgres
    ? spaces
        .addColumn('space_id', text, (c) => c.primaryKey().references('spaces.id').onDelete('cascade'))
        .addColumn('key', 'bigint', (c) => c.notNull().unique().generatedByDefaultAsIdentity())
    : spaces
        .addColumn('key', 'integer', (c) => c.primaryKey())
        .addColumn('space_id', text, (c) => c.notNull().unique().references('spaces.id').onDelete('cascade'));
  await spaces
    .addColumn('commit_oid', text, (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('language', text, (c) => c.notNull())
    .addColumn('indexed_at', text, (c) => c.notNull())
    .execute();

  // Per page: what its rows were made from (signature: blob and title; a page whose signature did not change is not
  // redone), and the language most of its stop words are of with their number (the space's language is told from
  // every page's). SQLite: `doc` is the rowid, of this row and of the page's FTS row.
  const pages = (postgres ? db.schema.createTable('search_pages').addColumn('doc', 'bigint', (c) => c.notNull()) : db.schema.createTable('search_pages').addColumn('doc', 'integer', (c) => c.primaryKey()))
    .addColumn('space_id', text, (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    .addColumn('page_id', text, (c) => c.notNull())
    .addColumn('title', text, (c) => c.notNull())
    .addColumn('path', text, (c) => c.notNull())
    .addColumn('signature', text, (c) => c.notNull())
    .addColumn('language', text, (c) => c.notNull())
    .addColumn('stop_words', 'integer', (c) => c.notNull());
  if (postgres) {
    // The page's words (title weight A, headings B, text C), built from our tokens, and the title and headings
    // alone (title and heading matches, found without reading whole documents), each with a GIN index.
    await pages
      .addColumn('document', sql`tsvector`, (c) => c.notNull())
      .addColumn('heads', sql`tsvector`, (c) => c.notNull())
      .addPrimaryKeyConstraint('search_pages_pk', ['space_id', 'page_id'])
      .execute();
    await sql`create index search_pages_document on search_pages using gin (document)`.execute(db);
    await sql`create index search_pages_heads on search_pages using gin (heads)`.execute(db);
  } else {
    await pages.addUniqueConstraint('search_pages_page', ['space_id', 'page_id']).execute();
  }

  // The sections of each page (split at headings; position 0 is the text before the first heading): excerpts.
  await db.schema
    .createTable('search_sections')
    .addColumn('space_id', text, (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    .addColumn('page_id', text, (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('anchor', text, (c) => c.notNull())
    .addColumn('title', text, (c) => c.notNull())
    .addColumn('body', text, (c) => c.notNull())
    .addPrimaryKeyConstraint('search_sections_pk', ['space_id', 'page_id', 'position'])
    .execute();

  if (!postgres) {
    // Contentless (the texts are in search_sections), rows deleted by rowid (contentless_delete), the `ascii`
    // tokenizer (our tokens are lower-cased words, separated by spaces and slashes: it keeps them as they are),
    // prefix indexes of 2 and 3 characters (what a query typed so far ends with, read as one list).
    await sql`create virtual table search_fts using fts5(title, headings, body, content='', contentless_delete=1, tokenize='ascii', prefix='2 3')`.execute(db);
    // A page row's FTS row goes with it, whoever deletes it (an indexing, or the cascade of a purged space).
    await sql`create trigger search_pages_fts after delete on search_pages begin delete from search_fts where rowid = old.doc; end`.execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  if (!postgres) {
    await sql`drop trigger search_pages_fts`.execute(db);
    await sql`drop table search_fts`.execute(db);
  }
  for (const table of ['search_sections', 'search_pages', 'search_spaces']) await db.schema.dropTable(table).execute();
  // The tables of 0008, empty (every space is indexed again).
  await db.schema
    .createTable('search_spaces')
    .addColumn('space_id', text, (c) => c.primaryKey().references('spaces.id').onDelete('cascade'))
    .addColumn('commit_oid', text, (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('indexed_at', text, (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('search_pages')
    .addColumn('space_id', text, (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    .addColumn('page_id', text, (c) => c.notNull())
    .addColumn('title', text, (c) => c.notNull())
    .addColumn('path', text, (c) => c.notNull())
    .addColumn('signature', text, (c) => c.notNull())
    .addPrimaryKeyConstraint('search_pages_pk', ['space_id', 'page_id'])
    .execute();
  await db.schema
    .createTable('search_sections')
    .addColumn('space_id', text, (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    .addColumn('page_id', text, (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('anchor', text, (c) => c.notNull())
    .addColumn('title', text, (c) => c.notNull())
    .addColumn('body', text, (c) => c.notNull())
    .addPrimaryKeyConstraint('search_sections_pk', ['space_id', 'page_id', 'position'])
    .execute();
  const bytewise = postgres ? sql`text collate "C"` : text;
  await db.schema
    .createTable('search_postings')
    .addColumn('space_id', text, (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    .addColumn('term', bytewise, (c) => c.notNull())
    .addColumn('page_id', bytewise, (c) => c.notNull())
    .addColumn('score', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('search_postings_pk', ['space_id', 'term', 'score', 'page_id'])
    .execute();
  await db.schema.createIndex('search_postings_page').on('search_postings').columns(['space_id', 'page_id', 'term', 'score']).execute();
}
