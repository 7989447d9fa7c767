import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { RouteDeps } from '../deps.js';
import type { Urls } from '../../urls.js';
import { ErrorResponses } from '../../schemas.js';
import { sessionCookie } from '../../cookies.js';
import { samlServiceProvider } from '../../../domain/sso/saml.js';
import { SamlRefusal, finishSamlSignIn, startSamlSignIn } from '../../../domain/sso/saml-sign-in.js';
import { samlMetadataXml, samlService } from './presenter.js';

const Params = Type.Object({ providerId: Type.String({ minLength: 1, maxLength: 100 }) });
const StartQuery = Type.Object({ next: Type.Optional(Type.String({ maxLength: 2000 })) });
const FORM = 'application/x-www-form-urlencoded';
/** A signed response with a certificate and a few attributes is a few kilobytes; providers that add more stay well below. */
const ACS_BODY_LIMIT = 256 * 1024;

/** Every refusal and failure ends on the app's sign-in page with a short reason: never a 5xx, never a stack. */
function refuse(urls: Urls, request: FastifyRequest, reply: FastifyReply, error: unknown) {
  const reason = error instanceof SamlRefusal ? error.reason : 'sign_in_failed';
  request.log.info({ reason, err: { message: (error as Error).message } }, 'SAML sign-in refused')
  return reply.header('cache-control', 'no-store').redirect(urls.app(`/sign-in?error=${reason}`), 303);
}

/**
 * The URLs a SAML provider's answer hands out (`entityID`, `acsURL`, `startURL`), outside /v1 and the OpenAPI
 * document (browsers and identity providers follow them, not API clients): the metadata an identity provider's
 * administrator imports, where sign-in starts, and the assertion consumer service.
 */
export const samlServiceProviderRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  // The identity provider posts a form (HTTP-POST binding); the API takes JSON. WHATWG's parser, the last of repeated fields.
  app.addContentTypeParser(FORM, { parseAs: 'string', bodyLimit: ACS_BODY_LIMIT }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(String(body))));
  });

  app.get('/sso/saml/:providerId/metadata', { schema: { hide: true, params: Params, response: { ...ErrorResponses } } }, async (request, reply) => {
    const provider = await samlServiceProvider(ctx, request.params.providerId);
    const xml = samlMetadataXml(urls, provider.id);
    return reply.header('content-type', 'application/samlmetadata+xml; charset=utf-8').send(xml as never);
  });

  app.get(
    '/sso/saml/:providerId/start',
    { schema: { hide: true, params: Params, querystring: StartQuery, response: { ...ErrorResponses } } },
    async (request, reply) => {
      try {
        const { providerId } = request.params;
        const started = await startSamlSignIn(ctx, { providerId, next: request.query.next, urls: samlService(urls, providerId) });
        return reply.header('cache-control', 'no-store').redirect(started.location, 303);
      } catch (error) {
        return refuse(urls, request, reply, error);
      }
    },
  );

  // Responses come by HTTP-POST only; a browser that opens the ACS (a bookmark, the back button) goes to sign in.
  app.get('/sso/saml/:providerId/acs', { schema: { hide: true, params: Params, response: { ...ErrorResponses } } }, async (request, reply) =>
    refuse(urls, request, reply, new SamlRefusal('provider_refused', 'SAMLResponse: the ACS takes responses by HTTP-POST only')),
  );

  // No CSRF token: the post comes cross-site from the identity provider, and the signed response is the proof.
  app.post(
    '/sso/saml/:providerId/acs',
    { bodyLimit: ACS_BODY_LIMIT, schema: { hide: true, params: Params, response: { ...ErrorResponses } } },
    async (request, reply) => {
      try {
        const { providerId } = request.params;
        const body = (request.body ?? {}) as Record<string, unknown>;
        const field = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : undefined);
        const { started, next } = await finishSamlSignIn(ctx, {
          providerId,
          samlResponse: field('SAMLResponse'),
          relayState: field('RelayState'),
          urls: samlService(urls, providerId),
          client: { address: request.ip, userAgent: request.headers['user-agent'] },
        });
        // SameSite=Lax is set on this answer to a cross-site POST: it is a top-level navigation, and the cookie then
        // comes with the redirect that follows.
        return reply
          .header('set-cookie', sessionCookie(urls, started.secret, started.session.expires_at))
          .header('cache-control', 'no-store')
          .redirect(urls.base(next), 303);
      } catch (error) {
        return refuse(urls, request, reply, error);
      }
    },
  );
};
