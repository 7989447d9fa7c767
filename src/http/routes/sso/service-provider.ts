import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { RouteDeps } from '../index.js';
import { ErrorResponses } from '../../schemas.js';
import { samlServiceProvider, samlSignIn } from '../../../domain/sso/saml.js';
import { samlService } from './presenter.js';
import { escapeHtml } from '../../../content/html-text.js';

const Params = Type.Object({ providerId: Type.String({ minLength: 1, maxLength: 100 }) });

/**
 * The URLs a SAML provider's answer hands out (`entityID`, `acsURL`, `startURL`), outside /v1: the metadata an
 * identity provider's administrator imports, and the sign-in endpoints, which answer 501 (Quire signs people in with
 * API tokens only).
 */
export const samlServiceProviderRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  app.get('/sso/saml/:providerId/metadata', { schema: { hide: true, params: Params, response: { ...ErrorResponses } } }, async (request, reply) => {
    const provider = await samlServiceProvider(ctx, request.params.providerId);
    const { entityID, acsURL } = samlService(urls, provider.id);
    const xml = [
      '<?xml version="1.0" encoding="UTF-8"?>',
      `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${escapeHtml(entityID)}">`,
      '  <md:SPSSODescriptor AuthnRequestsSigned="false" WantAssertionsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">',
      '    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>',
      `    <md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${escapeHtml(acsURL)}" index="0" isDefault="true"/>`,
      '  </md:SPSSODescriptor>',
      '</md:EntityDescriptor>',
      '',
    ].join('\n');
    return reply.header('content-type', 'application/samlmetadata+xml; charset=utf-8').send(xml as never);
  });

  for (const endpoint of ['start', 'acs']) {
    app.get(`/sso/saml/:providerId/${endpoint}`, { schema: { hide: true, params: Params, response: { ...ErrorResponses } } }, async (request) =>
      samlSignIn(ctx, request.params.providerId),
    );
  }
};
