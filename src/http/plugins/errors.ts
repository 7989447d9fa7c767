/**
 * The one place where errors become HTTP answers, all in the shape `{error: {code, message}}` with `code` equal to
 * the status. Domain errors carry their status; Fastify's own errors (validation, JSON, body size, routes) are
 * translated here; anything else is a 500 without internals.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../domain/errors.js';
import { formatValidationErrors } from '../validation.js';

export function errorBody(status: number, message: string) {
  return { error: { code: status, message } };
}

function translate(error: FastifyError & { validationContext?: string }, bodyLimit: number): { status: number; message: string } {
  if (error instanceof DomainError) return { status: error.status, message: error.message };
  if (error.validation) {
    return { status: 400, message: formatValidationErrors(error.validation, error.validationContext ?? 'request') };
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, message: `body: is not valid JSON (${error.message})` };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, message: `body: must be at most ${bodyLimit} bytes` };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return { status: 415, message: 'content-type: request bodies must be application/json' };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, message: 'content-length: does not match the body' };
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return { status: error.statusCode, message: error.message };
  }
  return { status: 500, message: 'internal error: the server could not complete the request' };
}

export function registerErrorHandling(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const { status, message } = translate(error, bodyLimit);
    if (status >= 500) request.log.error({ err: error }, 'request failed');
    void reply.status(status).type('application/json').send(errorBody(status, message));
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.status(404).send(errorBody(404, `route: no route ${request.method} ${request.url.split('?')[0]}`));
  });
}
