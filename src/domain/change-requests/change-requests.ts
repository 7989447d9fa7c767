/**
 * Change requests: a branch `refs/heads/change-requests/<number>` from main plus a row (number, subject, status,
 * author, revisions). architecture.md section 4.
 */
import type { Context, Caller } from '../context.js';
import { Conflict, NotFound, PermissionDenied } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { collectPage, type Page, type PageRequest } from '../lists.js';
import { WeightedLru } from '../lru.js';
import { requireSpacePermission, type OrgAccess, type Role } from '../permissions.js';
import { loadSpace } from '../content/spaces.js';
import { readContent, type ContentTarget } from '../content/revisions.js';
import {
  findChangeRequest,
  insertChangeRequest,
  listChangeRequests as listChangeRequestRows,
  nextChangeRequestNumber,
  updateChangeRequestRow,
  type ChangeRequestRow,
} from '../../store/sql/change-requests.js';
import { findUsersByIds, type UserRow } from '../../store/sql/users.js';
import { isUniqueViolation } from '../../store/sql/errors.js';
import type { SpaceRow } from '../../store/sql/content.js';

export const CHANGE_REQUEST_STATUSES = ['draft', 'open', 'archived', 'merged'] as const;
export type ChangeRequestStatus = (typeof CHANGE_REQUEST_STATUSES)[number];

export const MAIN_REF = 'refs/heads/main';

export function branchOf(number: number): string {
  return `refs/heads/change-requests/${number}`;
}

export interface ChangeRequestView {
  changeRequest: ChangeRequestRow;
  createdBy: UserRow | undefined;
  /** The branch head: the change request's active revision. */
  revision: string;
  /** Main has commits the branch does not contain. */
  outdated: boolean;
  /** Open comments on the change request. */
  comments: number;
}

export interface LoadedChangeRequest {
  space: SpaceRow;
  access: OrgAccess;
  role: Role | null;
  changeRequest: ChangeRequestRow;
}

/** The space (read permission) and one of its change requests by id or number; 404 otherwise. */
export async function loadChangeRequest(ctx: Context, caller: Caller, spaceId: string, idOrNumber: string): Promise<LoadedChangeRequest> {
  const { space, access, role } = await loadSpace(ctx, caller, spaceId);
  const changeRequest = await findChangeRequest(ctx.db, spaceId, idOrNumber);
  if (!changeRequest) throw new NotFound(`changeRequestId: no change request "${idOrNumber}" in this space`);
  return { space, access, role, changeRequest };
}

// Whether main is contained in a branch head is a fact about two commits: computed once per pair.
const containment = new WeightedLru<string, Promise<boolean>>(50_000);

async function isOutdated(ctx: Context, spaceId: string, main: string | undefined, head: string): Promise<boolean> {
  if (!main || main === head) return false;
  const key = `${spaceId}:${main}:${head}`;
  let known = containment.get(key);
  if (!known) {
    known = ctx.git.isAncestor(spaceId, main, head).then((contained) => !contained);
    containment.set(key, known);
  }
  return known;
}

/** Views of change requests of one space (their branch heads, authors, whether main moved on). */
export async function changeRequestViews(ctx: Context, spaceId: string, rows: ChangeRequestRow[]): Promise<ChangeRequestView[]> {
  const users = new Map((await findUsersByIds(ctx.db, [...new Set(rows.map((r) => r.created_by).filter((id): id is string => !!id))])).map((u) => [u.id, u]));
  const main = await ctx.reader.resolveRef(spaceId, MAIN_REF);
  return Promise.all(
    rows.map(async (changeRequest) => {
      // A merged change request's branch stays where it was merged from.
      const revision = (await ctx.reader.resolveRef(spaceId, branchOf(changeRequest.number))) ?? changeRequest.revision_initial;
      const outdated = changeRequest.status === 'merged' ? false : await isOutdated(ctx, spaceId, main, revision);
      return { changeRequest, createdBy: changeRequest.created_by ? users.get(changeRequest.created_by) : undefined, revision, outdated, comments: 0 };
    }),
  );
}

async function viewOf(ctx: Context, spaceId: string, row: ChangeRequestRow): Promise<ChangeRequestView> {
  return (await changeRequestViews(ctx, spaceId, [row]))[0];
}

/**
 * Opens a change request: the next number of the space and its branch from main's current head. Needs edit; a
 * locked space takes no change requests.
 */
export async function createChangeRequest(ctx: Context, caller: Caller, spaceId: string, input: { subject?: string }): Promise<ChangeRequestView> {
  const { space, role } = await loadSpace(ctx, caller, spaceId);
  requireSpacePermission(role, spaceId, 'edit', 'open a change request');
  if (space.edit_mode === 'locked') throw new PermissionDenied(`spaceId: space "${spaceId}" is locked: it takes no change requests`);
  const main = await ctx.reader.resolveRef(spaceId, MAIN_REF);
  if (!main) throw new Conflict(`spaceId: space "${spaceId}" has no main branch`);
  for (let attempt = 0; ; attempt++) {
    const now = nowIso();
    const row: ChangeRequestRow = {
      id: newId(),
      space_id: spaceId,
      number: await nextChangeRequestNumber(ctx.db, spaceId),
      subject: input.subject ?? '',
      status: 'open',
      created_by: caller.user.id,
      revision_initial: main,
      revision_merged_ancestor: null,
      revision_merged: null,
      created_at: now,
      updated_at: now,
    };
    try {
      await insertChangeRequest(ctx.db, row);
    } catch (error) {
      // Another change request took this number first: take the next one.
      if (isUniqueViolation(error) && attempt < 20) continue;
      throw error;
    }
    // The number is this request's alone (unique in SQL), so its branch has no other writer; anything already
    // there (pushed before the change request existed) is replaced by main's head.
    await ctx.git.setRef(spaceId, branchOf(row.number), main);
    return viewOf(ctx, spaceId, row);
  }
}

export async function getChangeRequest(ctx: Context, caller: Caller, spaceId: string, idOrNumber: string): Promise<ChangeRequestView> {
  const { changeRequest } = await loadChangeRequest(ctx, caller, spaceId, idOrNumber);
  return viewOf(ctx, spaceId, changeRequest);
}

/** Change requests with a status (default open), optionally only those a user created; newest first. */
export async function listChangeRequests(
  ctx: Context,
  caller: Caller,
  spaceId: string,
  request: PageRequest & { status?: ChangeRequestStatus; contributor?: string },
): Promise<Page<ChangeRequestView>> {
  await loadSpace(ctx, caller, spaceId);
  const filter = { status: request.status ?? 'open', contributor: request.contributor };
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `change-requests:${spaceId}:${JSON.stringify(filter)}`,
    request,
    fetch: (after, n) => listChangeRequestRows(ctx.db, spaceId, filter, after, n),
    positionOf: (row) => [row.number],
    present: (row) => row,
  });
  return { items: await changeRequestViews(ctx, spaceId, page.items), next: page.next };
}

/**
 * Changes the subject or the status (draft, open, archived). Needs edit. A merged change request keeps its
 * status: 409.
 */
export async function updateChangeRequest(
  ctx: Context,
  caller: Caller,
  spaceId: string,
  idOrNumber: string,
  patch: { subject?: string; status?: 'draft' | 'open' | 'archived' },
): Promise<ChangeRequestView> {
  const { role, changeRequest } = await loadChangeRequest(ctx, caller, spaceId, idOrNumber);
  requireSpacePermission(role, spaceId, 'edit', 'change a change request');
  if (patch.status !== undefined && changeRequest.status === 'merged') {
    throw new Conflict(`status: change request ${changeRequest.number} is merged; its status cannot change`);
  }
  const changes: Partial<ChangeRequestRow> = { updated_at: nowIso() };
  if (patch.subject !== undefined) changes.subject = patch.subject;
  if (patch.status !== undefined) changes.status = patch.status;
  await updateChangeRequestRow(ctx.db, changeRequest.id, changes);
  return viewOf(ctx, spaceId, { ...changeRequest, ...changes });
}

/** The content of a change request: its branch, read like main (read permission on the space). */
export async function readChangeRequestContent(ctx: Context, caller: Caller, spaceId: string, idOrNumber: string): Promise<ContentTarget> {
  const { changeRequest } = await loadChangeRequest(ctx, caller, spaceId, idOrNumber);
  return readContent(ctx, caller, spaceId, branchOf(changeRequest.number));
}
