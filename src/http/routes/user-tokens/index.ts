import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { noContent } from '../../present.js';
import { ErrorResponses, NoContent } from '../../schemas.js';
import { createPersonalToken, listPersonalTokens, revokePersonalToken, type PersonalToken } from '../../../domain/identity/personal-tokens.js';
import { CreatePersonalTokenBody, CreatedPersonalTokenSchema, PersonalTokensSchema, TokenParams } from './schema.js';

const tags = ['users'];

const presentToken = (token: PersonalToken) => ({
  object: 'api-token' as const,
  id: token.id,
  ...(token.label ? { label: token.label } : {}),
  createdAt: token.created_at,
});

/** A user's own API tokens (a Quire extension): listed without their secrets, made, revoked. */
export const userTokenRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx }) => {
  app.get(
    '/user/tokens',
    { schema: { operationId: 'listUserTokens', tags, response: { 200: PersonalTokensSchema, ...ErrorResponses } } },
    async (request) => ({ items: (await listPersonalTokens(ctx, callerOf(request))).map(presentToken) }),
  );

  app.post(
    '/user/tokens',
    { schema: { operationId: 'createUserToken', tags, body: CreatePersonalTokenBody, response: { 201: CreatedPersonalTokenSchema, ...ErrorResponses } } },
    async (request, reply) => {
      const made = await createPersonalToken(ctx, callerOf(request), request.body);
      return reply.status(201).header('cache-control', 'no-store').send({ ...presentToken(made), token: made.token });
    },
  );

  app.delete(
    '/user/tokens/:tokenId',
    { schema: { operationId: 'revokeUserToken', tags, params: TokenParams, response: { 204: NoContent, ...ErrorResponses } } },
    async (request, reply) => {
      await revokePersonalToken(ctx, callerOf(request), request.params.tokenId);
      return noContent(reply, 204);
    },
  );
};
