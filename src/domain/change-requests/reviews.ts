/**
 * Reviews of change requests and the requests that users review them.
 *
 * Reviews are a history: each review submitted is kept, listed newest first, and the latest of each reviewer is what
 * counts (./review-verdicts.ts). A review records the change request's head at the time (`revision`) and, when its
 * reviewer had been requested, who requested them; the request itself stays. A review may come with a comment, posted
 * on the change request through the comments domain in the same transaction as the review.
 *
 * Who may do what (permissions.ts, `changeRequestReviewPermissions`): reading needs read on the space; reviewing
 * needs `review`, on a change request neither merged nor archived, and its author may request changes but not
 * approve; requesting reviewers, and taking a request back, needs `edit` or being the author.
 */
import type { Context, Caller } from '../context.js';
import { Conflict, InvalidArgument, NotFound } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { collectPage, type Page, type PageRequest } from '../lists.js';
import { changeRequestReviewPermissions, loadOrgAccess, mayBeRequestedToReview, requireChangeRequestReviewPermission } from '../permissions.js';
import { branchOf } from '../content/refs.js';
import { getCommentsByIds, postComment, type CommentScope } from '../comments/comments.js';
import type { CommentBody, CommentView } from '../comments/comment-views.js';
import { loadChangeRequest, type LoadedChangeRequest } from './change-requests.js';
import type { ReviewStatus } from './review-verdicts.js';
import { updateChangeRequestRow, type ChangeRequestRow } from '../../store/sql/change-requests.js';
import {
  deleteReviewRequest,
  findReview,
  findReviewRequest,
  insertReview,
  latestReviewTime,
  listReviewRequests,
  listReviews as listReviewRows,
  upsertReviewRequests,
  type ReviewRequestRow,
  type ReviewRow,
} from '../../store/sql/reviews.js';
import { findUsersByIds, type UserRow } from '../../store/sql/users.js';

/** The most users one request names. */
export const MAX_REQUESTED_USERS = 50;

export interface ReviewView {
  review: ReviewRow;
  reviewer: UserRow | undefined;
  requestedBy: UserRow | undefined;
  comment?: CommentView;
}

export interface ReviewRequestView {
  request: ReviewRequestRow;
  user: UserRow | undefined;
  requestedBy: UserRow | undefined;
}

function isAuthor(caller: Caller, changeRequest: ChangeRequestRow): boolean {
  return changeRequest.created_by !== null && changeRequest.created_by === caller.user.id;
}

function commentScope(loaded: LoadedChangeRequest): CommentScope {
  return { spaceId: loaded.space.id, changeRequestId: loaded.changeRequest.id, ref: branchOf(loaded.changeRequest.number) };
}

/** The change request's head: its branch, or where it started when the branch is gone. */
async function headOf(ctx: Context, loaded: LoadedChangeRequest): Promise<string> {
  return (await ctx.reader.resolveRef(loaded.space.id, branchOf(loaded.changeRequest.number))) ?? loaded.changeRequest.revision_initial;
}

async function usersById(ctx: Context, ids: Array<string | null>): Promise<Map<string, UserRow>> {
  const wanted = [...new Set(ids.filter((id): id is string => !!id))];
  return new Map((await findUsersByIds(ctx.db, wanted)).map((u) => [u.id, u]));
}

async function reviewViews(ctx: Context, caller: Caller, loaded: LoadedChangeRequest, reviews: ReviewRow[]): Promise<ReviewView[]> {
  if (reviews.length === 0) return [];
  const commentIds = reviews.map((r) => r.comment_id).filter((id): id is string => !!id);
  const [users, comments] = await Promise.all([
    usersById(ctx, reviews.flatMap((r) => [r.reviewer_id, r.requested_by])),
    getCommentsByIds(ctx, caller, commentScope(loaded), commentIds),
  ]);
  return reviews.map((review) => {
    const comment = review.comment_id ? comments.get(review.comment_id) : undefined;
    return {
      review,
      reviewer: review.reviewer_id ? users.get(review.reviewer_id) : undefined,
      requestedBy: review.requested_by ? users.get(review.requested_by) : undefined,
      ...(comment ? { comment } : {}),
    };
  });
}

async function requestViews(ctx: Context, requests: ReviewRequestRow[]): Promise<ReviewRequestView[]> {
  const users = await usersById(ctx, requests.flatMap((r) => [r.user_id, r.requested_by]));
  return requests.map((request) => ({
    request,
    user: users.get(request.user_id),
    requestedBy: request.requested_by ? users.get(request.requested_by) : undefined,
  }));
}

async function loadForReading(ctx: Context, caller: Caller, spaceId: string, idOrNumber: string): Promise<LoadedChangeRequest> {
  const loaded = await loadChangeRequest(ctx, caller, spaceId, idOrNumber);
  requireChangeRequestReviewPermission(loaded.role, spaceId, isAuthor(caller, loaded.changeRequest), 'view', 'read its reviews');
  return loaded;
}

function requireOpen(changeRequest: ChangeRequestRow, field: string, what: string): void {
  if (changeRequest.status === 'merged' || changeRequest.status === 'archived') {
    throw new Conflict(`${field}: change request ${changeRequest.number} is ${changeRequest.status}; it takes no ${what}`, { status: changeRequest.status });
  }
}

// ---- reviews

/** The reviews of a change request, newest first (read permission). */
export async function listReviews(ctx: Context, caller: Caller, spaceId: string, idOrNumber: string, request: PageRequest): Promise<Page<ReviewView>> {
  const loaded = await loadForReading(ctx, caller, spaceId, idOrNumber);
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `change-request-reviews:${loaded.changeRequest.id}`,
    request,
    fetch: (after, n) => listReviewRows(ctx.db, loaded.changeRequest.id, after, n),
    positionOf: (row) => [row.created_at, row.id],
    present: (row) => row,
  });
  return { items: await reviewViews(ctx, caller, loaded, page.items), next: page.next };
}

export async function getReview(ctx: Context, caller: Caller, spaceId: string, idOrNumber: string, reviewId: string): Promise<ReviewView> {
  const loaded = await loadForReading(ctx, caller, spaceId, idOrNumber);
  const review = await findReview(ctx.db, loaded.changeRequest.id, reviewId);
  if (!review) throw new NotFound(`reviewId: no review "${reviewId}" of change request ${loaded.changeRequest.number}`);
  return (await reviewViews(ctx, caller, loaded, [review]))[0];
}

/**
 * Submits a review of the change request's current head. Needs `review`; a merged or archived change request takes
 * none (409), and its author cannot approve it (409). A comment document that says something (not `{}`) is posted on
 * the change request with the review.
 */
export async function submitReview(
  ctx: Context,
  caller: Caller,
  spaceId: string,
  idOrNumber: string,
  input: { status: ReviewStatus; comment?: CommentBody },
): Promise<ReviewView> {
  const loaded = await loadChangeRequest(ctx, caller, spaceId, idOrNumber);
  const { changeRequest } = loaded;
  const author = isAuthor(caller, changeRequest);
  requireChangeRequestReviewPermission(loaded.role, spaceId, author, 'review', 'review change requests');
  requireOpen(changeRequest, 'status', 'reviews');
  if (input.status === 'approved' && !changeRequestReviewPermissions(loaded.role, author).approve) {
    throw new Conflict(`status: you opened change request ${changeRequest.number}; its author cannot approve it`);
  }
  const [revision, request, latest] = await Promise.all([
    headOf(ctx, loaded),
    findReviewRequest(ctx.db, changeRequest.id, caller.user.id),
    latestReviewTime(ctx.db, changeRequest.id),
  ]);
  // Strictly after the change request's latest review, so that newest first is the order they were submitted in,
  // even within one millisecond.
  const now = nowIso();
  const createdAt = latest && latest >= now ? new Date(Date.parse(latest) + 1).toISOString() : now;
  const row: ReviewRow = {
    id: newId(),
    change_request_id: changeRequest.id,
    reviewer_id: caller.user.id,
    requested_by: request?.requested_by ?? null,
    status: input.status,
    revision,
    comment_id: null,
    created_at: createdAt,
    updated_at: createdAt,
  };
  const body = input.comment;
  if (body && Object.keys(body).length > 0) {
    const { comment } = await postComment(ctx, caller, commentScope(loaded), { body }, (db, posted) => insertReview(db, { ...row, comment_id: posted.id }));
    row.comment_id = comment.id;
  } else {
    await insertReview(ctx.db, row);
  }
  ctx.events.publish({ spaceId, changeRequestId: changeRequest.id, kind: 'review', action: 'submitted' });
  return (await reviewViews(ctx, caller, loaded, [row]))[0];
}

// ---- requested reviewers

/** The users requested to review a change request, oldest request first (read permission). */
export async function listRequestedReviewers(
  ctx: Context,
  caller: Caller,
  spaceId: string,
  idOrNumber: string,
  request: PageRequest,
): Promise<Page<ReviewRequestView>> {
  const loaded = await loadForReading(ctx, caller, spaceId, idOrNumber);
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `change-request-reviewers:${loaded.changeRequest.id}`,
    request,
    fetch: (after, n) => listReviewRequests(ctx.db, loaded.changeRequest.id, after, n),
    positionOf: (row) => [row.created_at, row.user_id],
    present: (row) => row,
  });
  return { items: await requestViews(ctx, page.items), next: page.next };
}

/**
 * Requests reviews from users (each once; a user already requested is requested again, by the caller, at the
 * current head) and, with `subject`, changes the change request's subject. Needs `edit` or being the author; not on
 * a merged or archived change request (409). Every user must be a member of the organization who reads the space,
 * and not the author: otherwise a 400 naming `users`, and nothing is written.
 */
export async function requestReviewers(
  ctx: Context,
  caller: Caller,
  spaceId: string,
  idOrNumber: string,
  input: { users: string[]; subject?: string },
): Promise<ReviewRequestView[]> {
  const loaded = await loadChangeRequest(ctx, caller, spaceId, idOrNumber);
  const { space, changeRequest } = loaded;
  requireChangeRequestReviewPermission(loaded.role, spaceId, isAuthor(caller, changeRequest), 'requestReviewers', 'request reviewers');
  requireOpen(changeRequest, 'changeRequestId', 'review requests');
  const userIds = [...new Set(input.users)];
  if (userIds.length > MAX_REQUESTED_USERS) throw new InvalidArgument(`users: must name at most ${MAX_REQUESTED_USERS} users`);
  const users = await usersById(ctx, userIds);
  for (const id of userIds) {
    const access = users.has(id) ? await loadOrgAccess(ctx, space.organization_id, id) : undefined;
    if (!access || !mayBeRequestedToReview(access, space)) {
      throw new InvalidArgument(`users: "${id}" is not a member of the organization who can read this space`, { user: id });
    }
    if (id === changeRequest.created_by) {
      throw new InvalidArgument(`users: "${id}" opened change request ${changeRequest.number}; its author cannot review it`, { user: id });
    }
  }
  const revision = await headOf(ctx, loaded);
  const now = nowIso();
  const rows: ReviewRequestRow[] = userIds.map((user_id) => ({ change_request_id: changeRequest.id, user_id, requested_by: caller.user.id, revision, created_at: now }));
  await ctx.db.transaction().execute(async (trx) => {
    await upsertReviewRequests(trx, rows);
    if (input.subject !== undefined) await updateChangeRequestRow(trx, changeRequest.id, { subject: input.subject, updated_at: now });
  });
  ctx.events.publish({ spaceId, changeRequestId: changeRequest.id, kind: 'review', action: 'reviewers-requested' });
  return rows.map((request) => ({ request, user: users.get(request.user_id), requestedBy: caller.user }));
}

/** Takes back the request that a user review the change request (`edit` or the author). False when there was none. */
export async function removeRequestedReviewer(ctx: Context, caller: Caller, spaceId: string, idOrNumber: string, userId: string): Promise<boolean> {
  const loaded = await loadChangeRequest(ctx, caller, spaceId, idOrNumber);
  requireChangeRequestReviewPermission(loaded.role, spaceId, isAuthor(caller, loaded.changeRequest), 'requestReviewers', 'take back review requests');
  const removed = await deleteReviewRequest(ctx.db, loaded.changeRequest.id, userId);
  if (removed) ctx.events.publish({ spaceId, changeRequestId: loaded.changeRequest.id, kind: 'review', action: 'reviewer-removed' });
  return removed;
}
