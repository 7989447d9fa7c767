import type { Context, Caller } from '../context.js';
import { Conflict, InvalidArgument, NotFound, PermissionDenied } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { collectPage, type Page, type PageRequest } from '../lists.js';
import { collectionRole, loadOrgAccess, requireSpacePermission, spaceRole, type OrgAccess, type Role } from '../permissions.js';
import { shareKeyOpensSpace } from '../sites/share-keys.js';
import { organizationAccess } from '../organizations/organizations.js';
import { changeRequestCounts } from '../../store/sql/change-requests.js';
import {
  deleteSpaceRow,
  findSpace,
  insertSpace,
  listSpacesDeletedBefore,
  listSpacesOfOrganization,
  updateSpaceRow,
  type SpaceRow,
} from '../../store/sql/spaces.js';
import { openCommentCounts } from '../../store/sql/comments.js';
import { endPosition, placeAmongSiblings, siblingOrder, type ContentPosition } from './positions.js';
import { leaveOrganization, requireCreateUnder, requireTransferTarget } from './placement.js';
import { MAIN_REF } from './refs.js';
import { gitSyncConnectionsOf, type GitSyncConnectionRow } from '../../store/sql/git-sync.js';
import { gitSyncState, type GitSyncState } from '../git-sync/state.js';

export const SPACE_VISIBILITIES = ['public', 'unlisted', 'share-link', 'visitor-auth', 'in-collection', 'private'] as const;
export type SpaceVisibility = (typeof SPACE_VISIBILITIES)[number];
export type EditMode = 'live' | 'locked';

export interface SpaceCounters {
  comments: number;
  changeRequests: number;
  changeRequestsOpen: number;
  changeRequestsDraft: number;
}

export interface SpaceView {
  space: SpaceRow;
  role: Role | null;
  counters: SpaceCounters;
  /** Its Git Sync connection, when it has one (filled in with the counters). */
  gitSync?: GitSyncState;
}

function noCounters(): SpaceCounters {
  return { comments: 0, changeRequests: 0, changeRequestsOpen: 0, changeRequestsDraft: 0 };
}

/**
 * The view of a space for a caller whose organization access is already loaded. `counters` come from
 * `spaceCounters` (one query per list, not per item); without them every counter is 0 (a new space).
 */
export function spaceViewOf(access: OrgAccess, space: SpaceRow, counters: SpaceCounters = noCounters()): SpaceView {
  return { space, role: spaceRole(access, space), counters };
}

/** The counters of each of the spaces, in one query per counter for the whole set. */
export async function spaceCounters(ctx: Context, spaceIds: readonly string[]): Promise<Map<string, SpaceCounters>> {
  const [comments, changeRequests] = await Promise.all([openCommentCounts(ctx.db, spaceIds), changeRequestCounts(ctx.db, spaceIds)]);
  return new Map(
    spaceIds.map((id) => {
      const requests = changeRequests.get(id);
      return [
        id,
        {
          comments: comments.get(id) ?? 0,
          changeRequests: requests?.total ?? 0,
          changeRequestsOpen: requests?.open ?? 0,
          changeRequestsDraft: requests?.draft ?? 0,
        },
      ];
    }),
  );
}

/** Fills in the counters of the spaces of a list page (one `spaceCounters` call for the page). */
export async function withSpaceCounters<T extends SpaceView>(ctx: Context, page: Page<T>): Promise<Page<T>> {
  const ids = page.items.map((view) => view.space.id);
  const [counters, connections] = await Promise.all([spaceCounters(ctx, ids), gitSyncConnectionsOf(ctx.db, ids)]);
  return { ...page, items: page.items.map((view) => withGitSync({ ...view, counters: counters.get(view.space.id) ?? noCounters() }, connections.get(view.space.id))) };
}

function withGitSync<T extends SpaceView>(view: T, connection: GitSyncConnectionRow | undefined): T {
  return connection ? { ...view, gitSync: gitSyncState(connection) } : view;
}

interface LoadedSpace {
  space: SpaceRow;
  access: OrgAccess;
  role: Role | null;
}

/**
 * The space and the caller's role on it. 404 when unknown, invisible, or deleted (unless `includeDeleted`,
 * which only restore uses).
 */
export async function loadSpace(ctx: Context, caller: Caller, spaceId: string, options: { includeDeleted?: boolean } = {}): Promise<LoadedSpace> {
  const row = await ctx.cache.get(`space:${spaceId}`, () => findSpace(ctx.db, spaceId));
  if (!row || (row.deleted_at && !options.includeDeleted)) throw new NotFound(`spaceId: no space "${spaceId}" is visible to you`);
  const access = await loadOrgAccess(ctx, row.organization_id, caller.user.id);
  const role = spaceRole(access, row);
  requireSpacePermission(role, spaceId, 'view', 'view it');
  // git is the truth: a process killed between moving main and recording it left the row behind (the next start
  // records it, see recordMissedPushes); until then the space shows main's commit all the same.
  const main = await resolveSpaceRef(ctx, spaceId, MAIN_REF);
  const space = main && main !== row.revision ? { ...row, revision: main } : row;
  return { space, access, role };
}

/**
 * The commit a ref of the space points at, through the read cache (a push records its new revision in the space
 * row, which forgets cached refs; another process's pushes are seen within the cache's time to live).
 */
export function resolveSpaceRef(ctx: Context, spaceId: string, ref: string): Promise<string | undefined> {
  return ctx.cache.get(`ref:${spaceId}:${ref}`, () => ctx.reader.resolveRef(spaceId, ref));
}

/** The space's project directory ('' for the repository's root), through the read cache; '' for no such space. */
export async function projectDirectoryOf(ctx: Context, spaceId: string): Promise<string> {
  const space = await ctx.cache.get(`space:${spaceId}`, () => findSpace(ctx.db, spaceId));
  return space?.project_directory ?? '';
}

/**
 * Writes the row of a space whose repository was just made, at the end of its siblings. If the row cannot be
 * written the repository is removed again, so neither exists without the other.
 */
async function insertSpaceOfRepository(ctx: Context, space: SpaceRow): Promise<void> {
  try {
    await ctx.db.transaction().execute(async (trx) => {
      space.position = await endPosition(trx, space.organization_id, space.parent_id);
      await insertSpace(trx, space);
    });
  } catch (error) {
    await ctx.git.removeRepository(space.id);
    throw error;
  }
}

function initialReadme(title: string): string {
  return `# ${title}\n`;
}

/** The row of a new space at `revision`: private, live, at the first position. */
function newSpaceRow(input: {
  id: string;
  organizationId: string;
  parentId: string | null;
  title: string;
  emoji?: string;
  editMode?: EditMode;
  revision: string;
  createdBy: string;
  projectDirectory?: string;
}): SpaceRow {
  const now = nowIso();
  return {
    id: input.id,
    organization_id: input.organizationId,
    parent_id: input.parentId,
    title: input.title,
    emoji: input.emoji ?? '',
    visibility: 'private',
    edit_mode: input.editMode ?? 'live',
    default_level: null,
    position: 0,
    revision: input.revision,
    created_by: input.createdBy,
    created_at: now,
    updated_at: now,
    deleted_at: null,
    project_directory: input.projectDirectory ?? '',
  };
}

/**
 * Creates a space with its bare repository and a first commit (a README.md page, or `options.files`, which only
 * other domain functions pass: sample content of a new site). The repository is made first and removed again if
 * the row cannot be written, so neither exists without the other.
 */
export async function createSpace(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  input: { title?: string; emoji?: string; parent?: string; editMode?: EditMode },
  options: { files?: (title: string) => Array<{ path: string; content: string }> } = {},
): Promise<SpaceView> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  const parentId = input.parent ?? null;
  await requireCreateUnder(ctx, access, parentId, 'parent');
  const id = newId();
  const title = input.title ?? 'Untitled';
  const revision = await ctx.git.createRepository(
    id,
    options.files?.(title) ?? [{ path: 'README.md', content: initialReadme(title) }],
    'Create space',
    { name: caller.user.display_name, email: caller.user.email },
  );
  const space = newSpaceRow({ id, organizationId, parentId, title, emoji: input.emoji, editMode: input.editMode, revision, createdBy: caller.user.id });
  await insertSpaceOfRepository(ctx, space);
  return spaceViewOf(await loadOrgAccess(ctx, organizationId, caller.user.id), space);
}

/**
 * Creates a space whose repository is a copy of main of the repository `sourceId` with its whole history (a
 * repository import: same commits), showing what lies under `projectDirectory`. The caller's right to create at
 * the top level of the organization is checked by the caller of this function (of `parentId` too). Returns the new row.
 */
export async function createSpaceFromRepository(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  input: { id: string; sourceId: string; title: string; projectDirectory: string; parentId?: string | null },
): Promise<SpaceRow> {
  await ctx.git.copyRepository(input.sourceId, input.id);
  const revision = await ctx.reader.resolveRef(input.id, MAIN_REF);
  if (!revision) {
    await ctx.git.removeRepository(input.id);
    throw new Error(`repository ${input.sourceId} has no main branch to copy`);
  }
  const space = newSpaceRow({
    id: input.id,
    organizationId,
    parentId: input.parentId ?? null,
    title: input.title.slice(0, 50),
    revision,
    createdBy: caller.user.id,
    projectDirectory: input.projectDirectory,
  });
  await insertSpaceOfRepository(ctx, space);
  return space;
}

/**
 * The space as the caller sees it. `shareKey`: the key of an active share link of a share-link site that publishes
 * the space lets anyone who could not see it otherwise read it (role `read`), members or not.
 */
export async function getSpace(ctx: Context, caller: Caller, spaceId: string, options: { shareKey?: string } = {}): Promise<SpaceView> {
  let loaded: LoadedSpace;
  try {
    loaded = await loadSpace(ctx, caller, spaceId);
  } catch (error) {
    if (!(error instanceof NotFound) || !(await shareKeyOpensSpace(ctx, options.shareKey, spaceId))) throw error;
    const space = await findSpace(ctx.db, spaceId);
    if (!space || space.deleted_at) throw error;
    loaded = { space, access: await loadOrgAccess(ctx, space.organization_id, caller.user.id), role: 'read' };
  }
  const { space, role } = loaded;
  const [counters, connections] = await Promise.all([spaceCounters(ctx, [space.id]), gitSyncConnectionsOf(ctx.db, [space.id])]);
  return withGitSync({ space, role, counters: counters.get(space.id)! }, connections.get(space.id));
}

export interface SpacePatch {
  title?: string;
  emoji?: string | null;
  editMode?: EditMode;
  defaultLevel?: Role | null;
  visibility?: SpaceVisibility;
}

/** Title and emoji need edit; edit mode, default level and visibility need admin. */
export async function updateSpace(ctx: Context, caller: Caller, spaceId: string, patch: SpacePatch): Promise<SpaceView> {
  const { space, role } = await loadSpace(ctx, caller, spaceId);
  requireSpacePermission(role, spaceId, 'edit', 'update it');
  if (patch.editMode !== undefined || patch.defaultLevel !== undefined || patch.visibility !== undefined) {
    requireSpacePermission(role, spaceId, 'admin', 'change its edit mode, default level or visibility');
  }
  if (patch.visibility === 'in-collection' && !space.parent_id) {
    throw new InvalidArgument('visibility: "in-collection" is only for spaces in a collection');
  }
  const changes: Partial<SpaceRow> = { updated_at: nowIso() };
  if (patch.title !== undefined) changes.title = patch.title;
  if (patch.emoji !== undefined) changes.emoji = patch.emoji ?? '';
  if (patch.editMode !== undefined) changes.edit_mode = patch.editMode;
  if (patch.defaultLevel !== undefined) changes.default_level = patch.defaultLevel;
  if (patch.visibility !== undefined) changes.visibility = patch.visibility;
  await updateSpaceRow(ctx.db, spaceId, changes);
  return getSpace(ctx, caller, spaceId);
}

/** Deletes a space (admin). It stays restorable for the retention period; its repository is kept until purged. */
export async function deleteSpace(ctx: Context, caller: Caller, spaceId: string): Promise<void> {
  const { role } = await loadSpace(ctx, caller, spaceId);
  requireSpacePermission(role, spaceId, 'admin', 'delete it');
  const now = nowIso();
  await updateSpaceRow(ctx.db, spaceId, { deleted_at: now, updated_at: now });
}

/** Restores a space deleted less than the retention period ago (admin). It returns at the end of its parent. */
export async function restoreSpace(ctx: Context, caller: Caller, spaceId: string): Promise<SpaceView> {
  const { space, role } = await loadSpace(ctx, caller, spaceId, { includeDeleted: true });
  requireSpacePermission(role, spaceId, 'admin', 'restore it');
  if (!space.deleted_at) throw new Conflict('spaceId: the space is not deleted');
  if (Date.now() - Date.parse(space.deleted_at) > ctx.spaceRetentionMs) {
    throw new NotFound(`spaceId: space "${spaceId}" was deleted more than 7 days ago and can no longer be restored`);
  }
  await ctx.db.transaction().execute(async (trx) => {
    const position = await endPosition(trx, space.organization_id, space.parent_id);
    const changes: Partial<SpaceRow> = { deleted_at: null, position, updated_at: nowIso() };
    // Deleting its collection moved the space to the top level (parent_id set null), where "in-collection" means nothing.
    if (space.parent_id === null && space.visibility === 'in-collection') changes.visibility = 'private';
    await updateSpaceRow(trx, spaceId, changes);
  });
  return getSpace(ctx, caller, spaceId);
}

/** Moves a space under another collection (or the top level) and/or among its siblings. */
export async function moveSpace(
  ctx: Context,
  caller: Caller,
  spaceId: string,
  input: { parent?: string | null; position?: ContentPosition },
): Promise<SpaceView> {
  const { space, access, role } = await loadSpace(ctx, caller, spaceId);
  requireSpacePermission(role, spaceId, 'admin', 'move it');
  const targetParent = input.parent === undefined ? space.parent_id : input.parent;
  if (targetParent !== space.parent_id) await requireCreateUnder(ctx, access, targetParent, 'parent');
  await ctx.db.transaction().execute(async (trx) => {
    const before = await siblingOrder(trx, space.organization_id, space.parent_id);
    const position = await placeAmongSiblings(trx, space.organization_id, targetParent, { kind: 'space', id: spaceId }, input.position);
    const changes: Partial<SpaceRow> = { parent_id: targetParent, position, updated_at: nowIso() };
    if (targetParent === null && space.visibility === 'in-collection') changes.visibility = 'private';
    await updateSpaceRow(trx, spaceId, changes);
    if (targetParent === space.parent_id && before === (await siblingOrder(trx, space.organization_id, targetParent))) {
      throw new Conflict('position: the move would not change anything');
    }
  });
  return getSpace(ctx, caller, spaceId);
}

/** Moves a space to the top level of another organization the caller administers. */
export async function transferSpace(ctx: Context, caller: Caller, spaceId: string, input: { organization: string }): Promise<SpaceView> {
  const { space, role } = await loadSpace(ctx, caller, spaceId);
  requireSpacePermission(role, spaceId, 'admin', 'transfer it');
  if (input.organization === space.organization_id) throw new Conflict('organization: the space is already in this organization');
  await requireTransferTarget(ctx, caller, input.organization);
  await ctx.db.transaction().execute(async (trx) => {
    await leaveOrganization(trx, { spaceIds: [spaceId], collectionIds: [] });
    const now = nowIso();
    await updateSpaceRow(trx, spaceId, {
      organization_id: input.organization,
      parent_id: null,
      visibility: space.visibility === 'in-collection' ? 'private' : space.visibility,
      position: await endPosition(trx, input.organization, null),
      updated_at: now,
    });
  });
  return getSpace(ctx, caller, spaceId);
}

/** Live spaces of an organization that the caller can see, oldest first. */
export async function listOrganizationSpaces(ctx: Context, caller: Caller, organizationId: string, request: PageRequest): Promise<Page<SpaceView>> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `org-spaces:${organizationId}`,
    request,
    fetch: (after, n) => listSpacesOfOrganization(ctx.db, organizationId, 'asc', after, n),
    positionOf: (row) => [row.created_at, row.id],
    present: (space) => (spaceRole(access, space) ? spaceViewOf(access, space) : undefined),
  });
  return withSpaceCounters(ctx, page);
}


/**
 * Copies a space: a new space beside it (same collection, settings and content) whose repository is a copy of
 * the original's main branch with its whole history. Needs read on the space and the right to create content
 * where the copy goes. Page ids of the copy are its own (they derive from the space).
 */
export async function duplicateSpace(ctx: Context, caller: Caller, spaceId: string): Promise<SpaceView> {
  const { space, access } = await loadSpace(ctx, caller, spaceId);
  // The copy goes where the original is, a place the caller did not name: a collection they cannot see (a guest of
  // the space) refuses the duplication (403), it is not a bad `parent` (400).
  if (space.parent_id && !collectionRole(access, space.parent_id)) {
    throw new PermissionDenied('you need the "create" permission in the collection of this space to duplicate it');
  }
  await requireCreateUnder(ctx, access, space.parent_id, 'parent');
  const id = newId();
  await ctx.git.copyRepository(spaceId, id);
  const revision = await ctx.reader.resolveRef(id, MAIN_REF);
  const now = nowIso();
  const copy: SpaceRow = {
    ...space,
    id,
    title: `${space.title} (copy)`.slice(0, 50),
    revision: revision ?? space.revision,
    created_by: caller.user.id,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  await insertSpaceOfRepository(ctx, copy);
  return spaceViewOf(await loadOrgAccess(ctx, space.organization_id, caller.user.id), copy);
}

/**
 * Removes for good the spaces deleted more than the retention period ago: their rows and their repositories.
 * Safe to run from several processes at once (each removal is idempotent). Returns the ids removed.
 */
export async function purgeDeletedSpaces(ctx: Context, now = Date.now()): Promise<string[]> {
  const expired = await listSpacesDeletedBefore(ctx.db, new Date(now - ctx.spaceRetentionMs).toISOString());
  const purged: string[] = [];
  for (const space of expired) {
    // The row first: once it is gone nothing can reach the repository, so removing it cannot race a reader.
    if (await deleteSpaceRow(ctx.db, space.id)) purged.push(space.id);
    ctx.reader.close(space.id);
    await ctx.git.removeRepository(space.id);
  }
  return purged;
}
