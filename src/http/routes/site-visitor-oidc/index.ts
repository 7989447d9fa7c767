/** A visitor-auth site's OpenID Connect provider (a Quire extension), for the organization's admins; the secret is never returned. */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses, NoContent } from '../../schemas.js';
import { noContent } from '../../present.js';
import { SiteParams } from '../sites/schema.js';
import { servedAt } from '../sites/presenter.js';
import { VISITOR_CALLBACK_PATH } from '../published/visitor-sign-in.js';
import type { Urls } from '../../urls.js';
import { getSiteOidcProvider, removeSiteOidcProvider, setSiteOidcProvider, type SiteOidcProviderView } from '../../../domain/sites/visitor-oidc.js';
import { SetSiteOidcProviderBody, SiteOidcProviderSchema } from './schema.js';

const EXTENSION = 'Quire extension: not in the spec nor in the reference.';
const tags = ['sites'];
const present = (urls: Urls, { site, ...provider }: SiteOidcProviderView) => ({
  object: 'site-oidc-provider' as const,
  siteId: site.id,
  ...provider,
  callbackUrl: `${servedAt(urls, site)}/${VISITOR_CALLBACK_PATH}`,
});

export const siteVisitorOidcRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  const path = '/orgs/:organizationId/sites/:siteId/visitor-oidc';
  app.get(
    path,
    { schema: { operationId: 'getSiteVisitorOIDCProvider', description: `${EXTENSION} The OpenID Connect provider the site's visitors sign in with (admins).`, tags, params: SiteParams, response: { 200: SiteOidcProviderSchema, ...ErrorResponses } } },
    async (request) => present(urls, await getSiteOidcProvider(ctx, callerOf(request), request.params.organizationId, request.params.siteId)),
  );
  app.put(
    path,
    {
      schema: {
        operationId: 'setSiteVisitorOIDCProvider',
        description:
          `${EXTENSION} Sets the provider a visitor-auth site sends anonymous visitors through: its ID token's and userinfo's claims become ` +
          "the visitor's claims (adaptive content). The client secret is stored encrypted and never returned (admins).",
        tags,
        params: SiteParams,
        body: SetSiteOidcProviderBody,
        response: { 200: SiteOidcProviderSchema, ...ErrorResponses },
      },
    },
    async (request) => present(urls, await setSiteOidcProvider(ctx, callerOf(request), request.params.organizationId, request.params.siteId, request.body)),
  );
  app.delete(
    path,
    { schema: { operationId: 'deleteSiteVisitorOIDCProvider', description: `${EXTENSION} Removes the site's provider: visitors open it with visitor tokens only (admins).`, tags, params: SiteParams, response: { 204: NoContent, ...ErrorResponses } } },
    async (request, reply) => {
      await removeSiteOidcProvider(ctx, callerOf(request), request.params.organizationId, request.params.siteId);
      return noContent(reply, 204);
    },
  );
};
