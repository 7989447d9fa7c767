import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses, UserSchema } from '../../schemas.js';
import { DELETED_USER_ID, presentDeletedUser, presentUser } from '../../present.js';
import { getUser } from '../../../domain/identity/users.js';

const tags = ['users'];

/**
 * The reference's user reads (not in the spec's list, but its client's getAuthenticatedUser and the `location` of
 * every user object lead here): the caller, and a user who shares an organization with them.
 */
export const userRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  app.get(
    '/user',
    { schema: { operationId: 'getAuthenticatedUser', tags, response: { 200: UserSchema, ...ErrorResponses } } },
    async (request) => presentUser(urls, callerOf(request).user),
  );

  app.get(
    '/users/:userId',
    {
      schema: {
        operationId: 'getUserById',
        tags,
        params: Type.Object({ userId: Type.String({ minLength: 1, maxLength: 100 }) }),
        response: { 200: UserSchema, ...ErrorResponses },
      },
    },
    async (request) => {
      const caller = callerOf(request);
      if (request.params.userId === DELETED_USER_ID) return presentDeletedUser(urls);
      return presentUser(urls, await getUser(ctx, caller, request.params.userId));
    },
  );
};
