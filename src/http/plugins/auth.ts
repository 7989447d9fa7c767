/**
 * Authentication on every /v1 route except the OpenAPI document and signing in: `Authorization: Bearer <token>`, or,
 * without that header, a browser's session cookie. Sets `request.caller`; 401 for a missing, malformed or unknown
 * token or session. A write with a session cookie must also carry the session's CSRF token in `X-CSRF-Token` (403
 * otherwise): a page of another origin can make the browser send the cookie, but cannot read the token.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Caller, Context } from '../../domain/context.js';
import { PermissionDenied, Unauthenticated } from '../../domain/errors.js';
import { authenticateToken, cachedTokenUser } from '../../domain/identity/users.js';
import { authenticateSession, csrfTokenMatches } from '../../domain/identity/sessions.js';
import type { UserRow } from '../../store/sql/users.js';
import { CSRF_HEADER, SESSION_COOKIE, cookieValue } from '../cookies.js';

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
}

/** The token of a `Bearer` authorization header, or undefined when missing or malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer ([A-Za-z0-9._~+/=-]+)$/.exec(header?.trim() ?? '');
  return match?.[1];
}

/**
 * The caller of an Authorization header whose token the read cache holds (nearly every request), without a promise;
 * undefined otherwise (no header, a malformed one, a token to look up). The one way a bearer token is taken: the
 * routes' hook below and the replay lane (src/http/replay-lane.ts) both go through it.
 */
export function cachedCaller(ctx: Context, header: string | undefined): Caller | undefined {
  const token = bearerToken(header);
  const user = token === undefined ? undefined : cachedTokenUser(ctx, token);
  return user ? { user } : undefined;
}

/** Adds the bearer check to every route of `scope` (the /v1 plugin: the OpenAPI document and git stay outside). */
export function registerAuth(scope: FastifyInstance, ctx: Context): void {
  // A callback hook, not an async one: a token the read cache knows (nearly every request) is answered without a
  // promise, which costs a warm page read a measurable part of its throughput (bench/README.md).
  scope.addHook('onRequest', (request, _reply, done) => {
    const header = request.headers.authorization;
    const known = cachedCaller(ctx, header);
    if (known) {
      request.caller = known;
      return done();
    }
    if (!header) {
      const secret = cookieValue(request.headers.cookie, SESSION_COOKIE);
      if (!secret) return done(new Unauthenticated());
      authenticateSession(ctx, secret).then(({ user, session }) => {
        if (!SAFE_METHODS.has(request.method) && !csrfTokenMatches(secret, headerValue(request.headers[CSRF_HEADER]))) {
          return done(new PermissionDenied(`${CSRF_HEADER}: a write with a session cookie must carry the session's CSRF token (from signing in, or GET /v1/user/session)`));
        }
        request.caller = { user, sessionId: session.id };
        done();
      }, done);
      return;
    }
    const token = bearerToken(header);
    if (!token) return done(new Unauthenticated('authorization: must be "Bearer <token>"'));
    authenticateToken(ctx, token).then((user) => {
      request.caller = { user };
      done();
    }, done);
  });
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const headerValue = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * The user of a request's credentials where signing in is optional (published sites): a bearer token's, else the
 * session cookie's; undefined when neither is there or valid.
 */
export async function optionalUserOf(ctx: Context, request: FastifyRequest): Promise<UserRow | undefined> {
  const token = bearerToken(request.headers.authorization);
  if (token) return authenticateToken(ctx, token).catch(() => undefined);
  const secret = cookieValue(request.headers.cookie, SESSION_COOKIE);
  return secret ? (await authenticateSession(ctx, secret).catch(() => undefined))?.user : undefined;
}

/**
 * A check, for an answer that outlives its request (an event stream), that the credential the request came with
 * still stands: false once its token is revoked or its session has ended (signed out, revoked, expired). It reads
 * through the cache that every write drops, so a revocation made by this process is seen at the next check.
 */
export function credentialCheck(ctx: Context, request: FastifyRequest): () => Promise<boolean> {
  const token = bearerToken(request.headers.authorization);
  const secret = token ? undefined : cookieValue(request.headers.cookie, SESSION_COOKIE);
  return async () => {
    if (token) return authenticateToken(ctx, token).then(() => true, () => false);
    if (secret) return authenticateSession(ctx, secret).then(() => true, () => false);
    return false;
  };
}

/** The authenticated caller of a route that requires one. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Unauthenticated();
  return request.caller;
}
