import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses, ListOf, NoContent } from '../../schemas.js';
import { noContent, presentList } from '../../present.js';
import {
  getReview,
  listRequestedReviewers,
  listReviews,
  removeRequestedReviewer,
  requestReviewers,
  submitReview,
} from '../../../domain/change-requests/reviews.js';
import {
  ChangeRequestParams,
  FormatOnlyQuery,
  ListRequestedReviewersQuery,
  ListReviewsQuery,
  RequestedReviewerParams,
  RequestedReviewerSchema,
  RequestedReviewersSchema,
  RequestReviewersBody,
  ReviewCreatedHeaders,
  ReviewParams,
  ReviewSchema,
  SubmitReviewBody,
} from './schema.js';
import { presentRequestedReviewer, presentReview, reviewLocation } from './presenter.js';

const REVIEWS = '/spaces/:spaceId/change-requests/:changeRequestId/reviews';
const REVIEWERS = '/spaces/:spaceId/change-requests/:changeRequestId/requested-reviewers';

/** Reviews of a change request (a history, newest first) and the users requested to review it. */
export const reviewRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  app.get(
    REVIEWS,
    {
      schema: {
        operationId: 'getReviewsByChangeRequestId',
        tags: ['change-requests-reviews'],
        params: ChangeRequestParams,
        querystring: ListReviewsQuery,
        response: { 200: ListOf(ReviewSchema), ...ErrorResponses },
      },
    },
    async (request) => {
      const { format, ...query } = request.query;
      const { spaceId, changeRequestId } = request.params;
      const page = await listReviews(ctx, callerOf(request), spaceId, changeRequestId, query);
      return presentList(page, (review) => presentReview(urls, review, format));
    },
  );

  app.post(
    REVIEWS,
    {
      schema: {
        operationId: 'submitChangeRequestReview',
        tags: ['change-requests-reviews'],
        params: ChangeRequestParams,
        body: SubmitReviewBody,
        response: { 201: { ...ReviewSchema, headers: ReviewCreatedHeaders }, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const { spaceId, changeRequestId } = request.params;
      const view = await submitReview(ctx, callerOf(request), spaceId, changeRequestId, request.body);
      const location = reviewLocation(urls, spaceId, view.review.change_request_id, view.review.id);
      return reply.status(201).header('location', location).send(presentReview(urls, view));
    },
  );

  app.get(
    `${REVIEWS}/:reviewId`,
    {
      schema: {
        operationId: 'getChangeRequestReviewById',
        tags: ['change-requests-reviews'],
        description: 'Quire extension: not in the spec nor in the reference. The review a `submitChangeRequestReview` Location names.',
        params: ReviewParams,
        querystring: FormatOnlyQuery,
        response: { 200: ReviewSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      const { spaceId, changeRequestId, reviewId } = request.params;
      return presentReview(urls, await getReview(ctx, callerOf(request), spaceId, changeRequestId, reviewId), request.query.format);
    },
  );

  app.get(
    REVIEWERS,
    {
      schema: {
        operationId: 'getRequestedReviewersByChangeRequestId',
        tags: ['change-request-reviewers'],
        params: ChangeRequestParams,
        querystring: ListRequestedReviewersQuery,
        response: { 200: ListOf(RequestedReviewerSchema), ...ErrorResponses },
      },
    },
    async (request) => {
      const { spaceId, changeRequestId } = request.params;
      const page = await listRequestedReviewers(ctx, callerOf(request), spaceId, changeRequestId, request.query);
      return presentList(page, (view) => presentRequestedReviewer(urls, view));
    },
  );

  app.post(
    REVIEWERS,
    {
      schema: {
        operationId: 'requestReviewersForChangeRequest',
        tags: ['change-request-reviewers'],
        params: ChangeRequestParams,
        body: RequestReviewersBody,
        response: { 200: RequestedReviewersSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      const { spaceId, changeRequestId } = request.params;
      const views = await requestReviewers(ctx, callerOf(request), spaceId, changeRequestId, request.body);
      return { users: views.map((view) => presentRequestedReviewer(urls, view)) };
    },
  );

  app.delete(
    `${REVIEWERS}/:userId`,
    {
      schema: {
        operationId: 'removeRequestedReviewerFromChangeRequest',
        tags: ['change-request-reviewers'],
        params: RequestedReviewerParams,
        response: { 204: NoContent, 205: NoContent, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const { spaceId, changeRequestId, userId } = request.params;
      const removed = await removeRequestedReviewer(ctx, callerOf(request), spaceId, changeRequestId, userId);
      return noContent(reply, removed ? 205 : 204);
    },
  );
};
