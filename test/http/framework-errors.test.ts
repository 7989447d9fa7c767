import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { DATABASE_KINDS } from '../helpers/databases.js';

/**
 * Errors Fastify and Node's HTTP parser make themselves (bad URLs, over-long parameters, unknown routes and methods,
 * bad bodies, oversized headers) answer in the API's error shape, like every other error.
 */
function expectErrorShape(res: { status: number; body: any }, status: number, message: RegExp): void {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ error: { code: status, message: expect.stringMatching(message) } });
}

/** Sends raw bytes to the listening server and parses the one answer (status and JSON body). */
async function rawRequest(base: string, bytes: string | Buffer): Promise<{ status: number; body: any }> {
  const { hostname, port } = new URL(base);
  const text = await new Promise<string>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(Number(port), hostname, () => socket.write(bytes));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', (error) => (chunks.length ? resolve(Buffer.concat(chunks).toString('latin1')) : reject(error)));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.setTimeout(10_000, () => socket.destroy());
  });
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
  const headerEnd = text.indexOf('\r\n\r\n');
  const rest = text.slice(headerEnd + 4);
  // A chunked answer: its one chunk.
  const json = /transfer-encoding: chunked/i.test(text.slice(0, headerEnd)) ? rest.split('\r\n')[1] : rest;
  return { status, body: JSON.parse(json) };
}

describe('framework errors in the error shape', () => {
  let t: TestApp;
  let base: string;
  let token: string;
  let orgId: string;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const org = await t.organization();
    token = org.admin.token;
    orgId = org.id;
    base = await t.listen();
  });
  afterAll(async () => t?.close());

  it('answers a path parameter longer than the limit with 414 naming the path', async () => {
    const res = await t.request('GET', `/v1/spaces/${'a'.repeat(10_000)}`, { token, unchecked: true });
    expectErrorShape(res, 414, /^path: /);
  });

  it('answers a bad percent-encoding or a lone surrogate in the path with 400 naming the path', async () => {
    for (const url of ['/v1/spaces/%E0%A4%A', '/v1/spaces/%ED%A0%80', '/v1/orgs/%FF/spaces', '/v1/spaces/%']) {
      const res = await t.request('GET', url, { token, unchecked: true });
      expectErrorShape(res, 400, /^path: /);
    }
  });

  it('answers the same over a real socket', async () => {
    expectErrorShape(await rawRequest(base, 'GET /v1/spaces/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), 400, /^path: /);
    expectErrorShape(await rawRequest(base, `GET /v1/spaces/${'b'.repeat(10_000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`), 414, /^path: /);
  });

  it('answers unknown routes and methods with 404 naming the route', async () => {
    expectErrorShape(await t.request('GET', '/v1/nothing', { token, unchecked: true }), 404, /^route: /);
    expectErrorShape(await t.request('DELETE', '/v1/openapi.json', { token, unchecked: true }), 404, /^route: /);
    expectErrorShape(await t.request('PROPFIND', '/v1/orgs', { token, unchecked: true }), 404, /^route: /);
    expectErrorShape(await rawRequest(base, 'BREW /v1/orgs HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'), 400, /^request: /);
  });

  it('answers bad bodies: malformed JSON, a wrong content type, a body over the limit', async () => {
    const url = `/v1/orgs/${orgId}`;
    expectErrorShape(await t.request('PATCH', url, { token, rawBody: '{"title": ', unchecked: true }), 400, /^body: is not valid JSON/);
    const plain = await t.request('PATCH', url, { token, rawBody: 'title=x', headers: { 'content-type': 'application/x-www-form-urlencoded' }, unchecked: true });
    expectErrorShape(plain, 415, /^content-type: /);
    const huge = await t.request('PATCH', url, { token, rawBody: `{"title": "${'x'.repeat(t.config.bodyLimit)}"}`, unchecked: true });
    expectErrorShape(huge, 413, /^body: must be at most/);
  });

  it('refuses a body nested deeper than any the API takes, before parsing it, and keeps refusing __proto__', async () => {
    const url = `/v1/orgs/${orgId}`;
    const levels = Math.floor((t.config.bodyLimit - 100) / 2);
    const deep = `{"title": "x", "n": ${'['.repeat(levels)}${']'.repeat(levels)}}`;
    expectErrorShape(await t.request('PATCH', url, { token, rawBody: deep, unchecked: true }), 400, /^body: nests arrays and objects more than 256 deep$/);
    // Brackets inside strings are text, and nesting within the limit is parsed as before.
    const quoted = await t.request('PATCH', url, { token, body: { title: `${'[{'.repeat(60)} \\" ]` }, unchecked: true });
    expect(quoted.status, JSON.stringify(quoted.body)).toBe(200);
    const nested = `{"title": "Nested", "extra": ${'['.repeat(250)}${']'.repeat(250)}}`;
    expect((await t.request('PATCH', url, { token, rawBody: nested, unchecked: true })).body).toMatchObject({ title: 'Nested' });
    expectErrorShape(await t.request('PATCH', url, { token, rawBody: '{"title": "x", "__proto__": {"admin": true}}', unchecked: true }), 400, /^body: is not valid JSON/);
  });

  it('answers headers over the size limit and malformed requests in the error shape', async () => {
    const big = `GET /v1/orgs HTTP/1.1\r\nHost: x\r\nX-Big: ${'h'.repeat(100_000)}\r\nConnection: close\r\n\r\n`;
    expectErrorShape(await rawRequest(base, big), 431, /^headers: /);
    expectErrorShape(await rawRequest(base, 'GET /v1/orgs HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'), 400, /^request: /);
  });

  it('still answers a normal request afterwards', async () => {
    expect((await t.request('GET', '/v1/orgs', { token })).status).toBe(200);
  });
});

// PostgreSQL cannot hold U+0000 in text: a NUL anywhere in a request once answered 500 there (and was stored on
// SQLite). The API refuses it on both, naming the field (found by the fuzz suite).
describe.each(DATABASE_KINDS)('the NUL character in requests (%s)', (kind) => {
  let t: TestApp;
  let token: string;
  let orgId: string;

  beforeAll(async () => {
    t = await startTestApp(kind);
    const org = await t.organization();
    token = org.admin.token;
    orgId = org.id;
  });
  afterAll(async () => t?.close());

  it('refuses it in path parameters, query parameters and body fields with a 400 naming the field', async () => {
    expectErrorShape(await t.request('GET', `/v1/orgs/${orgId}%00`, { token }), 400, /^organizationId: must not contain the NUL character/);
    expectErrorShape(await t.request('GET', '/v1/spaces/a%00b', { token }), 400, /^spaceId: must not contain the NUL character/);
    expectErrorShape(await t.request('GET', '/v1/orgs', { token, query: { page: 'x\u0000y' } }), 400, /^page: must not contain the NUL character/);
    const collections = `/v1/orgs/${orgId}/collections`;
    expectErrorShape(await t.request('POST', collections, { token, body: { title: 'a\u0000b' } }), 400, /^title: must not contain the NUL character/);
    const team = await t.request('PUT', `/v1/orgs/${orgId}/teams`, { token, body: { title: 'T', members: ['ok', 'n\u0000'] } });
    expectErrorShape(team, 400, /^members\[1\]: must not contain the NUL character/);
    const key = await t.request('POST', collections, { token, body: { title: 'ok', ['x\u0000']: 1 } });
    expectErrorShape(key, 400, /^x.: must not contain the NUL character/);
  });

  it('keeps the rest of text as it is, and still serves', async () => {
    const res = await t.request('POST', `/v1/orgs/${orgId}/collections`, { token, body: { title: 'é 🙂 \u202E' } });
    expect(res.status).toBe(201);
    expect(res.body.title).toBe('é 🙂 \u202E');
    expect((await t.request('GET', '/v1/orgs', { token })).status).toBe(200);
  });
});
