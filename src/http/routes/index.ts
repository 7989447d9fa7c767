/**
 * Every resource plugin and its prefix: the whole API in one file.
 */
import type { FastifyInstance } from 'fastify';
import type { RouteDeps } from './deps.js';
import type { EventBus } from '../../events/bus.js';
import { registerAuth } from '../plugins/auth.js';
import { organizationRoutes } from './organizations/index.js';
import { memberRoutes } from './members/index.js';
import { teamRoutes } from './teams/index.js';
import { collectionRoutes } from './collections/index.js';
import { spaceRoutes } from './spaces/index.js';
import { gitRoutes } from './git/index.js';
import { downloadRoutes } from './downloads/index.js';
import { contentRoutes } from './content/index.js';
import { revisionRoutes } from './revisions/index.js';
import { commentRoutes } from './comments/index.js';
import { changeRequestRoutes } from './change-requests/index.js';
import { reviewRoutes } from './reviews/index.js';
import { changeRequestEventRoutes } from './change-request-events/index.js';
import { mergeRuleRoutes } from './merge-rules/index.js';
import { changeRoutes } from './changes/index.js';
import { inviteRoutes } from './invites/index.js';
import { ssoRoutes } from './sso/index.js';
import { samlServiceProviderRoutes } from './sso/service-provider.js';
import { oidcSignInRoutes, organizationOidcRoutes, signInProviderRoutes } from './oidc/index.js';
import { translationRoutes } from './translations/index.js';
import { openApiRoutes } from './openapi/index.js';
import { siteRoutes } from './sites/index.js';
import { previewRoutes } from './previews/index.js';
import { siteVisitorOidcRoutes } from './site-visitor-oidc/index.js';
import { siteSectionRoutes } from './site-sections/index.js';
import { siteSpaceRoutes } from './site-spaces/index.js';
import { shareLinkRoutes } from './share-links/index.js';
import { siteInsightRoutes } from './site-insights/index.js';
import { linkRoutes } from './links/index.js';
import { searchRoutes } from './search/index.js';
import { repositoryImportRoutes } from './repository-imports/index.js';
import { gitSyncRoutes } from './git-sync/index.js';
import { gitSyncWebhookRoutes } from './git-sync/webhooks.js';
import { mcpRoutes } from './mcp/index.js';
import { userRoutes } from './users/index.js';
import { publishedRoutes } from './published/index.js';


import { sessionRoutes, signInRoutes } from './sessions/index.js';
import { userTokenRoutes } from './user-tokens/index.js';
import { appRoutes } from './app/index.js';

export async function registerRoutes(app: FastifyInstance, deps: RouteDeps, events: EventBus): Promise<void> {
  await app.register(
    async (v1) => {
      registerAuth(v1, deps.ctx);
      await v1.register(userRoutes, deps);
      await v1.register(sessionRoutes, deps);
      await v1.register(userTokenRoutes, deps);
      await v1.register(organizationRoutes, deps);
      await v1.register(inviteRoutes, deps);
      await v1.register(memberRoutes, deps);
      await v1.register(teamRoutes, deps);
      await v1.register(ssoRoutes, deps);
      await v1.register(organizationOidcRoutes, deps);
      await v1.register(translationRoutes, deps);
      await v1.register(collectionRoutes, deps);
      await v1.register(spaceRoutes, deps);
      await v1.register(contentRoutes, deps);
      await v1.register(revisionRoutes, deps);
      await v1.register(commentRoutes, deps);
      await v1.register(changeRequestRoutes, deps);
      await v1.register(reviewRoutes, deps);
      await v1.register(changeRequestEventRoutes, { ...deps, events });
      await v1.register(mergeRuleRoutes, deps);
      await v1.register(changeRoutes, deps);
      await v1.register(openApiRoutes, deps);
      await v1.register(siteRoutes, deps);
      await v1.register(previewRoutes, deps);
      await v1.register(siteVisitorOidcRoutes, deps);
      await v1.register(siteSectionRoutes, deps);
      await v1.register(siteSpaceRoutes, deps);
      await v1.register(shareLinkRoutes, deps);
      await v1.register(siteInsightRoutes, deps);
      await v1.register(linkRoutes, deps);
      await v1.register(searchRoutes, deps);
      await v1.register(repositoryImportRoutes, deps);
      await v1.register(gitSyncRoutes, deps);
      // The organization's MCP server for agents (a Quire extension, outside the OpenAPI document).
      await v1.register(mcpRoutes, deps);
    },
    { prefix: '/v1' },
  );
  // Signing in: under /v1 but outside its authentication (it is how a browser gets its credentials).
  await app.register(signInRoutes, { ...deps, prefix: '/v1' });
  await app.register(signInProviderRoutes, { ...deps, prefix: '/v1' });
  // Git hosts' webhook deliveries: under /v1 but outside its bearer authentication (a delivery's signature is its own).
  await app.register(gitSyncWebhookRoutes, { ...deps, prefix: '/v1' });
  // Git over HTTP at /git/SPACE_ID.git: outside /v1, with its own authentication (HTTP Basic or bearer).
  await app.register(gitRoutes, deps);
  await app.register(downloadRoutes, deps);
  await app.register(samlServiceProviderRoutes, deps);
  // Signing in with OpenID Connect: the browser's round trip to the provider.
  await app.register(oidcSignInRoutes, deps);
  // The app for members in the browser, at /app (and / leading there).
  await app.register(appRoutes, deps);
  // Published sites, as readers see them: HTML outside /v1, anonymous by default.
  await app.register(publishedRoutes, deps);
}
