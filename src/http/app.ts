/**
 * Builds the Fastify application from a container. It never listens: `serve` does, and tests use a real port or
 * `app.inject`.
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Container } from '../container.js';
import { frameworkErrorOptions, registerErrorHandling, type RequestLimits } from './plugins/errors.js';
import { registerOpenApi } from './plugins/openapi.js';
import { registerRoutes } from './routes/index.js';
import { refuseNulCharacters, validatorCompiler } from './validation.js';
import { Urls } from './urls.js';

/**
 * One log line per request, when it is answered, with what an access log holds: the request (method, URL, host,
 * client), the status (or the error) and the time taken. Fastify's default writes a second line when the request
 * comes in: each line is a write to stdout, and at the default level (info) the two lines cost page reads a third of
 * their throughput against `warn`.
 */
class AccessLines extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null, request: FastifyRequest, reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    if (error) reply.log.error({ req: request, res: reply, err: error, responseTime: reply.elapsedTime }, 'request errored');
    else reply.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}

export interface BuildAppOptions {
  logger?: boolean;
}

export async function buildApp(container: Container, options: BuildAppOptions = {}): Promise<FastifyInstance> {
  const { config, ctx } = container;
  const limits: RequestLimits = { bodyLimit: config.bodyLimit, maxParamLength: 500 };
  const app = Fastify({
    ...(options.logger === false ? { logger: false } : { loggerInstance: ctx.log as FastifyBaseLogger }),
    bodyLimit: limits.bodyLimit,
    return503OnClosing: true,
    logController: new AccessLines(),
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: limits.maxParamLength },
    ...frameworkErrorOptions(limits),
  });
  app.setValidatorCompiler(validatorCompiler);
  app.addHook('preValidation', refuseNulCharacters);
  // An empty body sent with a JSON content type means "no body": the reference's generated client sends the header
  // even when an optional body (createSpace, createCollection) is left out. Routes whose body is required still
  // refuse it ("body: must be object"); non-empty bodies go through Fastify's own parser.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body.toString();
    if (text.length === 0) done(null, undefined);
    else parseJson(request, text, done);
  });
  registerErrorHandling(app, limits);
  await registerOpenApi(app, config.publicUrl);
  await registerRoutes(app, { ctx, urls: new Urls(config.publicUrl) });
  return app;
}
