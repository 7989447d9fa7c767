/**
 * Comments and their replies, with emoji reactions, on a space's main content, or on a change request (the
 * change-request routes resolve the change request first and pass its id and branch in the scope).
 *
 * Who may do what (the space's flags from permissions.ts): reading needs `view`; posting, replying, reacting and
 * resolving or reopening need `comment`; editing a body or deleting belongs to its author (who still has
 * `comment`) or a space admin.
 */
import type { Context, Caller } from '../context.js';
import { InvalidArgument, NotFound, PermissionDenied } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { collectPage, type Page, type PageRequest } from '../lists.js';
import { requireSpacePermission, spacePermissions, type OrgAccess, type Role } from '../permissions.js';
import { loadSpace } from '../content/spaces.js';
import { loadRevision } from '../content/revisions.js';
import { memberViewsOf, type MemberView } from '../members/members.js';
import {
  addReactions,
  countCommenters,
  deleteCommentRow,
  deleteReplyRow,
  findComment,
  findComments,
  findReply,
  insertComment,
  insertReply,
  listCommenters as listCommenterRows,
  listComments as listCommentRows,
  listReplies as listReplyRows,
  removeReactions,
  updateCommentRow,
  updateReplyRow,
  type CommentListFilter,
  type CommentPlace,
  type CommentRow,
  type CommentStatusFilter,
  type ReactionTarget,
  type ReplyRow,
} from '../../store/sql/comments.js';
import type { SpaceRow } from '../../store/sql/spaces.js';
import type { SortDirection } from '../../store/sql/keyset.js';
import { branchOf, MAIN_REF } from '../content/refs.js';
import { loadChangeRequest } from '../change-requests/change-requests.js';
import { commentViews, replyViews, type CommentBody, type CommentView, type PermissionsOf, type ReplyView } from './comment-views.js';

/** Where comments are: the space's main content, or one change request of it. */
export interface CommentScope {
  spaceId: string;
  /** A change request of the space, already found (and checked visible) by the caller; absent: the main content. */
  changeRequestId?: string;
  /** The ref whose content the comments target: the change request's branch; `refs/heads/main` by default. */
  ref?: string;
}

/** The comments of a change request of the space, found by id or number (404 when the caller cannot see it). */
export async function changeRequestScope(ctx: Context, caller: Caller, spaceId: string, idOrNumber: string): Promise<CommentScope> {
  const { changeRequest } = await loadChangeRequest(ctx, caller, spaceId, idOrNumber);
  return { spaceId, changeRequestId: changeRequest.id, ref: branchOf(changeRequest.number) };
}

/** Tells the change request's readers that one of its comments changed (comments on main content have no stream). */
function publishCommentEvent(ctx: Context, scope: CommentScope, action: string, commentId: string): void {
  if (scope.changeRequestId) ctx.events.publish({ spaceId: scope.spaceId, changeRequestId: scope.changeRequestId, kind: 'comment', action, commentId });
}

export interface CommentListRequest extends PageRequest {
  order?: SortDirection;
  status?: CommentStatusFilter;
  targetPage?: string;
  authors?: string[];
}

interface LoadedScope {
  scope: CommentScope;
  place: CommentPlace;
  space: SpaceRow;
  access: OrgAccess;
  role: Role | null;
}

async function loadScope(ctx: Context, caller: Caller, scope: CommentScope): Promise<LoadedScope> {
  const { space, access, role } = await loadSpace(ctx, caller, scope.spaceId);
  requireSpacePermission(role, scope.spaceId, 'view', 'read its comments');
  return { scope, place: { spaceId: scope.spaceId, changeRequestId: scope.changeRequestId ?? null }, space, access, role };
}

function requireComment(loaded: LoadedScope, action: string): void {
  requireSpacePermission(loaded.role, loaded.space.id, 'comment', action);
}

/** Edit and delete: the author (who can still comment) or a space admin. */
function ownsOrAdministers(loaded: LoadedScope, caller: Caller, postedBy: string | null): boolean {
  const flags = spacePermissions(loaded.role);
  return flags.admin || (flags.comment && postedBy === caller.user.id);
}

function requireOwnerOrAdmin(loaded: LoadedScope, caller: Caller, postedBy: string | null, what: string, action: string): void {
  if (!ownsOrAdministers(loaded, caller, postedBy)) {
    throw new PermissionDenied(`only the author of the ${what} or an admin of the space may ${action}`);
  }
}

/** What `caller` may do with each comment or reply of the scope, by its author. */
function permissionsFor(loaded: LoadedScope, caller: Caller): PermissionsOf {
  const flags = spacePermissions(loaded.role);
  return (postedBy) => {
    const own = ownsOrAdministers(loaded, caller, postedBy);
    return { view: flags.view, edit: own, reply: flags.comment, react: flags.comment, delete: own };
  };
}

/** The commit the scope's ref points at now (no cache: comments record exactly what was current). */
async function currentRevision(ctx: Context, scope: CommentScope): Promise<string> {
  const oid = await ctx.reader.resolveRef(scope.spaceId, scope.ref ?? MAIN_REF);
  if (!oid) throw new NotFound(`spaceId: space "${scope.spaceId}" has no content at ${scope.ref ?? MAIN_REF}`);
  return oid;
}

async function requireCommentRow(ctx: Context, loaded: LoadedScope, commentId: string): Promise<CommentRow> {
  const comment = await findComment(ctx.db, loaded.place, commentId);
  if (!comment) throw new NotFound(`commentId: no comment "${commentId}" here`);
  return comment;
}

async function requireReplyRow(ctx: Context, comment: CommentRow, replyId: string): Promise<ReplyRow> {
  const reply = await findReply(ctx.db, comment.id, replyId);
  if (!reply) throw new NotFound(`commentReplyId: no reply "${replyId}" to this comment`);
  return reply;
}

async function applyReactions(
  ctx: Context,
  caller: Caller,
  target: ReactionTarget,
  input: { addedReactions?: string[]; removedReactions?: string[] },
): Promise<void> {
  // Additions first, then removals: an emoji in both lists ends removed.
  if (input.addedReactions?.length) await addReactions(ctx.db, target, caller.user.id, input.addedReactions, nowIso());
  if (input.removedReactions?.length) await removeReactions(ctx.db, target, caller.user.id, input.removedReactions);
}

// ---- comments

/** Comments of the scope, newest first by default, filtered by status, target page and authors. */
export async function listComments(ctx: Context, caller: Caller, scope: CommentScope, request: CommentListRequest): Promise<Page<CommentView>> {
  const loaded = await loadScope(ctx, caller, scope);
  const filter: CommentListFilter = {
    status: request.status ?? 'all',
    order: request.order ?? 'desc',
    ...(request.targetPage !== undefined ? { targetPage: request.targetPage } : {}),
    ...(request.authors !== undefined ? { authors: [...new Set(request.authors)].sort() } : {}),
  };
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `comments:${scope.spaceId}:${scope.changeRequestId ?? ''}:${JSON.stringify(filter)}`,
    request,
    fetch: (after, n) => listCommentRows(ctx.db, loaded.place, filter, after, n),
    positionOf: (row) => [row.posted_at, row.id],
    present: (row) => row,
  });
  return { items: await commentViews(ctx, loaded.scope, page.items, permissionsFor(loaded, caller)), next: page.next };
}

/**
 * Posts a comment (comment permission). `alongside` writes what goes with the comment (a review) in the same
 * transaction as the comment itself, so that neither is left without the other.
 */
export async function postComment(
  ctx: Context,
  caller: Caller,
  scope: CommentScope,
  input: { node?: string; page?: string; body: CommentBody },
  alongside?: (db: Context['db'], comment: CommentRow) => Promise<void>,
): Promise<CommentView> {
  const loaded = await loadScope(ctx, caller, scope);
  requireComment(loaded, 'comment on it');
  const revision = await currentRevision(ctx, scope);
  if (input.page !== undefined) {
    const content = await loadRevision(ctx, scope.spaceId, revision);
    if (!content.pagesById.has(input.page)) throw new InvalidArgument(`page: no page "${input.page}" in the current revision`);
  }
  const row: CommentRow = {
    id: newId(),
    space_id: scope.spaceId,
    change_request_id: scope.changeRequestId ?? null,
    posted_by: caller.user.id,
    body: JSON.stringify(input.body),
    target_revision: revision,
    target_page: input.page ?? null,
    target_node: input.node ?? null,
    status: 'open',
    resolved_at: null,
    resolved_by: null,
    posted_at: nowIso(),
    edited_at: null,
  };
  if (alongside) {
    await ctx.db.transaction().execute(async (trx) => {
      await insertComment(trx, row);
      await alongside(trx, row);
    });
  } else {
    await insertComment(ctx.db, row);
  }
  publishCommentEvent(ctx, scope, 'posted', row.id);
  return (await commentViews(ctx, loaded.scope, [row], permissionsFor(loaded, caller)))[0];
}

/** Views of the scope's comments with these ids (those that still exist), by id, read together. */
export async function getCommentsByIds(ctx: Context, caller: Caller, scope: CommentScope, ids: readonly string[]): Promise<Map<string, CommentView>> {
  if (ids.length === 0) return new Map();
  const loaded = await loadScope(ctx, caller, scope);
  const views = await commentViews(ctx, loaded.scope, await findComments(ctx.db, loaded.place, ids), permissionsFor(loaded, caller));
  return new Map(views.map((view) => [view.comment.id, view]));
}

export async function getComment(ctx: Context, caller: Caller, scope: CommentScope, commentId: string): Promise<CommentView> {
  const loaded = await loadScope(ctx, caller, scope);
  const comment = await requireCommentRow(ctx, loaded, commentId);
  return (await commentViews(ctx, loaded.scope, [comment], permissionsFor(loaded, caller)))[0];
}

/**
 * Resolves or reopens (comment permission; resolving a resolved comment keeps who resolved it and when), edits
 * the body (author or admin), and adds or removes the caller's reactions (comment permission).
 */
export async function updateComment(
  ctx: Context,
  caller: Caller,
  scope: CommentScope,
  commentId: string,
  patch: { resolved?: boolean; body?: CommentBody; addedReactions?: string[]; removedReactions?: string[] },
): Promise<CommentView> {
  const loaded = await loadScope(ctx, caller, scope);
  const comment = await requireCommentRow(ctx, loaded, commentId);
  if (patch.body !== undefined) requireOwnerOrAdmin(loaded, caller, comment.posted_by, 'comment', 'edit it');
  if (patch.resolved !== undefined) requireComment(loaded, patch.resolved ? 'resolve comments' : 'reopen comments');
  if (patch.addedReactions?.length || patch.removedReactions?.length) requireComment(loaded, 'react to comments');
  const changes: Partial<CommentRow> = {};
  const now = nowIso();
  if (patch.body !== undefined) {
    changes.body = JSON.stringify(patch.body);
    changes.edited_at = now;
  }
  if (patch.resolved === true && comment.status !== 'resolved') {
    Object.assign(changes, { status: 'resolved', resolved_at: now, resolved_by: caller.user.id });
  } else if (patch.resolved === false && comment.status !== 'open') {
    Object.assign(changes, { status: 'open', resolved_at: null, resolved_by: null });
  }
  await ctx.db.transaction().execute(async (trx) => {
    if (Object.keys(changes).length) await updateCommentRow(trx, comment.id, changes);
    await applyReactions({ ...ctx, db: trx }, caller, { commentId: comment.id }, patch);
  });
  publishCommentEvent(ctx, scope, updateAction(patch, changes), comment.id);
  return (await commentViews(ctx, loaded.scope, [{ ...comment, ...changes }], permissionsFor(loaded, caller)))[0];
}

/** What an update of a comment did, as its event says (the body first: an edit is what a reader most wants to see). */
function updateAction(patch: { body?: CommentBody; resolved?: boolean }, changes: Partial<CommentRow>): string {
  if (patch.body !== undefined) return 'edited';
  if (changes.status === 'resolved') return 'resolved';
  if (changes.status === 'open') return 'reopened';
  return 'reacted';
}

/** Deletes a comment with its replies (author or admin). False when there was no such comment. */
export async function deleteComment(ctx: Context, caller: Caller, scope: CommentScope, commentId: string): Promise<boolean> {
  const loaded = await loadScope(ctx, caller, scope);
  const comment = await findComment(ctx.db, loaded.place, commentId);
  if (!comment) return false;
  requireOwnerOrAdmin(loaded, caller, comment.posted_by, 'comment', 'delete it');
  const deleted = await deleteCommentRow(ctx.db, comment.id);
  publishCommentEvent(ctx, scope, 'deleted', comment.id);
  return deleted;
}

// ---- replies

/** Replies of a comment, oldest first. */
export async function listReplies(ctx: Context, caller: Caller, scope: CommentScope, commentId: string, request: PageRequest): Promise<Page<ReplyView>> {
  const loaded = await loadScope(ctx, caller, scope);
  const comment = await requireCommentRow(ctx, loaded, commentId);
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `comment-replies:${comment.id}`,
    request,
    fetch: (after, n) => listReplyRows(ctx.db, comment.id, after, n),
    positionOf: (row) => [row.posted_at, row.id],
    present: (row) => row,
  });
  return { items: await replyViews(ctx, comment, page.items, permissionsFor(loaded, caller)), next: page.next };
}

export async function postReply(ctx: Context, caller: Caller, scope: CommentScope, commentId: string, input: { body: CommentBody }): Promise<ReplyView> {
  const loaded = await loadScope(ctx, caller, scope);
  const comment = await requireCommentRow(ctx, loaded, commentId);
  requireComment(loaded, 'reply to comments');
  const row: ReplyRow = { id: newId(), comment_id: comment.id, posted_by: caller.user.id, body: JSON.stringify(input.body), posted_at: nowIso(), edited_at: null };
  await insertReply(ctx.db, row);
  publishCommentEvent(ctx, scope, 'replied', comment.id);
  return (await replyViews(ctx, comment, [row], permissionsFor(loaded, caller)))[0];
}

export async function getReply(ctx: Context, caller: Caller, scope: CommentScope, commentId: string, replyId: string): Promise<ReplyView> {
  const loaded = await loadScope(ctx, caller, scope);
  const comment = await requireCommentRow(ctx, loaded, commentId);
  const reply = await requireReplyRow(ctx, comment, replyId);
  return (await replyViews(ctx, comment, [reply], permissionsFor(loaded, caller)))[0];
}

/** Edits the body (author or admin) and adds or removes the caller's reactions (comment permission). */
export async function updateReply(
  ctx: Context,
  caller: Caller,
  scope: CommentScope,
  commentId: string,
  replyId: string,
  patch: { body?: CommentBody; addedReactions?: string[]; removedReactions?: string[] },
): Promise<ReplyView> {
  const loaded = await loadScope(ctx, caller, scope);
  const comment = await requireCommentRow(ctx, loaded, commentId);
  const reply = await requireReplyRow(ctx, comment, replyId);
  if (patch.body !== undefined) requireOwnerOrAdmin(loaded, caller, reply.posted_by, 'reply', 'edit it');
  if (patch.addedReactions?.length || patch.removedReactions?.length) requireComment(loaded, 'react to replies');
  const changes: Partial<ReplyRow> = patch.body !== undefined ? { body: JSON.stringify(patch.body), edited_at: nowIso() } : {};
  await ctx.db.transaction().execute(async (trx) => {
    if (Object.keys(changes).length) await updateReplyRow(trx, reply.id, changes);
    await applyReactions({ ...ctx, db: trx }, caller, { replyId: reply.id }, patch);
  });
  publishCommentEvent(ctx, scope, patch.body !== undefined ? 'reply-edited' : 'reacted', comment.id);
  return (await replyViews(ctx, comment, [{ ...reply, ...changes }], permissionsFor(loaded, caller)))[0];
}

/** Deletes a reply (author or admin). 404 for an unknown comment; false when the reply did not exist. */
export async function deleteReply(ctx: Context, caller: Caller, scope: CommentScope, commentId: string, replyId: string): Promise<boolean> {
  const loaded = await loadScope(ctx, caller, scope);
  const comment = await requireCommentRow(ctx, loaded, commentId);
  const reply = await findReply(ctx.db, comment.id, replyId);
  if (!reply) return false;
  requireOwnerOrAdmin(loaded, caller, reply.posted_by, 'reply', 'delete it');
  const deleted = await deleteReplyRow(ctx.db, reply.id);
  publishCommentEvent(ctx, scope, 'reply-deleted', comment.id);
  return deleted;
}

// ---- commenters

/**
 * Members of the organization who posted a comment or a reply in the scope, by user id. `total` counts them
 * all (the reference's list of commenters requires it).
 */
export async function listCommenters(
  ctx: Context,
  caller: Caller,
  scope: CommentScope,
  request: PageRequest,
): Promise<Page<MemberView> & { total: number }> {
  const loaded = await loadScope(ctx, caller, scope);
  const organizationId = loaded.space.organization_id;
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `commenters:${scope.spaceId}:${scope.changeRequestId ?? ''}`,
    request,
    fetch: async (after, n) => {
      const ids = await listCommenterRows(ctx.db, organizationId, loaded.place, after, n);
      const views = await memberViewsOf(ctx, organizationId, ids);
      return ids.map((id) => ({ id, view: views.get(id) }));
    },
    positionOf: (row) => [row.id],
    present: (row) => row.view,
  });
  return { ...page, total: await countCommenters(ctx.db, organizationId, loaded.place) };
}
