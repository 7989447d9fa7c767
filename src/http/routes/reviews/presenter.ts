import type { ReviewRequestView, ReviewView } from '../../../domain/change-requests/reviews.js';
import type { UserRow } from '../../../store/sql/users.js';
import { presentDeletedUser, presentUser } from '../../present.js';
import type { Urls } from '../../urls.js';
import { presentComment, type BodyFormat } from '../comments/presenter.js';

function presentPerson(urls: Urls, user: UserRow | undefined) {
  return user ? presentUser(urls, user) : presentDeletedUser(urls);
}

export function reviewLocation(urls: Urls, spaceId: string, changeRequestId: string, reviewId: string): string {
  return urls.api(`/spaces/${spaceId}/change-requests/${changeRequestId}/reviews/${reviewId}`);
}

export function presentReview(urls: Urls, view: ReviewView, format: BodyFormat = 'markdown') {
  const { review } = view;
  return {
    object: 'change-request-review' as const,
    id: review.id,
    revision: review.revision,
    // A reviewer whose account is gone is shown as the placeholder (the reference requires one).
    reviewer: presentPerson(urls, view.reviewer),
    ...(review.requested_by ? { requestedBy: presentPerson(urls, view.requestedBy) } : {}),
    status: review.status as 'approved' | 'changes-requested',
    ...(view.comment ? { comment: presentComment(urls, view.comment, format) } : {}),
    createdAt: review.created_at,
    updatedAt: review.updated_at,
  };
}

export function presentRequestedReviewer(urls: Urls, view: ReviewRequestView) {
  const { request } = view;
  return {
    object: 'change-request-requested-reviewer' as const,
    kind: 'user' as const,
    user: presentPerson(urls, view.user),
    revision: request.revision,
    requestedBy: presentPerson(urls, view.requestedBy),
    createdAt: request.created_at,
  };
}
