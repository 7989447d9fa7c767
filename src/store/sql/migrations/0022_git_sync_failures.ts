import type { Kysely } from 'kysely';

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  // Runs that failed in a row since the last one that did not (the host down, a refused push): how long a connection
  // in error waits before the next try (src/domain/git-sync/poll-rule.ts). Back to 0 once a run gets both sides in step.
  await db.schema.alterTable('git_sync_connections').addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0)).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('git_sync_connections').dropColumn('failures').execute();
}
