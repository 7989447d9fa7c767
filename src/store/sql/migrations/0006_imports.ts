import type { Kysely } from 'kysely';

const text = 'text' as const;

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  // One row per content import: what was asked, by whom, and how it ended. The import-content job
  // reloads its row by id; `result_revision` set means done (running the job again changes nothing).
  await db.schema
    .createTable('content_imports')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('space_id', text, (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    // null: an import into the space's main content.
    .addColumn('change_request_id', text, (c) => c.references('change_requests.id').onDelete('cascade'))
    .addColumn('url', text, (c) => c.notNull())
    .addColumn('source', text, (c) => c.notNull())
    .addColumn('requested_by', text, (c) => c.references('users.id').onDelete('set null'))
    // pending, running, done or failed.
    .addColumn('status', text, (c) => c.notNull())
    .addColumn('result_revision', text)
    .addColumn('imported_resources', 'integer')
    .addColumn('total_resources', 'integer')
    .addColumn('error', text)
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('content_imports_space').on('content_imports').columns(['space_id', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('content_imports').execute();
}
