/**
 * The access line logAnswered makes (src/http/access-line.ts) is the line pino makes for the same request, byte for
 * byte but its time: for a request Fastify answers (its child logger, whose bindings hold the request id) and for one
 * the replay lane answers (the app's logger and the request id as a field); and it is written after the lines logged
 * before it and before the lines logged after it. What a line says crosses whole to the thread that writes the lines
 * (test/cli/process-errors.test.ts runs that thread).
 */
import Fastify, { type FastifyBaseLogger } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log.js';
import { logAnswered } from '../../src/http/access-line.js';
import { packAccessLines, unpackAccessLines, type AccessLineFields } from '../../src/access-line-text.js';

/** A logger as `quire serve` makes it, its JSON lines collected. */
function collectingLogger(level = 'info') {
  const lines: string[] = [];
  const log = createLogger({ logLevel: level, logFormat: 'json' }, 'stdout', { write: (text: string) => lines.push(...text.split('\n').filter((line) => line !== '')) });
  const flush = () => new Promise<void>((resolve) => log.flush(() => resolve()));
  return { log, lines, flush };
}

const withoutTime = (line: string) => line.replace(/,"time":\d+,/, ',"time":0,');

describe('the access line', () => {
  const cases = [
    { name: 'a plain read', url: '/v1/spaces/abc/content/page/def', headers: {} },
    { name: 'secrets, quotes and escapes in the URL', url: '/sites/o/d/p?share=SECRET&q=%22a%22&x="b\\c"', headers: {} },
    { name: 'an accept-version header and an odd host', url: '/v1/orgs?limit=5', headers: { 'accept-version': '2', host: 'h"ost:1' } },
  ];

  it.each(cases)('is the line pino makes, for a request Fastify answers: $name', async ({ url, headers }) => {
    const { log, lines, flush } = collectingLogger();
    const app = Fastify({ loggerInstance: log as FastifyBaseLogger, disableRequestLogging: true });
    app.get('/*', async () => 'ok');
    app.addHook('onResponse', async (request, reply) => {
      reply.log.info({ req: request, res: reply, responseTime: 1.25 }, 'request completed');
      logAnswered(reply.log, request, reply.statusCode, 1.25);
    });
    await app.inject({ method: 'GET', url, headers });
    await flush();
    await app.close();
    const answered = lines.filter((line) => line.includes('"request completed"'));
    expect(answered).toHaveLength(2);
    expect(withoutTime(answered[1])).toBe(withoutTime(answered[0]));
    expect(JSON.parse(answered[1])).toMatchObject({ level: 30, reqId: expect.any(String), req: { method: 'GET' }, res: { statusCode: 200 }, responseTime: 1.25 });
    expect(answered[1]).not.toContain('SECRET');
  });

  it('is the line pino makes, for a request the replay lane answers (the request id a field)', async () => {
    const { log, lines, flush } = collectingLogger();
    const app = Fastify({ loggerInstance: log as FastifyBaseLogger });
    await app.ready();
    const request = { method: 'GET', url: '/v1/spaces/abc/content?token=SECRET', headers: { host: '127.0.0.1:8080' }, host: '127.0.0.1:8080', ip: '127.0.0.1', socket: { remotePort: 51234 } };
    app.log.info({ reqId: 'req-7', req: request, res: { statusCode: 200 }, responseTime: 0.5 }, 'request completed');
    logAnswered(app.log, request, 200, 0.5, 'req-7');
    // JSON has no NaN: pino writes null, and so does the line made here.
    app.log.info({ reqId: 'req-8', req: request, res: { statusCode: 200 }, responseTime: Number.NaN }, 'request completed');
    logAnswered(app.log, request, 200, Number.NaN, 'req-8');
    await flush();
    await app.close();
    const answered = lines.filter((line) => line.includes('"request completed"'));
    expect(answered).toHaveLength(4);
    // pino's line of each pair is written at once, the line made here ahead of the next line.
    expect(withoutTime(answered[1])).toBe(withoutTime(answered[0]));
    expect(withoutTime(answered[3])).toBe(withoutTime(answered[2]));
    expect(JSON.parse(answered[1])).toMatchObject({ reqId: 'req-7', req: { url: '/v1/spaces/abc/content?token=[redacted]', remotePort: 51234 } });
  });

  it('keeps the order of the log: after the lines before it, before the lines after it', async () => {
    const { log, lines, flush } = collectingLogger();
    const request = { method: 'GET', url: '/a', headers: {}, ip: '127.0.0.1' };
    log.info('first');
    logAnswered(log, request, 200, 1, 'req-1');
    logAnswered(log, request, 404, 1, 'req-2');
    // Kept until now: written ahead of the next line.
    expect(lines).toHaveLength(1);
    log.warn('second');
    logAnswered(log, request, 200, 1, 'req-3');
    await flush();
    expect(lines.map((line) => JSON.parse(line) as { msg: string; reqId?: string }).map((record) => record.reqId ?? record.msg)).toEqual(['first', 'req-1', 'req-2', 'second', 'req-3']);
  });

  it('is written within a moment when nothing else is logged', async () => {
    const { log, lines } = collectingLogger();
    logAnswered(log, { method: 'GET', url: '/a', headers: {} }, 200, 1, 'req-1');
    expect(lines).toEqual([]);
    await expect.poll(() => lines.length, { timeout: 1000, interval: 10 }).toBe(1);
  });

  it('is not made when info is off', async () => {
    const { log, lines, flush } = collectingLogger('warn');
    logAnswered(log, { method: 'GET', url: '/a', headers: {} }, 200, 1, 'req-1');
    await flush();
    expect(lines).toEqual([]);
  });

  it('crosses whole to the thread that writes the lines: every field of every line of a batch', () => {
    const lines: AccessLineFields[] = [
      { head: '{"level":30,"time":1', reqId: 'req-1', method: 'GET', url: '/a?b', version: ['1', '2'], host: 'h:1', remoteAddress: '::1', remotePort: 5, statusCode: 200, responseTime: 1.5 },
      { head: '{"level":30,"time":2', reqId: undefined, method: undefined, url: undefined, version: undefined, host: undefined, remoteAddress: undefined, remotePort: undefined, statusCode: 404, responseTime: Number.NaN },
    ];
    expect(unpackAccessLines(structuredClone(packAccessLines(lines)))).toStrictEqual(lines);
  });
});
