import type { Kysely, Selectable } from 'kysely';
import type { Database, SiteOidcProvidersTable } from './schema.js';

export type SiteOidcProviderRow = Selectable<SiteOidcProvidersTable>;

export async function saveSiteOidcProvider(db: Kysely<Database>, row: SiteOidcProviderRow): Promise<void> {
  const { site_id: _id, created_at: _created, ...changes } = row;
  await db
    .insertInto('site_oidc_providers')
    .values(row)
    .onConflict((oc) => oc.column('site_id').doUpdateSet(changes))
    .execute();
}

export async function findSiteOidcProvider(db: Kysely<Database>, siteId: string): Promise<SiteOidcProviderRow | undefined> {
  return db.selectFrom('site_oidc_providers').selectAll().where('site_id', '=', siteId).executeTakeFirst();
}

export async function deleteSiteOidcProvider(db: Kysely<Database>, siteId: string): Promise<boolean> {
  const result = await db.deleteFrom('site_oidc_providers').where('site_id', '=', siteId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
