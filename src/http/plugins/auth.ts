/**
 * Authentication: `Authorization: Bearer <token>` on every /v1 route except the OpenAPI document.
 * Sets `request.caller`; 401 for a missing, malformed or unknown token.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Caller, Context } from '../../domain/context.js';
import { Unauthenticated } from '../../domain/errors.js';
import { authenticateToken, cachedTokenUser } from '../../domain/identity/users.js';

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
    if (!header) return done(new Unauthenticated());
    const token = bearerToken(header);
    if (!token) return done(new Unauthenticated('authorization: must be "Bearer <token>"'));
    authenticateToken(ctx, token).then((user) => {
      request.caller = { user };
      done();
    }, done);
  });
}

/** The authenticated caller of a route that requires one. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Unauthenticated();
  return request.caller;
}
