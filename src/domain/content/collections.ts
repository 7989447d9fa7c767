import type { Context, Caller } from '../context.js';
import { Conflict, InvalidArgument, NotFound } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { collectPage, type Page, type PageRequest } from '../lists.js';
import {
  collectionRole,
  loadOrgAccess,
  requireCollectionPermission,
  spaceRole,
  type OrgAccess,
  type Role,
} from '../permissions.js';
import { organizationAccess } from '../organizations/organizations.js';
import {
  collectionsOfOrganization,
  deleteCollectionRow,
  findCollection,
  insertCollection,
  listCollections as listCollectionRows,
  listSpacesOfCollection,
  moveSubtreeToOrganization,
  softDeleteSpacesIn,
  spaceIdsIn,
  updateCollectionRow,
  type CollectionRow,
} from '../../store/sql/spaces.js';
import { endPosition, placeAmongSiblings, siblingOrder, type ContentPosition } from './positions.js';
import { spaceViewOf, withSpaceCounters, type SpaceView } from './spaces.js';
import { leaveOrganization, requireCreateUnder, requireTransferTarget } from './placement.js';

export interface CollectionView {
  collection: CollectionRow;
  role: Role | null;
}

interface LoadedCollection {
  collection: CollectionRow;
  access: OrgAccess;
  role: Role | null;
}

/** The collection and the caller's role on it; 404 when unknown or invisible. */
async function loadCollection(ctx: Context, caller: Caller, collectionId: string): Promise<LoadedCollection> {
  const collection = await findCollection(ctx.db, collectionId);
  if (!collection) throw new NotFound(`collectionId: no collection "${collectionId}" is visible to you`);
  const access = await loadOrgAccess(ctx, collection.organization_id, caller.user.id);
  const role = collectionRole(access, collection.id);
  requireCollectionPermission(role, collectionId, 'view', 'view it');
  return { collection, access, role };
}

/** Ids of the collection and every collection below it. */
export async function subtreeIds(ctx: Context, root: CollectionRow): Promise<string[]> {
  const all = await collectionsOfOrganization(ctx.db, root.organization_id);
  const children = new Map<string, string[]>();
  for (const c of all) if (c.parent_id) children.set(c.parent_id, [...(children.get(c.parent_id) ?? []), c.id]);
  const ids: string[] = [];
  for (const queue = [root.id]; queue.length > 0; ) {
    const id = queue.shift()!;
    ids.push(id);
    queue.push(...(children.get(id) ?? []));
  }
  return ids;
}

export async function createCollection(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  input: { title?: string; parent?: string },
): Promise<CollectionView> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  const parentId = input.parent ?? null;
  await requireCreateUnder(ctx, access, parentId, 'parent');
  const now = nowIso();
  const collection: CollectionRow = {
    id: newId(),
    organization_id: organizationId,
    parent_id: parentId,
    title: input.title ?? 'Untitled',
    description: null,
    default_level: null,
    position: await endPosition(ctx.db, organizationId, parentId),
    created_at: now,
    updated_at: now,
  };
  await insertCollection(ctx.db, collection);
  const fresh = await loadOrgAccess(ctx, organizationId, caller.user.id);
  return { collection, role: collectionRole(fresh, collection.id) };
}

export async function getCollection(ctx: Context, caller: Caller, collectionId: string): Promise<CollectionView> {
  const { collection, role } = await loadCollection(ctx, caller, collectionId);
  return { collection, role };
}

export async function updateCollection(
  ctx: Context,
  caller: Caller,
  collectionId: string,
  patch: { title?: string; description?: string; defaultLevel?: Role | null },
): Promise<CollectionView> {
  const { role } = await loadCollection(ctx, caller, collectionId);
  requireCollectionPermission(role, collectionId, 'admin', 'update it');
  const changes: Partial<CollectionRow> = { updated_at: nowIso() };
  if (patch.title !== undefined) changes.title = patch.title;
  if (patch.description !== undefined) changes.description = patch.description;
  if (patch.defaultLevel !== undefined) changes.default_level = patch.defaultLevel;
  await updateCollectionRow(ctx.db, collectionId, changes);
  return getCollection(ctx, caller, collectionId);
}

/**
 * Deletes a collection and the collections in it; the spaces in them are deleted the way a space is (restorable
 * for the retention period, at the organization's top level).
 */
export async function deleteCollection(ctx: Context, caller: Caller, collectionId: string): Promise<void> {
  const { collection, role } = await loadCollection(ctx, caller, collectionId);
  requireCollectionPermission(role, collectionId, 'admin', 'delete it');
  const ids = await subtreeIds(ctx, collection);
  await ctx.db.transaction().execute(async (trx) => {
    await softDeleteSpacesIn(trx, ids, nowIso());
    await deleteCollectionRow(trx, collectionId);
  });
}

export async function listCollections(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  request: PageRequest & { nested?: boolean },
): Promise<Page<CollectionView>> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  const topLevelOnly = request.nested === false;
  return collectPage({
    codec: ctx.cursors,
    scope: `collections:${organizationId}:${topLevelOnly}`,
    request,
    fetch: (after, n) => listCollectionRows(ctx.db, organizationId, { topLevelOnly }, after, n),
    positionOf: (row) => [row.created_at, row.id],
    present: (collection) => {
      const role = collectionRole(access, collection.id);
      return role ? { collection, role } : undefined;
    },
  });
}

/** Spaces directly in the collection that the caller can see, in the collection's order. */
export async function listCollectionSpaces(ctx: Context, caller: Caller, collectionId: string, request: PageRequest): Promise<Page<SpaceView>> {
  const { access } = await loadCollection(ctx, caller, collectionId);
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `collection-spaces:${collectionId}`,
    request,
    fetch: (after, n) => listSpacesOfCollection(ctx.db, collectionId, after, n),
    positionOf: (row) => [row.position, row.id],
    present: (space) => (spaceRole(access, space) ? spaceViewOf(access, space) : undefined),
  });
  return withSpaceCounters(ctx, page);
}

/** Moves a collection under another parent and/or among its siblings. 409 when nothing would change. */
export async function moveCollection(
  ctx: Context,
  caller: Caller,
  collectionId: string,
  input: { parent?: string | null; position?: ContentPosition },
): Promise<CollectionView> {
  const { collection, access, role } = await loadCollection(ctx, caller, collectionId);
  requireCollectionPermission(role, collectionId, 'admin', 'move it');
  const targetParent = input.parent === undefined ? collection.parent_id : input.parent;
  if (targetParent !== null) {
    const subtree = await subtreeIds(ctx, collection);
    if (subtree.includes(targetParent)) throw new InvalidArgument('parent: a collection cannot move into itself or into a collection it contains');
  }
  if (targetParent !== collection.parent_id) await requireCreateUnder(ctx, access, targetParent, 'parent');
  await ctx.db.transaction().execute(async (trx) => {
    const before = await siblingOrder(trx, collection.organization_id, collection.parent_id);
    const position = await placeAmongSiblings(trx, collection.organization_id, targetParent, { kind: 'collection', id: collectionId }, input.position);
    await updateCollectionRow(trx, collectionId, { parent_id: targetParent, position, updated_at: nowIso() });
    if (targetParent === collection.parent_id && before === (await siblingOrder(trx, collection.organization_id, targetParent))) {
      throw new Conflict('position: the move would not change anything');
    }
  });
  return getCollection(ctx, caller, collectionId);
}

/** Moves a collection, with everything in it, to the top level of another organization the caller administers. */
export async function transferCollection(
  ctx: Context,
  caller: Caller,
  collectionId: string,
  input: { organization: string },
): Promise<CollectionView> {
  const { collection, role } = await loadCollection(ctx, caller, collectionId);
  requireCollectionPermission(role, collectionId, 'admin', 'transfer it');
  if (input.organization === collection.organization_id) throw new Conflict('organization: the collection is already in this organization');
  await requireTransferTarget(ctx, caller, input.organization);
  const ids = await subtreeIds(ctx, collection);
  await ctx.db.transaction().execute(async (trx) => {
    await leaveOrganization(trx, { spaceIds: await spaceIdsIn(trx, ids), collectionIds: ids });
    const now = nowIso();
    await updateCollectionRow(trx, collectionId, {
      parent_id: null,
      position: await endPosition(trx, input.organization, null),
      updated_at: now,
    });
    await moveSubtreeToOrganization(trx, ids, input.organization, now);
  });
  return getCollection(ctx, caller, collectionId);
}
