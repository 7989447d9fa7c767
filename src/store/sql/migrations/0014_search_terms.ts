import type { Kysely } from 'kysely';
import { isPostgres } from '../dialect.js';
import { sql } from '../kysely.js';

const text = 'text' as const;

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  // Term lists (src/store/sql/search-terms.ts): per space and token, the pages that hold it with their weighted
  // counts, which rank an organization's spaces without the engines' scoring of every match. Spaces indexed before
  // have none: SEARCH_VERSION 3 has every space indexed again (the catch-up at start, or its first search).
  const postgres = isPostgres(db);
  let terms = db.schema
    .createTable('search_terms')
    .addColumn('space_id', text, (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    // PostgreSQL: byte order (collation "C"), so that a prefix is one range of the primary key, as on SQLite.
    .addColumn('term', postgres ? sql`text collate "C"` : text, (c) => c.notNull())
    .addColumn('last_doc', 'integer', (c) => c.notNull())
    .addColumn('postings', postgres ? 'bytea' : 'blob', (c) => c.notNull())
    .addPrimaryKeyConstraint('search_terms_pk', ['space_id', 'term']);
  if (!postgres) terms = terms.modifyEnd(sql`without rowid`);
  await terms.execute();
  // Per space: its live pages with their lengths (tokens); how many gone pages still have postings in its lists;
  // the highest page number its lists ever held (a number is never given again while postings may carry it).
  await db.schema.alterTable('search_spaces').addColumn('docs', postgres ? 'bytea' : 'blob').execute();
  await db.schema.alterTable('search_spaces').addColumn('dead_docs', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  await db.schema.alterTable('search_spaces').addColumn('last_doc', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  // Results show ranked pages by their number: PostgreSQL's pages are keyed by (space, page) only.
  if (postgres) await sql`create index search_pages_doc on search_pages (doc)`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  if (postgres) await sql`drop index search_pages_doc`.execute(db);
  await db.schema.alterTable('search_spaces').dropColumn('last_doc').execute();
  await db.schema.alterTable('search_spaces').dropColumn('dead_docs').execute();
  await db.schema.alterTable('search_spaces').dropColumn('docs').execute();
  await db.schema.dropTable('search_terms').execute();
}
