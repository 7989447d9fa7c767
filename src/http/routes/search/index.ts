import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses } from '../../schemas.js';
import { presentList, serializeNatively } from '../../present.js';
import { searchOrganization, searchSpace } from '../../../domain/search/search-queries.js';
import { OrganizationSearchList, OrganizationSearchParams, SearchQuery, SpaceSearchList, SpaceSearchParams } from './schema.js';
import { presentPageHit, presentSpaceHit } from './presenter.js';

/** Full-text search in a space (searchSpaceContent) and across an organization's spaces (searchOrganizationContent). */
export const searchRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  app.get(
    '/spaces/:spaceId/search',
    {
      schema: { operationId: 'searchSpaceContent', tags: ['space-content'], params: SpaceSearchParams, querystring: SearchQuery, response: { 200: SpaceSearchList, ...ErrorResponses } },
      serializerCompiler: serializeNatively,
    },
    async (request) => {
      const { query, ...page } = request.query;
      return presentList(await searchSpace(ctx, callerOf(request), request.params.spaceId, query, page), (hit) => presentPageHit(urls, hit));
    },
  );

  app.get(
    '/orgs/:organizationId/search',
    {
      schema: {
        operationId: 'searchOrganizationContent',
        tags: ['organizations'],
        params: OrganizationSearchParams,
        querystring: SearchQuery,
        response: { 200: OrganizationSearchList, ...ErrorResponses },
      },
      serializerCompiler: serializeNatively,
    },
    async (request) => {
      const { query, ...page } = request.query;
      return presentList(await searchOrganization(ctx, callerOf(request), request.params.organizationId, query, page), (hit) => presentSpaceHit(urls, hit));
    },
  );
};
