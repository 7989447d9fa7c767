import type { Kysely } from 'kysely';

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('git_sync_connections')
    // Runs that failed in a row since the last that did not (the host down, a refused push): how long a connection in
    // error waits before the next try (src/domain/git-sync/poll-rule.ts). Back to 0 once a run puts both sides in step.
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // Who connected the space: the change requests a run opens for the host's conflicting commits are theirs.
  await db.schema.alterTable('git_sync_connections').addColumn('connected_by', 'text').execute();
  // What the last run that moved commits wants people to know although nothing failed: that main followed a
  // force-push on the host, and where the space's former main is kept.
  await db.schema.alterTable('git_sync_connections').addColumn('notice', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('git_sync_connections').dropColumn('notice').execute();
  await db.schema.alterTable('git_sync_connections').dropColumn('connected_by').execute();
  await db.schema.alterTable('git_sync_connections').dropColumn('failures').execute();
}
