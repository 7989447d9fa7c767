import type { Kysely, Selectable } from 'kysely';
import type { Database, OidcProvidersTable } from './schema.js';

export type OidcProviderRow = Selectable<OidcProvidersTable>;

export async function saveOidcProvider(db: Kysely<Database>, row: OidcProviderRow): Promise<void> {
  const { organization_id: _id, created_at: _created, ...changes } = row;
  await db
    .insertInto('oidc_providers')
    .values(row)
    .onConflict((oc) => oc.column('organization_id').doUpdateSet(changes))
    .execute();
}

export async function findOidcProvider(db: Kysely<Database>, organizationId: string): Promise<OidcProviderRow | undefined> {
  return db.selectFrom('oidc_providers').selectAll().where('organization_id', '=', organizationId).executeTakeFirst();
}

export async function deleteOidcProvider(db: Kysely<Database>, organizationId: string): Promise<boolean> {
  const result = await db.deleteFrom('oidc_providers').where('organization_id', '=', organizationId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Every organization's provider, as the sign-in page lists them: their ids and labels only. */
export async function listOidcProviderLabels(db: Kysely<Database>): Promise<Array<{ organization_id: string; label: string }>> {
  return db.selectFrom('oidc_providers').select(['organization_id', 'label']).orderBy('label').orderBy('organization_id').execute();
}
