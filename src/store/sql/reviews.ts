/**
 * Reviews of change requests (a history: one row per review submitted) and the requests that users review them (one
 * per user and change request).
 */
import type { Kysely, Selectable } from 'kysely';
import type { ChangeRequestReviewRequestsTable, ChangeRequestReviewsTable, Database } from './schema.js';
import { keysetQuery } from './keyset.js';

export type ReviewRow = Selectable<ChangeRequestReviewsTable>;
export type ReviewRequestRow = Selectable<ChangeRequestReviewRequestsTable>;

// ---- reviews

export async function insertReview(db: Kysely<Database>, row: ReviewRow): Promise<void> {
  await db.insertInto('change_request_reviews').values(row).execute();
}

export async function findReview(db: Kysely<Database>, changeRequestId: string, id: string): Promise<ReviewRow | undefined> {
  return db.selectFrom('change_request_reviews').selectAll().where('change_request_id', '=', changeRequestId).where('id', '=', id).executeTakeFirst();
}

/** The time of the change request's latest review, if any. */
export async function latestReviewTime(db: Kysely<Database>, changeRequestId: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('change_request_reviews')
    .select((eb) => eb.fn.max<string>('created_at').as('latest'))
    .where('change_request_id', '=', changeRequestId)
    .executeTakeFirst();
  return row?.latest ?? undefined;
}

const REVIEW_LIST_KEYS = [
  { column: 'change_request_reviews.created_at', direction: 'desc' as const },
  { column: 'change_request_reviews.id', direction: 'desc' as const },
];

/** Reviews of a change request, newest first. */
export async function listReviews(db: Kysely<Database>, changeRequestId: string, after: unknown[] | undefined, limit: number): Promise<ReviewRow[]> {
  const query = db.selectFrom('change_request_reviews').selectAll('change_request_reviews').where('change_request_reviews.change_request_id', '=', changeRequestId);
  return keysetQuery(query, REVIEW_LIST_KEYS, after, limit).execute();
}

/** Every review of a change request, newest first. */
export async function allReviews(db: Kysely<Database>, changeRequestId: string): Promise<ReviewRow[]> {
  return db
    .selectFrom('change_request_reviews')
    .selectAll()
    .where('change_request_id', '=', changeRequestId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .execute();
}

/** Comment id -> the id of the review it was posted with, for the comments that were. */
export async function reviewsOfComments(db: Kysely<Database>, commentIds: readonly string[]): Promise<Map<string, string>> {
  if (commentIds.length === 0) return new Map();
  const rows = await db.selectFrom('change_request_reviews').select(['id', 'comment_id']).where('comment_id', 'in', [...commentIds]).execute();
  return new Map(rows.map((r) => [r.comment_id!, r.id]));
}

// ---- review requests

/** Adds the requests; a user already requested is requested again (by whom, at which revision, when). */
export async function upsertReviewRequests(db: Kysely<Database>, rows: ReviewRequestRow[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto('change_request_review_requests')
    .values(rows)
    .onConflict((oc) =>
      oc.columns(['change_request_id', 'user_id']).doUpdateSet((eb) => ({
        requested_by: eb.ref('excluded.requested_by'),
        revision: eb.ref('excluded.revision'),
        created_at: eb.ref('excluded.created_at'),
      })),
    )
    .execute();
}

export async function findReviewRequest(db: Kysely<Database>, changeRequestId: string, userId: string): Promise<ReviewRequestRow | undefined> {
  return db
    .selectFrom('change_request_review_requests')
    .selectAll()
    .where('change_request_id', '=', changeRequestId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

const REQUEST_LIST_KEYS = [
  { column: 'change_request_review_requests.created_at', direction: 'asc' as const },
  { column: 'change_request_review_requests.user_id', direction: 'asc' as const },
];

/** The requests of a change request, oldest first. */
export async function listReviewRequests(
  db: Kysely<Database>,
  changeRequestId: string,
  after: unknown[] | undefined,
  limit: number,
): Promise<ReviewRequestRow[]> {
  const query = db
    .selectFrom('change_request_review_requests')
    .selectAll('change_request_review_requests')
    .where('change_request_review_requests.change_request_id', '=', changeRequestId);
  return keysetQuery(query, REQUEST_LIST_KEYS, after, limit).execute();
}

/** False when there was no such request. */
export async function deleteReviewRequest(db: Kysely<Database>, changeRequestId: string, userId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('change_request_review_requests')
    .where('change_request_id', '=', changeRequestId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
