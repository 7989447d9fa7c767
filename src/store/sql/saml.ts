import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Database, SamlProvidersTable, SamlRequestsTable, SamlUsedAssertionsTable } from './schema.js';
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

export type SamlRequestRow = Selectable<SamlRequestsTable>;

/** Records a sent AuthnRequest; expired ones go at the same time (they can no longer be answered). */
export async function insertSamlRequest(db: Kysely<Database>, row: SamlRequestRow): Promise<void> {
  await db.deleteFrom('saml_requests').where('expires_at', '<=', row.created_at).execute();
  await db.insertInto('saml_requests').values(row).execute();
}

/** A sent request of this provider that has not expired at `now`. */
export async function findSamlRequest(db: Kysely<Database>, providerId: string, id: string, now: string): Promise<SamlRequestRow | undefined> {
  return db
    .selectFrom('saml_requests')
    .selectAll()
    .where('provider_id', '=', providerId)
    .where('id', '=', id)
    .where('expires_at', '>', now)
    .executeTakeFirst();
}

/** Takes a request (once): the row if this call deleted it, undefined if it was already taken or never sent. */
export async function takeSamlRequest(db: Kysely<Database>, providerId: string, id: string, now: string): Promise<SamlRequestRow | undefined> {
  const row = await findSamlRequest(db, providerId, id, now);
  if (!row) return undefined;
  const deleted = await db.deleteFrom('saml_requests').where('provider_id', '=', providerId).where('id', '=', id).executeTakeFirst();
  return Number(deleted.numDeletedRows) > 0 ? row : undefined;
}

/**
 * Records an assertion as used: false when it already was (a replay). Assertions past their expiry go at the same
 * time (they are refused as expired).
 */
export async function recordUsedSamlAssertion(db: Kysely<Database>, row: Selectable<SamlUsedAssertionsTable>, now: string): Promise<boolean> {
  await db.deleteFrom('saml_used_assertions').where('expires_at', '<=', now).execute();
  const inserted = await db
    .insertInto('saml_used_assertions')
    .values(row)
    .onConflict((oc) => oc.columns(['provider_id', 'assertion_id']).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** Every organization's active providers (entity id, SSO URL and certificate set), oldest first: the sign-in page's choices. */
export async function listActiveSamlProviderLabels(db: Kysely<Database>): Promise<Array<{ id: string; label: string }>> {
  return db
    .selectFrom('saml_providers')
    .select(['id', 'label'])
    .where('entity_id', 'is not', null)
    .where('sso_url', 'is not', null)
    .where('certificate', 'is not', null)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}
