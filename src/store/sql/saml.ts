import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Database, SamlProvidersTable } from './schema.js';
import { keysetQuery } from './keyset.js';

export type SamlProviderRow = Selectable<SamlProvidersTable>;

const SAML_LIST_KEYS = [
  { column: 'saml_providers.created_at', direction: 'asc' as const },
  { column: 'saml_providers.id', direction: 'asc' as const },
];

export async function insertSamlProvider(db: Kysely<Database>, row: SamlProviderRow): Promise<void> {
  await db.insertInto('saml_providers').values(row).execute();
}

export async function findSamlProvider(db: Kysely<Database>, organizationId: string, id: string): Promise<SamlProviderRow | undefined> {
  return db.selectFrom('saml_providers').selectAll().where('organization_id', '=', organizationId).where('id', '=', id).executeTakeFirst();
}

/** A provider by its id alone (ids are unique across organizations): the service provider's public endpoints. */
export async function findSamlProviderById(db: Kysely<Database>, id: string): Promise<SamlProviderRow | undefined> {
  return db.selectFrom('saml_providers').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The organization's providers, oldest first. */
export async function listSamlProviders(
  db: Kysely<Database>,
  organizationId: string,
  after: unknown[] | undefined,
  limit: number,
): Promise<SamlProviderRow[]> {
  const query = db.selectFrom('saml_providers').selectAll().where('organization_id', '=', organizationId);
  return keysetQuery(query, SAML_LIST_KEYS, after, limit).execute();
}

/** Providers whose entity id, SSO URL and certificate are all set, oldest first (the sign-in choices). */
export async function listConfiguredSamlProviders(db: Kysely<Database>, organizationId: string): Promise<SamlProviderRow[]> {
  return db
    .selectFrom('saml_providers')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('entity_id', 'is not', null)
    .where('sso_url', 'is not', null)
    .where('certificate', 'is not', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

export async function updateSamlProviderRow(
  db: Kysely<Database>,
  organizationId: string,
  id: string,
  changes: Updateable<SamlProvidersTable>,
): Promise<void> {
  await db.updateTable('saml_providers').set(changes).where('organization_id', '=', organizationId).where('id', '=', id).execute();
}

export async function deleteSamlProviderRow(db: Kysely<Database>, organizationId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('saml_providers').where('organization_id', '=', organizationId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
