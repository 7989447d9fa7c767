import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses, ListOf, NoContent } from '../../schemas.js';
import { presentList, noContent } from '../../present.js';
import { OrganizationParams } from '../organizations/schema.js';
import {
  createSite,
  deleteSite,
  getAdaptiveSchema,
  getPublishedSite,
  getSite,
  listSites,
  listTemplateConditions,
  updateAdaptiveSchema,
  updateSite,
} from '../../../domain/sites/sites.js';
import { sortStructure } from '../../../domain/sites/structure.js';
import { getVisitorKey, rotateVisitorKey, type VisitorKeyView } from '../../../domain/sites/visitor-auth.js';
import {
  anchorOf,
  AdaptiveSchemaSchema,
  CreatedHeaders,
  CreateSiteBody,
  ListSitesQuery,
  PublishedQuery,
  PublishedSiteSchema,
  SiteParams,
  SiteSchema,
  SiteStructureItemSchema,
  SiteStructureSchema,
  SiteVisitorKeySchema,
  SortStructureBody,
  TemplateConditionsSchema,
  UpdateAdaptiveSchemaBody,
  UpdateSiteBody,
} from './schema.js';
import { presentPublished, presentSite, presentStructure, presentStructureItem } from './presenter.js';

const tags = ['sites'];
const EXTENSION = 'Quire extension: not in the spec nor in the reference.';

const presentVisitorKey = (view: VisitorKeyView) => ({ object: 'site-visitor-key' as const, ...view });

export const siteRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  app.get(
    '/orgs/:organizationId/sites',
    { schema: { operationId: 'listSites', tags, params: OrganizationParams, querystring: ListSitesQuery, response: { 200: ListOf(SiteSchema), ...ErrorResponses } } },
    async (request) => {
      const { type, ...query } = request.query;
      const page = await listSites(ctx, callerOf(request), request.params.organizationId, { ...query, types: type });
      return presentList(page, (s) => presentSite(urls, s));
    },
  );

  app.post(
    '/orgs/:organizationId/sites',
    {
      schema: {
        operationId: 'createSite',
        tags,
        params: OrganizationParams,
        body: CreateSiteBody,
        response: { 201: { ...SiteSchema, headers: CreatedHeaders }, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const site = presentSite(urls, await createSite(ctx, callerOf(request), request.params.organizationId, request.body ?? {}));
      return reply.status(201).header('location', site.urls.location).send(site);
    },
  );

  app.get(
    '/orgs/:organizationId/sites/:siteId',
    { schema: { operationId: 'getSiteById', tags, params: SiteParams, response: { 200: SiteSchema, ...ErrorResponses } } },
    async (request) => presentSite(urls, await getSite(ctx, callerOf(request), request.params.organizationId, request.params.siteId)),
  );

  app.delete(
    '/orgs/:organizationId/sites/:siteId',
    { schema: { operationId: 'deleteSiteById', tags, params: SiteParams, response: { 204: NoContent, 205: NoContent, ...ErrorResponses } } },
    async (request, reply) => {
      const deleted = await deleteSite(ctx, callerOf(request), request.params.organizationId, request.params.siteId);
      return noContent(reply, deleted ? 205 : 204);
    },
  );

  app.patch(
    '/orgs/:organizationId/sites/:siteId',
    { schema: { operationId: 'updateSiteById', tags, params: SiteParams, body: UpdateSiteBody, response: { 200: SiteSchema, ...ErrorResponses } } },
    async (request) =>
      presentSite(urls, await updateSite(ctx, callerOf(request), request.params.organizationId, request.params.siteId, request.body)),
  );

  app.get(
    '/orgs/:organizationId/sites/:siteId/adaptive-schema',
    { schema: { operationId: 'getSiteAdaptiveSchema', tags, params: SiteParams, response: { 200: AdaptiveSchemaSchema, ...ErrorResponses } } },
    async (request) => ({
      object: 'site-adaptive-schema' as const,
      ...(await getAdaptiveSchema(ctx, callerOf(request), request.params.organizationId, request.params.siteId)),
    }),
  );

  app.put(
    '/orgs/:organizationId/sites/:siteId/adaptive-schema',
    {
      schema: {
        operationId: 'updateSiteAdaptiveSchema',
        tags,
        params: SiteParams,
        body: UpdateAdaptiveSchemaBody,
        response: { 200: AdaptiveSchemaSchema, ...ErrorResponses },
      },
    },
    async (request) => ({
      object: 'site-adaptive-schema' as const,
      ...(await updateAdaptiveSchema(ctx, callerOf(request), request.params.organizationId, request.params.siteId, request.body.jsonSchema)),
    }),
  );

  app.get(
    '/orgs/:organizationId/sites/:siteId/adaptive-schema/template-conditions',
    {
      schema: {
        operationId: 'listSiteAdaptiveTemplateConditions',
        tags,
        params: SiteParams,
        response: { 200: TemplateConditionsSchema, ...ErrorResponses },
      },
    },
    async (request) => ({ items: await listTemplateConditions(ctx, callerOf(request), request.params.organizationId, request.params.siteId) }),
  );

  app.get(
    '/orgs/:organizationId/sites/:siteId/visitor-key',
    {
      schema: {
        operationId: 'getSiteVisitorKey',
        description:
          `${EXTENSION} The key visitor tokens of this site are signed with (HS256, the key's text as the secret), made on the ` +
          'first read; a visitor-auth site opens to whoever brings a valid token as `?jwt_token=`, its claims deciding the adaptive content (admins).',
        tags,
        params: SiteParams,
        response: { 200: SiteVisitorKeySchema, ...ErrorResponses },
      },
    },
    async (request) => presentVisitorKey(await getVisitorKey(ctx, callerOf(request), request.params.organizationId, request.params.siteId)),
  );

  app.post(
    '/orgs/:organizationId/sites/:siteId/visitor-key',
    {
      schema: {
        operationId: 'rotateSiteVisitorKey',
        description: `${EXTENSION} Replaces the site's visitor signing key: tokens signed with the previous one no longer open the site (admins).`,
        tags,
        params: SiteParams,
        response: { 200: SiteVisitorKeySchema, ...ErrorResponses },
      },
    },
    async (request) => presentVisitorKey(await rotateVisitorKey(ctx, callerOf(request), request.params.organizationId, request.params.siteId)),
  );

  app.get(
    '/orgs/:organizationId/sites/:siteId/published',
    {
      schema: {
        operationId: 'getPublishedContentSite',
        tags,
        params: SiteParams,
        querystring: PublishedQuery,
        response: { 200: PublishedSiteSchema, ...ErrorResponses },
      },
    },
    async (request) =>
      presentPublished(
        urls,
        await getPublishedSite(ctx, callerOf(request), request.params.organizationId, request.params.siteId, request.query.shareKey),
      ),
  );

  // Not in the spec; the reference's getSiteStructure and sortSiteStructure.
  app.get(
    '/orgs/:organizationId/sites/:siteId/structure',
    {
      schema: { operationId: 'getSiteStructure', tags, params: SiteParams, querystring: PublishedQuery, response: { 200: SiteStructureSchema, ...ErrorResponses } },
    },
    async (request) =>
      presentStructure(
        urls,
        await getPublishedSite(ctx, callerOf(request), request.params.organizationId, request.params.siteId, request.query.shareKey),
      ),
  );

  app.patch(
    '/orgs/:organizationId/sites/:siteId/structure/sort',
    {
      schema: {
        operationId: 'sortSiteStructure',
        tags,
        params: SiteParams,
        body: SortStructureBody,
        response: { 200: SiteStructureItemSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      const { item, position } = request.body;
      const anchor = anchorOf(position, (pointer) => pointer, 'position');
      const view = await sortStructure(ctx, callerOf(request), request.params.organizationId, request.params.siteId, item, anchor);
      return presentStructureItem(urls, view);
    },
  );
};
