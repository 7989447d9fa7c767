/**
 * Sites and their structure (section groups, sections, site spaces) and share links. A site's structure is small
 * (tens of rows), so it is read whole and ordered by the domain; only sites and share links are listed with
 * keyset pagination here.
 */
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Database, ShareLinksTable, SiteSectionGroupsTable, SiteSectionsTable, SiteSpacesTable, SitesTable } from './schema.js';
import { keysetQuery, type KeysetKey } from './keyset.js';
import { containsInsensitive } from './text.js';

export type SiteRow = Selectable<SitesTable>;
export type SiteSectionRow = Selectable<SiteSectionsTable>;
export type SiteSectionGroupRow = Selectable<SiteSectionGroupsTable>;
export type SiteSpaceRow = Selectable<SiteSpacesTable>;
export type ShareLinkRow = Selectable<ShareLinksTable>;

// ---- sites

export async function insertSite(db: Kysely<Database>, row: SiteRow): Promise<void> {
  await db.insertInto('sites').values(row).execute();
}

/** The site, when it belongs to the organization. */
export async function findSite(db: Kysely<Database>, organizationId: string, siteId: string): Promise<SiteRow | undefined> {
  return db.selectFrom('sites').selectAll().where('organization_id', '=', organizationId).where('id', '=', siteId).executeTakeFirst();
}

export async function findSiteById(db: Kysely<Database>, siteId: string): Promise<SiteRow | undefined> {
  return db.selectFrom('sites').selectAll().where('id', '=', siteId).executeTakeFirst();
}

export async function updateSiteRow(db: Kysely<Database>, id: string, changes: Updateable<SitesTable>): Promise<void> {
  await db.updateTable('sites').set(changes).where('id', '=', id).execute();
}

/**
 * Serializes changes to a site's structure inside a transaction (the row lock in PostgreSQL, the write lock in
 * SQLite), so two requests never compute positions or defaults from the same stale picture.
 */
export async function lockSiteRow(db: Kysely<Database>, id: string): Promise<void> {
  await db
    .updateTable('sites')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('id', '=', id)
    .execute();
}

/** Deletes the site and everything in it (foreign key cascades). */
export async function deleteSiteRow(db: Kysely<Database>, organizationId: string, siteId: string): Promise<boolean> {
  const result = await db.deleteFrom('sites').where('organization_id', '=', organizationId).where('id', '=', siteId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export const SITE_LIST_KEYS: KeysetKey[] = [
  { column: 'sites.created_at', direction: 'asc' },
  { column: 'sites.id', direction: 'asc' },
];

export interface SiteListFilter {
  title?: string;
  /** Only sites that publish this space. */
  space?: string;
  published?: boolean;
  types?: readonly string[];
}

/** A site is published when it has at least one site space (see domain/sites/sites.ts). */
export async function listSites(
  db: Kysely<Database>,
  organizationId: string,
  filter: SiteListFilter,
  after: unknown[] | undefined,
  limit: number,
): Promise<SiteRow[]> {
  let query = db.selectFrom('sites').selectAll('sites').where('sites.organization_id', '=', organizationId);
  if (filter.title) query = query.where(containsInsensitive('sites.title', filter.title));
  if (filter.types && filter.types.length > 0) query = query.where('sites.type', 'in', [...filter.types]);
  if (filter.space !== undefined) {
    const space = filter.space;
    query = query.where((eb) =>
      eb.exists(eb.selectFrom('site_spaces').select('site_spaces.id').whereRef('site_spaces.site_id', '=', 'sites.id').where('site_spaces.space_id', '=', space)),
    );
  }
  if (filter.published !== undefined) {
    const published = filter.published;
    query = query.where((eb) => {
      const some = eb.exists(eb.selectFrom('site_spaces').select('site_spaces.id').whereRef('site_spaces.site_id', '=', 'sites.id'));
      return published ? some : eb.not(some);
    });
  }
  return keysetQuery(query, SITE_LIST_KEYS, after, limit).execute();
}

/** Number of site spaces of each site. */
export async function siteSpaceCounts(db: Kysely<Database>, siteIds: readonly string[]): Promise<Map<string, number>> {
  const counts = new Map(siteIds.map((id) => [id, 0]));
  if (siteIds.length === 0) return counts;
  const rows = await db
    .selectFrom('site_spaces')
    .select(['site_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('site_id', 'in', [...siteIds])
    .groupBy('site_id')
    .execute();
  for (const row of rows) counts.set(row.site_id, Number(row.n));
  return counts;
}

// ---- structure: groups, sections, site spaces

export async function sectionGroupsOfSite(db: Kysely<Database>, siteId: string): Promise<SiteSectionGroupRow[]> {
  return db.selectFrom('site_section_groups').selectAll().where('site_id', '=', siteId).execute();
}

export async function sectionsOfSite(db: Kysely<Database>, siteId: string): Promise<SiteSectionRow[]> {
  return db.selectFrom('site_sections').selectAll().where('site_id', '=', siteId).execute();
}

export async function siteSpacesOfSite(db: Kysely<Database>, siteId: string): Promise<SiteSpaceRow[]> {
  return db.selectFrom('site_spaces').selectAll().where('site_id', '=', siteId).execute();
}

export async function insertSectionGroup(db: Kysely<Database>, row: SiteSectionGroupRow): Promise<void> {
  await db.insertInto('site_section_groups').values(row).execute();
}

export async function insertSection(db: Kysely<Database>, row: SiteSectionRow): Promise<void> {
  await db.insertInto('site_sections').values(row).execute();
}

export async function insertSiteSpace(db: Kysely<Database>, row: SiteSpaceRow): Promise<void> {
  await db.insertInto('site_spaces').values(row).execute();
}

export async function updateSectionGroupRow(db: Kysely<Database>, id: string, changes: Updateable<SiteSectionGroupsTable>): Promise<void> {
  await db.updateTable('site_section_groups').set(changes).where('id', '=', id).execute();
}

export async function updateSectionRow(db: Kysely<Database>, id: string, changes: Updateable<SiteSectionsTable>): Promise<void> {
  await db.updateTable('site_sections').set(changes).where('id', '=', id).execute();
}

export async function updateSiteSpaceRow(db: Kysely<Database>, id: string, changes: Updateable<SiteSpacesTable>): Promise<void> {
  await db.updateTable('site_spaces').set(changes).where('id', '=', id).execute();
}

export async function deleteSectionGroupRow(db: Kysely<Database>, siteId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('site_section_groups').where('site_id', '=', siteId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Deletes a section and its site spaces (foreign key cascade). */
export async function deleteSectionRow(db: Kysely<Database>, siteId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('site_sections').where('site_id', '=', siteId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export async function deleteSiteSpaceRow(db: Kysely<Database>, siteId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('site_spaces').where('site_id', '=', siteId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Moves every site space at the root of the site into a section (keeping their order, paths and default). */
export async function moveRootSiteSpacesInto(db: Kysely<Database>, siteId: string, sectionId: string): Promise<void> {
  await db.updateTable('site_spaces').set({ section_id: sectionId }).where('site_id', '=', siteId).where('section_id', 'is', null).execute();
}

/** Clears the default flag of the site's sections (before another one becomes the default). */
export async function clearDefaultSection(db: Kysely<Database>, siteId: string): Promise<void> {
  await db.updateTable('site_sections').set({ is_default: 0 }).where('site_id', '=', siteId).where('is_default', '=', 1).execute();
}

/** Clears the default flag of the site spaces of one container (a section, or the root when null). */
export async function clearDefaultSiteSpace(db: Kysely<Database>, siteId: string, sectionId: string | null): Promise<void> {
  await db
    .updateTable('site_spaces')
    .set({ is_default: 0 })
    .where('site_id', '=', siteId)
    .where('section_id', sectionId === null ? 'is' : '=', sectionId)
    .where('is_default', '=', 1)
    .execute();
}

export type StructureTable = 'site_section_groups' | 'site_sections' | 'site_spaces';

export async function setStructurePosition(db: Kysely<Database>, table: StructureTable, id: string, position: number): Promise<void> {
  // The three tables share the `position` and `id` columns; Kysely cannot type a table chosen at run time.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as said above.
  await (db as Kysely<any>).updateTable(table).set({ position }).where('id', '=', id).execute();
}

/** True when the site publishes the space through one of its site spaces. */
/**
 * Removes a space from every site that publishes it (the space leaves the organization). A container that loses
 * its default falls back to its first site space, as the structure reads it.
 */
export async function deleteSiteSpacesOfSpaces(db: Kysely<Database>, spaceIds: readonly string[]): Promise<void> {
  if (spaceIds.length > 0) await db.deleteFrom('site_spaces').where('space_id', 'in', [...spaceIds]).execute();
}

export async function sitePublishesSpace(db: Kysely<Database>, siteId: string, spaceId: string): Promise<boolean> {
  const row = await db.selectFrom('site_spaces').select('id').where('site_id', '=', siteId).where('space_id', '=', spaceId).executeTakeFirst();
  return row !== undefined;
}

/** The sites of the organization that publish the space, oldest first. */
export async function sitesPublishingSpace(db: Kysely<Database>, organizationId: string, spaceId: string): Promise<SiteRow[]> {
  return db
    .selectFrom('sites')
    .selectAll('sites')
    .where('sites.organization_id', '=', organizationId)
    .where((eb) => eb.exists(eb.selectFrom('site_spaces').select('site_spaces.id').whereRef('site_spaces.site_id', '=', 'sites.id').where('site_spaces.space_id', '=', spaceId)))
    .orderBy('sites.created_at')
    .orderBy('sites.id')
    .execute();
}

// ---- share links

export async function insertShareLink(db: Kysely<Database>, row: ShareLinkRow): Promise<void> {
  await db.insertInto('share_links').values(row).execute();
}

export async function findShareLink(db: Kysely<Database>, siteId: string, id: string): Promise<ShareLinkRow | undefined> {
  return db.selectFrom('share_links').selectAll().where('site_id', '=', siteId).where('id', '=', id).executeTakeFirst();
}

export async function findShareLinkByToken(db: Kysely<Database>, token: string): Promise<ShareLinkRow | undefined> {
  return db.selectFrom('share_links').selectAll().where('token', '=', token).executeTakeFirst();
}

export async function updateShareLinkRow(db: Kysely<Database>, id: string, changes: Updateable<ShareLinksTable>): Promise<void> {
  await db.updateTable('share_links').set(changes).where('id', '=', id).execute();
}

export async function deleteShareLinkRow(db: Kysely<Database>, siteId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('share_links').where('site_id', '=', siteId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export const SHARE_LINK_LIST_KEYS: KeysetKey[] = [
  { column: 'share_links.created_at', direction: 'asc' },
  { column: 'share_links.id', direction: 'asc' },
];

export async function listShareLinks(db: Kysely<Database>, siteId: string, after: unknown[] | undefined, limit: number): Promise<ShareLinkRow[]> {
  const query = db.selectFrom('share_links').selectAll('share_links').where('share_links.site_id', '=', siteId);
  return keysetQuery(query, SHARE_LINK_LIST_KEYS, after, limit).execute();
}

/** A site of the organization by its basename, or by its id when no site has that basename. */
export async function findSiteByName(db: Kysely<Database>, organizationId: string, name: string): Promise<SiteRow | undefined> {
  const byBasename = await db.selectFrom('sites').selectAll().where('organization_id', '=', organizationId).where('basename', '=', name).executeTakeFirst();
  return byBasename ?? findSite(db, organizationId, name);
}

