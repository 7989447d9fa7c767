/**
 * The visitor signing key of each site (table site_visitor_keys): at most one row per site, removed with the site.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Database, SiteVisitorKeysTable } from './schema.js';

export type SiteVisitorKeyRow = Selectable<SiteVisitorKeysTable>;

export async function findSiteVisitorKey(db: Kysely<Database>, siteId: string): Promise<SiteVisitorKeyRow | undefined> {
  return db.selectFrom('site_visitor_keys').selectAll().where('site_id', '=', siteId).executeTakeFirst();
}

/** Stores `row` unless the site has a key already (two first reads at once keep the same key); returns the stored one. */
export async function insertSiteVisitorKeyIfAbsent(db: Kysely<Database>, row: SiteVisitorKeyRow): Promise<SiteVisitorKeyRow> {
  await db.insertInto('site_visitor_keys').values(row).onConflict((oc) => oc.column('site_id').doNothing()).execute();
  return (await findSiteVisitorKey(db, row.site_id)) ?? row;
}

/** Stores `row` in place of the site's key, if any (a rotation). */
export async function replaceSiteVisitorKey(db: Kysely<Database>, row: SiteVisitorKeyRow): Promise<void> {
  await db
    .insertInto('site_visitor_keys')
    .values(row)
    .onConflict((oc) => oc.column('site_id').doUpdateSet({ key: row.key, created_at: row.created_at }))
    .execute();
}
