/**
 * Builds the Fastify application from a container. It never listens: `serve` does, and tests use a real port or
 * `app.inject`.
 */
import http from 'node:http';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Container } from '../container.js';
import { frameworkErrorOptions, registerErrorHandling, type RequestLimits } from './plugins/errors.js';
import { registerOpenApi } from './plugins/openapi.js';
import { replayLane } from './replay-lane.js';
import { registerRoutes } from './routes/index.js';
import { refuseNulCharacters, validatorCompiler } from './validation.js';
import { serializerCompiler } from './serialization.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth.js';
import { metricsRoutes } from './routes/metrics/index.js';
import type { EventLoopMonitor } from '../event-loop.js';
import { compressAnswers } from './present.js';
import { Urls } from './urls.js';
import { logAnswered } from './access-line.js';

/**
 * One log line per request, when it is answered, with what an access log holds: the request (method, URL, host,
 * client), the status (or the error) and the time taken. Fastify's default writes a second line when the request comes
 * in: each line is a write to stdout, and at the default level (info) the two lines cost page reads much of their
 * throughput against `warn` (bench/README.md). The line of an answered request is logged by logAnswered
 * (src/http/access-line.ts).
 */
class AccessLines extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else logAnswered(reply.log, request, reply.statusCode, reply.elapsedTime);
  }
}

export interface BuildAppOptions {
  logger?: boolean;
  /** The process's event-loop monitor (`quire serve`): `GET /metrics` reads it when QUIRE_METRICS_TOKEN is set. */
  eventLoop?: EventLoopMonitor;
}

export async function buildApp(container: Container, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const { config, ctx } = container;
  const limits: RequestLimits = { bodyLimit: config.bodyLimit, maxParamLength: 500 };
  // The replay lane answers warm reads ahead of the router (see replay-lane.ts); it shares Fastify's request ids.
  let nextRequestId = 0;
  const requestId = () => `req-${(nextRequestId++).toString(36)}`;
  let closing = false;
  let lane: ((req: http.IncomingMessage, res: http.ServerResponse) => boolean) | undefined;
  const app = Fastify({
    ...(options.logger === false ? { logger: false } : { loggerInstance: ctx.log as FastifyBaseLogger }),
    bodyLimit: limits.bodyLimit,
    return503OnClosing: true,
    logController: new AccessLines(),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: limits.maxParamLength },
    genReqId: requestId,
    // Fastify's own server, with the lane first: the same settings Fastify gives the server it makes.
    serverFactory: (handler, options) => {
      // Fastify passes its options with its defaults filled in.
      const settings = options as { keepAliveTimeout: number; requestTimeout: number; connectionTimeout: number };
      const server = http.createServer((req, res) => {
        let answered: boolean;
        try {
          answered = lane?.(req, res) ?? false;
        } catch (error) {
          // A fault of the lane must not end the process: the route answers instead, unless the answer has begun.
          app.log.error({ err: error }, 'the replay lane failed');
          answered = res.headersSent;
        }
        if (!answered) handler(req, res);
      });
      server.keepAliveTimeout = settings.keepAliveTimeout;
      server.requestTimeout = settings.requestTimeout;
      server.setTimeout(settings.connectionTimeout);
      return server;
    },
    ...frameworkErrorOptions(limits),
  });
  lane = replayLane(ctx, { log: app.log, requestId, closing: () => closing });
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.addHook('preValidation', refuseNulCharacters);
  app.addHook('onSend', compressAnswers);
  // An empty body sent with a JSON content type means "no body": the reference's generated client sends the header
  // even when an optional body (createSpace, createCollection) is left out. Routes whose body is required still
  // refuse it ("body: must be object"); a body nested deeper than any the API takes is refused before it is parsed;
  // other bodies go through Fastify's own parser (its size limit and its refusal of `__proto__` and `constructor`).
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text.length === 0) done(null, undefined);
    else if (nestsDeeperThan(text, MAX_JSON_DEPTH)) done(Object.assign(new Error(`body: nests arrays and objects more than ${MAX_JSON_DEPTH} deep`), { statusCode: 400 }), undefined);
    else parseJson(request, text, done);
  });
  registerErrorHandling(app, limits);
  await registerOpenApi(app, config.publicUrl);
  await registerRoutes(app, { ctx, urls: new Urls(config.publicUrl) }, container.events);
  if (options.eventLoop && config.metricsToken) await app.register(metricsRoutes, { monitor: options.eventLoop, token: config.metricsToken });
  return app;
}
