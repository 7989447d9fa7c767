/**
 * Kept answers replayed (the warm read): a URL of main's content (a page by id or by path, `/content`)
 * answered once is answered again from its kept bytes while the caller's read of the space (access and main's
 * commit, one entry of the read cache) is current: by the replay lane ahead of Fastify's router, or by the routes'
 * hook for what the lane leaves. Over a real HTTP server read with node:http; a second container on the same data dir
 * stands in for another `quire serve` process.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawGet, rawRequest, type RawAnswer } from '../helpers/raw-http.js';
import { replayLane } from '../../src/http/replay-lane.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { createContainer } from '../../src/container.js';
import { buildApp } from '../../src/http/app.js';
import { peekContent } from '../../src/domain/content/revisions.js';
import { sleep } from '../helpers/wait.js';
import { replayOf } from '../../src/http/answer-cache.js';

const isReplayed = (content: ReturnType<typeof peekContent>, url: string) => content !== undefined && replayOf(content, url) !== undefined;

describe('kept answers replayed', () => {
  let t: TestApp;
  let server: string;
  let orgId: string;
  let admin: TestUser;
  let spaceId: string;
  let checkout: Checkout;

  const get = (path: string, token: string, headers: Record<string, string> = {}) => rawGet(`${server}${path}`, { authorization: `Bearer ${token}`, ...headers });
  const pageIdOf = async (path: string) => {
    const { pages } = JSON.parse((await get(`/v1/spaces/${spaceId}/content`, admin.token)).body.toString()) as { pages: Array<{ id: string; path: string }> };
    return pages.find((p) => p.path === path)!.id;
  };
  /** An answer's headers but the date (which changes from one second to the next). */
  const headersOf = (answer: RawAnswer) => {
    const { date: _date, ...rest } = answer.headers;
    return rest;
  };
  /**
   * The replay lane alone, over this app's container, on a server of its own: what it leaves to Fastify is answered
   * 599 here and counted.
   */
  const laneServer = async (closing = () => false) => {
    let left = 0;
    const lane = replayLane(t.container.ctx, { log: t.app.log, requestId: () => 'req-lane', closing });
    const laneHttp = http.createServer((req, res) => {
      if (lane(req, res)) return;
      left += 1;
      req.resume();
      res.writeHead(599).end();
    });
    // The app's server keeps connections as Fastify's would (the lane's answers say so in their keep-alive header).
    laneHttp.keepAliveTimeout = t.app.server.keepAliveTimeout;
    await new Promise<void>((resolve) => laneHttp.listen(0, '127.0.0.1', resolve));
    return {
      url: `http://127.0.0.1:${(laneHttp.address() as AddressInfo).port}`,
      left: () => left,
      close: () => new Promise<void>((resolve) => laneHttp.close(() => resolve())),
    };
  };
  /** Whether the app holds a replay of `url` for `caller` (the read is current and the URL was answered). */
  const replayable = (caller: TestUser, url: string) => isReplayed(peekContent(t.container.ctx, { user: caller.user }, spaceId), url);

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const org = await t.organization();
    orgId = org.id;
    admin = org.admin;
    server = await t.listen();
    spaceId = (await t.request('POST', `/v1/orgs/${orgId}/spaces`, { token: admin.token, body: { title: 'Handbook' } })).body.id;
    checkout = await Checkout.clone(spaceRemote(server, admin.token, spaceId));
    const summary = ['# Summary', '', '* [Welcome](README.md)'];
    await checkout.write('README.md', '# Welcome\n\nStart here.\n');
    for (let i = 0; i < 30; i++) {
      await checkout.write(`guide/page-${i}.md`, `# Page ${i}\n\n${`Paragraph ${i} about installing the service. `.repeat(20)}\n`);
      summary.push(`* [Page ${i}](guide/page-${i}.md)`);
    }
    await checkout.write('SUMMARY.md', `${summary.join('\n')}\n`);
    await checkout.commitAndPush('30 pages');
  });
  afterAll(async () => {
    await checkout?.dispose();
    await t?.close();
  });

  it('answers a URL asked again with the same bytes and headers as the route, for a page by id, by path and /content', async () => {
    const pageId = await pageIdOf('guide/page-3');
    const urls = [`/v1/spaces/${spaceId}/content/page/${pageId}`, `/v1/spaces/${spaceId}/content/page/${pageId}?format=document`, `/v1/spaces/${spaceId}/content/path/guide/page-3`];
    for (const url of urls) {
      const first = await get(url, admin.token);
      expect(first.status).toBe(200);
      expect(replayable(admin, url)).toBe(true);
      const again = await get(url, admin.token);
      expect(again.status).toBe(200);
      expect(headersOf(again)).toEqual(headersOf(first));
      expect(again.body.equals(first.body)).toBe(true);
    }
    // The document answer is not the markdown one: each URL replays its own.
    expect((await get(urls[1], admin.token)).body.equals((await get(urls[0], admin.token)).body)).toBe(false);

    // /content is big: each client gets what its Accept-Encoding takes, replayed or not.
    const content = `/v1/spaces/${spaceId}/content`;
    const plain = await get(content, admin.token);
    const zipped = await get(content, admin.token, { 'accept-encoding': 'gzip' });
    const zippedAgain = await get(content, admin.token, { 'accept-encoding': 'gzip' });
    const plainAgain = await get(content, admin.token);
    expect(replayable(admin, content)).toBe(true);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zippedAgain.headers['content-encoding']).toBe('gzip');
    expect(zippedAgain.body.equals(zipped.body)).toBe(true);
    expect(gunzipSync(zippedAgain.body).equals(plain.body)).toBe(true);
    expect(plainAgain.headers['content-encoding']).toBeUndefined();
    expect(plainAgain.headers.vary).toBe('accept-encoding');
    expect(plainAgain.body.equals(plain.body)).toBe(true);
  });

  it('the replay lane answers a URL the route answered with the same bytes and headers, gzipped once the route has made it', async () => {
    const lane = await laneServer();
    try {
      const url = `/v1/spaces/${spaceId}/content/path/guide/page-8`;
      const routed = await get(url, admin.token);
      const laned = await rawGet(`${lane.url}${url}`, { authorization: `Bearer ${admin.token}` });
      expect(lane.left()).toBe(0);
      expect(laned.status).toBe(200);
      expect(headersOf(laned)).toEqual(headersOf(routed));
      expect(laned.body.equals(routed.body)).toBe(true);

      // A big answer: plain at once; gzipped only once the route has compressed it (the lane never compresses).
      const content = `/v1/spaces/${spaceId}/content`;
      const gzip = { authorization: `Bearer ${admin.token}`, 'accept-encoding': 'gzip' };
      const plain = await get(content, admin.token);
      expect(headersOf(await rawGet(`${lane.url}${content}`, { authorization: `Bearer ${admin.token}` }))).toEqual(headersOf(plain));
      const zipped = await rawGet(`${server}${content}`, gzip);
      expect(zipped.headers['content-encoding']).toBe('gzip');
      const lanedZipped = await rawGet(`${lane.url}${content}`, gzip);
      expect(lane.left()).toBe(0);
      expect(headersOf(lanedZipped)).toEqual(headersOf(zipped));
      expect(lanedZipped.body.equals(zipped.body)).toBe(true);
    } finally {
      await lane.close();
    }
  });

  it('the replay lane leaves to the router what it cannot answer as the route would', async () => {
    const url = `/v1/spaces/${spaceId}/content/path/guide/page-9`;
    const auth = { authorization: `Bearer ${admin.token}` };
    let closing = false;
    const lane = await laneServer(() => closing);
    try {
      const ask = async (path: string, options: Parameters<typeof rawRequest>[1] = {}) => {
        const before = lane.left();
        expect((await rawRequest(`${lane.url}${path}`, { headers: auth, ...options })).status).toBe(599);
        expect(lane.left()).toBe(before + 1);
      };
      // Not answered by the route yet.
      await ask(url);
      expect((await get(url, admin.token)).status).toBe(200);
      await ask(`${url}?format=document`);
      await ask(url.replace('page-9', 'page-10'));
      // Other methods, a body, other callers.
      await ask(url, { method: 'HEAD' });
      await ask(url, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{}' });
      await ask(url, { headers: { ...auth, 'content-type': 'application/json' }, body: '{}' });
      await ask(url, { headers: {} });
      await ask(url, { headers: { authorization: `Basic ${admin.token}` } });
      await ask(url, { headers: { authorization: 'Bearer qt_unknown' } });
      const stranger = await t.user();
      expect((await get(url, stranger.token)).status).toBe(404);
      await ask(url, { headers: { authorization: `Bearer ${stranger.token}` } });
      // A closing server answers 503 from Fastify; the lane answers nothing then. (The stranger's account was a write:
      // the read cache starts again, and the route reads the admin's access anew first.)
      await ask(url);
      expect((await get(url, admin.token)).status).toBe(200);
      expect((await rawGet(`${lane.url}${url}`, auth)).status).toBe(200);
      closing = true;
      await ask(url);
    } finally {
      await lane.close();
    }
  });

  it('never replays to a caller who may not read the space, and shows a new commit of main at once', async () => {
    const pageId = await pageIdOf('guide/page-4');
    const url = `/v1/spaces/${spaceId}/content/page/${pageId}`;
    expect((await get(url, admin.token)).status).toBe(200);
    expect((await get(url, admin.token)).status).toBe(200);
    const stranger = await t.user();
    const refused = await get(url, stranger.token);
    expect(refused.status).toBe(404);
    expect(JSON.parse(refused.body.toString()).error.message).toMatch(/^spaceId: /);
    expect((await get(url, 'qt_not-a-token')).status).toBe(401);

    await checkout.write('guide/page-4.md', '# Page 4\n\nRewritten.\n');
    await checkout.commitAndPush('rewrite page 4');
    const after = JSON.parse((await get(url, admin.token)).body.toString()) as { markdown?: string; document?: unknown };
    expect(JSON.stringify(after)).toContain('Rewritten.');
  });

  it('stops within the cache time to live once another process removes the reader, though the reader keeps reading', async () => {
    const reader = await t.member(orgId, 'read');
    const pageId = await pageIdOf('guide/page-5');
    const url = `/v1/spaces/${spaceId}/content/page/${pageId}`;
    expect((await get(url, reader.token)).status).toBe(200);
    expect(replayable(reader, url)).toBe(true);

    // Another `quire serve` on the same data: its write is not seen by this process's cache until it expires.
    const other = await createContainer(t.config);
    const otherApp = await buildApp(other, { logger: false });
    try {
      const removed = await otherApp.inject({ method: 'DELETE', url: `/v1/orgs/${orgId}/members/${reader.user.id}`, headers: { authorization: `Bearer ${admin.token}` } });
      expect(removed.statusCode).toBe(204);
      const removedAt = Date.now();
      // Within the read cache's time to live the reader may still be answered; once it has passed, never again
      // (whatever the machine's speed: the request is made after the time to live, not timed).
      let answered = 0;
      while (Date.now() - removedAt <= t.config.cacheTtlMs) {
        await get(url, reader.token);
        answered += 1;
        // Pacing: the reader reads on through the time to live (the length of time is the rule under test here).
        await sleep(20);
      }
      expect((await get(url, reader.token)).status).toBe(404);
      expect(answered).toBeGreaterThan(1);
    } finally {
      await otherApp.close();
      await other.close();
    }
  });

  it('refuses a token deleted by another process within the cache time to live, though its holder keeps reading', async () => {
    const reader = await t.member(orgId, 'read');
    const url = `/v1/spaces/${spaceId}/content/path/guide/page-7`;
    expect((await get(url, reader.token)).status).toBe(200);
    expect(replayable(reader, url)).toBe(true);
    // No operation deletes a token: an operator does, in the database, as another process would.
    const other = await createContainer(t.config);
    try {
      await other.ctx.db.deleteFrom('api_tokens').where('user_id', '=', reader.user.id).execute();
      const deletedAt = Date.now();
      // Within the time to live the holder may still be answered; once it has passed, never again (the request is
      // made after the time to live, not timed, so a slow machine cannot make this fail).
      const statuses = new Set<number>();
      while (Date.now() - deletedAt <= t.config.cacheTtlMs) {
        statuses.add((await get(url, reader.token)).status);
        // Pacing, as above.
        await sleep(20);
      }
      expect([...statuses].filter((status) => status !== 200 && status !== 401)).toEqual([]);
      expect((await get(url, reader.token)).status).toBe(401);
    } finally {
      await other.close();
    }
  });

  it('stops at once when this process removes the reader', async () => {
    const reader = await t.member(orgId, 'read');
    const url = `/v1/spaces/${spaceId}/content/path/guide/page-6`;
    expect((await get(url, reader.token)).status).toBe(200);
    expect((await get(url, reader.token)).status).toBe(200);
    expect((await t.request('DELETE', `/v1/orgs/${orgId}/members/${reader.user.id}`, { token: admin.token })).status).toBe(204);
    expect((await get(url, reader.token)).status).toBe(404);
  });
});
