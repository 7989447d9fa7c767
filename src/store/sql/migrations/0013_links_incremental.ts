import type { Kysely } from 'kysely';
import { sql } from '../kysely.js';

const text = 'text' as const;

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  // The link index is indexed incrementally: a revision's rows live in a slot, which the next revision
  // of the same line takes over and changes in place (src/domain/content/links.ts). The rows of 0008 are dropped:
  // the index is rebuilt on demand (reads, and the catch-up at start for main).
  await db.schema.dropTable('links').execute();
  await db.schema.dropTable('link_index').execute();

  // The indexed revisions: each owns one slot, whose rows are its links.
  await db.schema
    .createTable('link_index')
    .addColumn('space_id', text, (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    .addColumn('commit_oid', text, (c) => c.notNull())
    .addColumn('slot', text, (c) => c.notNull())
    // The content root the links were resolved against (a revision of another root is no base to start from).
    .addColumn('root', text, (c) => c.notNull())
    // The extraction rules the rows were made with: rows of an older version count as missing.
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('indexed_at', text, (c) => c.notNull())
    .addPrimaryKeyConstraint('link_index_pk', ['space_id', 'commit_oid'])
    .execute();

  // One row per page of a slot's revision and target it links to (many links from one page to one target: one row).
  await db.schema
    .createTable('links')
    .addColumn('space_id', text, (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    .addColumn('slot', text, (c) => c.notNull())
    .addColumn('page_id', text, (c) => c.notNull())
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
    .addPrimaryKeyConstraint('links_pk', ['space_id', 'slot', 'page_id', 'relation', 'target'])
    .execute();
  await db.schema.createIndex('links_target').on('links').columns(['space_id', 'slot', 'target', 'relation']).execute();
  // The links to a page, file or reusable content by id (an incremental index redoes the pages that link to one no
  // longer where it was). Only ids: URLs and paths may be longer than a PostgreSQL index entry can be.
  await db.schema
    .createIndex('links_target_id')
    .on('links')
    .columns(['space_id', 'slot', 'target_value'])
    .where(sql.ref('target_kind'), 'in', ['page', 'file', 'reusable-content'])
    .execute();

  // Every document page of a slot's revision: its place in the page order (locations and backlinks are listed in
  // that order; kept apart from `links` so that a page inserted early rewrites one row per later page, not one per
  // link), and what its rows were made from.
  await db.schema
    .createTable('link_pages')
    .addColumn('space_id', text, (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    .addColumn('slot', text, (c) => c.notNull())
    .addColumn('page_id', text, (c) => c.notNull())
    .addColumn('page_order', 'integer', (c) => c.notNull())
    .addColumn('git_path', text, (c) => c.notNull())
    // The page's blob and cover files: rows made from the same ones are the same (given the same answers).
    .addColumn('signature', text, (c) => c.notNull())
    // The paths its links tried and found nothing at (a JSON array), null for none.
    .addColumn('probes', text)
    .addPrimaryKeyConstraint('link_pages_pk', ['space_id', 'slot', 'page_id'])
    .execute();

  // What each path of a slot's revision resolves to (`page:<id>`, `file:<id>`, `reusable-content:<id>`).
  await db.schema
    .createTable('link_answers')
    .addColumn('space_id', text, (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    .addColumn('slot', text, (c) => c.notNull())
    .addColumn('path', text, (c) => c.notNull())
    .addColumn('answer', text, (c) => c.notNull())
    .addPrimaryKeyConstraint('link_answers_pk', ['space_id', 'slot', 'path'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['link_answers', 'link_pages', 'links', 'link_index']) await db.schema.dropTable(table).execute();
  // The shape of 0008, empty.
  await db.schema
    .createTable('link_index')
    .addColumn('space_id', text, (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    .addColumn('commit_oid', text, (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('indexed_at', text, (c) => c.notNull())
    .addPrimaryKeyConstraint('link_index_pk', ['space_id', 'commit_oid'])
    .execute();
  await db.schema
    .createTable('links')
    .addColumn('space_id', text, (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    .addColumn('commit_oid', text, (c) => c.notNull())
    .addColumn('page_id', text, (c) => c.notNull())
    .addColumn('page_order', 'integer', (c) => c.notNull())
    .addColumn('relation', text, (c) => c.notNull())
    .addColumn('target', text, (c) => c.notNull())
    .addColumn('target_kind', text, (c) => c.notNull())
    .addColumn('target_value', text, (c) => c.notNull())
    .addColumn('anchor', text)
    .addColumn('status', text, (c) => c.notNull())
    .addPrimaryKeyConstraint('links_pk', ['space_id', 'commit_oid', 'page_id', 'relation', 'target'])
    .execute();
  await db.schema.createIndex('links_target').on('links').columns(['space_id', 'commit_oid', 'target', 'relation']).execute();
}
