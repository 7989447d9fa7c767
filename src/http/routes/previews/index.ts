/**
 * Previews: a site's as published for chosen visitor claims (the reference's getSitePublishingPreviewById), and a
 * change request's share link (a Quire extension). The links lead to the published site's routes (published/).
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses, NoContent } from '../../schemas.js';
import { noContent } from '../../present.js';
import { SiteParams } from '../sites/schema.js';
import { servedAt } from '../sites/presenter.js';
import { createSitePreviewLink } from '../../../domain/sites/site-previews.js';
import { CHANGE_REQUEST_PREVIEWS, changeRequestPreviewSite, createChangeRequestPreviewLink, revokeChangeRequestPreviewLinksOf } from '../../../domain/sites/change-request-previews.js';
import type { SiteRow } from '../../../store/sql/sites.js';
import { ChangeRequestPreviewLinkSchema, ChangeRequestPreviewParams, SitePreviewQuery, SitePreviewSchema } from './schema.js';

const EXTENSION = 'Quire extension: not in the spec nor in the reference.';

export const previewRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  const changeRequestPreviewUrl = (site: SiteRow, changeRequestId: string) =>
    urls.base(`${CHANGE_REQUEST_PREVIEWS}/${site.organization_id}/${encodeURIComponent(site.basename ?? site.id)}/${encodeURIComponent(changeRequestId)}`);

  app.get(
    '/orgs/:organizationId/sites/:siteId/publishing/preview',
    {
      schema: {
        operationId: 'getSitePublishingPreviewById',
        description:
          'A URL that opens the site as published (the site space `siteSpace`, else the default one) for one hour, without an account, ' +
          "whatever the site's visibility, as a visitor with the signed claims `claims` (Rison). For those who may edit the site.",
        tags: ['site-preview'],
        params: SiteParams,
        querystring: SitePreviewQuery,
        response: { 200: SitePreviewSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      const { organizationId, siteId } = request.params;
      const link = await createSitePreviewLink(ctx, callerOf(request), organizationId, siteId, request.query);
      // Quire's own address of the site, not its proxy's: the proxy may not pass the preview on.
      const path = link.prefix.map((segment) => `/${encodeURIComponent(segment)}`).join('');
      return { url: `${servedAt(urls, link.site)}${path}?preview=${encodeURIComponent(link.token)}` };
    },
  );

  app.get(
    '/spaces/:spaceId/change-requests/:changeRequestId/preview',
    {
      schema: {
        operationId: 'getChangeRequestPreview',
        description:
          `${EXTENSION} Where the change request's preview is: the site that publishes its space, as it would read with the change ` +
          'request merged, for members who may read the change request (signed in). 409 when no site publishes the space.',
        tags: ['change-requests'],
        params: ChangeRequestPreviewParams,
        response: { 200: SitePreviewSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      const { site, changeRequest } = await changeRequestPreviewSite(ctx, callerOf(request), request.params.spaceId, request.params.changeRequestId);
      return { url: changeRequestPreviewUrl(site, changeRequest.id) };
    },
  );

  app.post(
    '/spaces/:spaceId/change-requests/:changeRequestId/preview-link',
    {
      schema: {
        operationId: 'createChangeRequestPreviewLink',
        description:
          `${EXTENSION} A link that opens the change request's preview (the site that publishes its space, as it would read with the ` +
          'change request merged) without an account, until `expiresAt` or until the change request is merged or archived (edit on the space).',
        tags: ['change-requests'],
        params: ChangeRequestPreviewParams,
        response: { 200: ChangeRequestPreviewLinkSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      const link = await createChangeRequestPreviewLink(ctx, callerOf(request), request.params.spaceId, request.params.changeRequestId);
      return {
        url: `${changeRequestPreviewUrl(link.site, link.changeRequest.id)}?preview=${encodeURIComponent(link.token)}`,
        expiresAt: new Date(link.expiresAt).toISOString(),
      };
    },
  );

  app.delete(
    '/spaces/:spaceId/change-requests/:changeRequestId/preview-link',
    {
      schema: {
        operationId: 'revokeChangeRequestPreviewLinks',
        description: `${EXTENSION} Every preview link of the change request made so far stops working (edit on the space); new ones may be made.`,
        tags: ['change-requests'],
        params: ChangeRequestPreviewParams,
        response: { 204: NoContent, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      await revokeChangeRequestPreviewLinksOf(ctx, callerOf(request), request.params.spaceId, request.params.changeRequestId);
      return noContent(reply, 204);
    },
  );
};
