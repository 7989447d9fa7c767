import { Type } from 'typebox';
import { ListQuery, StringEnum, Timestamp, UserSchema } from '../../schemas.js';
import { REVIEW_STATUSES } from '../../../domain/change-requests/review-verdicts.js';
import { MAX_REQUESTED_USERS } from '../../../domain/change-requests/reviews.js';
import { ChangeRequestParams, Subject } from '../change-requests/schema.js';
import { CommentBody, CommentSchema, FormatQuery } from '../comments/schema.js';

export { ChangeRequestParams };
export const ReviewParams = Type.Object({ ...ChangeRequestParams.properties, reviewId: Type.String() });
export const RequestedReviewerParams = Type.Object({ ...ChangeRequestParams.properties, userId: Type.String() });

export const ListReviewsQuery = Type.Object({ ...ListQuery, format: FormatQuery });
export const FormatOnlyQuery = Type.Object({ format: FormatQuery });
export const ListRequestedReviewersQuery = Type.Object({ ...ListQuery });

const ReviewStatus = StringEnum(REVIEW_STATUSES);

export const SubmitReviewBody = Type.Object({
  status: ReviewStatus,
  comment: Type.Optional(CommentBody),
});

export const RequestReviewersBody = Type.Object({
  users: Type.Array(Type.String({ minLength: 1 }), { maxItems: MAX_REQUESTED_USERS, description: 'Ids of the users to request' }),
  subject: Type.Optional(Subject),
});

export const ReviewSchema = Type.Object({
  object: Type.Literal('change-request-review'),
  id: Type.String(),
  revision: Type.String({ description: "The change request's head when the review was made" }),
  reviewer: UserSchema,
  requestedBy: Type.Optional(UserSchema),
  status: ReviewStatus,
  comment: Type.Optional(CommentSchema),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

/** The reference's ChangeRequestRequestedReviewer, of kind `user` (Quire requests no teams). */
export const RequestedReviewerSchema = Type.Object({
  object: Type.Literal('change-request-requested-reviewer'),
  kind: Type.Literal('user'),
  user: UserSchema,
  revision: Type.String({ description: "The change request's head when the review was requested" }),
  requestedBy: UserSchema,
  createdAt: Timestamp,
});

export const RequestedReviewersSchema = Type.Object({ users: Type.Array(RequestedReviewerSchema) });

export const ReviewCreatedHeaders = Type.Object({ location: Type.String() });
