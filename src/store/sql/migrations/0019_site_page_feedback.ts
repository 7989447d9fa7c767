import type { Kysely } from 'kysely';
import { sql } from '../kysely.js';

const text = 'text' as const;

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  // What readers of a published page said of it ("Was this page helpful?", a Quire extension). `client_key` is an
  // HMAC of the reader's address and user agent, the site and the day, never the address itself: it only lets one
  // reader's vote of the day replace their earlier one. The same SQL on both databases: plain text columns, and a
  // CHECK both accept.
  await db.schema
    .createTable('site_page_feedback')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('site_id', text, (c) => c.notNull().references('sites.id').onDelete('cascade'))
    // The space the page was read in (a page id names a page of one space); purging the space removes its feedback.
    .addColumn('space_id', text, (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    .addColumn('page_id', text, (c) => c.notNull())
    .addColumn('rating', text, (c) => c.notNull())
    .addColumn('comment', text)
    .addColumn('client_key', text, (c) => c.notNull())
    .addColumn('created_at', text, (c) => c.notNull())
    .addCheckConstraint('site_page_feedback_rating_known', sql`rating in ('good', 'ok', 'bad')`)
    .execute();
  // One vote per reader, page and day (the day is inside the key): a second one replaces the first.
  await db.schema.createIndex('site_page_feedback_vote').on('site_page_feedback').columns(['site_id', 'page_id', 'client_key']).unique().execute();
  // Lists, newest first: the whole site (and its oldest rows, dropped past the per-site bound), by rating, by page.
  await db.schema.createIndex('site_page_feedback_site').on('site_page_feedback').columns(['site_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('site_page_feedback_rating').on('site_page_feedback').columns(['site_id', 'rating', 'created_at', 'id']).execute();
  await db.schema.createIndex('site_page_feedback_page').on('site_page_feedback').columns(['site_id', 'page_id', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  // The table's indexes go with it on both databases.
  await db.schema.dropTable('site_page_feedback').execute();
}
