import type { Kysely } from 'kysely';

const text = 'text' as const;

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  // `quire migrate`: what was copied from another server, by the source's id, so that a second run copies only
  // what changed. `source` is the source's API base URL; `kind` the resource (space, collection, comment...);
  // `fingerprint` a hash of what was copied (null: the target was being made when the run stopped).
  await db.schema
    .createTable('migrated')
    .addColumn('source', text, (c) => c.notNull())
    .addColumn('kind', text, (c) => c.notNull())
    .addColumn('source_id', text, (c) => c.notNull())
    .addColumn('target_id', text, (c) => c.notNull())
    .addColumn('fingerprint', text)
    .addColumn('migrated_at', text, (c) => c.notNull())
    .addPrimaryKeyConstraint('migrated_pk', ['source', 'kind', 'source_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('migrated').execute();
}
