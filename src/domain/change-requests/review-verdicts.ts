/**
 * What a change request's reviews say now, as pure arithmetic over them (merge rules build on it). Reviews are a
 * history; only the latest review of each reviewer counts. An approval made against an older revision than the change
 * request's current head still counts: it is marked `outdated`, so that a rule may ask for approvals of the head
 * itself, but nothing here discards it.
 */

export const REVIEW_STATUSES = ['approved', 'changes-requested'] as const;
export type ReviewStatus = (typeof REVIEW_STATUSES)[number];

/** What the arithmetic needs of a review. */
export interface ReviewFact {
  id: string;
  /** null when the reviewer's account is gone: such a review counts for no one. */
  reviewer: string | null;
  status: ReviewStatus;
  /** The change request's head when the review was made. */
  revision: string;
  /** ISO 8601; later is newer (ties broken by id). */
  createdAt: string;
}

export interface CountedReview<R extends ReviewFact> {
  review: R;
  /** Made against another revision than the current head. */
  outdated: boolean;
}

export interface ReviewVerdicts<R extends ReviewFact> {
  /** The reviewers whose latest review approves, newest first. */
  approvals: Array<CountedReview<R>>;
  /** The reviewers whose latest review requests changes, newest first. */
  changesRequested: Array<CountedReview<R>>;
}

function newer(a: ReviewFact, b: ReviewFact): boolean {
  return a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id);
}

/** The latest review of each reviewer, split into approvals and change requests, given the change request's head. */
export function currentReviewVerdicts<R extends ReviewFact>(reviews: readonly R[], revision: string): ReviewVerdicts<R> {
  const latest = new Map<string, R>();
  for (const review of reviews) {
    if (review.reviewer === null) continue;
    const seen = latest.get(review.reviewer);
    if (!seen || newer(review, seen)) latest.set(review.reviewer, review);
  }
  const counted = [...latest.values()].sort((a, b) => (newer(a, b) ? -1 : newer(b, a) ? 1 : 0)).map((review) => ({ review, outdated: review.revision !== revision }));
  return {
    approvals: counted.filter((c) => c.review.status === 'approved'),
    changesRequested: counted.filter((c) => c.review.status === 'changes-requested'),
  };
}
