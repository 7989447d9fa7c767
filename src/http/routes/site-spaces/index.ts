import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses, ListOf, NoContent } from '../../schemas.js';
import { presentList, noContent } from '../../present.js';
import { getStructureItem } from '../../../domain/sites/structure.js';
import { addSiteSpace, deleteSiteSpace, listSiteSpaces, moveSiteSpace, updateSiteSpace } from '../../../domain/sites/site-spaces.js';
import { anchorOf, CreatedHeaders, PublishedQuery, SiteParams, SiteSpaceSchema } from '../sites/schema.js';
import { presentSiteSpace, presentSiteSpaceOf } from '../sites/presenter.js';
import { AddSiteSpaceBody, ListSiteSpacesQuery, MoveSiteSpaceBody, SiteSpaceParams, UpdateSiteSpaceBody } from './schema.js';

const tags = ['sites'];
const SITE_SPACES = '/orgs/:organizationId/sites/:siteId/site-spaces';

export const siteSpaceRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  app.get(
    SITE_SPACES,
    { schema: { operationId: 'listSiteSpaces', tags, params: SiteParams, querystring: ListSiteSpacesQuery, response: { 200: ListOf(SiteSpaceSchema), ...ErrorResponses } } },
    async (request) => {
      const { tree, page } = await listSiteSpaces(ctx, callerOf(request), request.params.organizationId, request.params.siteId, request.query);
      return presentList(page, (s) => presentSiteSpace(urls, tree, s));
    },
  );

  app.post(
    SITE_SPACES,
    {
      schema: {
        operationId: 'addSpaceToSite',
        tags,
        params: SiteParams,
        body: AddSiteSpaceBody,
        response: { 201: { ...SiteSpaceSchema, headers: CreatedHeaders }, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const siteSpace = presentSiteSpaceOf(urls, await addSiteSpace(ctx, callerOf(request), request.params.organizationId, request.params.siteId, request.body));
      return reply.status(201).header('location', siteSpace.urls.location).send(siteSpace);
    },
  );

  app.get(
    `${SITE_SPACES}/:siteSpaceId`,
    { schema: { operationId: 'getSiteSpaceById', tags, params: SiteSpaceParams, querystring: PublishedQuery, response: { 200: SiteSpaceSchema, ...ErrorResponses } } },
    async (request) => {
      const { organizationId, siteId, siteSpaceId } = request.params;
      const item = { type: 'site-space', id: siteSpaceId } as const;
      return presentSiteSpaceOf(urls, await getStructureItem(ctx, callerOf(request), organizationId, siteId, item, request.query.shareKey));
    },
  );

  app.delete(
    `${SITE_SPACES}/:siteSpaceId`,
    { schema: { operationId: 'deleteSiteSpaceById', tags, params: SiteSpaceParams, response: { 204: NoContent, 205: NoContent, ...ErrorResponses } } },
    async (request, reply) => {
      const { organizationId, siteId, siteSpaceId } = request.params;
      return noContent(reply, (await deleteSiteSpace(ctx, callerOf(request), organizationId, siteId, siteSpaceId)) ? 205 : 204);
    },
  );

  app.patch(
    `${SITE_SPACES}/:siteSpaceId`,
    { schema: { operationId: 'updateSiteSpaceById', tags, params: SiteSpaceParams, body: UpdateSiteSpaceBody, response: { 200: SiteSpaceSchema, ...ErrorResponses } } },
    async (request) => {
      const { organizationId, siteId, siteSpaceId } = request.params;
      return presentSiteSpaceOf(urls, await updateSiteSpace(ctx, callerOf(request), organizationId, siteId, siteSpaceId, request.body));
    },
  );

  app.post(
    `${SITE_SPACES}/:siteSpaceId/move`,
    {
      schema: {
        operationId: 'moveSiteSpace',
        tags,
        deprecated: true,
        params: SiteSpaceParams,
        body: MoveSiteSpaceBody,
        response: { 200: SiteSpaceSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      const { organizationId, siteId, siteSpaceId } = request.params;
      const anchor = anchorOf(request.body?.position, (p) => ({ type: p.type, id: p.siteSpace }), 'position');
      return presentSiteSpaceOf(urls, await moveSiteSpace(ctx, callerOf(request), organizationId, siteId, siteSpaceId, anchor));
    },
  );
};
