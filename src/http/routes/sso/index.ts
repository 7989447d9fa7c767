import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses, ListOf, NoContent } from '../../schemas.js';
import { noContent, presentList } from '../../present.js';
import {
  createSamlProvider,
  deleteSamlProvider,
  getSamlProvider,
  listSamlProviders,
  listSsoLogins,
  updateSamlProvider,
} from '../../../domain/sso/saml.js';
import {
  CreateSamlProviderBody,
  OrganizationParams,
  SamlProviderParams,
  SamlProviderSchema,
  SamlProvidersQuery,
  SsoLoginsSchema,
  UpdateSamlProviderBody,
} from './schema.js';
import { presentSamlProvider, presentSsoLogin } from './presenter.js';

const tags = ['sso'];

export const ssoRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  app.get(
    '/orgs/:organizationId/saml',
    {
      schema: {
        operationId: 'listSAMLProvidersInOrganizationById',
        tags,
        params: OrganizationParams,
        querystring: SamlProvidersQuery,
        response: { 200: ListOf(SamlProviderSchema), ...ErrorResponses },
      },
    },
    async (request) =>
      presentList(await listSamlProviders(ctx, callerOf(request), request.params.organizationId, request.query), (p) => presentSamlProvider(urls, p)),
  );

  app.post(
    '/orgs/:organizationId/saml',
    {
      schema: {
        operationId: 'createOrganizationSAMLProvider',
        tags,
        params: OrganizationParams,
        body: CreateSamlProviderBody,
        response: { 201: SamlProviderSchema, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const provider = presentSamlProvider(urls, await createSamlProvider(ctx, callerOf(request), request.params.organizationId, request.body));
      return reply.status(201).header('location', provider.urls.location).send(provider);
    },
  );

  app.get(
    '/orgs/:organizationId/saml/:samlProviderId',
    { schema: { operationId: 'getOrganizationSAMLProviderById', tags, params: SamlProviderParams, response: { 200: SamlProviderSchema, ...ErrorResponses } } },
    async (request) =>
      presentSamlProvider(urls, await getSamlProvider(ctx, callerOf(request), request.params.organizationId, request.params.samlProviderId)),
  );

  app.delete(
    '/orgs/:organizationId/saml/:samlProviderId',
    { schema: { operationId: 'deleteOrganizationSAMLProvider', tags, params: SamlProviderParams, response: { 204: NoContent, ...ErrorResponses } } },
    async (request, reply) => {
      await deleteSamlProvider(ctx, callerOf(request), request.params.organizationId, request.params.samlProviderId);
      return noContent(reply, 204);
    },
  );

  app.patch(
    '/orgs/:organizationId/saml/:samlProviderId',
    {
      schema: {
        operationId: 'updateOrganizationSAMLProvider',
        tags,
        params: SamlProviderParams,
        body: UpdateSamlProviderBody,
        response: { 200: SamlProviderSchema, ...ErrorResponses },
      },
    },
    async (request) =>
      presentSamlProvider(
        urls,
        await updateSamlProvider(ctx, callerOf(request), request.params.organizationId, request.params.samlProviderId, request.body),
      ),
  );

  app.get(
    '/orgs/:organizationId/sso',
    {
      schema: {
        operationId: 'listSSOProviderLoginsInOrganization',
        tags,
        description: "The organization's active SAML providers and where sign-in through each starts (any member).",
        params: OrganizationParams,
        response: { 200: SsoLoginsSchema, ...ErrorResponses },
      },
    },
    async (request) => ({ items: (await listSsoLogins(ctx, callerOf(request), request.params.organizationId)).map((p) => presentSsoLogin(urls, p)) }),
  );
};
