import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses, ListOf, NoContent } from '../../schemas.js';
import { presentList, noContent } from '../../present.js';
import { createShareLink, deleteShareLink, getShareLink, listShareLinks, updateShareLink } from '../../../domain/sites/share-links.js';
import { CreatedHeaders, ShareLinkSchema, SiteParams } from '../sites/schema.js';
import { presentShareLink } from '../sites/presenter.js';
import { CreateShareLinkBody, ListShareLinksQuery, ShareLinkParams, UpdateShareLinkBody } from './schema.js';

const tags = ['sites'];
const SHARE_LINKS = '/orgs/:organizationId/sites/:siteId/share-links';

export const shareLinkRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  app.get(
    SHARE_LINKS,
    { schema: { operationId: 'listSiteShareLinks', tags, params: SiteParams, querystring: ListShareLinksQuery, response: { 200: ListOf(ShareLinkSchema), ...ErrorResponses } } },
    async (request) =>
      presentList(await listShareLinks(ctx, callerOf(request), request.params.organizationId, request.params.siteId, request.query), (l) =>
        presentShareLink(urls, l),
      ),
  );

  app.post(
    SHARE_LINKS,
    {
      schema: {
        operationId: 'createSiteShareLink',
        tags,
        params: SiteParams,
        body: CreateShareLinkBody,
        response: { 201: { ...ShareLinkSchema, headers: CreatedHeaders }, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const { organizationId, siteId } = request.params;
      const view = await createShareLink(ctx, callerOf(request), organizationId, siteId, request.body);
      return reply
        .status(201)
        .header('location', urls.api(`/orgs/${organizationId}/sites/${siteId}/share-links/${view.link.id}`))
        .send(presentShareLink(urls, view));
    },
  );

  app.get(
    `${SHARE_LINKS}/:shareLinkId`,
    { schema: { operationId: 'getSiteShareLinkById', tags, params: ShareLinkParams, response: { 200: ShareLinkSchema, ...ErrorResponses } } },
    async (request) => {
      const { organizationId, siteId, shareLinkId } = request.params;
      return presentShareLink(urls, await getShareLink(ctx, callerOf(request), organizationId, siteId, shareLinkId));
    },
  );

  app.delete(
    `${SHARE_LINKS}/:shareLinkId`,
    { schema: { operationId: 'deleteSiteShareLinkById', tags, params: ShareLinkParams, response: { 204: NoContent, 205: NoContent, ...ErrorResponses } } },
    async (request, reply) => {
      const { organizationId, siteId, shareLinkId } = request.params;
      return noContent(reply, (await deleteShareLink(ctx, callerOf(request), organizationId, siteId, shareLinkId)) ? 205 : 204);
    },
  );

  app.patch(
    `${SHARE_LINKS}/:shareLinkId`,
    { schema: { operationId: 'updateSiteShareLinkById', tags, params: ShareLinkParams, body: UpdateShareLinkBody, response: { 200: ShareLinkSchema, ...ErrorResponses } } },
    async (request) => {
      const { organizationId, siteId, shareLinkId } = request.params;
      return presentShareLink(urls, await updateShareLink(ctx, callerOf(request), organizationId, siteId, shareLinkId, request.body));
    },
  );
};
