/**
 * Logs for people: `quire serve` says at start where it listens, its public URL, its data dir and
 * database, and where jobs run; as lines people read (QUIRE_LOG_FORMAT=pretty, what a terminal gets) or as JSON.
 */
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, runQuire, spawnQuire } from '../helpers/cli.js';

describe('quire serve logs', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-logs-'));
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  /** The lines `quire serve` writes from its start to its stop; `meanwhile` runs while it listens. */
  async function startLines(format: 'pretty' | 'json', meanwhile: (base: string) => Promise<void> = async () => {}, name: string = format): Promise<string[]> {
    const port = await freePort();
    const env = { QUIRE_DATA_DIR: path.join(dir, name), PORT: String(port), HOST: '127.0.0.1', QUIRE_LOG_LEVEL: 'info', QUIRE_LOG_FORMAT: format, DATABASE_URL: '', REDIS_URL: '', QUIRE_PUBLIC_URL: '' };
    const server = spawnQuire(['serve'], env);
    await server.waitForOutput(/jobs in this process/, 120_000);
    await meanwhile(`http://127.0.0.1:${port}`);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    return server.output().split('\n').filter((line) => line !== '');
  }

  /** A data dir `name` made by `quire admin bootstrap`: its admin's token headers and organization. */
  async function bootstrapped(name: string): Promise<{ dataDir: string; headers: Record<string, string>; organizationId: string }> {
    const dataDir = path.join(dir, name);
    const boot = await runQuire(['admin', 'bootstrap', '--init', '--email', `${name}@example.com`, '--org', name], { QUIRE_DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '' });
    expect(boot.code).toBe(0);
    const { token, organization } = JSON.parse(boot.stdout) as { token: string; organization: { id: string } };
    return { dataDir, headers: { authorization: `Bearer ${token}` }, organizationId: organization.id };
  }

  it('as lines for people: time, level and message, no JSON', async () => {
    const lines = await startLines('pretty');
    const url = lines.find((line) => line.includes('public URL'));
    expect(url).toMatch(/^\[\d\d:\d\d:\d\d(\.\d+)?\] INFO.*: public URL http:\/\/127\.0\.0\.1:\d+ \(listening on http:\/\/127\.0\.0\.1:\d+\)/);
    expect(lines.some((line) => /INFO.*: data dir .*pretty, database SQLite .*quire\.sqlite$/.test(line))).toBe(true);
    expect(lines.some((line) => line.endsWith('jobs in this process (REDIS_URL is not set)'))).toBe(true);
    expect(lines.filter((line) => line.startsWith('{'))).toEqual([]);
  }, 180_000);

  it('as JSON, one object per line, for log collectors', async () => {
    const lines = await startLines('json');
    const records = lines.map((line) => JSON.parse(line) as { level: number; msg: string });
    expect(records.map((r) => r.msg)).toEqual(expect.arrayContaining([expect.stringMatching(/^public URL /), expect.stringMatching(/^data dir /), 'jobs in this process (REDIS_URL is not set)']));
    expect(records.every((r) => typeof r.level === 'number')).toBe(true);
  }, 180_000);

  it('one access line per request, when it is answered: method, URL, client, status and time', async () => {
    const lines = await startLines(
      'json',
      async (base) => {
        expect((await fetch(`${base}/v1/openapi.json`)).status).toBe(200);
        expect((await fetch(`${base}/v1/orgs?limit=5`)).status).toBe(401);
        expect((await fetch(`${base}/no/such/route`)).status).toBe(404);
      },
      'access',
    );
    const records = lines.map((line) => JSON.parse(line) as { msg: string; req?: { method: string; url: string; remoteAddress: string }; res?: { statusCode: number }; responseTime?: number });
    expect(records.filter((r) => r.msg === 'incoming request')).toEqual([]);
    const answered = records.filter((r) => r.msg === 'request completed');
    expect(answered.map((r) => [r.req?.method, r.req?.url, r.res?.statusCode])).toEqual([
      ['GET', '/v1/openapi.json', 200],
      ['GET', '/v1/orgs?limit=5', 401],
      ['GET', '/no/such/route', 404],
    ]);
    for (const record of answered) {
      expect(record.req?.remoteAddress).toBe('127.0.0.1');
      expect(record.responseTime).toBeGreaterThan(0);
    }
  }, 180_000);

  it('keeps no secret of a URL in an access line: share keys, visitor tokens, tokens, credentials', async () => {
    const secrets = ['shr-SECRET-1', 'shk-SECRET-2', 'eyJ.SECRET-3', 'tok-SECRET-4', 'acc-SECRET-5', 'pw-SECRET-6', 'sig-SECRET-7'];
    let port = '';
    const lines = await startLines(
      'json',
      async (base) => {
        port = new URL(base).port;
        const query = `share=${secrets[0]}&shareKey=${secrets[1]}&JWT_TOKEN=${secrets[2]}&visitor.plan=pro&token=${secrets[3]}&access_token=${secrets[4]}&X-Amz-Signature=${secrets[6]}`;
        expect((await fetch(`${base}/sites/org/docs/page?${query}`)).status).toBe(404);
        // An absolute-form request target, with basic-auth credentials in it.
        const socket = net.connect(Number(port), '127.0.0.1');
        socket.end(`GET http://alice:${secrets[5]}@127.0.0.1:${port}/v1/openapi.json?limit=5 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
        for await (const _chunk of socket);
      },
      'redacted',
    );
    const urls = lines.map((line) => JSON.parse(line) as { msg: string; req?: { url: string } }).filter((r) => r.msg === 'request completed').map((r) => r.req?.url);
    expect(urls).toEqual([
      '/sites/org/docs/page?share=[redacted]&shareKey=[redacted]&JWT_TOKEN=[redacted]&visitor.plan=pro&token=[redacted]&access_token=[redacted]&X-Amz-Signature=[redacted]',
      `http://[redacted]@127.0.0.1:${port}/v1/openapi.json?limit=5`,
    ]);
    for (const secret of secrets) expect(lines.filter((line) => line.includes(secret))).toEqual([]);
  }, 180_000);

  it('an unexpected error of one request: logged at error level with its stack, a 500 in the error shape, and the server goes on', async () => {
    const { dataDir, headers, organizationId } = await bootstrapped('broken');
    let url = '';
    const lines = await startLines(
      'json',
      async (base) => {
        // A table gone from under the server (a hand in the database, a botched restore): nothing a request could
        // have said.
        const db = new Database(path.join(dataDir, 'quire.sqlite'));
        db.pragma('foreign_keys = OFF');
        db.exec('DROP TABLE translation_settings');
        db.close();
        url = `/v1/orgs/${organizationId}/translations`;
        const res = await fetch(`${base}${url}`, { headers });
        expect(res.status).toBe(500);
        expect(await res.json()).toEqual({ error: { code: 500, message: 'internal error: the server could not complete the request' } });
        expect((await fetch(`${base}/v1/orgs`, { headers })).status).toBe(200);
      },
      'broken',
    );
    const records = lines.map((line) => JSON.parse(line) as { level: number; msg: string; req?: { url: string }; err?: { message: string; stack: string } });
    const failed = records.filter((r) => r.level >= 50);
    expect(failed.map((r) => r.msg)).toEqual(['request failed']);
    expect(failed[0].err?.stack).toMatch(/\n +at /);
    expect(records.find((r) => r.msg === 'request completed' && r.req?.url === url)).toBeDefined();
  }, 60_000);

  it('the same access line for a read the replay lane answers as for the route', async () => {
    const { headers, organizationId } = await bootstrapped('replayed');
    let url = '';
    const lines = await startLines(
      'json',
      async (base) => {
        const space = (await (await fetch(`${base}/v1/orgs/${organizationId}/spaces`, { method: 'POST', headers })).json()) as { id: string };
        url = `/v1/spaces/${space.id}/content`;
        // The first reads go through the router, which keeps the answer (the space's first read also records what it
        // found, a write, which starts the read cache again); the last is the kept answer replayed by the lane.
        for (let i = 0; i < 3; i++) expect((await fetch(`${base}${url}`, { headers })).status).toBe(200);
      },
      'replayed',
    );
    const reads = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((r) => r.msg === 'request completed' && (r.req as { url: string }).url === url);
    expect(reads).toHaveLength(3);
    reads.splice(1, 1);
    // Each read may come on a connection of its own: the client's port is not compared.
    const [routed, replayed] = reads.map(({ time: _time, reqId, responseTime, req, ...rest }) => {
      const { remotePort, ...request } = req as { remotePort: number };
      expect(remotePort).toBeGreaterThan(0);
      return { rest: { ...rest, req: request }, reqId, responseTime };
    });
    expect(replayed.rest).toEqual(routed.rest);
    expect(Object.keys(replayed.rest)).toEqual(Object.keys(routed.rest));
    expect(replayed.reqId).toMatch(/^req-[0-9a-z]+$/);
    expect(replayed.reqId).not.toBe(routed.reqId);
    expect(replayed.responseTime).toBeGreaterThan(0);
  }, 180_000);
});
