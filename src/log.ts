/**
 * The process's logger (pino, the one Fastify is built on). On a terminal the lines are for people (pino-pretty:
 * time, level, message); elsewhere, or with QUIRE_LOG_FORMAT=json, one JSON object per line for log collectors.
 */
import { pino, type Logger } from 'pino';
import type { Config } from '../config/index.js';

export type { Logger };

/**
 * Query parameters whose value is a secret: share keys, visitor tokens, API and OAuth tokens, passwords, signatures
 * (signed URLs). By name, any case; also any name ending in `_token`, `-token`, `_key`, `_secret`, `_signature`...
 */
const SECRET_PARAMETER = /^(?:share|sharekey|jwt|jwt_token|token|access_token|id_token|refresh_token|auth|authorization|key|apikey|password|passwd|secret|signature|sig|code|credential)$|[_-](?:token|key|secret|password|signature|credential)$/i;

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

/**
 * `url` (a request's path and query, or a whole URL) as logs may keep it: the values of secret query parameters and
 * the credentials of a `user:password@` part replaced by `[redacted]`, the rest as written. Every URL a log line
 * holds goes through here (the access lines' `req.url` by the logger's request serializer).
 */
export function redactUrl(url: string): string {
  const hash = url.indexOf('#');
  const beforeHash = hash < 0 ? url : url.slice(0, hash);
  const question = beforeHash.indexOf('?');
  let head = question < 0 ? beforeHash : beforeHash.slice(0, question);
  head = head.replace(/^([a-zA-Z][a-zA-Z0-9+.-]*:\/\/)[^/?#]*@/, '$1[redacted]@');
  if (question < 0) return head + (hash < 0 ? '' : url.slice(hash));
  const query = beforeHash
    .slice(question + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals < 0 ? pair : pair.slice(0, equals);
      return equals >= 0 && SECRET_PARAMETER.test(decodedName(name)) ? `${name}=[redacted]` : pair;
    })
    .join('&');
  return `${head}?${query}${hash < 0 ? '' : url.slice(hash)}`;
}

interface LoggedRequest {
  method?: string;
  url?: string;
  headers?: Record<string, string | string[] | undefined>;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/** A request in a log line: Fastify's fields (method, URL, host, client), its URL redacted. */
function requestFields(req: LoggedRequest) {
  return {
    method: req.method,
    url: redactUrl(req.url ?? ''),
    version: req.headers?.['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  };
}

/** A logger writing to stdout (servers: `quire serve`, `quire worker`) or stderr (commands whose stdout is their answer). */
export function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>, to: 'stdout' | 'stderr' = 'stdout'): Logger {
  const fd = to === 'stdout' ? 1 : 2;
  const pretty = config.logFormat === 'pretty' || (config.logFormat === 'auto' && (to === 'stdout' ? process.stdout : process.stderr).isTTY === true);
  // Fastify's own request serializer gives way to this one (a logger instance's serializers win over Fastify's).
  const serializers = { req: requestFields };
  if (!pretty) return pino({ level: config.logLevel, serializers }, pino.destination({ fd, sync: true }));
  return pino({
    level: config.logLevel,
    serializers,
    transport: { target: 'pino-pretty', options: { destination: fd, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', singleLine: true } },
  });
}

/** An error as a log field: its message, one line (the reason; the stack rarely helps the people reading logs). */
export function errorField(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
