import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses, ListOf } from '../../schemas.js';
import { presentList } from '../../present.js';
import {
  getOrganization,
  listOrganizations,
  listOrganizationsForEmailDomain,
  updateOrganization,
} from '../../../domain/organizations/organizations.js';
import {
  EmailDomainParams,
  ListOrganizationsQuery,
  OrganizationParams,
  OrganizationSchema,
  UpdateOrganizationBody,
} from './schema.js';
import { presentOrganization } from './presenter.js';

export const organizationRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  app.get(
    '/orgs',
    { schema: { operationId: 'listOrganizationsForAuthenticatedUser', tags: ['organizations'], querystring: ListOrganizationsQuery, response: { 200: ListOf(OrganizationSchema), ...ErrorResponses } } },
    async (request) => presentList(await listOrganizations(ctx, callerOf(request), request.query), (o) => presentOrganization(urls, o)),
  );

  app.get(
    '/orgs/:organizationId',
    { schema: { operationId: 'getOrganizationById', tags: ['organizations'], params: OrganizationParams, response: { 200: OrganizationSchema, ...ErrorResponses } } },
    async (request) => presentOrganization(urls, await getOrganization(ctx, callerOf(request), request.params.organizationId)),
  );

  app.patch(
    '/orgs/:organizationId',
    {
      schema: {
        operationId: 'updateOrganizationById',
        tags: ['organizations'],
        params: OrganizationParams,
        body: UpdateOrganizationBody,
        response: { 200: OrganizationSchema, ...ErrorResponses },
      },
    },
    async (request) => presentOrganization(urls, await updateOrganization(ctx, callerOf(request), request.params.organizationId, request.body)),
  );

  app.get(
    '/email-domains/:emailDomain/orgs',
    {
      schema: {
        operationId: 'getOrganizationsForEmailDomain',
        tags: ['organizations'],
        params: EmailDomainParams,
        response: { 200: Type.Object({ organizations: Type.Array(OrganizationSchema) }), ...ErrorResponses },
      },
    },
    async (request) => ({
      organizations: (await listOrganizationsForEmailDomain(ctx, callerOf(request), request.params.emailDomain)).map((o) => presentOrganization(urls, o)),
    }),
  );
};
