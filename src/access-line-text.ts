/**
 * The text of an access line (`request completed`) from what it says: the line pino writes for
 * `log.info({ reqId, req, res, responseTime }, 'request completed')`, byte for byte (test/http/access-line.test.ts
 * compares them). Made here rather than by pino's general path (the merge object walked key by key, each value
 * serialized and stringified), and by the thread that writes access lines (src/access-log-thread-entry.ts), so it
 * imports nothing of the logger.
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

/**
 * Access lines as one flat list of their values, line after line: how a batch crosses to the writing thread
 * (postMessage clones such a list in half the time it takes for as many objects).
 */
export function packAccessLines(lines: readonly AccessLineFields[]): unknown[] {
  const values: unknown[] = [];
  for (const line of lines) {
    values.push(line.head, line.reqId, line.method, line.url, line.version, line.host, line.remoteAddress, line.remotePort, line.statusCode, line.responseTime);
  }
  return values;
}

/** The access lines of a list packAccessLines made. */
export function unpackAccessLines(values: readonly unknown[]): AccessLineFields[] {
  const lines: AccessLineFields[] = [];
  for (let at = 0; at + 10 <= values.length; at += 10) {
    lines.push({
      head: values[at] as string,
      reqId: values[at + 1] as string | undefined,
      method: values[at + 2] as string | undefined,
      url: values[at + 3] as string | undefined,
      version: values[at + 4] as string | string[] | undefined,
      host: values[at + 5] as string | undefined,
      remoteAddress: values[at + 6] as string | undefined,
      remotePort: values[at + 7] as number | undefined,
      statusCode: values[at + 8] as number,
      responseTime: values[at + 9] as number,
    });
  }
  return lines;
}
