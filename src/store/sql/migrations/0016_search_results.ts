import type { Kysely } from 'kysely';
import { isPostgres } from '../dialect.js';
import { sql } from '../kysely.js';

const text = 'text' as const;

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  // What results show of a page (its id, title, path and packed sections) as one row, where they were read from two
  // tables (search_pages' title and path, search_texts' sections): an organization's answer shows 500 pages, and the
  // second look-up per page was a large part of reading them on PostgreSQL. Every page has a row (sections '' when it
  // has none after its first heading); title and path leave search_pages (one copy).
  // On PostgreSQL the row is kept uncompressed and inline up to a page of 8 KB (toast_tuple_target): a page's
  // sections (~2-3 KB) went compressed (pglz), and decompressing the 500 of an answer was most of reading them.
  const postgres = isPostgres(db);
  await db.schema
    .createTable('search_results')
    .addColumn('doc', postgres ? 'bigint' : 'integer', (c) => c.primaryKey().references('search_pages.doc').onDelete('cascade'))
    .addColumn('page_id', text, (c) => c.notNull())
    .addColumn('title', text, (c) => c.notNull())
    .addColumn('path', text, (c) => c.notNull())
    .addColumn('sections', text, (c) => c.notNull())
    .$call((table) => (postgres ? table.modifyEnd(sql`with (toast_tuple_target = 8160)`) : table))
    .execute();
  // `|| ''` makes each text anew: PostgreSQL would copy a compressed one as it is.
  await sql`
    insert into search_results (doc, page_id, title, path, sections)
    select p.doc, p.page_id, p.title, p.path, coalesce(t.sections, '') || '' from search_pages p left join search_texts t on t.doc = p.doc`.execute(db);
  await db.schema.dropTable('search_texts').execute();
  await db.schema.alterTable('search_pages').dropColumn('title').execute();
  await db.schema.alterTable('search_pages').dropColumn('path').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  const postgres = isPostgres(db);
  await db.schema.alterTable('search_pages').addColumn('title', text, (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('search_pages').addColumn('path', text, (c) => c.notNull().defaultTo('')).execute();
  await sql`
    update search_pages set
      title = coalesce((select r.title from search_results r where r.doc = search_pages.doc), ''),
      path = coalesce((select r.path from search_results r where r.doc = search_pages.doc), '')`.execute(db);
  await db.schema
    .createTable('search_texts')
    .addColumn('doc', postgres ? 'bigint' : 'integer', (c) => c.primaryKey().references('search_pages.doc').onDelete('cascade'))
    .addColumn('sections', text, (c) => c.notNull())
    .execute();
  await sql`insert into search_texts (doc, sections) select doc, sections from search_results where sections <> ''`.execute(db);
  await db.schema.dropTable('search_results').execute();
}
