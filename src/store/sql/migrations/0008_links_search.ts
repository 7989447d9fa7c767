import type { Kysely } from 'kysely';
import { isPostgres } from '../dialect.js';
import { sql } from '../kysely.js';

const text = 'text' as const;

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  // The link index: one revision (a commit) of a space is indexed once; its rows are replaced as a whole.
  await db.schema
    .createTable('link_index')
    .addColumn('space_id', text, (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    .addColumn('commit_oid', text, (c) => c.notNull())
    // The extraction rules the rows were made with: rows of an older version count as missing.
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('indexed_at', text, (c) => c.notNull())
    .addPrimaryKeyConstraint('link_index_pk', ['space_id', 'commit_oid'])
    .execute();

  // One row per page of a revision and target it links to (many links from one page to one target: one row).
  await db.schema
    .createTable('links')
    .addColumn('space_id', text, (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    .addColumn('commit_oid', text, (c) => c.notNull())
    .addColumn('page_id', text, (c) => c.notNull())
    // The page's place in the revision's page order (locations and backlinks are listed in that order).
    .addColumn('page_order', 'integer', (c) => c.notNull())
    // reference or dependsOn.
    .addColumn('relation', text, (c) => c.notNull())
    // The key every link to the same target shares (`page:<id>#anchor`, `file:<id>`, `url:<url>`, `missing:<path>`).
    .addColumn('target', text, (c) => c.notNull())
    // page, file, url, reusable-content or missing; the value is an id, a URL or a path.
    .addColumn('target_kind', text, (c) => c.notNull())
    .addColumn('target_value', text, (c) => c.notNull())
    .addColumn('anchor', text)
    // ok or broken (in-app is told apart when read: it depends on the public URL).
    .addColumn('status', text, (c) => c.notNull())
    .addPrimaryKeyConstraint('links_pk', ['space_id', 'commit_oid', 'page_id', 'relation', 'target'])
    .execute();
  await db.schema.createIndex('links_target').on('links').columns(['space_id', 'commit_oid', 'target', 'relation']).execute();

  // Full-text search: the revision of main each space's rows come from.
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
    // What the page's rows were made from (blob and title): a page whose signature did not change is not redone.
    .addColumn('signature', text, (c) => c.notNull())
    .addPrimaryKeyConstraint('search_pages_pk', ['space_id', 'page_id'])
    .execute();

  // The sections of each page (split at headings; position 0 is the text before the first heading).
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

  // Postings: a term of a page and its score there (src/domain/search/search.ts: whether the term is in the title,
  // in a heading, how often in the text, as one number). Terms and page ids are compared byte by byte (the last word
  // of a query matches as a prefix, a range of terms; ties are read in page id order, which the code compares too):
  // PostgreSQL's "C" collation, SQLite's default BINARY one. The key serves the best postings of a term first; the
  // second index the postings of given pages (scoring, removal).
  const postgres = isPostgres(db);
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

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['search_postings', 'search_sections', 'search_pages', 'search_spaces', 'links', 'link_index']) {
    await db.schema.dropTable(table).execute();
  }
}
