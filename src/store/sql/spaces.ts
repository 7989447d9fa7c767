/**
 * Collections, spaces and the grants on them: the content tree of an organization.
 * Collections and spaces under one parent are siblings ordered by `position`.
 */
import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { CollectionsTable, ContentGrantsTable, Database, SpacesTable } from './schema.js';
import { isPostgres } from './dialect.js';
import { keysetQuery, type KeysetKey, type SortDirection } from './keyset.js';

export type CollectionRow = Selectable<CollectionsTable>;
export type SpaceRow = Selectable<SpacesTable>;
export type GrantRow = Selectable<ContentGrantsTable>;

export const CREATED_KEYS = (table: 'spaces' | 'collections', direction: SortDirection = 'asc'): KeysetKey[] => [
  { column: `${table}.created_at`, direction },
  { column: `${table}.id`, direction },
];

export const POSITION_KEYS: KeysetKey[] = [
  { column: 'spaces.position', direction: 'asc' },
  { column: 'spaces.id', direction: 'asc' },
];

// ---- collections

export async function insertCollection(db: Kysely<Database>, row: CollectionRow): Promise<void> {
  await db.insertInto('collections').values(row).execute();
}

export async function findCollection(db: Kysely<Database>, id: string): Promise<CollectionRow | undefined> {
  return db.selectFrom('collections').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateCollectionRow(db: Kysely<Database>, id: string, changes: Updateable<CollectionsTable>): Promise<void> {
  await db.updateTable('collections').set(changes).where('id', '=', id).execute();
}

/** Deletes the collection; nested collections go with it (foreign key cascade). */
export async function deleteCollectionRow(db: Kysely<Database>, id: string): Promise<boolean> {
  const result = await db.deleteFrom('collections').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Every collection of an organization: the tree that permissions and moves walk. */
export async function collectionsOfOrganization(db: Kysely<Database>, organizationId: string): Promise<CollectionRow[]> {
  return db.selectFrom('collections').selectAll().where('organization_id', '=', organizationId).execute();
}

export async function listCollections(
  db: Kysely<Database>,
  organizationId: string,
  filter: { topLevelOnly: boolean },
  after: unknown[] | undefined,
  limit: number,
): Promise<CollectionRow[]> {
  let query = db.selectFrom('collections').selectAll('collections').where('collections.organization_id', '=', organizationId);
  if (filter.topLevelOnly) query = query.where('collections.parent_id', 'is', null);
  return keysetQuery(query, CREATED_KEYS('collections'), after, limit).execute();
}

// ---- siblings

export interface Sibling {
  kind: 'space' | 'collection';
  id: string;
  position: number;
}

/** Collections and live spaces directly under `parentId` (null: the organization's root), in order. */
export async function siblingsOf(db: Kysely<Database>, organizationId: string, parentId: string | null): Promise<Sibling[]> {
  const collections = await db
    .selectFrom('collections')
    .select(['id', 'position'])
    .where('organization_id', '=', organizationId)
    .where('parent_id', parentId === null ? 'is' : '=', parentId)
    .execute();
  const spaces = await db
    .selectFrom('spaces')
    .select(['id', 'position'])
    .where('organization_id', '=', organizationId)
    .where('parent_id', parentId === null ? 'is' : '=', parentId)
    .where('deleted_at', 'is', null)
    .execute();
  return [
    ...collections.map((c) => ({ kind: 'collection' as const, id: c.id, position: Number(c.position) })),
    ...spaces.map((s) => ({ kind: 'space' as const, id: s.id, position: Number(s.position) })),
  ].sort((a, b) => a.position - b.position || a.id.localeCompare(b.id));
}

export async function setPosition(db: Kysely<Database>, item: Sibling): Promise<void> {
  if (item.kind === 'space') await db.updateTable('spaces').set({ position: item.position }).where('id', '=', item.id).execute();
  else await db.updateTable('collections').set({ position: item.position }).where('id', '=', item.id).execute();
}

// ---- spaces

export async function insertSpace(db: Kysely<Database>, row: Insertable<SpacesTable>): Promise<void> {
  await db.insertInto('spaces').values(row).execute();
}

/** The space, deleted or not. */
export async function findSpace(db: Kysely<Database>, id: string): Promise<SpaceRow | undefined> {
  return db.selectFrom('spaces').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The spaces with these ids (deleted or not), in no particular order. */
export async function findSpaces(db: Kysely<Database>, ids: readonly string[]): Promise<SpaceRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('spaces').selectAll().where('id', 'in', [...new Set(ids)]).execute();
}

export async function updateSpaceRow(db: Kysely<Database>, id: string, changes: Updateable<SpacesTable>): Promise<void> {
  await db.updateTable('spaces').set(changes).where('id', '=', id).execute();
}

/**
 * Serializes writes to a space's row inside a transaction: PostgreSQL takes the row lock (held until commit), SQLite
 * the write lock of the file (a write that changes nothing, the only way to take it within a transaction begun as a
 * read). Recording a push reads main under it, so concurrent pushes (in any process) record their revisions in the
 * order main moved and the last one wins. Neither is reported to the caches of the process (src/store/sql/
 * write-observer.ts): nothing changes, and the indexing jobs that take this lock after every push would clear them.
 */
export async function lockSpaceRow(db: Kysely<Database>, id: string): Promise<void> {
  if (isPostgres(db)) {
    await db.selectFrom('spaces').select('id').where('id', '=', id).forUpdate().execute();
    return;
  }
  await db
    .withoutPlugins()
    .updateTable('spaces')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('id', '=', id)
    .execute();
}

/** Deleted spaces whose deletion is older than `before` (ISO time): what a purge removes for good. */
export async function listSpacesDeletedBefore(db: Kysely<Database>, before: string): Promise<SpaceRow[]> {
  return db.selectFrom('spaces').selectAll().where('deleted_at', 'is not', null).where('deleted_at', '<', before).execute();
}

/** Removes a space's row and everything that hangs on it (foreign key cascades). */
export async function deleteSpaceRow(db: Kysely<Database>, id: string): Promise<boolean> {
  const result = await db.deleteFrom('spaces').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Live spaces of an organization. */
export async function listSpacesOfOrganization(
  db: Kysely<Database>,
  organizationId: string,
  direction: SortDirection,
  after: unknown[] | undefined,
  limit: number,
): Promise<SpaceRow[]> {
  const query = db
    .selectFrom('spaces')
    .selectAll('spaces')
    .where('spaces.organization_id', '=', organizationId)
    .where('spaces.deleted_at', 'is', null);
  return keysetQuery(query, CREATED_KEYS('spaces', direction), after, limit).execute();
}

/** Every live space of an organization (unpaged: for work over all of them, such as a search). */
/** Every live space's id and main revision (what the indexes should have caught up with). */
export async function liveSpaces(db: Kysely<Database>): Promise<Array<{ id: string; revision: string }>> {
  return db.selectFrom('spaces').select(['id', 'revision']).where('deleted_at', 'is', null).execute();
}

export async function liveSpacesOfOrganization(db: Kysely<Database>, organizationId: string): Promise<SpaceRow[]> {
  return db.selectFrom('spaces').selectAll().where('organization_id', '=', organizationId).where('deleted_at', 'is', null).execute();
}

/** Live spaces directly in a collection, in sibling order. */
export async function listSpacesOfCollection(
  db: Kysely<Database>,
  collectionId: string,
  after: unknown[] | undefined,
  limit: number,
): Promise<SpaceRow[]> {
  const query = db
    .selectFrom('spaces')
    .selectAll('spaces')
    .where('spaces.parent_id', '=', collectionId)
    .where('spaces.deleted_at', 'is', null);
  return keysetQuery(query, POSITION_KEYS, after, limit).execute();
}

/** Marks live spaces under the given collections deleted (they stay restorable). */
export async function softDeleteSpacesIn(db: Kysely<Database>, collectionIds: readonly string[], at: string): Promise<void> {
  if (collectionIds.length === 0) return;
  await db
    .updateTable('spaces')
    .set({ deleted_at: at, updated_at: at })
    .where('parent_id', 'in', [...collectionIds])
    .where('deleted_at', 'is', null)
    .execute();
}

/** Moves every collection and space of a subtree to another organization. */
export async function moveSubtreeToOrganization(
  db: Kysely<Database>,
  collectionIds: readonly string[],
  organizationId: string,
  at: string,
): Promise<void> {
  if (collectionIds.length === 0) return;
  await db.updateTable('collections').set({ organization_id: organizationId, updated_at: at }).where('id', 'in', [...collectionIds]).execute();
  await db.updateTable('spaces').set({ organization_id: organizationId, updated_at: at }).where('parent_id', 'in', [...collectionIds]).execute();
}

// ---- grants

/** Grants on content of an organization to this user or to any of the given teams. */
export async function grantsFor(
  db: Kysely<Database>,
  organizationId: string,
  userId: string,
  teamIds: readonly string[],
): Promise<GrantRow[]> {
  return db
    .selectFrom('content_grants')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where((eb) => {
      const conditions = [eb('user_id', '=', userId)];
      if (teamIds.length > 0) conditions.push(eb('team_id', 'in', [...teamIds]));
      return eb.or(conditions);
    })
    .execute();
}

export async function insertGrant(db: Kysely<Database>, row: GrantRow): Promise<void> {
  await db.insertInto('content_grants').values(row).execute();
}

/** Removes grants of a subtree (used when content leaves its organization: grants name that org's teams). */
export async function deleteGrantsOn(db: Kysely<Database>, target: { spaceIds: readonly string[]; collectionIds: readonly string[] }): Promise<void> {
  if (target.spaceIds.length > 0) await db.deleteFrom('content_grants').where('space_id', 'in', [...target.spaceIds]).execute();
  if (target.collectionIds.length > 0) await db.deleteFrom('content_grants').where('collection_id', 'in', [...target.collectionIds]).execute();
}

export async function spaceIdsIn(db: Kysely<Database>, collectionIds: readonly string[]): Promise<string[]> {
  if (collectionIds.length === 0) return [];
  const rows = await db.selectFrom('spaces').select('id').where('parent_id', 'in', [...collectionIds]).execute();
  return rows.map((r) => r.id);
}
