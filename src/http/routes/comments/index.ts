import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses, ListOf, NoContent } from '../../schemas.js';
import { noContent, presentList } from '../../present.js';
import {
  changeRequestScope,
  deleteComment,
  deleteReply,
  getComment,
  getReply,
  listCommenters,
  listComments,
  listReplies,
  postComment,
  postReply,
  updateComment,
  updateReply,
  type CommentScope,
} from '../../../domain/comments/comments.js';
import {
  CommentersList,
  CommentParams,
  CommentSchema,
  FormatOnlyQuery,
  ListCommentersQuery,
  ListCommentsQuery,
  ListRepliesQuery,
  PostCommentBody,
  PostReplyBody,
  ReplyParams,
  ReplySchema,
  SpaceCommentsParams,
  UpdateCommentBody,
  UpdateReplyBody,
} from './schema.js';
import { presentComment, presentReply } from './presenter.js';
import { presentMember } from '../members/presenter.js';

const tags = ['space-comments'];

/** Comments on a space's main content or on a change request, and the hidden reply and commenter lists. */
const VARIANTS = [
  { prefix: '/spaces/:spaceId', suffix: 'InSpace' },
  { prefix: '/spaces/:spaceId/change-requests/:changeRequestId', suffix: 'InChangeRequest' },
] as const;

const OPERATIONS = [
  'listComments', 'postComment', 'getComment', 'updateComment', 'deleteComment', 'listCommentReplies', 'postCommentReply',
  'getCommentReply', 'updateCommentReply', 'deleteCommentReply', 'listCommenters',
] as const;

export const commentRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  /** The space's main content, or the change request the path names (found by id or number, visible to the caller). */
  const scopeOf = async (request: FastifyRequest): Promise<CommentScope> => {
    const { spaceId, changeRequestId } = request.params as { spaceId: string; changeRequestId?: string };
    return changeRequestId ? changeRequestScope(ctx, callerOf(request), spaceId, changeRequestId) : { spaceId };
  };

  for (const { prefix, suffix } of VARIANTS) {
    const ids = Object.fromEntries(OPERATIONS.map((op) => [op, `${op}${suffix}`])) as Record<(typeof OPERATIONS)[number], string>;
    app.get(
      `${prefix}/comments`,
      {
        schema: {
          operationId: ids.listComments,
          tags,
          params: SpaceCommentsParams,
          querystring: ListCommentsQuery,
          response: { 200: ListOf(CommentSchema), ...ErrorResponses },
        },
      },
      async (request) => {
        const { format, ...query } = request.query;
        const page = await listComments(ctx, callerOf(request), await scopeOf(request), query);
        return presentList(page, (c) => presentComment(urls, c, format));
      },
    );

    app.post(
      `${prefix}/comments`,
      {
        schema: {
          operationId: ids.postComment,
          tags,
          params: SpaceCommentsParams,
          body: PostCommentBody,
          response: { 200: CommentSchema, ...ErrorResponses },
        },
      },
      async (request) => presentComment(urls, await postComment(ctx, callerOf(request), await scopeOf(request), request.body)),
    );

    app.get(
      `${prefix}/comments/:commentId`,
      {
        schema: {
          operationId: ids.getComment,
          tags,
          params: CommentParams,
          querystring: FormatOnlyQuery,
          response: { 200: CommentSchema, ...ErrorResponses },
        },
      },
      async (request) =>
        presentComment(
          urls,
          await getComment(ctx, callerOf(request), await scopeOf(request), request.params.commentId),
          request.query.format,
        ),
    );

    app.put(
      `${prefix}/comments/:commentId`,
      {
        schema: {
          operationId: ids.updateComment,
          tags,
          params: CommentParams,
          body: UpdateCommentBody,
          response: { 200: CommentSchema, ...ErrorResponses },
        },
      },
      async (request) =>
        presentComment(urls, await updateComment(ctx, callerOf(request), await scopeOf(request), request.params.commentId, request.body)),
    );

    app.delete(
      `${prefix}/comments/:commentId`,
      {
        schema: {
          operationId: ids.deleteComment,
          tags,
          params: CommentParams,
          response: { 204: NoContent, 205: NoContent, ...ErrorResponses },
        },
      },
      async (request, reply) => {
        const deleted = await deleteComment(ctx, callerOf(request), await scopeOf(request), request.params.commentId);
        return noContent(reply, deleted ? 205 : 204);
      },
    );

    // Not in the spec; the reference's listCommentRepliesInSpace.
    app.get(
      `${prefix}/comments/:commentId/replies`,
      {
        schema: {
          operationId: ids.listCommentReplies,
          tags,
          params: CommentParams,
          querystring: ListRepliesQuery,
          response: { 200: ListOf(ReplySchema), ...ErrorResponses },
        },
      },
      async (request) => {
        const { format, ...query } = request.query;
        const page = await listReplies(ctx, callerOf(request), await scopeOf(request), request.params.commentId, query);
        return presentList(page, (r) => presentReply(urls, r, format));
      },
    );

    app.post(
      `${prefix}/comments/:commentId/replies`,
      {
        schema: {
          operationId: ids.postCommentReply,
          tags,
          params: CommentParams,
          body: PostReplyBody,
          response: { 200: ReplySchema, ...ErrorResponses },
        },
      },
      async (request) =>
        presentReply(urls, await postReply(ctx, callerOf(request), await scopeOf(request), request.params.commentId, request.body)),
    );

    app.get(
      `${prefix}/comments/:commentId/replies/:commentReplyId`,
      {
        schema: {
          operationId: ids.getCommentReply,
          tags,
          params: ReplyParams,
          querystring: FormatOnlyQuery,
          response: { 200: ReplySchema, ...ErrorResponses },
        },
      },
      async (request) => {
        const { commentId, commentReplyId } = request.params;
        return presentReply(urls, await getReply(ctx, callerOf(request), await scopeOf(request), commentId, commentReplyId), request.query.format);
      },
    );

    app.put(
      `${prefix}/comments/:commentId/replies/:commentReplyId`,
      {
        schema: {
          operationId: ids.updateCommentReply,
          tags,
          params: ReplyParams,
          body: UpdateReplyBody,
          response: { 200: ReplySchema, ...ErrorResponses },
        },
      },
      async (request) => {
        const { commentId, commentReplyId } = request.params;
        return presentReply(urls, await updateReply(ctx, callerOf(request), await scopeOf(request), commentId, commentReplyId, request.body));
      },
    );

    app.delete(
      `${prefix}/comments/:commentId/replies/:commentReplyId`,
      {
        schema: {
          operationId: ids.deleteCommentReply,
          tags,
          params: ReplyParams,
          response: { 204: NoContent, 205: NoContent, ...ErrorResponses },
        },
      },
      async (request, reply) => {
        const { commentId, commentReplyId } = request.params;
        const deleted = await deleteReply(ctx, callerOf(request), await scopeOf(request), commentId, commentReplyId);
        return noContent(reply, deleted ? 205 : 204);
      },
    );

    // Not in the spec; the reference's listCommentersInSpace.
    app.get(
      `${prefix}/commenters`,
      {
        schema: {
          operationId: ids.listCommenters,
          tags,
          params: SpaceCommentsParams,
          querystring: ListCommentersQuery,
          response: { 200: CommentersList, ...ErrorResponses },
        },
      },
      async (request) => {
        const page = await listCommenters(ctx, callerOf(request), await scopeOf(request), request.query);
        return { ...presentList(page, (m) => presentMember(urls, m)), total: page.total };
      },
    );
  }
};
