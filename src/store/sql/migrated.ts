/**
 * The mapping `quire migrate` keeps: a source's resource (base URL, kind, id) to the resource made from it here.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Database, MigratedTable } from './schema.js';

export type MigratedRow = Selectable<MigratedTable>;

export async function findMigrated(db: Kysely<Database>, source: string, kind: string, sourceId: string): Promise<MigratedRow | undefined> {
  return db.selectFrom('migrated').selectAll().where('source', '=', source).where('kind', '=', kind).where('source_id', '=', sourceId).executeTakeFirst();
}

/** Records (or replaces) where a source's resource went and the fingerprint of what was copied. */
export async function saveMigrated(db: Kysely<Database>, row: MigratedRow): Promise<void> {
  await db
    .insertInto('migrated')
    .values(row)
    .onConflict((oc) => oc.columns(['source', 'kind', 'source_id']).doUpdateSet({ target_id: row.target_id, fingerprint: row.fingerprint, migrated_at: row.migrated_at }))
    .execute();
}

export async function forgetMigrated(db: Kysely<Database>, source: string, kind: string, sourceId: string): Promise<void> {
  await db.deleteFrom('migrated').where('source', '=', source).where('kind', '=', kind).where('source_id', '=', sourceId).execute();
}
