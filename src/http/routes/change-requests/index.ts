import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses, ListOf } from '../../schemas.js';
import { presentList } from '../../present.js';
import {
  createChangeRequest,
  getChangeRequest,
  listChangeRequests,
  changeRequestPdfLink,
  mergeChangeRequest,
  updateChangeRequest,
  updateChangeRequestFromMain,
} from '../../../domain/change-requests/change-requests.js';
import {
  ChangeRequestParams,
  ChangeRequestSchema,
  ChangeRequestsParams,
  CreateChangeRequestBody,
  CreatedHeaders,
  ListChangeRequestsQuery,
  MergeResultSchema,
  PdfLinkSchema,
  PdfQuery,
  UpdateChangeRequestBody,
} from './schema.js';
import { presentChangeRequest } from './presenter.js';

const tags = ['change-requests'];

export const changeRequestRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  app.get(
    '/spaces/:spaceId/change-requests',
    {
      schema: {
        operationId: 'listChangeRequestsForSpace',
        tags,
        params: ChangeRequestsParams,
        querystring: ListChangeRequestsQuery,
        response: { 200: ListOf(ChangeRequestSchema), ...ErrorResponses },
      },
    },
    async (request) =>
      presentList(await listChangeRequests(ctx, callerOf(request), request.params.spaceId, request.query), (v) => presentChangeRequest(urls, v)),
  );

  app.post(
    '/spaces/:spaceId/change-requests',
    {
      schema: {
        operationId: 'createChangeRequest',
        tags,
        params: ChangeRequestsParams,
        body: CreateChangeRequestBody,
        response: { 201: { ...ChangeRequestSchema, headers: CreatedHeaders }, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const view = presentChangeRequest(urls, await createChangeRequest(ctx, callerOf(request), request.params.spaceId, request.body ?? {}));
      return reply.status(201).header('location', view.urls.location).send(view);
    },
  );

  app.get(
    '/spaces/:spaceId/change-requests/:changeRequestId',
    { schema: { operationId: 'getChangeRequestById', tags, params: ChangeRequestParams, response: { 200: ChangeRequestSchema, ...ErrorResponses } } },
    async (request) =>
      presentChangeRequest(urls, await getChangeRequest(ctx, callerOf(request), request.params.spaceId, request.params.changeRequestId)),
  );

  app.patch(
    '/spaces/:spaceId/change-requests/:changeRequestId',
    {
      schema: {
        operationId: 'updateChangeRequestById',
        tags,
        params: ChangeRequestParams,
        body: UpdateChangeRequestBody,
        response: { 200: ChangeRequestSchema, ...ErrorResponses },
      },
    },
    async (request) =>
      presentChangeRequest(
        urls,
        await updateChangeRequest(ctx, callerOf(request), request.params.spaceId, request.params.changeRequestId, request.body),
      ),
  );

  app.get(
    '/spaces/:spaceId/change-requests/:changeRequestId/pdf',
    { schema: { operationId: 'getChangeRequestPDF', tags, params: ChangeRequestParams, querystring: PdfQuery, response: { 200: PdfLinkSchema, ...ErrorResponses } } },
    async (request) => {
      const { token } = await changeRequestPdfLink(ctx, callerOf(request), request.params.spaceId, request.params.changeRequestId, request.query);
      return { url: urls.base(`/pdf/${token}`) };
    },
  );

  app.post(
    '/spaces/:spaceId/change-requests/:changeRequestId/merge',
    { schema: { operationId: 'mergeChangeRequest', tags, params: ChangeRequestParams, response: { 200: MergeResultSchema, ...ErrorResponses } } },
    async (request) => mergeChangeRequest(ctx, callerOf(request), request.params.spaceId, request.params.changeRequestId),
  );

  app.post(
    '/spaces/:spaceId/change-requests/:changeRequestId/update',
    { schema: { operationId: 'updateChangeRequest', tags, params: ChangeRequestParams, response: { 200: MergeResultSchema, ...ErrorResponses } } },
    async (request) => updateChangeRequestFromMain(ctx, callerOf(request), request.params.spaceId, request.params.changeRequestId),
  );
};
