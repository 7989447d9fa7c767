import type { Kysely } from 'kysely';
import { isPostgres } from '../dialect.js';
import { sql } from '../kysely.js';

const text = 'text' as const;

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  // A page's sections (those after its first heading: what results show) as one row per page, packed in one text
  // (src/store/sql/search.ts packSections: each section's anchor, title and text joined by U+001F, sections by
  // U+001E, in page order), where search_sections held a row per section: an organization's answer shows 500 pages,
  // and reading 2,500 rows of six columns was the largest part of making it. Keyed by the page's number (doc), as
  // results ask for them (on SQLite the rowid: one look-up), and going with its search_pages row (a foreign key).
  // The stored sections are moved over: results show them until the space is indexed again.
  const postgres = isPostgres(db);
  if (postgres) {
    // The page number as a key another table can refer to (0014 indexed it without saying it is unique).
    await sql`create unique index search_pages_doc_key on search_pages (doc)`.execute(db);
    await sql`drop index search_pages_doc`.execute(db);
  }
  await db.schema
    .createTable('search_texts')
    .addColumn('doc', postgres ? 'bigint' : 'integer', (c) => c.primaryKey().references('search_pages.doc').onDelete('cascade'))
    .addColumn('sections', text, (c) => c.notNull())
    .execute();
  // The separators taken out of the texts as packSections takes them out (a control character, shown as a space).
  const clean = (column: string) => sql`replace(replace(${sql.ref(`s.${column}`)}, ${'\u001e'}, ' '), ${'\u001f'}, ' ')`;
  const section = sql`${clean('anchor')} || ${'\u001f'} || ${clean('title')} || ${'\u001f'} || ${clean('body')}`;
  const packed = postgres ? sql`string_agg(${section}, ${'\u001e'} order by s.position)` : sql`group_concat(${section}, ${'\u001e'} order by s.position)`;
  await sql`
    insert into search_texts (doc, sections)
    select p.doc, ${packed} from search_sections s join search_pages p on p.space_id = s.space_id and p.page_id = s.page_id
    where s.position > 0 group by p.doc`.execute(db);
  await db.schema.dropTable('search_sections').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
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
  await db.schema.dropTable('search_texts').execute();
  if (isPostgres(db)) {
    await sql`create index search_pages_doc on search_pages (doc)`.execute(db);
    await sql`drop index search_pages_doc_key`.execute(db);
  }
  // The sections are not unpacked in SQL: every space is indexed again (a version no release had).
  await db.updateTable('search_spaces').set({ version: 0 }).execute();
}
