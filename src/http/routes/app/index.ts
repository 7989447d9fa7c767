import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { RouteDeps } from '../deps.js';
import { appShell, loadAppBundle } from '../../app-bundle.js';

/**
 * The app's page is its own code only: scripts and styles from this origin, no inline script (content HTML is
 * sanitized, and this keeps any that slipped through from running), data only from the API.
 */
export const APP_SECURITY_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src * data:; media-src *; connect-src 'self'; font-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
};

/** The app (app/, a Quire of its own API): its page at `/app` and below, its assets, and `/` leading to it. */
export const appRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { urls }) => {
  const bundle = await loadAppBundle();
  const basePath = new URL(urls.base('/')).pathname.replace(/\/$/, '');
  const shell = bundle && appShell(bundle, basePath);

  app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect(`${basePath}/app/`, 302));

  const page = async (_request: unknown, reply: import('fastify').FastifyReply) => {
    if (!shell) {
      return reply.status(503).header('content-type', 'text/plain; charset=utf-8').send('The app is not built: run `npm run build` (npm install does it).\n');
    }
    return reply.headers(APP_SECURITY_HEADERS).header('cache-control', 'no-cache').header('content-type', 'text/html; charset=utf-8').send(shell);
  };
  app.get('/app', { schema: { hide: true } }, page);
  app.get('/app/*', { schema: { hide: true, params: Type.Object({ '*': Type.String({ maxLength: 4096 }) }) } }, page);

  // Named by their content's hash: cached for a year, a new build is a new name.
  app.get('/app/assets/:name', { schema: { hide: true, params: Type.Object({ name: Type.String({ maxLength: 200 }) }) } }, async (request, reply) => {
    const asset = bundle?.assets.get(request.params.name);
    if (!asset) return reply.status(404).header('content-type', 'text/plain; charset=utf-8').send('Not found\n');
    const accepted = String(request.headers['accept-encoding'] ?? '');
    const coding = /\bbr\b/.test(accepted) ? 'br' : /\bgzip\b/.test(accepted) ? 'gzip' : undefined;
    if (coding) void reply.header('content-encoding', coding);
    return reply
      .header('content-type', asset.type)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .header('vary', 'accept-encoding')
      .send(coding ? asset[coding] : asset.body);
  });
};
