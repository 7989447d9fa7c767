import type { Kysely } from 'kysely';

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  // Which of the host's branches a connection keeps in step with change requests (`docs/*`); null: main only.
  await db.schema.alterTable('git_sync_connections').addColumn('branch_pattern', 'text').execute();
  // A branch of the host kept in step with a change request: one of the host's branches the pattern matches, or a
  // change request made in Quire and shown on the host as `quire/cr-<number>`.
  await db.schema
    .createTable('git_sync_branches')
    .addColumn('space_id', 'text', (c) => c.notNull().references('git_sync_connections.space_id').onDelete('cascade'))
    .addColumn('remote_ref', 'text', (c) => c.notNull())
    .addColumn('change_request_id', 'text', (c) => c.unique().references('change_requests.id').onDelete('set null'))
    .addColumn('origin', 'text', (c) => c.notNull())
    .addColumn('synced_commit', 'text')
    .addColumn('remote_commit', 'text')
    .addColumn('error', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('git_sync_branches_pk', ['space_id', 'remote_ref'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('git_sync_branches').execute();
  await db.schema.alterTable('git_sync_connections').dropColumn('branch_pattern').execute();
}
