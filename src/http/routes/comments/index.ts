import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../index.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses, ListOf, NoContent } from '../../schemas.js';
import { noContent, presentList } from '../../present.js';
import {
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

/** Comments on a space's main content (#1-#9) and the hidden reply list and commenters list. */
export const commentRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  app.get(
    '/spaces/:spaceId/comments',
    {
      schema: {
        operationId: 'listCommentsInSpace',
        tags,
        params: SpaceCommentsParams,
        querystring: ListCommentsQuery,
        response: { 200: ListOf(CommentSchema), ...ErrorResponses },
      },
    },
    async (request) => {
      const { format, ...query } = request.query;
      const page = await listComments(ctx, callerOf(request), { spaceId: request.params.spaceId }, query);
      return presentList(page, (c) => presentComment(urls, c, format));
    },
  );

  app.post(
    '/spaces/:spaceId/comments',
    {
      schema: {
        operationId: 'postCommentInSpace',
        tags,
        params: SpaceCommentsParams,
        body: PostCommentBody,
        response: { 200: CommentSchema, ...ErrorResponses },
      },
    },
    async (request) => presentComment(urls, await postComment(ctx, callerOf(request), { spaceId: request.params.spaceId }, request.body)),
  );

  app.get(
    '/spaces/:spaceId/comments/:commentId',
    {
      schema: {
        operationId: 'getCommentInSpace',
        tags,
        params: CommentParams,
        querystring: FormatOnlyQuery,
        response: { 200: CommentSchema, ...ErrorResponses },
      },
    },
    async (request) =>
      presentComment(
        urls,
        await getComment(ctx, callerOf(request), { spaceId: request.params.spaceId }, request.params.commentId),
        request.query.format,
      ),
  );

  app.put(
    '/spaces/:spaceId/comments/:commentId',
    {
      schema: {
        operationId: 'updateCommentInSpace',
        tags,
        params: CommentParams,
        body: UpdateCommentBody,
        response: { 200: CommentSchema, ...ErrorResponses },
      },
    },
    async (request) =>
      presentComment(urls, await updateComment(ctx, callerOf(request), { spaceId: request.params.spaceId }, request.params.commentId, request.body)),
  );

  app.delete(
    '/spaces/:spaceId/comments/:commentId',
    {
      schema: {
        operationId: 'deleteCommentInSpace',
        tags,
        params: CommentParams,
        response: { 204: NoContent, 205: NoContent, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const deleted = await deleteComment(ctx, callerOf(request), { spaceId: request.params.spaceId }, request.params.commentId);
      return noContent(reply, deleted ? 205 : 204);
    },
  );

  // Not in the spec; the reference's listCommentRepliesInSpace (contract-notes.md section 4).
  app.get(
    '/spaces/:spaceId/comments/:commentId/replies',
    {
      schema: {
        operationId: 'listCommentRepliesInSpace',
        tags,
        params: CommentParams,
        querystring: ListRepliesQuery,
        response: { 200: ListOf(ReplySchema), ...ErrorResponses },
      },
    },
    async (request) => {
      const { format, ...query } = request.query;
      const page = await listReplies(ctx, callerOf(request), { spaceId: request.params.spaceId }, request.params.commentId, query);
      return presentList(page, (r) => presentReply(urls, r, format));
    },
  );

  app.post(
    '/spaces/:spaceId/comments/:commentId/replies',
    {
      schema: {
        operationId: 'postCommentReplyInSpace',
        tags,
        params: CommentParams,
        body: PostReplyBody,
        response: { 200: ReplySchema, ...ErrorResponses },
      },
    },
    async (request) =>
      presentReply(urls, await postReply(ctx, callerOf(request), { spaceId: request.params.spaceId }, request.params.commentId, request.body)),
  );

  app.get(
    '/spaces/:spaceId/comments/:commentId/replies/:commentReplyId',
    {
      schema: {
        operationId: 'getCommentReplyInSpace',
        tags,
        params: ReplyParams,
        querystring: FormatOnlyQuery,
        response: { 200: ReplySchema, ...ErrorResponses },
      },
    },
    async (request) => {
      const { spaceId, commentId, commentReplyId } = request.params;
      return presentReply(urls, await getReply(ctx, callerOf(request), { spaceId }, commentId, commentReplyId), request.query.format);
    },
  );

  app.put(
    '/spaces/:spaceId/comments/:commentId/replies/:commentReplyId',
    {
      schema: {
        operationId: 'updateCommentReplyInSpace',
        tags,
        params: ReplyParams,
        body: UpdateReplyBody,
        response: { 200: ReplySchema, ...ErrorResponses },
      },
    },
    async (request) => {
      const { spaceId, commentId, commentReplyId } = request.params;
      return presentReply(urls, await updateReply(ctx, callerOf(request), { spaceId }, commentId, commentReplyId, request.body));
    },
  );

  app.delete(
    '/spaces/:spaceId/comments/:commentId/replies/:commentReplyId',
    {
      schema: {
        operationId: 'deleteCommentReplyInSpace',
        tags,
        params: ReplyParams,
        response: { 204: NoContent, 205: NoContent, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const { spaceId, commentId, commentReplyId } = request.params;
      const deleted = await deleteReply(ctx, callerOf(request), { spaceId }, commentId, commentReplyId);
      return noContent(reply, deleted ? 205 : 204);
    },
  );

  // Not in the spec; the reference's listCommentersInSpace (contract-notes.md section 4).
  app.get(
    '/spaces/:spaceId/commenters',
    {
      schema: {
        operationId: 'listCommentersInSpace',
        tags,
        params: SpaceCommentsParams,
        querystring: ListCommentersQuery,
        response: { 200: CommentersList, ...ErrorResponses },
      },
    },
    async (request) => {
      const page = await listCommenters(ctx, callerOf(request), { spaceId: request.params.spaceId }, request.query);
      return { ...presentList(page, (m) => presentMember(urls, m)), total: page.total };
    },
  );
};
