import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses, ListOf, NoContent } from '../../schemas.js';
import { presentList, noContent } from '../../present.js';
import {
  createSpace,
  deleteSpace,
  duplicateSpace,
  getSpace,
  listOrganizationSpaces,
  moveSpace,
  restoreSpace,
  transferSpace,
  updateSpace,
} from '../../../domain/content/spaces.js';
import { OrganizationParams } from '../organizations/schema.js';
import {
  CreatedSpaceHeaders,
  CreateSpaceBody,
  GetSpaceQuery,
  ListSpacesQuery,
  MoveBody,
  SpaceParams,
  SpaceSchema,
  TransferBody,
  UpdateSpaceBody,
} from './schema.js';
import { presentSpace } from './presenter.js';

const tags = ['spaces'];

export const spaceRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  app.get(
    '/spaces/:spaceId',
    {
      schema: { operationId: 'getSpaceById', tags, params: SpaceParams, querystring: GetSpaceQuery, response: { 200: SpaceSchema, ...ErrorResponses } },
    },
    async (request) => presentSpace(urls, await getSpace(ctx, callerOf(request), request.params.spaceId, { shareKey: request.query.shareKey })),
  );

  app.delete(
    '/spaces/:spaceId',
    { schema: { operationId: 'deleteSpaceById', tags, params: SpaceParams, response: { 205: NoContent, ...ErrorResponses } } },
    async (request, reply) => {
      await deleteSpace(ctx, callerOf(request), request.params.spaceId);
      return noContent(reply, 205);
    },
  );

  app.patch(
    '/spaces/:spaceId',
    { schema: { operationId: 'updateSpaceById', tags, params: SpaceParams, body: UpdateSpaceBody, response: { 200: SpaceSchema, ...ErrorResponses } } },
    async (request) => presentSpace(urls, await updateSpace(ctx, callerOf(request), request.params.spaceId, request.body)),
  );

  app.post(
    '/spaces/:spaceId/restore',
    { schema: { operationId: 'restoreSpace', tags, params: SpaceParams, response: { 200: SpaceSchema, ...ErrorResponses } } },
    async (request) => presentSpace(urls, await restoreSpace(ctx, callerOf(request), request.params.spaceId)),
  );

  app.post(
    '/spaces/:spaceId/move',
    { schema: { operationId: 'moveSpace', tags, params: SpaceParams, body: MoveBody, response: { 200: SpaceSchema, ...ErrorResponses } } },
    async (request) => presentSpace(urls, await moveSpace(ctx, callerOf(request), request.params.spaceId, request.body)),
  );

  app.post(
    '/spaces/:spaceId/transfer',
    { schema: { operationId: 'transferSpace', tags, params: SpaceParams, body: TransferBody, response: { 200: SpaceSchema, ...ErrorResponses } } },
    async (request) => presentSpace(urls, await transferSpace(ctx, callerOf(request), request.params.spaceId, request.body)),
  );

  // Not in the spec; the reference's createSpace and listSpacesInOrganizationById.
  app.get(
    '/orgs/:organizationId/spaces',
    {
      schema: {
        operationId: 'listSpacesInOrganizationById',
        tags,
        params: OrganizationParams,
        querystring: ListSpacesQuery,
        response: { 200: ListOf(SpaceSchema), ...ErrorResponses },
      },
    },
    async (request) =>
      presentList(await listOrganizationSpaces(ctx, callerOf(request), request.params.organizationId, request.query), (s) => presentSpace(urls, s)),
  );

  app.post(
    '/orgs/:organizationId/spaces',
    {
      schema: {
        operationId: 'createSpace',
        tags,
        params: OrganizationParams,
        body: CreateSpaceBody,
        response: { 201: { ...SpaceSchema, headers: CreatedSpaceHeaders }, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const space = presentSpace(urls, await createSpace(ctx, callerOf(request), request.params.organizationId, request.body ?? {}));
      return reply.status(201).header('location', space.urls.location).send(space);
    },
  );

  app.post(
    '/spaces/:spaceId/duplicate',
    { schema: { operationId: 'duplicateSpace', tags, params: SpaceParams, response: { 201: { ...SpaceSchema, headers: CreatedSpaceHeaders }, ...ErrorResponses } } },
    async (request, reply) => {
      const space = presentSpace(urls, await duplicateSpace(ctx, callerOf(request), request.params.spaceId));
      return reply.status(201).header('location', space.urls.location).send(space);
    },
  );
};
