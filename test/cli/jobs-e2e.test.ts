/**
 * Jobs across real processes: `quire serve` queues on BullMQ, `quire worker` runs the jobs, both on the real Redis
 * behind a TCP proxy the test cuts and restores. While Redis is unreachable, reads keep working and operations
 * that need a job answer 503 within a second; a job queued before the outage completes once Redis is back; a push
 * made during the outage lands, and its indexing, kept back by `quire serve`, is queued as soon as Redis answers
 * again: the page is searchable within 10 s, with neither process restarted.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuire, spawnQuire, startServer, type QuireProcess, type ServerProcess } from '../helpers/cli.js';
import { REDIS_TEST_URL, assertRedisReachable, removeRedisPrefix, uniqueRedisPrefix } from '../helpers/queues.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { startFileServer, type FileServer } from '../helpers/file-server.js';
import { Checkout, spaceRemote } from '../helpers/git.js';

/** Two processes starting beside a busy test run (tsx compiles the sources at each start) may take a while. */
const START_TIMEOUT_MS = 60_000;

const SPEC = JSON.stringify({ openapi: '3.0.3', info: { title: 'Pets', version: '1' }, paths: { '/pets': { get: { responses: { '200': { description: 'ok' } } } } } });

describe('jobs across processes (bullmq): quire serve + quire worker through a Redis outage', () => {
  let dataDir: string;
  let proxy: TcpProxy;
  let files: FileServer;
  let server: ServerProcess | undefined;
  let worker: QuireProcess | undefined;
  let env: Record<string, string>;
  const prefix = uniqueRedisPrefix();

  beforeAll(async () => {
    await assertRedisReachable();
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-jobs-e2e-'));
    const redis = new URL(REDIS_TEST_URL);
    proxy = await startTcpProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
    files = await startFileServer();
    env = {
      QUIRE_DATA_DIR: dataDir,
      DATABASE_URL: '',
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      QUIRE_REDIS_PREFIX: prefix,
      QUIRE_FETCH_ALLOW: '127.0.0.1',
      QUIRE_CACHE_TTL_MS: '0',
      // The periodic catch-up (an hour here) would also queue what a push could not queue during the outage; only the
      // queueing of what was kept back, when Redis answers again, can index it within the test's 10 s.
      QUIRE_CATCH_UP_INTERVAL_MS: '3600000',
    };
  });
  afterAll(async () => {
    if (worker && worker.child.exitCode === null) {
      worker.child.kill('SIGTERM');
      await worker.exited;
    }
    await server?.stop();
    await proxy?.restore().catch(() => undefined);
    await proxy?.close();
    await files?.close();
    await removeRedisPrefix(prefix);
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  async function startWorker(): Promise<QuireProcess> {
    const started = spawnQuire(['worker'], env);
    await started.waitForOutput(/worker started/, START_TIMEOUT_MS);
    return started;
  }

  it('imports through the worker, keeps reads up and refuses jobs during the outage, and finishes queued jobs after it', async () => {
    const bootstrap = await runQuire(['admin', 'bootstrap', '--init', '--email', 'ops@example.com', '--org', 'Ops'], env);
    expect(bootstrap.code, bootstrap.stderr).toBe(0);
    const { token, organization } = JSON.parse(bootstrap.stdout);
    server = await startServer(env, { startTimeoutMs: START_TIMEOUT_MS });
    worker = await startWorker();
    const api = (method: string, url: string, body?: unknown) =>
      fetch(`${server!.url}${url}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });

    const space = await (await api('POST', `/v1/orgs/${organization.id}/spaces`, { title: 'Handbook' })).json();
    files.set('/guide.md', { body: '# Guide\n\nHow we work.\n', contentType: 'text/markdown' });
    const imported = await api('POST', `/v1/spaces/${space.id}/content/import`, { url: `${files.base}/guide.md`, source: 'markdown' });
    expect(imported.status, await imported.clone().text()).toBe(201);
    const { revision } = await imported.json();
    const pages = await (await api('GET', `/v1/spaces/${space.id}/content/pages`)).json();
    expect(JSON.stringify(pages)).toContain('Guide');
    expect((await (await api('GET', `/v1/spaces/${space.id}`)).json()).revision).toBe(revision);

    // The worker stops; a job queued now waits in Redis.
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    files.set('/pets.json', { body: SPEC, contentType: 'application/json' });
    const created = await api('POST', `/v1/orgs/${organization.id}/openapi`, { slug: 'pets', source: { url: `${files.base}/pets.json` } });
    expect(created.status).toBe(201);
    expect((await created.json()).processingState).toBe('pending');

    await proxy.cut();
    expect((await api('GET', `/v1/spaces/${space.id}/content/pages`)).status).toBe(200);
    expect((await api('GET', `/v1/orgs/${organization.id}/openapi/pets`)).status).toBe(200);
    const started = Date.now();
    const refused = await api('POST', `/v1/spaces/${space.id}/content/import`, { url: `${files.base}/guide.md`, source: 'markdown' });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(refused.status).toBe(503);
    expect((await refused.json()).error.message).toMatch(/job queue is unreachable/);

    await proxy.restore();
    worker = await startWorker();
    const deadline = Date.now() + 20_000;
    let spec: { processingState: string; lastVersion?: string };
    do {
      await new Promise((resolve) => setTimeout(resolve, 200));
      spec = await (await api('GET', `/v1/orgs/${organization.id}/openapi/pets`)).json();
    } while (spec.processingState !== 'complete' && Date.now() < deadline);
    expect(spec.processingState).toBe('complete');
    expect(spec.lastVersion).toBeTruthy();
    expect(files.hits('/pets.json')).toBe(1);
  }, 240_000);

  it('lands a push made while Redis is down, and indexes it within 10 s of Redis answering again, restarting nothing', async () => {
    const bootstrap = await runQuire(['admin', 'bootstrap', '--init', '--email', 'ops@example.com', '--org', 'Ops'], env);
    const { token, organization } = JSON.parse(bootstrap.stdout);
    server ??= await startServer(env, { startTimeoutMs: START_TIMEOUT_MS });
    if (!worker || worker.child.exitCode !== null) worker = await startWorker();
    const api = async (method: string, url: string, body?: unknown) => {
      const res = await fetch(`${server!.url}${url}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, body: await res.json() };
    };
    /** True once a search for `word` answers the page titled `title`. */
    const found = async (spaceId: string, word: string, title: string, withinMs: number): Promise<boolean> => {
      for (const deadline = Date.now() + withinMs; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 250))) {
        const result = await api('GET', `/v1/spaces/${spaceId}/search?query=${word}`);
        if (result.status === 200 && (result.body.items as Array<{ title: string }>).some((item) => item.title === title)) return true;
      }
      return false;
    };

    const space = (await api('POST', `/v1/orgs/${organization.id}/spaces`, { title: 'Runbook' })).body;
    const checkout = await Checkout.clone(spaceRemote(server.url, token, space.id));
    try {
      await checkout.write('before.md', '# Before\n\nZebrabefore is indexed by the worker.\n');
      const before = await checkout.commitAndPush('Before the outage');
      expect(await found(space.id, 'Zebrabefore', 'Before', 20_000)).toBe(true);
      // The worker has indexed it too (search may have indexed on demand): it is warm and idle when the outage starts.
      for (const job of ['index-links', 'index-search']) await worker.waitForOutput(new RegExp(`${before}.*job ${job} done`), START_TIMEOUT_MS);

      await proxy.cut();
      await checkout.write('during.md', '# During\n\nZebraduring was pushed while Redis was down.\n');
      const during = await checkout.commitAndPush('During the outage');
      // git is the truth: the push landed and the API shows it at once, whatever the queue.
      expect((await api('GET', `/v1/spaces/${space.id}`)).body.revision).toBe(during);
      expect((await api('GET', `/v1/spaces/${space.id}/content/path/during`)).status).toBe(200);

      await proxy.restore();
      expect(await found(space.id, 'Zebraduring', 'During', 10_000)).toBe(true);
      expect(worker.child.exitCode).toBeNull();
      expect(server.child.exitCode).toBeNull();
    } finally {
      await checkout.dispose();
    }
  }, 240_000);
});
