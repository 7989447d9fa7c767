import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { RouteDeps } from '../deps.js';
import { ErrorResponses } from '../../schemas.js';
import { samlServiceProvider, samlSignIn } from '../../../domain/sso/saml.js';
import { samlMetadataXml } from './presenter.js';

const Params = Type.Object({ providerId: Type.String({ minLength: 1, maxLength: 100 }) });

/**
 * The URLs a SAML provider's answer hands out (`entityID`, `acsURL`, `startURL`), outside /v1: the metadata an
 * identity provider's administrator imports, and the sign-in endpoints, which answer 501 (Quire signs people in with
 * API tokens only).
 */
export const samlServiceProviderRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  app.get('/sso/saml/:providerId/metadata', { schema: { hide: true, params: Params, response: { ...ErrorResponses } } }, async (request, reply) => {
    const provider = await samlServiceProvider(ctx, request.params.providerId);
    const xml = samlMetadataXml(urls, provider.id);
    return reply.header('content-type', 'application/samlmetadata+xml; charset=utf-8').send(xml as never);
  });

  for (const endpoint of ['start', 'acs']) {
    app.get(`/sso/saml/:providerId/${endpoint}`, { schema: { hide: true, params: Params, response: { ...ErrorResponses } } }, async (request) =>
      samlSignIn(ctx, request.params.providerId),
    );
  }
};
