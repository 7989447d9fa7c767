import type { Kysely } from 'kysely';

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  // A cache of facts derived from history (ids and timestamps of each path at a commit). Deterministic, so rows
  // can be dropped at any time and computed again.
  await db.schema
    .createTable('revision_facts')
    .addColumn('space_id', 'text', (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    .addColumn('commit_oid', 'text', (c) => c.notNull())
    .addColumn('facts', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('revision_facts_pk', ['space_id', 'commit_oid'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('revision_facts').execute();
}
