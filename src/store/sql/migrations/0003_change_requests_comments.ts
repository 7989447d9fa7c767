import type { Kysely } from 'kysely';

const text = 'text' as const;

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('change_requests')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('space_id', text, (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    .addColumn('number', 'integer', (c) => c.notNull())
    .addColumn('subject', text, (c) => c.notNull())
    .addColumn('status', text, (c) => c.notNull())
    .addColumn('created_by', text, (c) => c.references('users.id').onDelete('set null'))
    .addColumn('revision_initial', text, (c) => c.notNull())
    .addColumn('revision_merged_ancestor', text)
    .addColumn('revision_merged', text)
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .addUniqueConstraint('change_requests_number', ['space_id', 'number'])
    .execute();
  await db.schema.createIndex('change_requests_space_status').on('change_requests').columns(['space_id', 'status', 'number']).execute();

  await db.schema
    .createTable('comments')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('space_id', text, (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    // null: a comment on the space's main content.
    .addColumn('change_request_id', text, (c) => c.references('change_requests.id').onDelete('cascade'))
    .addColumn('posted_by', text, (c) => c.references('users.id').onDelete('set null'))
    .addColumn('body', text, (c) => c.notNull())
    .addColumn('target_revision', text, (c) => c.notNull())
    .addColumn('target_page', text)
    .addColumn('target_node', text)
    .addColumn('status', text, (c) => c.notNull())
    .addColumn('resolved_at', text)
    .addColumn('resolved_by', text, (c) => c.references('users.id').onDelete('set null'))
    .addColumn('posted_at', text, (c) => c.notNull())
    .addColumn('edited_at', text)
    .execute();
  await db.schema.createIndex('comments_space').on('comments').columns(['space_id', 'change_request_id', 'posted_at', 'id']).execute();

  await db.schema
    .createTable('comment_replies')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('comment_id', text, (c) => c.notNull().references('comments.id').onDelete('cascade'))
    .addColumn('posted_by', text, (c) => c.references('users.id').onDelete('set null'))
    .addColumn('body', text, (c) => c.notNull())
    .addColumn('posted_at', text, (c) => c.notNull())
    .addColumn('edited_at', text)
    .execute();
  await db.schema.createIndex('comment_replies_comment').on('comment_replies').columns(['comment_id', 'posted_at', 'id']).execute();

  // One row per user, emoji and comment or reply.
  await db.schema
    .createTable('comment_reactions')
    .addColumn('comment_id', text, (c) => c.references('comments.id').onDelete('cascade'))
    .addColumn('reply_id', text, (c) => c.references('comment_replies.id').onDelete('cascade'))
    .addColumn('user_id', text, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('emoji', text, (c) => c.notNull())
    .addColumn('reacted_at', text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('comment_reactions_comment').on('comment_reactions').columns(['comment_id', 'user_id', 'emoji']).unique().execute();
  await db.schema.createIndex('comment_reactions_reply').on('comment_reactions').columns(['reply_id', 'user_id', 'emoji']).unique().execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['comment_reactions', 'comment_replies', 'comments', 'change_requests']) await db.schema.dropTable(table).execute();
}
