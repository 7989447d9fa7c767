/**
 * Authentication: `Authorization: Bearer <token>` on every /v1 route except the OpenAPI document.
 * Sets `request.caller`; 401 for a missing, malformed or unknown token.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Caller, Context } from '../../domain/context.js';
import { Unauthenticated } from '../../domain/errors.js';
import { authenticateToken } from '../../domain/identity/users.js';

declare module 'fastify' {
  interface FastifyRequest {
    caller?: Caller;
  }
  interface FastifyContextConfig {
    /** Routes that answer without a token. */
    public?: boolean;
  }
}

/** The token of a `Bearer` authorization header, or undefined when missing or malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = /^Bearer ([A-Za-z0-9._~+/=-]+)$/.exec(header?.trim() ?? '');
  return match?.[1];
}

export function registerAuth(app: FastifyInstance, ctx: Context): void {
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config?.public || !request.routeOptions.url) return;
    const header = request.headers.authorization;
    if (!header) throw new Unauthenticated();
    const token = bearerToken(header);
    if (!token) throw new Unauthenticated('authorization: must be "Bearer <token>"');
    request.caller = { user: await authenticateToken(ctx, token) };
  });
}

/** The authenticated caller of a route that requires one. */
export function callerOf(request: FastifyRequest): Caller {
  if (!request.caller) throw new Unauthenticated();
  return request.caller;
}
