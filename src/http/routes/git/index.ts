/**
 * Git's smart HTTP protocol at `/git/SPACE_ID.git` (clone, fetch, push), outside /v1: the ref advertisement
 * (`GET info/refs?service=...`) and the two stateless-RPC calls (`POST git-upload-pack`, `POST git-receive-pack`).
 * Request and answer bodies stream between the client and git; protocol v2 is git's to negotiate (the
 * `Git-Protocol` header is passed through). Credentials: the API token as the HTTP Basic password (any user name),
 * or a bearer token; rules in src/domain/content/git-access.ts. Errors answer `text/plain`, which the git client
 * prints as `remote: <message>`.
 */
import { pipeline, PassThrough, type Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { RouteDeps } from '../deps.js';
import type { Caller, Context } from '../../../domain/context.js';
import { DomainError, InvalidArgument, Unauthenticated } from '../../../domain/errors.js';
import { authenticateToken } from '../../../domain/identity/users.js';
import { advertisementPrefix, advertiseRefs, authorizeGitService, startGitService, type GitService, type GitServiceRun } from '../../../domain/content/git-access.js';
import { bearerToken } from '../../plugins/auth.js';
import { STATUS } from '../../plugins/errors.js';

const SERVICES: Record<string, GitService> = { 'git-upload-pack': 'upload-pack', 'git-receive-pack': 'receive-pack' };

/** What git-http-backend sends: answers of the smart protocol must never be cached. */
const NO_CACHE = {
  expires: 'Fri, 01 Jan 1980 00:00:00 GMT',
  pragma: 'no-cache',
  'cache-control': 'no-cache, max-age=0, must-revalidate',
};

const CREDENTIALS_HELP = 'use your API token as the password (HTTP Basic, any user name) or send "Authorization: Bearer <token>"';

/** The API token of a Basic (password) or Bearer authorization header. */
export function gitToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const bearer = bearerToken(header);
  if (bearer) return bearer;
  const basic = /^Basic +([A-Za-z0-9+/]+={0,2}) *$/i.exec(header.trim());
  if (!basic) return undefined;
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon >= 0 && colon < decoded.length - 1 ? decoded.slice(colon + 1) : undefined;
}

async function gitCaller(ctx: Context, request: FastifyRequest): Promise<Caller> {
  const token = gitToken(request.headers.authorization);
  if (!token) throw new Unauthenticated(`authorization: ${CREDENTIALS_HELP}`);
  return { user: await authenticateToken(ctx, token) };
}

/** The protocol version a `Git-Protocol` header asks for (the highest `version=N` among its `:`-separated keys). */
function protocolVersion(header: string | undefined): number {
  let version = 0;
  for (const key of (header ?? '').split(':')) {
    const match = /^version=(\d+)$/.exec(key);
    if (match) version = Math.max(version, Number(match[1]));
  }
  return version;
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Streams git's answer to the client, after `prefix`. The answer ends once git has exited and the run is complete
 * (a push recorded); a client that leaves early abandons the run.
 */
function answer(request: FastifyRequest, reply: FastifyReply, run: GitServiceRun, contentType: string, prefix?: Buffer): FastifyReply {
  const body = new PassThrough();
  if (prefix?.length) body.write(prefix);
  run.stdout.pipe(body, { end: false });
  let complete = false;
  let abandoned = false;
  run.done
    .catch((error: unknown) => {
      if (abandoned) request.log.debug({ err: error }, 'git over HTTP: the client left');
      else request.log.error({ err: error }, 'git over HTTP failed');
    })
    .finally(() => {
      complete = true;
      body.end();
    });
  reply.raw.once('close', () => {
    if (complete) return;
    abandoned = true;
    run.abandon();
  });
  return reply.status(200).headers(NO_CACHE).type(contentType).send(body);
}

export const gitRoutes: FastifyPluginAsync<RouteDeps> = async (app, { ctx }) => {
  // Git's request bodies reach the handler as the raw stream (not the JSON parser, no body limit).
  app.addContentTypeParser(/^application\/x-git-/, (_request, payload, done) => done(null, payload));

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const domain = error instanceof DomainError;
    const status = domain ? STATUS[error.code] : error.statusCode && error.statusCode < 500 ? error.statusCode : 500;
    if (status >= 500) request.log.error({ err: error }, 'git over HTTP failed');
    if (status === 401) void reply.header('www-authenticate', 'Basic realm="Quire"');
    const message = status >= 500 ? 'internal error: the server could not complete the request' : error.message;
    void reply.status(status).headers(NO_CACHE).type('text/plain; charset=utf-8').send(`${message}\n`);
  });

  // Not in the API's OpenAPI document, and outside the /v1 bearer-token hook: these routes authenticate themselves.
  const options = { schema: { hide: true } };

  app.get<{ Params: { spaceId: string }; Querystring: { service?: string } }>(
    '/git/:spaceId.git/info/refs',
    { ...options, exposeHeadRoute: false },
    async (request, reply) => {
      const name = request.query.service ?? '';
      const service = SERVICES[name];
      if (!service) throw new InvalidArgument('service: must be git-upload-pack or git-receive-pack (only the smart HTTP protocol is served)');
      await authorizeGitService(ctx, await gitCaller(ctx, request), request.params.spaceId, service);
      const protocol = header(request, 'git-protocol');
      const prefix = advertisementPrefix(service, protocolVersion(protocol));
      const contentType = `application/x-${name}-advertisement`;
      const known = await advertiseRefs(ctx, request.params.spaceId, service, protocolVersion(protocol));
      if (known) return reply.status(200).headers(NO_CACHE).type(contentType).send(Buffer.concat([prefix, known]));
      const run = await startGitService(ctx, request.params.spaceId, service, { advertiseRefs: true, protocol });
      run.stdin.end();
      return answer(request, reply, run, contentType, prefix);
    },
  );

  for (const [name, service] of Object.entries(SERVICES)) {
    app.post<{ Params: { spaceId: string } }>(`/git/:spaceId.git/${name}`, options, async (request, reply) => {
      await authorizeGitService(ctx, await gitCaller(ctx, request), request.params.spaceId, service);
      const contentType = header(request, 'content-type')?.split(';')[0].trim().toLowerCase();
      if (contentType !== `application/x-${name}-request`) {
        throw Object.assign(new Error(`content-type: must be application/x-${name}-request`), { statusCode: 415 });
      }
      const encoding = (header(request, 'content-encoding') ?? 'identity').trim().toLowerCase();
      if (!['identity', 'gzip', 'x-gzip'].includes(encoding)) throw new InvalidArgument('content-encoding: must be gzip or none');
      const run = await startGitService(ctx, request.params.spaceId, service, { advertiseRefs: false, protocol: header(request, 'git-protocol') });
      const onEnd = (error: Error | null) => {
        if (error) request.log.warn({ err: error }, 'git request body failed');
      };
      const source = request.body as Readable;
      if (encoding === 'identity') pipeline(source, run.stdin, onEnd);
      else pipeline(source, zlib.createGunzip(), run.stdin, onEnd);
      return answer(request, reply, run, `application/x-${name}-result`);
    });
  }
};
