import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses, ListOf, NoContent } from '../../schemas.js';
import { presentList, noContent } from '../../present.js';
import {
  getMember,
  listMembers,
  listMemberSpaces,
  listMemberTeams,
  pingMember,
  removeMember,
  setSsoMember,
  updateMember,
} from '../../../domain/members/members.js';
import {
  ListMembersQuery,
  MemberList,
  MemberParams,
  MemberSchema,
  MemberSpaceSchema,
  MemberSpacesQuery,
  MemberTeamsQuery,
  OrganizationParams,
  PingReply,
  UpdateMemberBody,
} from './schema.js';
import { MemberTeamSchema } from '../teams/schema.js';
import { presentMember, presentMemberSpace } from './presenter.js';
import { presentMemberTeam } from '../teams/presenter.js';

const tags = ['members'];

export const memberRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  app.get(
    '/orgs/:organizationId/members',
    {
      schema: {
        operationId: 'listMembersInOrganizationById',
        tags,
        params: OrganizationParams,
        querystring: ListMembersQuery,
        response: { 200: MemberList, ...ErrorResponses },
      },
    },
    async (request) =>
      presentList(await listMembers(ctx, callerOf(request), request.params.organizationId, request.query), (m) => presentMember(urls, m)),
  );

  app.get(
    '/orgs/:organizationId/members/:userId',
    { schema: { operationId: 'getMemberInOrganizationById', tags, params: MemberParams, response: { 200: MemberSchema, ...ErrorResponses } } },
    async (request) => presentMember(urls, await getMember(ctx, callerOf(request), request.params.organizationId, request.params.userId)),
  );

  app.delete(
    '/orgs/:organizationId/members/:userId',
    { schema: { operationId: 'removeMemberFromOrganizationById', tags, params: MemberParams, response: { 204: NoContent, ...ErrorResponses } } },
    async (request, reply) => {
      await removeMember(ctx, callerOf(request), request.params.organizationId, request.params.userId);
      return noContent(reply, 204);
    },
  );

  app.patch(
    '/orgs/:organizationId/members/:userId',
    {
      schema: {
        operationId: 'updateMemberInOrganizationById',
        tags,
        params: MemberParams,
        body: UpdateMemberBody,
        response: { 200: MemberSchema, ...ErrorResponses },
      },
    },
    async (request) =>
      presentMember(urls, await updateMember(ctx, callerOf(request), request.params.organizationId, request.params.userId, request.body)),
  );

  app.post(
    '/orgs/:organizationId/ping',
    {
      schema: {
        operationId: 'updateOrganizationMemberLastSeenAt',
        tags,
        params: OrganizationParams,
        response: { 200: PingReply, ...ErrorResponses },
      },
    },
    async (request) => {
      const { visitorClaims } = await pingMember(ctx, callerOf(request), request.params.organizationId);
      return { serviceVisitorClaims: visitorClaims };
    },
  );

  app.post(
    '/orgs/:organizationId/members/:userId/sso',
    {
      schema: {
        operationId: 'setUserAsSSOMemberForOrganization',
        tags,
        params: MemberParams,
        response: { 200: MemberSchema, ...ErrorResponses },
      },
    },
    async (request) => presentMember(urls, await setSsoMember(ctx, callerOf(request), request.params.organizationId, request.params.userId)),
  );

  app.get(
    '/orgs/:organizationId/members/:userId/spaces',
    {
      schema: {
        operationId: 'listSpacesForOrganizationMember',
        tags,
        params: MemberParams,
        querystring: MemberSpacesQuery,
        response: { 200: ListOf(MemberSpaceSchema), ...ErrorResponses },
      },
    },
    async (request) =>
      presentList(await listMemberSpaces(ctx, callerOf(request), request.params.organizationId, request.params.userId, request.query), (s) =>
        presentMemberSpace(urls, s),
      ),
  );

  app.get(
    '/orgs/:organizationId/members/:userId/teams',
    {
      schema: {
        operationId: 'listTeamsForOrganizationMember',
        tags,
        params: MemberParams,
        querystring: MemberTeamsQuery,
        response: { 200: ListOf(MemberTeamSchema), ...ErrorResponses },
      },
    },
    async (request) =>
      presentList(await listMemberTeams(ctx, callerOf(request), request.params.organizationId, request.params.userId, request.query), presentMemberTeam),
  );
};
