/**
 * Migration 0023 makes change_request_reviews and change_request_review_requests (src/store/sql/reviews.ts): reviews
 * are a history of known statuses, newest first; one request per user and change request, requesting again refreshes
 * it; both go with their change request; a gone user leaves reviews and takes their requests. The down migration
 * removes both tables. On a real database of each kind, migrated to 0022 first.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Kysely, sql } from '../../src/store/sql/kysely.js';
import { insertChangeRequest } from '../../src/store/sql/change-requests.js';
import { insertComment } from '../../src/store/sql/comments.js';
import { insertUser } from '../../src/store/sql/users.js';
import {
  allReviews,
  deleteReviewRequest,
  findReviewRequest,
  insertReview,
  latestReviewTime,
  listReviewRequests,
  listReviews,
  reviewsOfComments,
  upsertReviewRequests,
  type ReviewRequestRow,
  type ReviewRow,
} from '../../src/store/sql/reviews.js';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { databaseAt } from '../helpers/migrations.js';

const at = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, '0')}.000Z`;

describe.each(DATABASE_KINDS)('migration 0023, change-request reviews (%s)', (kind) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const review = (fields: Partial<ReviewRow>): ReviewRow => ({
    id: 'r', change_request_id: 'cr1', reviewer_id: 'ann', requested_by: null, status: 'approved', revision: 'a'.repeat(40), comment_id: null,
    created_at: at(1), updated_at: at(1), ...fields,
  });
  const request = (fields: Partial<ReviewRequestRow>): ReviewRequestRow => ({
    change_request_id: 'cr1', user_id: 'ann', requested_by: 'bob', revision: 'a'.repeat(40), created_at: at(1), ...fields,
  });

  it('up: reviews as a history, one request per user, both gone with the change request; down removes them', async () => {
    const { db, migrator } = await databaseAt(kind, '0022_git_sync_runs', cleanups);
    await expect(sql`select count(*) from change_request_reviews`.execute(db)).rejects.toThrow();
    expect((await migrator.migrateTo('0023_change_request_reviews')).error).toBeUndefined();
    const any = db as unknown as Kysely<any>;
    for (const id of ['ann', 'bob', 'cat']) await insertUser(db, { id, email: `${id}@example.com`, display_name: id, photo_url: null, created_at: at(0) });
    for (const [id, number] of [['cr1', 1], ['cr2', 2]] as const) {
      await insertChangeRequest(db, {
        id, space_id: 'space1', number, subject: '', status: 'open', created_by: 'cat', revision_initial: 'a'.repeat(40), revision_merged_ancestor: null,
        revision_merged: null, created_at: at(0), updated_at: at(0),
      });
    }
    await insertComment(db, {
      id: 'c1', space_id: 'space1', change_request_id: 'cr1', posted_by: 'bob', body: '{}', target_revision: 'a'.repeat(40), target_page: null,
      target_node: null, status: 'open', resolved_at: null, resolved_by: null, posted_at: at(2), edited_at: null,
    });

    // A reviewer's reviews are all kept; the list is newest first, paged by (time, id).
    await insertReview(db, review({ id: 'r1', status: 'changes-requested' }));
    await insertReview(db, review({ id: 'r2', created_at: at(2), updated_at: at(2), comment_id: 'c1', requested_by: 'cat' }));
    await insertReview(db, review({ id: 'r3', reviewer_id: 'bob', created_at: at(2), updated_at: at(2) }));
    await insertReview(db, review({ id: 'other', change_request_id: 'cr2', created_at: at(9) }));
    expect((await listReviews(db, 'cr1', undefined, 10)).map((r) => r.id)).toEqual(['r3', 'r2', 'r1']);
    expect((await listReviews(db, 'cr1', [at(2), 'r2'], 10)).map((r) => r.id)).toEqual(['r1']);
    expect((await allReviews(db, 'cr1')).map((r) => r.id)).toEqual(['r3', 'r2', 'r1']);
    expect(await latestReviewTime(db, 'cr1')).toBe(at(2));
    expect(await latestReviewTime(db, 'cr3')).toBeUndefined();
    expect([...(await reviewsOfComments(db, ['c1', 'nope']))]).toEqual([['c1', 'r2']]);
    await expect(any.insertInto('change_request_reviews').values(review({ id: 'bad', status: 'rejected' })).execute()).rejects.toThrow();
    await expect(any.insertInto('change_request_reviews').values(review({ id: 'bad', change_request_id: 'nope' })).execute()).rejects.toThrow();

    // One request per user: requesting again refreshes who asked, at which revision and when.
    await upsertReviewRequests(db, [request({ user_id: 'ann' }), request({ user_id: 'bob', created_at: at(3) })]);
    await upsertReviewRequests(db, [request({ user_id: 'ann', requested_by: 'cat', revision: 'b'.repeat(40), created_at: at(5) })]);
    expect(await findReviewRequest(db, 'cr1', 'ann')).toEqual(request({ user_id: 'ann', requested_by: 'cat', revision: 'b'.repeat(40), created_at: at(5) }));
    expect((await listReviewRequests(db, 'cr1', undefined, 10)).map((r) => r.user_id)).toEqual(['bob', 'ann']);
    expect((await listReviewRequests(db, 'cr1', [at(3), 'bob'], 10)).map((r) => r.user_id)).toEqual(['ann']);
    await expect(any.insertInto('change_request_review_requests').values(request({ user_id: 'ann' })).execute()).rejects.toThrow();
    expect(await deleteReviewRequest(db, 'cr1', 'bob')).toBe(true);
    expect(await deleteReviewRequest(db, 'cr1', 'bob')).toBe(false);

    // A deleted comment leaves its review; a gone user leaves their reviews (reviewer unknown) and takes their requests.
    await db.deleteFrom('comments').where('id', '=', 'c1').execute();
    expect((await allReviews(db, 'cr1')).find((r) => r.id === 'r2')?.comment_id).toBeNull();
    await upsertReviewRequests(db, [request({ user_id: 'bob' })]);
    await db.deleteFrom('users').where('id', '=', 'bob').execute();
    expect((await allReviews(db, 'cr1')).find((r) => r.id === 'r3')?.reviewer_id).toBeNull();
    expect(await findReviewRequest(db, 'cr1', 'bob')).toBeUndefined();

    // Both go with their change request.
    await db.deleteFrom('change_requests').where('id', '=', 'cr1').execute();
    expect(await allReviews(db, 'cr1')).toEqual([]);
    expect(await listReviewRequests(db, 'cr1', undefined, 10)).toEqual([]);
    expect((await allReviews(db, 'cr2')).map((r) => r.id)).toEqual(['other']);

    expect((await migrator.migrateDown()).error).toBeUndefined();
    await expect(sql`select count(*) from change_request_reviews`.execute(db)).rejects.toThrow();
    await expect(sql`select count(*) from change_request_review_requests`.execute(db)).rejects.toThrow();
  });
});
