import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses, ListOf, NoContent } from '../../schemas.js';
import { presentList, noContent } from '../../present.js';
import {
  addTeamMember,
  createTeam,
  deleteTeam,
  getTeam,
  listTeamMembers,
  listTeams,
  removeTeamMember,
  renameTeam,
  updateTeamMembers,
} from '../../../domain/teams/teams.js';
import {
  AddTeamMemberBody,
  CreateTeamBody,
  ListTeamsQuery,
  TeamMemberItemSchema,
  TeamMemberParams,
  TeamMembersQuery,
  TeamParams,
  TeamSchema,
  TeamsParams,
  UpdateTeamBody,
  UpdateTeamMembersBody,
} from './schema.js';
import { presentTeam, presentTeamMember } from './presenter.js';

const tags = ['teams'];

export const teamRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  app.get(
    '/orgs/:organizationId/teams',
    {
      schema: {
        operationId: 'listTeamsInOrganizationById',
        tags,
        params: TeamsParams,
        querystring: ListTeamsQuery,
        response: { 200: ListOf(TeamSchema), ...ErrorResponses },
      },
    },
    async (request) => presentList(await listTeams(ctx, callerOf(request), request.params.organizationId, request.query), presentTeam),
  );

  app.put(
    '/orgs/:organizationId/teams',
    {
      schema: {
        operationId: 'createOrganizationTeam',
        tags,
        params: TeamsParams,
        body: CreateTeamBody,
        response: { 201: TeamSchema, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const team = await createTeam(ctx, callerOf(request), request.params.organizationId, request.body);
      return reply.status(201).send(presentTeam(team));
    },
  );

  app.get(
    '/orgs/:organizationId/teams/:teamId',
    { schema: { operationId: 'getTeamInOrganizationById', tags, params: TeamParams, response: { 200: TeamSchema, ...ErrorResponses } } },
    async (request) => presentTeam(await getTeam(ctx, callerOf(request), request.params.organizationId, request.params.teamId)),
  );

  app.delete(
    '/orgs/:organizationId/teams/:teamId',
    { schema: { operationId: 'removeTeamFromOrganizationById', tags, params: TeamParams, response: { 204: NoContent, ...ErrorResponses } } },
    async (request, reply) => {
      await deleteTeam(ctx, callerOf(request), request.params.organizationId, request.params.teamId);
      return noContent(reply, 204);
    },
  );

  app.patch(
    '/orgs/:organizationId/teams/:teamId',
    {
      schema: {
        operationId: 'updateTeamInOrganizationById',
        tags,
        params: TeamParams,
        body: UpdateTeamBody,
        response: { 200: TeamSchema, ...ErrorResponses },
      },
    },
    async (request) =>
      presentTeam(await renameTeam(ctx, callerOf(request), request.params.organizationId, request.params.teamId, request.body.title)),
  );

  app.get(
    '/orgs/:organizationId/teams/:teamId/members',
    {
      schema: {
        operationId: 'listTeamMembersInOrganizationById',
        tags,
        params: TeamParams,
        querystring: TeamMembersQuery,
        response: { 200: ListOf(TeamMemberItemSchema), ...ErrorResponses },
      },
    },
    async (request) =>
      presentList(await listTeamMembers(ctx, callerOf(request), request.params.organizationId, request.params.teamId, request.query), (m) =>
        presentTeamMember(urls, m),
      ),
  );

  app.put(
    '/orgs/:organizationId/teams/:teamId/members',
    {
      schema: {
        operationId: 'updateMembersInOrganizationTeam',
        tags,
        params: TeamParams,
        body: UpdateTeamMembersBody,
        response: { 204: NoContent, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      await updateTeamMembers(ctx, callerOf(request), request.params.organizationId, request.params.teamId, request.body);
      return noContent(reply, 204);
    },
  );

  app.put(
    '/orgs/:organizationId/teams/:teamId/members/:userId',
    {
      schema: {
        operationId: 'addMemberToOrganizationTeamById',
        tags,
        params: TeamMemberParams,
        body: AddTeamMemberBody,
        response: { 204: NoContent, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const { organizationId, teamId, userId } = request.params;
      await addTeamMember(ctx, callerOf(request), organizationId, teamId, userId, request.body ?? {});
      return noContent(reply, 204);
    },
  );

  app.delete(
    '/orgs/:organizationId/teams/:teamId/members/:userId',
    {
      schema: {
        operationId: 'deleteMemberFromOrganizationTeamById',
        tags,
        params: TeamMemberParams,
        response: { 204: NoContent, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const { organizationId, teamId, userId } = request.params;
      await removeTeamMember(ctx, callerOf(request), organizationId, teamId, userId);
      return noContent(reply, 204);
    },
  );
};
