/** The merge rules of organizations and spaces: one row per owner (the organization's id or the space's). */
import type { Kysely, Selectable } from 'kysely';
import type { Database, MergeRulesTable } from './schema.js';

export type MergeRulesRow = Selectable<MergeRulesTable>;

export async function findMergeRules(db: Kysely<Database>, ownerId: string): Promise<MergeRulesRow | undefined> {
  return db.selectFrom('merge_rules').selectAll().where('owner_id', '=', ownerId).executeTakeFirst();
}

/** Sets the owner's rules (inserted, or replaced). */
export async function upsertMergeRules(db: Kysely<Database>, row: MergeRulesRow): Promise<void> {
  const { owner_id: _owner, ...rest } = row;
  await db
    .insertInto('merge_rules')
    .values(row)
    .onConflict((oc) => oc.column('owner_id').doUpdateSet(rest))
    .execute();
}

export async function deleteMergeRules(db: Kysely<Database>, ownerId: string): Promise<void> {
  await db.deleteFrom('merge_rules').where('owner_id', '=', ownerId).execute();
}
