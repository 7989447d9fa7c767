import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses, ListOf, NoContent } from '../../schemas.js';
import { presentList, noContent } from '../../present.js';
import {
  createCollection,
  deleteCollection,
  getCollection,
  listCollections,
  listCollectionSpaces,
  moveCollection,
  transferCollection,
  updateCollection,
} from '../../../domain/content/collections.js';
import { OrganizationParams } from '../organizations/schema.js';
import { ListSpacesQuery, MoveBody, SpaceSchema, TransferBody } from '../spaces/schema.js';
import { presentSpace } from '../spaces/presenter.js';
import {
  CollectionParams,
  CollectionSchema,
  CreateCollectionBody,
  CreatedCollectionHeaders,
  ListCollectionsQuery,
  UpdateCollectionBody,
} from './schema.js';
import { presentCollection } from './presenter.js';

const tags = ['collections'];

export const collectionRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  app.get(
    '/collections/:collectionId',
    { schema: { operationId: 'getCollectionById', tags, params: CollectionParams, response: { 200: CollectionSchema, ...ErrorResponses } } },
    async (request) => presentCollection(urls, await getCollection(ctx, callerOf(request), request.params.collectionId)),
  );

  app.delete(
    '/collections/:collectionId',
    { schema: { operationId: 'deleteCollectionById', tags, params: CollectionParams, response: { 205: NoContent, ...ErrorResponses } } },
    async (request, reply) => {
      await deleteCollection(ctx, callerOf(request), request.params.collectionId);
      return noContent(reply, 205);
    },
  );

  app.patch(
    '/collections/:collectionId',
    {
      schema: {
        operationId: 'updateCollectionById',
        tags,
        params: CollectionParams,
        body: UpdateCollectionBody,
        response: { 200: CollectionSchema, ...ErrorResponses },
      },
    },
    async (request) => presentCollection(urls, await updateCollection(ctx, callerOf(request), request.params.collectionId, request.body)),
  );

  app.get(
    '/collections/:collectionId/spaces',
    {
      schema: {
        operationId: 'listSpacesInCollectionById',
        tags,
        params: CollectionParams,
        querystring: ListSpacesQuery,
        response: { 200: ListOf(SpaceSchema), ...ErrorResponses },
      },
    },
    async (request) =>
      presentList(await listCollectionSpaces(ctx, callerOf(request), request.params.collectionId, request.query), (s) => presentSpace(urls, s)),
  );

  app.post(
    '/collections/:collectionId/move',
    {
      schema: { operationId: 'moveCollection', tags, params: CollectionParams, body: MoveBody, response: { 200: CollectionSchema, ...ErrorResponses } },
    },
    async (request) => presentCollection(urls, await moveCollection(ctx, callerOf(request), request.params.collectionId, request.body)),
  );

  app.post(
    '/collections/:collectionId/transfer',
    {
      schema: {
        operationId: 'transferCollection',
        tags,
        params: CollectionParams,
        body: TransferBody,
        response: { 200: CollectionSchema, ...ErrorResponses },
      },
    },
    async (request) => presentCollection(urls, await transferCollection(ctx, callerOf(request), request.params.collectionId, request.body)),
  );

  app.get(
    '/orgs/:organizationId/collections',
    {
      schema: {
        operationId: 'listCollectionsInOrganizationById',
        tags,
        params: OrganizationParams,
        querystring: ListCollectionsQuery,
        response: { 200: ListOf(CollectionSchema), ...ErrorResponses },
      },
    },
    async (request) =>
      presentList(await listCollections(ctx, callerOf(request), request.params.organizationId, request.query), (c) => presentCollection(urls, c)),
  );

  app.post(
    '/orgs/:organizationId/collections',
    {
      schema: {
        operationId: 'createCollection',
        tags,
        params: OrganizationParams,
        body: CreateCollectionBody,
        response: { 201: { ...CollectionSchema, headers: CreatedCollectionHeaders }, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const collection = presentCollection(urls, await createCollection(ctx, callerOf(request), request.params.organizationId, request.body ?? {}));
      return reply.status(201).header('location', collection.urls.location).send(collection);
    },
  );
};
