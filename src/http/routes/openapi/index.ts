import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses, ListOf, NoContent } from '../../schemas.js';
import { noContent, presentList } from '../../present.js';
import {
  createSpec,
  deleteSpec,
  getSpec,
  getSpecVersion,
  getSpecVersionContent,
  listSpecs,
  listSpecVersions,
  putSpec,
} from '../../../domain/openapi/specs.js';
import {
  CreateSpecBody,
  PutSpecBody,
  PutSpecParams,
  SpecContentSchema,
  SpecListQuery,
  SpecParams,
  SpecSchema,
  SpecsParams,
  SpecVersionSchema,
  VersionParams,
} from './schema.js';
import { presentContentJson, presentSpec, presentVersion } from './presenter.js';

const tags = ['openapi'];
const prefix = '/orgs/:organizationId/openapi';

export const openApiRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  app.get(
    prefix,
    {
      schema: {
        operationId: 'listOpenAPISpecs',
        tags,
        params: SpecsParams,
        querystring: SpecListQuery,
        response: { 200: ListOf(SpecSchema), ...ErrorResponses },
      },
    },
    async (request) => presentList(await listSpecs(ctx, callerOf(request), request.params.organizationId, request.query), (s) => presentSpec(urls, s)),
  );

  app.post(
    prefix,
    {
      schema: {
        operationId: 'createOpenAPISpec',
        tags,
        params: SpecsParams,
        body: CreateSpecBody,
        response: { 201: SpecSchema, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const spec = await createSpec(ctx, callerOf(request), request.params.organizationId, request.body);
      return reply.status(201).send(presentSpec(urls, spec));
    },
  );

  app.get(
    `${prefix}/:specSlug`,
    { schema: { operationId: 'getOpenAPISpecBySlug', tags, params: SpecParams, response: { 200: SpecSchema, ...ErrorResponses } } },
    async (request) => presentSpec(urls, await getSpec(ctx, callerOf(request), request.params.organizationId, request.params.specSlug)),
  );

  app.put(
    `${prefix}/:specSlug`,
    {
      schema: {
        operationId: 'createOrUpdateOpenAPISpecBySlug',
        tags,
        params: PutSpecParams,
        body: PutSpecBody,
        response: { 200: SpecSchema, ...ErrorResponses },
      },
    },
    async (request) =>
      presentSpec(urls, await putSpec(ctx, callerOf(request), request.params.organizationId, request.params.specSlug, request.body)),
  );

  app.delete(
    `${prefix}/:specSlug`,
    {
      schema: {
        operationId: 'deleteOpenAPISpecBySlug',
        tags,
        params: SpecParams,
        response: { 204: NoContent, 205: NoContent, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const deleted = await deleteSpec(ctx, callerOf(request), request.params.organizationId, request.params.specSlug);
      return noContent(reply, deleted ? 205 : 204);
    },
  );

  app.get(
    `${prefix}/:specSlug/versions`,
    {
      schema: {
        operationId: 'listOpenAPISpecVersions',
        tags,
        params: SpecParams,
        querystring: SpecListQuery,
        response: { 200: ListOf(SpecVersionSchema), ...ErrorResponses },
      },
    },
    async (request) => {
      const { organizationId, specSlug } = request.params;
      return presentList(await listSpecVersions(ctx, callerOf(request), organizationId, specSlug, request.query), (v) => presentVersion(urls, v));
    },
  );

  app.get(
    `${prefix}/:specSlug/versions/latest`,
    { schema: { operationId: 'getLatestOpenAPISpecVersion', tags, params: SpecParams, response: { 200: SpecVersionSchema, ...ErrorResponses } } },
    async (request) =>
      presentVersion(urls, await getSpecVersion(ctx, callerOf(request), request.params.organizationId, request.params.specSlug, 'latest')),
  );

  app.get(
    `${prefix}/:specSlug/versions/latest/content`,
    {
      schema: { operationId: 'getLatestOpenAPISpecVersionContent', tags, params: SpecParams, response: { 200: SpecContentSchema, ...ErrorResponses } },
    },
    async (request, reply) => {
      const view = await getSpecVersionContent(ctx, callerOf(request), request.params.organizationId, request.params.specSlug, 'latest');
      return reply.type('application/json; charset=utf-8').send(presentContentJson(urls, view) as never);
    },
  );

  app.get(
    `${prefix}/:specSlug/versions/:versionId`,
    { schema: { operationId: 'getOpenAPISpecVersionById', tags, params: VersionParams, response: { 200: SpecVersionSchema, ...ErrorResponses } } },
    async (request) => {
      const { organizationId, specSlug, versionId } = request.params;
      return presentVersion(urls, await getSpecVersion(ctx, callerOf(request), organizationId, specSlug, versionId));
    },
  );

  app.get(
    `${prefix}/:specSlug/versions/:versionId/content`,
    {
      schema: { operationId: 'getOpenAPISpecVersionContentById', tags, params: VersionParams, response: { 200: SpecContentSchema, ...ErrorResponses } },
    },
    async (request, reply) => {
      const { organizationId, specSlug, versionId } = request.params;
      const view = await getSpecVersionContent(ctx, callerOf(request), organizationId, specSlug, versionId);
      return reply.type('application/json; charset=utf-8').send(presentContentJson(urls, view) as never);
    },
  );
};
