/**
 * A visitor's sign-in through a visitor-auth site's OpenID Connect provider (domain/sites/visitor-oidc.ts), below the
 * site: `~quire/sign-in?next=PATH` sends the browser to the provider, `~quire/oidc/callback` takes it back, keeps the
 * visitor's sealed claims in a cookie for the site's pages alone (HttpOnly, SameSite=Lax, as long as the sign-in
 * lasts) and sends it to the page it asked for. A refused sign-in answers a plain 403 page.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { RouteDeps } from '../deps.js';
import { cookieValue, secureAttribute } from '../../cookies.js';
import { escapeHtml } from '../../../content/html-text.js';
import { OIDC_ATTEMPT_MS, OidcRefusal } from '../../../domain/identity/oidc.js';
import { finishVisitorSignIn, siteNamed, siteOfferingSignIn, startVisitorSignIn, visitorSignInOffered, VISITOR_SESSION_MS } from '../../../domain/sites/visitor-oidc.js';
import { renderNotFound } from './layout.js';

export const VISITOR_SESSION_COOKIE = 'quire_visitor_session';
const ATTEMPT_COOKIE = 'quire_visitor_oidc';
/** Below a site, where its visitors' sign-in starts. */
export const VISITOR_SIGN_IN_PATH = '~quire/sign-in';
/** Where the provider sends a visitor back, under the site's base: the redirect URI its admins register there. */
export const VISITOR_CALLBACK_PATH = '~quire/oidc/callback';

export const visitorSignInRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  const secure = secureAttribute(urls);
  const cookie = (name: string, value: string, path: string, maxAgeSeconds: number) =>
    `${name}=${encodeURIComponent(value)}; Path=${path}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;
  const params = Type.Object({ organizationId: Type.String({ maxLength: 100 }), siteName: Type.String({ maxLength: 200 }) });
  const siteBaseOf = (p: { organizationId: string; siteName: string }) => `/sites/${encodeURIComponent(p.organizationId)}/${encodeURIComponent(p.siteName)}`;

  const siteOf = (p: { organizationId: string; siteName: string }) => siteOfferingSignIn(ctx, p.organizationId, p.siteName);

  function refuse(request: FastifyRequest, reply: FastifyReply, siteBase: string, error: unknown) {
    if (!(error instanceof OidcRefusal)) throw error;
    request.log.info({ reason: error.reason, err: { message: error.message } }, 'site visitor sign-in refused');
    const page = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in failed</title><meta name="robots" content="noindex"></head><body><main><h1>Sign-in failed</h1><p>The sign-in could not be completed (${escapeHtml(error.reason)}). <a href="${escapeHtml(siteBase)}">Try again</a>.</p></main></body></html>`;
    return reply
      .status(403)
      .header('set-cookie', cookie(ATTEMPT_COOKIE, '', `${siteBase}/~quire/`, 0))
      .header('cache-control', 'no-store')
      .header('content-security-policy', "default-src 'none'; base-uri 'none'; form-action 'none'")
      .header('content-type', 'text/html; charset=utf-8')
      .send(page);
  }

  app.get(
    `/sites/:organizationId/:siteName/${VISITOR_SIGN_IN_PATH}`,
    { schema: { hide: true, params, querystring: Type.Object({ next: Type.Optional(Type.String({ maxLength: 4096 })) }) } },
    async (request, reply) => {
      const siteBase = siteBaseOf(request.params);
      const site = await siteOf(request.params);
      if (!site) return reply.status(404).header('content-type', 'text/html; charset=utf-8').send(renderNotFound());
      try {
        const started = await startVisitorSignIn(ctx, site, { next: request.query.next, siteBase, redirectUri: urls.base(`${siteBase}/${VISITOR_CALLBACK_PATH}`) });
        return reply
          .header('set-cookie', cookie(ATTEMPT_COOKIE, started.attempt, `${siteBase}/~quire/`, OIDC_ATTEMPT_MS / 1000))
          .header('cache-control', 'no-store')
          .redirect(started.location, 303);
      } catch (error) {
        return refuse(request, reply, siteBase, error);
      }
    },
  );

  app.get(`/sites/:organizationId/:siteName/${VISITOR_CALLBACK_PATH}`, { schema: { hide: true, params } }, async (request, reply) => {
    const siteBase = siteBaseOf(request.params);
    const site = await siteNamed(ctx, request.params.organizationId, request.params.siteName);
    if (!site) return reply.status(404).header('content-type', 'text/html; charset=utf-8').send(renderNotFound());
    try {
      // The address its admins register at the provider: a site that stopped offering the sign-in says so, not 404.
      if (!(await visitorSignInOffered(ctx, site))) throw new OidcRefusal('unknown_provider', 'site: this site does not offer its visitors a sign-in (it is not visitor-auth, or names no provider)');
      const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
      const { session, next } = await finishVisitorSignIn(ctx, site, {
        callbackUrl: new URL(`${urls.base(`${siteBase}/${VISITOR_CALLBACK_PATH}`)}${query}`),
        sealedAttempt: cookieValue(request.headers.cookie, ATTEMPT_COOKIE),
      });
      return reply
        .header('set-cookie', [cookie(VISITOR_SESSION_COOKIE, session, siteBase, VISITOR_SESSION_MS / 1000), cookie(ATTEMPT_COOKIE, '', `${siteBase}/~quire/`, 0)])
        .header('cache-control', 'no-store')
        .redirect(next, 303);
    } catch (error) {
      return refuse(request, reply, siteBase, error);
    }
  });
};
