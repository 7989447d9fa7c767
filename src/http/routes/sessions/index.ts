import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RouteDeps } from '../deps.js';
import type { Urls } from '../../urls.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses, ErrorSchema, NoContent } from '../../schemas.js';
import { noContent, presentUser } from '../../present.js';
import { SESSION_COOKIE, clearedSessionCookie, cookieValue, sessionCookie } from '../../cookies.js';
import {
  authenticateSession,
  changePassword,
  csrfTokenOf,
  listSessions,
  revokeSession,
  setPasswordWithLink,
  signInWithPassword,
  signOut,
  signOutEverywhere,
  type SessionClient,
  type StartedSession,
} from '../../../domain/identity/sessions.js';
import { NotFound } from '../../../domain/errors.js';
import { requestPasswordReset } from '../../../domain/identity/password-reset.js';
import {
  ChangePasswordBody,
  PasswordResetBody,
  PasswordResetRequestedSchema,
  SessionParams,
  SessionsSchema,
  SetPasswordBody,
  SignInBody,
  SignedInSchema,
  SignedOutSchema,
} from './schema.js';
import { presentSession } from './presenter.js';

const tags = ['sessions'];
/** Signing in needs no credentials: these operations say so to the OpenAPI document's readers. */
const PUBLIC = [] as Array<Record<string, string[]>>;

const clientOf = (request: FastifyRequest): SessionClient => ({ address: request.ip, userAgent: request.headers['user-agent'] });

function sendSignedIn(urls: Urls, reply: FastifyReply, started: StartedSession) {
  return reply
    .header('set-cookie', sessionCookie(urls, started.secret, started.session.expires_at))
    .header('cache-control', 'no-store')
    .send({ user: presentUser(urls, started.user), session: presentSession(started.session, started.session.id), csrfToken: started.csrfToken });
}

/** Signing in (a Quire extension): outside the API's authentication, each sets the session cookie. */
export const signInRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  app.post(
    '/auth/sign-in',
    {
      schema: {
        operationId: 'signIn',
        summary: 'Sign in with an e-mail address and a password; sets the session cookie.',
        tags,
        security: PUBLIC,
        body: SignInBody,
        response: { 200: SignedInSchema, ...ErrorResponses, 429: ErrorSchema },
      },
    },
    async (request, reply) => sendSignedIn(urls, reply, await signInWithPassword(ctx, request.body, clientOf(request))),
  );

  app.post(
    '/auth/password',
    {
      schema: {
        operationId: 'setPasswordWithLink',
        summary: 'Set a password with a one-time link\'s token, end the account\'s other sessions and sign in.',
        tags,
        security: PUBLIC,
        body: SetPasswordBody,
        response: { 200: SignedInSchema, ...ErrorResponses },
      },
    },
    async (request, reply) => sendSignedIn(urls, reply, await setPasswordWithLink(ctx, request.body, clientOf(request))),
  );

  app.post(
    '/auth/password-reset',
    {
      schema: {
        operationId: 'requestPasswordReset',
        summary: 'Mail a one-time link that sets the password to the account of an address, if there is one (when the server sends mail).',
        tags,
        security: PUBLIC,
        body: PasswordResetBody,
        response: { 202: PasswordResetRequestedSchema, ...ErrorResponses, 429: ErrorSchema },
      },
    },
    async (request, reply) => {
      const email = await requestPasswordReset(ctx, request.body, clientOf(request));
      return reply
        .status(202)
        .header('cache-control', 'no-store')
        .send({ email, message: 'If an account has this address, a link to set its password is on its way.' });
    },
  );
};

/** A signed-in user's sessions (a Quire extension). */
export const sessionRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  app.get(
    '/user/session',
    { schema: { operationId: 'getCurrentSession', tags, response: { 200: SignedInSchema, ...ErrorResponses } } },
    async (request, reply) => {
      const caller = callerOf(request);
      const secret = cookieValue(request.headers.cookie, SESSION_COOKIE);
      if (!caller.sessionId || !secret) throw new NotFound('session: this request carries no session cookie (it came with an API token)');
      const { session } = await authenticateSession(ctx, secret);
      return reply.header('cache-control', 'no-store').send({ user: presentUser(urls, caller.user), session: presentSession(session, session.id), csrfToken: csrfTokenOf(secret) });
    },
  );

  app.post(
    '/auth/sign-out',
    { schema: { operationId: 'signOut', tags, response: { 204: NoContent, ...ErrorResponses } } },
    async (request, reply) => {
      await signOut(ctx, callerOf(request));
      return noContent(reply.header('set-cookie', clearedSessionCookie(urls)), 204);
    },
  );

  app.get(
    '/user/sessions',
    { schema: { operationId: 'listUserSessions', tags, response: { 200: SessionsSchema, ...ErrorResponses } } },
    async (request) => {
      const caller = callerOf(request);
      return { items: (await listSessions(ctx, caller)).map((s) => presentSession(s, caller.sessionId)) };
    },
  );

  app.delete(
    '/user/sessions/:sessionId',
    { schema: { operationId: 'revokeUserSession', tags, params: SessionParams, response: { 204: NoContent, ...ErrorResponses } } },
    async (request, reply) => {
      const caller = callerOf(request);
      await revokeSession(ctx, caller, request.params.sessionId);
      if (request.params.sessionId === caller.sessionId) void reply.header('set-cookie', clearedSessionCookie(urls));
      return noContent(reply, 204);
    },
  );

  app.delete(
    '/user/sessions',
    { schema: { operationId: 'signOutEverywhere', summary: 'End every session of the user, this one included.', tags, response: { 200: SignedOutSchema, ...ErrorResponses } } },
    async (request, reply) => reply.header('set-cookie', clearedSessionCookie(urls)).send({ ended: await signOutEverywhere(ctx, callerOf(request)) }),
  );

  app.put(
    '/user/password',
    { schema: { operationId: 'changeUserPassword', tags, body: ChangePasswordBody, response: { 204: NoContent, ...ErrorResponses } } },
    async (request, reply) => {
      await changePassword(ctx, callerOf(request), request.body);
      return noContent(reply, 204);
    },
  );
};
