import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses } from '../../schemas.js';
import {
  getOrganizationMergeRules,
  getSpaceMergeRules,
  setOrganizationMergeRules,
  setSpaceMergeRules,
} from '../../../domain/change-requests/mergeability.js';
import { getChangeRequestMergeability } from '../../../domain/change-requests/change-requests.js';
import {
  ChangeRequestParams,
  MergeabilitySchema,
  MergeRulesSchema,
  OrganizationMergeRulesBody,
  OrganizationParams,
  SpaceMergeRulesBody,
  SpaceParams,
} from './schema.js';
import { presentMergeability, presentMergeRules } from './presenter.js';

const EXTENSION = 'Quire extension: not in the spec nor in the reference.';

/** Merge rules (a Quire extension): an organization's default, a space's own or inherited, and a change request's mergeability. */
export const mergeRuleRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx }) => {
  app.get(
    '/orgs/:organizationId/merge-rules',
    {
      schema: {
        operationId: 'getOrganizationMergeRules',
        tags: ['merge-rules'],
        description: `${EXTENSION} The organization's default merge rules (any member).`,
        params: OrganizationParams,
        response: { 200: MergeRulesSchema, ...ErrorResponses },
      },
    },
    async (request) => presentMergeRules(await getOrganizationMergeRules(ctx, callerOf(request), request.params.organizationId)),
  );

  app.put(
    '/orgs/:organizationId/merge-rules',
    {
      schema: {
        operationId: 'setOrganizationMergeRules',
        tags: ['merge-rules'],
        description: `${EXTENSION} Sets the organization's default merge rules (its admins).`,
        params: OrganizationParams,
        body: OrganizationMergeRulesBody,
        response: { 200: MergeRulesSchema, ...ErrorResponses },
      },
    },
    async (request) => presentMergeRules(await setOrganizationMergeRules(ctx, callerOf(request), request.params.organizationId, request.body)),
  );

  app.get(
    '/spaces/:spaceId/merge-rules',
    {
      schema: {
        operationId: 'getSpaceMergeRules',
        tags: ['merge-rules'],
        description: `${EXTENSION} The space's effective merge rules and where they come from (read on the space).`,
        params: SpaceParams,
        response: { 200: MergeRulesSchema, ...ErrorResponses },
      },
    },
    async (request) => presentMergeRules(await getSpaceMergeRules(ctx, callerOf(request), request.params.spaceId)),
  );

  app.put(
    '/spaces/:spaceId/merge-rules',
    {
      schema: {
        operationId: 'setSpaceMergeRules',
        tags: ['merge-rules'],
        description: `${EXTENSION} Sets the space's own merge rules, or with \`{inherit: true}\` falls back to the organization's (the space's admins).`,
        params: SpaceParams,
        body: SpaceMergeRulesBody,
        response: { 200: MergeRulesSchema, ...ErrorResponses },
      },
    },
    async (request) => presentMergeRules(await setSpaceMergeRules(ctx, callerOf(request), request.params.spaceId, request.body)),
  );

  app.get(
    '/spaces/:spaceId/change-requests/:changeRequestId/merge-rules',
    {
      schema: {
        operationId: 'getChangeRequestMergeability',
        tags: ['merge-rules'],
        description: `${EXTENSION} Whether the space's merge rules let the change request be merged now, and what blocks it (read on the space).`,
        params: ChangeRequestParams,
        response: { 200: MergeabilitySchema, ...ErrorResponses },
      },
    },
    async (request) => {
      const { spaceId, changeRequestId } = request.params;
      return presentMergeability(await getChangeRequestMergeability(ctx, callerOf(request), spaceId, changeRequestId));
    },
  );
};
