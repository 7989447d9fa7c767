import type { Kysely } from 'kysely';
import { sql } from '../kysely.js';

const text = 'text' as const;

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  // Reviews are a history: a reviewer's new review is a new row, and the latest of each reviewer is what counts.
  await db.schema
    .createTable('change_request_reviews')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('change_request_id', text, (c) => c.notNull().references('change_requests.id').onDelete('cascade'))
    // Null once the account is gone: the history keeps the review, shown by a placeholder user.
    .addColumn('reviewer_id', text, (c) => c.references('users.id').onDelete('set null'))
    .addColumn('requested_by', text, (c) => c.references('users.id').onDelete('set null'))
    .addColumn('status', text, (c) => c.notNull())
    // The change request's head commit when the review was made.
    .addColumn('revision', text, (c) => c.notNull())
    // The comment posted with the review; a deleted comment leaves the review without one.
    .addColumn('comment_id', text, (c) => c.references('comments.id').onDelete('set null'))
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .addCheckConstraint('change_request_reviews_status_known', sql`status in ('approved', 'changes-requested')`)
    .execute();
  // The list, newest first.
  await db.schema
    .createIndex('change_request_reviews_list')
    .on('change_request_reviews')
    .columns(['change_request_id', 'created_at', 'id'])
    .execute();
  await db.schema.createIndex('change_request_reviews_comment').on('change_request_reviews').column('comment_id').execute();

  // One request per user and change request: requesting again refreshes it.
  await db.schema
    .createTable('change_request_review_requests')
    .addColumn('change_request_id', text, (c) => c.notNull().references('change_requests.id').onDelete('cascade'))
    .addColumn('user_id', text, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('requested_by', text, (c) => c.references('users.id').onDelete('set null'))
    .addColumn('revision', text, (c) => c.notNull())
    .addColumn('created_at', text, (c) => c.notNull())
    .addPrimaryKeyConstraint('change_request_review_requests_pk', ['change_request_id', 'user_id'])
    .execute();
  await db.schema
    .createIndex('change_request_review_requests_list')
    .on('change_request_review_requests')
    .columns(['change_request_id', 'created_at', 'user_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('change_request_review_requests').execute();
  await db.schema.dropTable('change_request_reviews').execute();
}
