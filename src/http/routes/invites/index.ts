import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses, ListOf, NoContent } from '../../schemas.js';
import { noContent, presentList } from '../../present.js';
import {
  createLinkInvite,
  deleteLinkInvite,
  getLinkInvite,
  joinWithLinkInvite,
  listLinkInvites,
  updateLinkInvite,
} from '../../../domain/organizations/invites.js';
import { InviteBody, InviteParams, InviteSchema, InvitesQuery, JoinReply, OrganizationParams } from './schema.js';
import { presentInvite } from './presenter.js';

const tags = ['organization-invites'];

/** Marks the operations the spec does not list (it has only the deletion, deleteOrganizationInviteById). */
const EXTENSION = 'Quire extension: not in the spec; the reference operation of the same operationId.';

/** Invite links (src/domain/organizations/invites.ts explains the choices). */
export const inviteRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  app.get(
    '/orgs/:organizationId/link-invites',
    {
      schema: {
        operationId: 'listOrganizationInviteLinks',
        tags,
        description: `${EXTENSION} The organization's invite links, oldest first (admins).`,
        params: OrganizationParams,
        querystring: InvitesQuery,
        response: { 200: ListOf(InviteSchema), ...ErrorResponses },
      },
    },
    async (request) =>
      presentList(await listLinkInvites(ctx, callerOf(request), request.params.organizationId, request.query), (i) => presentInvite(urls, i)),
  );

  app.post(
    '/orgs/:organizationId/link-invites',
    {
      schema: {
        operationId: 'createOrganizationInvite',
        tags,
        description:
          `${EXTENSION} Creates an invite link giving \`role\` (null: guest) to whoever uses it (admins; 409 while the ` +
          "organization's `inviteLinks` is off). Share `urls.app`; joining is a POST to `urls.join`.",
        params: OrganizationParams,
        body: InviteBody,
        response: { 201: InviteSchema, ...ErrorResponses },
      },
    },
    async (request, reply) =>
      reply.status(201).send(presentInvite(urls, await createLinkInvite(ctx, callerOf(request), request.params.organizationId, request.body))),
  );

  app.get(
    '/orgs/:organizationId/link-invites/:inviteId',
    {
      schema: {
        operationId: 'getOrganizationInviteLink',
        tags,
        description: `${EXTENSION} An invite link, for admins and for anyone holding its id (non-members too).`,
        params: InviteParams,
        response: { 200: InviteSchema, ...ErrorResponses },
      },
    },
    async (request) => presentInvite(urls, await getLinkInvite(ctx, callerOf(request), request.params.organizationId, request.params.inviteId)),
  );

  app.patch(
    '/orgs/:organizationId/link-invites/:inviteId',
    {
      schema: {
        operationId: 'updateOrganizationInviteById',
        tags,
        description: `${EXTENSION} Changes the role an invite link gives (admins); members who already joined keep theirs.`,
        params: InviteParams,
        body: InviteBody,
        response: { 200: InviteSchema, ...ErrorResponses },
      },
    },
    async (request) =>
      presentInvite(urls, await updateLinkInvite(ctx, callerOf(request), request.params.organizationId, request.params.inviteId, request.body)),
  );

  app.delete(
    '/orgs/:organizationId/link-invites/:inviteId',
    {
      schema: {
        operationId: 'deleteOrganizationInviteById',
        tags: ['organizations'],
        params: InviteParams,
        response: { 204: NoContent, 205: NoContent, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const deleted = await deleteLinkInvite(ctx, callerOf(request), request.params.organizationId, request.params.inviteId);
      return noContent(reply, deleted ? 205 : 204);
    },
  );

  app.get(
    '/orgs/:organizationId/invites/:inviteId',
    {
      schema: {
        operationId: 'getOrganizationInviteToJoin',
        tags,
        description: `${EXTENSION} The invite link a join URL (an invite's \`urls.join\`) joins with: what a POST to it would do.`,
        params: InviteParams,
        response: { 200: InviteSchema, ...ErrorResponses },
      },
    },
    async (request) => presentInvite(urls, await getLinkInvite(ctx, callerOf(request), request.params.organizationId, request.params.inviteId)),
  );

  app.post(
    '/orgs/:organizationId/invites/:inviteId',
    {
      schema: {
        operationId: 'joinOrganizationWithInvite',
        tags,
        description:
          `${EXTENSION} Joins the organization with an invite link: a new member gets its role, an existing member the ` +
          'stronger of theirs and its role. 404 for an unknown invite or while invite links are off.',
        params: InviteParams,
        response: { 200: JoinReply, ...ErrorResponses },
      },
    },
    async (request) => {
      await joinWithLinkInvite(ctx, callerOf(request), request.params.organizationId, request.params.inviteId);
      return {};
    },
  );
};
