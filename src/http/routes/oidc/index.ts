import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RouteDeps } from '../deps.js';
import type { Urls } from '../../urls.js';
import { cookieValue, secureAttribute, sessionCookie } from '../../cookies.js';
import { OIDC_ATTEMPT_MS, OidcRefusal, finishOidcSignIn, listSignInProviders, startOidcSignIn } from '../../../domain/identity/oidc.js';
import { passwordResetByEmail } from '../../../domain/identity/password-reset.js';
import { getOidcProvider, removeOidcProvider, setOidcProvider } from '../../../domain/identity/oidc-providers.js';
import { callerOf } from '../../plugins/auth.js';
import { noContent } from '../../present.js';
import { ErrorResponses, NoContent } from '../../schemas.js';
import { OidcProviderSchema, OrganizationParams, SetOidcProviderBody, SignInProvidersSchema, StartQuery } from './schema.js';
import { presentOidcProvider, presentSignInProvider } from './presenter.js';

/** The cookie holding a started sign-in (sealed: PKCE verifier, state, nonce), sent back to the callback only. */
const ATTEMPT_COOKIE = 'quire_oidc';

function attemptCookie(urls: Urls, value: string, maxAgeSeconds: number): string {
  const path = `${new URL(urls.base('')).pathname.replace(/\/$/, '')}/sso/oidc/`;
  return `${ATTEMPT_COOKIE}=${value}; Path=${path}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secureAttribute(urls)}`;
}

/** Every refusal and failure ends on the app's sign-in page with a short reason: never a 5xx, never a stack. */
function refuse(urls: Urls, request: FastifyRequest, reply: FastifyReply, error: unknown) {
  const reason = error instanceof OidcRefusal ? error.reason : 'sign_in_failed';
  request.log.info({ reason, err: { message: (error as Error).message } }, 'OpenID Connect sign-in refused');
  return reply
    .header('set-cookie', attemptCookie(urls, '', 0))
    .header('cache-control', 'no-store')
    .redirect(urls.app(`/sign-in?error=${reason}`), 303);
}

/** The list of sign-in providers (a Quire extension): public, as signing in is. */
export const signInProviderRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  app.get(
    '/auth/providers',
    {
      schema: {
        operationId: 'listSignInProviders',
        summary: 'The identity providers the sign-in page offers (their labels are public).',
        tags: ['sessions'],
        security: [] as Array<Record<string, string[]>>,
        response: { 200: SignInProvidersSchema, ...ErrorResponses },
      },
    },
    async () => ({
      items: (await listSignInProviders(ctx)).map((provider) => presentSignInProvider(urls, provider)),
      passwordResetByEmail: passwordResetByEmail(ctx),
    }),
  );
};

/** The OpenID Connect sign-in flow, outside /v1 and the OpenAPI document (browsers follow it, not API clients). */
export const oidcSignInRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  const redirectUri = urls.base('/sso/oidc/callback');

  app.get('/sso/oidc/start', { schema: { hide: true, querystring: StartQuery, response: { ...ErrorResponses } } }, async (request, reply) => {
    try {
      const started = await startOidcSignIn(ctx, { provider: request.query.provider ?? 'instance', next: request.query.next, redirectUri });
      return reply
        .header('set-cookie', attemptCookie(urls, started.attempt, OIDC_ATTEMPT_MS / 1000))
        .header('cache-control', 'no-store')
        .redirect(started.location, 303);
    } catch (error) {
      return refuse(urls, request, reply, error);
    }
  });

  app.get('/sso/oidc/callback', { schema: { hide: true, response: { ...ErrorResponses } } }, async (request, reply) => {
    try {
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      const { started, next } = await finishOidcSignIn(ctx, {
        callbackUrl: new URL(`${redirectUri}${query}`),
        sealedAttempt: cookieValue(request.headers.cookie, ATTEMPT_COOKIE),
        client: { address: request.ip, userAgent: request.headers['user-agent'] },
      });
      return reply
        .header('set-cookie', [sessionCookie(urls, started.secret, started.session.expires_at), attemptCookie(urls, '', 0)])
        .header('cache-control', 'no-store')
        .redirect(urls.base(next), 303);
    } catch (error) {
      return refuse(urls, request, reply, error);
    }
  });
};

/** An organization's OpenID Connect provider (a Quire extension), for its admins; the client secret is never returned. */
export const organizationOidcRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  const tags = ['sso'];
  app.get(
    '/orgs/:organizationId/oidc',
    { schema: { operationId: 'getOrganizationOIDCProvider', tags, params: OrganizationParams, response: { 200: OidcProviderSchema, ...ErrorResponses } } },
    async (request) => presentOidcProvider(urls, await getOidcProvider(ctx, callerOf(request), request.params.organizationId)),
  );

  app.put(
    '/orgs/:organizationId/oidc',
    {
      schema: {
        operationId: 'setOrganizationOIDCProvider',
        summary: 'Set (make or replace) the organization\'s OpenID Connect provider.',
        tags,
        params: OrganizationParams,
        body: SetOidcProviderBody,
        response: { 200: OidcProviderSchema, ...ErrorResponses },
      },
    },
    async (request) => presentOidcProvider(urls, await setOidcProvider(ctx, callerOf(request), request.params.organizationId, request.body)),
  );

  app.delete(
    '/orgs/:organizationId/oidc',
    { schema: { operationId: 'deleteOrganizationOIDCProvider', tags, params: OrganizationParams, response: { 204: NoContent, ...ErrorResponses } } },
    async (request, reply) => {
      await removeOidcProvider(ctx, callerOf(request), request.params.organizationId);
      return noContent(reply, 204);
    },
  );
};
