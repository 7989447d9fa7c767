/**
 * The text of an access line (`request completed`) from what it says: the line pino writes for
 * `log.info({ reqId, req, res, responseTime }, 'request completed')`, byte for byte (test/http/access-line.test.ts
 * compares them). Made here rather than by pino's general path (the merge object walked key by key, each value
 * serialized and stringified).
 */
import { redactUrl } from './redact-url.js';

/** What an access line says, taken when the request is answered (the socket's port is gone once it closes). */
export interface AccessLineFields {
  /** The line's level, time and the logger's bindings, as pino begins its lines. */
  head: string;
  reqId: string | undefined;
  method: string | undefined;
  url: string | undefined;
  version: string | string[] | undefined;
  host: string | undefined;
  remoteAddress: string | undefined;
  remotePort: number | undefined;
  statusCode: number;
  responseTime: number;
}

/** A number as pino writes one (JSON has no Infinity or NaN). */
function jsonNumber(value: number): string {
  return Number.isFinite(value) ? String(value) : 'null';
}

/** What JSON.stringify escapes in a string: quotes, backslashes, control characters, and (lone) surrogates. */
const ESCAPED = /["\\\u0000-\u001f\ud800-\udfff]/;

/** JSON.stringify(value), without its cost for the strings it leaves as they are (most URLs and hosts). */
function jsonValue(value: unknown): string {
  return typeof value === 'string' && !ESCAPED.test(value) ? `"${value}"` : JSON.stringify(value);
}

/** `,"name":value`, or nothing for undefined (which JSON.stringify leaves out of an object). */
function member(name: string, value: unknown): string {
  return value === undefined ? '' : `,"${name}":${jsonValue(value)}`;
}

/**
 * The access line, newline included: `req` as the logger's serializer writes it (JSON.stringify(requestFields(...))
 * of src/log.ts, without the object between), `res` as Fastify's.
 */
export function accessLineText(fields: AccessLineFields): string {
  const request =
    member('method', fields.method) +
    member('url', redactUrl(fields.url ?? '')) +
    member('version', fields.version) +
    member('host', fields.host) +
    member('remoteAddress', fields.remoteAddress) +
    member('remotePort', fields.remotePort);
  return (
    `${fields.head}${member('reqId', fields.reqId)},"req":{${request.slice(1)}}` +
    `,"res":{"statusCode":${jsonNumber(fields.statusCode)}},"responseTime":${jsonNumber(fields.responseTime)},"msg":"request completed"}\n`
  );
}
