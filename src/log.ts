/**
 * The process's logger (pino, the one Fastify is built on). On a terminal the lines are for people (pino-pretty:
 * time, level, message); elsewhere, or with QUIRE_LOG_FORMAT=json, one JSON object per line for log collectors.
 * Both go through a LogDestination, which has access lines made and written in batches (src/log-destination.ts).
 */
import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from '../config/index.js';
import { LogDestination } from './log-destination.js';
import { redactUrl } from './redact-url.js';

export type { Logger };
export { redactUrl };

export interface LoggedRequest {
  method?: string;
  url?: string;
  headers?: Record<string, string | string[] | undefined>;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/** A request in a log line: Fastify's fields (method, URL, host, client), its URL redacted. */
export function requestFields(req: LoggedRequest) {
  return {
    method: req.method,
    url: redactUrl(req.url ?? ''),
    version: req.headers?.['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/**
 * A logger writing to stdout (servers: `quire serve`, `quire worker`) or stderr (commands whose stdout is their
 * answer); `output` takes the JSON lines instead (tests).
 */
export function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>, to: 'stdout' | 'stderr' = 'stdout', output?: DestinationStream): Logger {
  const fd = to === 'stdout' ? 1 : 2;
  const pretty = config.logFormat === 'pretty' || (config.logFormat === 'auto' && (to === 'stdout' ? process.stdout : process.stderr).isTTY === true);
  // Fastify's own request serializer gives way to this one (a logger instance's serializers win over Fastify's).
  const serializers = { req: requestFields };
  let destination: LogDestination;
  if (output) destination = new LogDestination(output);
  else if (pretty) destination = new LogDestination(pino.transport({ target: 'pino-pretty', options: { destination: fd, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', singleLine: true } }));
  else destination = new LogDestination(pino.destination({ fd, sync: true }), fd);
  return pino({ level: config.logLevel, serializers }, destination);
}

/** An error as a log field: its message, one line (the reason; the stack rarely helps the people reading logs). */
export function errorField(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
