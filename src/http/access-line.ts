/**
 * The access line of an answered request (`request completed`, at info level), for the requests Fastify answers
 * (src/http/app.ts AccessLines) and those the replay lane answers (src/http/replay-lane.ts) alike: what it says is
 * taken here, when the request is answered; the logger's destination has its text made and written with the other
 * access lines a moment later (src/log-destination.ts, src/access-line-text.ts).
 */
import { pino } from 'pino';
import type { FastifyBaseLogger } from 'fastify';
import { LogDestination } from '../log-destination.js';
import type { Logger, LoggedRequest } from '../log.js';

const INFO = 30;

/** A pino logger with the internals a line begins with (pino.symbols: public for such uses). */
interface PinoInternals extends Logger {
  [pino.symbols.chindingsSym]: string;
  [pino.symbols.lsCacheSym]: Record<number, string>;
  [pino.symbols.streamSym]: unknown;
  [pino.symbols.timeSym]: () => string;
}

/**
 * A time in ms to the microsecond. Differences of performance.now() print with 16 digits, and making them took a
 * seventh of the line's cost; the digits past the microsecond say nothing of a request.
 */
function toMicroseconds(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/**
 * Writes the access line of `request`, answered with `statusCode` after `responseTime` ms (written to the
 * microsecond), to `log` (a request's child logger, whose bindings hold its id, or the app's logger with `reqId`).
 * Nothing is taken when info is off.
 */
export function logAnswered(log: FastifyBaseLogger, request: LoggedRequest, statusCode: number, responseTime: number, reqId?: string): void {
  const internals = log as PinoInternals;
  const destination = internals[pino.symbols.streamSym];
  if (!(destination instanceof LogDestination)) {
    // A logger of another making (a test's, or Fastify's silent one): its own path.
    log.info({ ...(reqId === undefined ? {} : { reqId }), req: request, res: { statusCode }, responseTime: toMicroseconds(responseTime) }, 'request completed');
    return;
  }
  if (!internals.isLevelEnabled('info')) return;
  destination.keepAccessLine({
    head: internals[pino.symbols.lsCacheSym][INFO] + internals[pino.symbols.timeSym]() + internals[pino.symbols.chindingsSym],
    reqId,
    method: request.method,
    url: request.url,
    version: request.headers?.['accept-version'],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
    statusCode,
    responseTime: toMicroseconds(responseTime),
  });
}
