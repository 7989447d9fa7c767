/**
 * The one place where errors become HTTP answers, all in the shape `{error: {code, message}}` with `code` equal to
 * the status. Domain errors answer with the status of their code (STATUS); Fastify's own errors (validation, JSON, body size, routes, bad URLs,
 * over-long path parameters) and those of Node's HTTP parser (malformed requests, oversized headers) are translated
 * here; anything else is a 500 without internals.
 */
import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { DomainError, type DomainErrorCode } from '../../domain/errors.js';
import { formatValidationErrors } from '../validation.js';

/** The status each domain error code answers with (git's routes answer in text, with the same statuses). */
export const STATUS: Readonly<Record<DomainErrorCode, number>> = {
  InvalidArgument: 400,
  Unauthenticated: 401,
  PermissionDenied: 403,
  NotFound: 404,
  Conflict: 409,
  PreconditionFailed: 412,
  ServiceUnavailable: 503,
  TooManyRequests: 429,
  NotImplemented: 501,
};

export function errorBody(status: number, message: string) {
  return { error: { code: status, message } };
}

/** The request limits the messages quote. */
export interface RequestLimits {
  bodyLimit: number;
  maxParamLength: number;
}

function translate(error: FastifyError & { validationContext?: string }, limits: RequestLimits): { status: number; message: string } {
  if (error instanceof DomainError) return { status: STATUS[error.code], message: error.message };
  if (error.validation) {
    return { status: 400, message: formatValidationErrors(error.validation, error.validationContext ?? 'request') };
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, message: `body: is not valid JSON (${error.message})` };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, message: `body: must be at most ${limits.bodyLimit} bytes` };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, message: 'content-type: request bodies must be application/json' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, message: 'content-length: does not match the body' };
    case 'FST_ERR_BAD_URL':
      return { status: 400, message: 'path: is not a valid URL path (a bad percent-encoding, or bytes that are not UTF-8)' };
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { status: 414, message: `path: a path parameter must be at most ${limits.maxParamLength} characters` };
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return { status: error.statusCode, message: error.message };
  }
  return { status: 500, message: 'internal error: the server could not complete the request' };
}

function sendError(error: FastifyError, request: FastifyRequest, reply: FastifyReply, limits: RequestLimits): void {
  // A route may take less (or more) than the server's body limit: the message quotes the one that applied.
  const routeLimits = error.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? { ...limits, bodyLimit: request.routeOptions.bodyLimit } : limits;
  const { status, message } = translate(error, routeLimits);
  if (status >= 500) request.log.error({ err: error }, 'request failed');
  const retryAfter = error instanceof DomainError ? error.data.retryAfterSeconds : undefined;
  if (typeof retryAfter === 'number') void reply.header('retry-after', String(retryAfter));
  void reply.status(status).type('application/json').send(errorBody(status, message));
}

/** What Node's HTTP parser refuses before Fastify sees a request, written to the socket as git and curl expect. */
function clientError(error: NodeJS.ErrnoException): { status: number; message: string } {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, message: 'request: did not arrive in time' };
  if (error.code === 'HPE_HEADER_OVERFLOW') return { status: 431, message: `headers: must be at most ${http.maxHeaderSize} bytes in all` };
  return { status: 400, message: `request: is not a valid HTTP request (${error.code ?? 'malformed'})` };
}

/**
 * The constructor options for errors raised before routing: `frameworkErrors` (bad URLs, over-long path parameters)
 * and `clientErrorHandler` (malformed requests, oversized headers, timeouts).
 */
export function frameworkErrorOptions(limits: RequestLimits): Pick<FastifyServerOptions, 'frameworkErrors' | 'clientErrorHandler'> {
  return {
    frameworkErrors: (error, request, reply) => sendError(error, request, reply, limits),
    clientErrorHandler: (error: NodeJS.ErrnoException, socket: Socket) => {
      // A connection reset or an already closed socket has no one to answer.
      if (error.code === 'ECONNRESET' || socket.destroyed) return;
      const { status, message } = clientError(error);
      const body = JSON.stringify(errorBody(status, message));
      if (socket.writable) {
        socket.write(
          `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
            `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
        );
      }
      socket.destroy(error);
    },
  };
}

export function registerErrorHandling(app: FastifyInstance, limits: RequestLimits): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => sendError(error, request, reply, limits));
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send(errorBody(404, `route: no route ${request.method} ${request.url.split('?')[0]}`));
  });
}
