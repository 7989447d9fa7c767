/**
 * What `quire migrate` trusts its source with: its token never on a command line (`ps` shows every process's), never
 * sent to another origin the source redirects to, and QUIRE_FETCH_ALLOW (which a loopback source needs) good for the
 * source's host only: an OpenAPI specification whose URL points at an internal address is not fetched (and its
 * answer not stored) on either database.
 */
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuire, spawnQuire } from '../helpers/cli.js';
import { createPostgresDatabase, DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

interface Recorded {
  url: string;
  authorization: string | undefined;
}

/** A server on 127.0.0.1 that records each request and answers it with `answer` (or never, when it returns false). */
async function recordingServer(answer: (req: http.IncomingMessage, res: http.ServerResponse) => void | false) {
  const requests: Recorded[] = [];
  const listeners = new Set<() => void>();
  const server = http.createServer((req, res) => {
    requests.push({ url: req.url ?? '', authorization: req.headers.authorization });
    for (const listener of listeners) listener();
    answer(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    /** Resolves at the first request (at once when one came already). */
    firstRequest: () =>
      new Promise<void>((resolve) => {
        if (requests.length > 0) return resolve();
        listeners.add(resolve);
      }),
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const TOKEN = 'gb_migrate_secret_0123456789';

describe('quire migrate and its source', () => {
  const dirs: string[] = [];
  const newDataDir = async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-migrate-source-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(async () => {
    for (const dir of dirs) await fs.rm(dir, { recursive: true, force: true });
  });

  it('takes its token from QUIRE_MIGRATE_TOKEN or --token-file, never from a command line any process shows', async () => {
    // A source that never answers: the command is running, with its token sent, while every command line is read.
    const source = await recordingServer(() => false);
    const tokenFile = path.join(await newDataDir(), 'token');
    await fs.writeFile(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    const env = { QUIRE_DATA_DIR: await newDataDir(), DATABASE_URL: '', REDIS_URL: '', QUIRE_FETCH_ALLOW: '127.0.0.1', QUIRE_MIGRATE_TOKEN: undefined };
    const run = spawnQuire(['migrate', '--from', source.base, '--token-file', tokenFile, '--init'], env);
    try {
      await source.firstRequest();
      expect(source.requests[0].authorization).toBe(`Bearer ${TOKEN}`);
      const own = (await fs.readFile(`/proc/${run.child.pid}/cmdline`, 'utf8')).split('\0');
      expect(own).toContain('--token-file');
      const lines: string[] = [];
      for (const pid of (await fs.readdir('/proc')).filter((name) => /^\d+$/.test(name))) {
        const line = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
        if (line.includes(TOKEN)) lines.push(line.replaceAll('\0', ' '));
      }
      expect(lines).toEqual([]);
    } finally {
      run.child.kill('SIGKILL');
      await run.exited;
      await source.close();
    }

    const refused = await runQuire(['migrate', '--from', source.base, '--token', TOKEN, '--init'], { ...env, QUIRE_DATA_DIR: await newDataDir() });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/^quire: --token: a token on the command line is visible to every user of this machine \(ps\).*QUIRE_MIGRATE_TOKEN.*--token-file\n$/);
    const missing = await runQuire(['migrate', '--from', source.base, '--init'], { ...env, QUIRE_DATA_DIR: await newDataDir() });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("the source's API token is missing: give it in QUIRE_MIGRATE_TOKEN or in a file named by --token-file");
  }, 120_000);

  it('does not send its token on to another origin the source redirects to', async () => {
    const elsewhere = await recordingServer((_req, res) => void res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"code":401,"message":"who?"}}'));
    const source = await recordingServer((req, res) => void res.writeHead(302, { location: `${elsewhere.base}${req.url}` }).end());
    try {
      const env = { QUIRE_DATA_DIR: await newDataDir(), DATABASE_URL: '', REDIS_URL: '', QUIRE_FETCH_ALLOW: '127.0.0.1', QUIRE_MIGRATE_TOKEN: TOKEN };
      const run = await runQuire(['migrate', '--from', source.base, '--init'], env);
      expect(run.code, run.stderr).toBe(1);
      expect(source.requests[0].authorization).toBe(`Bearer ${TOKEN}`);
      expect(elsewhere.requests.length).toBeGreaterThan(0);
      expect(elsewhere.requests.map((request) => request.authorization)).toEqual(elsewhere.requests.map(() => undefined));
    } finally {
      await source.close();
      await elsewhere.close();
    }
  }, 120_000);

  describe.each(DATABASE_KINDS)('into %s', (kind) => {
    let source: TestApp;
    let internal: Awaited<ReturnType<typeof recordingServer>>;
    let base: string;
    let token: string;
    let org: string;

    beforeAll(async () => {
      // An address only this machine reaches, with something worth stealing.
      internal = await recordingServer((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ openapi: '3.0.3', info: { title: 'internal secrets', version: '1' }, paths: {} })));
      source = await startTestApp('sqlite', { fetchAllow: ['127.0.0.1'] });
      const organization = await source.organization('Northwind');
      ({ token } = organization.admin);
      org = organization.id;
      base = await source.listen();
      const internalUrl = `http://localhost:${new URL(internal.base).port}/openapi.json`;
      const created = await source.request('POST', `/v1/orgs/${org}/openapi`, { token, body: { slug: 'internal', source: { url: internalUrl } } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      await source.container.ctx.jobs.idle();
    });
    afterAll(async () => {
      await source?.close();
      await internal?.close();
    });

    it('copies the OpenAPI specification without fetching its internal URL: QUIRE_FETCH_ALLOW is for the source host only', async () => {
      const fetchedBySource = internal.requests.length;
      expect(fetchedBySource).toBe(1);
      const postgres = kind === 'postgres' ? await createPostgresDatabase() : undefined;
      try {
        const env = { QUIRE_DATA_DIR: await newDataDir(), DATABASE_URL: postgres?.url ?? '', REDIS_URL: '', QUIRE_FETCH_ALLOW: '127.0.0.1', QUIRE_MIGRATE_TOKEN: token };
        const run = await runQuire(['migrate', '--from', base, '--org', org, '--init'], env);
        expect(run.code, run.stderr).toBe(0);
        expect(JSON.parse(run.stdout).copied).toMatchObject({ organizations: 1, openapiSpecs: 1 });
        // The migration's own fetch of the specification was refused: the internal server heard nothing more.
        expect(internal.requests.length).toBe(fetchedBySource);
        expect(run.stderr).toMatch(/resolves to 127\.0\.0\.1, a private, loopback or link-local address/);
      } finally {
        await postgres?.drop();
      }
    }, 180_000);
  });
});
