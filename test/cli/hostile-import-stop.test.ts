/**
 * `quire serve` while a hostile import converts (a zip of 120 MB of one-paragraph markdown pages, given all the time
 * it wants): the server goes on answering, and one SIGTERM stops it within the ten seconds startServer allows.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuire, startServer, type ServerProcess } from '../helpers/cli.js';
import { startFileServer, type FileServer } from '../helpers/file-server.js';
import { markdownZipBomb } from '../helpers/zip-bombs.js';

describe('quire serve during a hostile import', () => {
  let dataDir: string;
  let files: FileServer;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-hostile-stop-'));
    files = await startFileServer({ '/bomb.zip': { contentType: 'application/zip', body: markdownZipBomb() } });
  });
  afterAll(async () => {
    if (server?.child.exitCode === null) server.child.kill('SIGKILL');
    await files?.close();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('answers while the import converts, and stops on SIGTERM', async () => {
    // Ten minutes and 2 GB for the conversion: the import is still converting when the server is stopped.
    const env = { QUIRE_DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', QUIRE_FETCH_ALLOW: '127.0.0.1', QUIRE_IMPORT_TIMEOUT_MS: '600000', QUIRE_IMPORT_MEMORY_MB: '2048' };
    const bootstrap = await runQuire(['admin', 'bootstrap', '--init', '--email', 'ops@example.com', '--org', 'Ops'], env);
    expect(bootstrap.code, bootstrap.stderr).toBe(0);
    const { token, organization } = JSON.parse(bootstrap.stdout) as { token: string; organization: { id: string } };
    server = await startServer(env);
    const api = async (method: string, url: string, body?: unknown) => {
      const res = await fetch(`${server!.url}${url}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(10_000),
      });
      return { status: res.status, body: await res.json() };
    };
    const space = (await api('POST', `/v1/orgs/${organization.id}/spaces`, { title: 'Hostile' })).body;

    // The import's request waits for it; the server is stopped under it.
    const importing = api('POST', `/v1/spaces/${space.id}/content/import`, { url: `${files.base}/bomb.zip`, source: 'zip' }).catch((error: Error) => error);
    let running = false;
    for (let i = 0; i < 600 && !running; i++) {
      const imports = await api('GET', `/v1/spaces/${space.id}/content/imports`);
      expect(imports.status).toBe(200);
      running = imports.body.items.some((item: { status: string }) => item.status === 'running') && files.hits('/bomb.zip') === 1;
      if (!running) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(running, 'the import seen running, its archive fetched').toBe(true);
    // Converting, and the server answers.
    expect((await api('GET', `/v1/orgs/${organization.id}`)).status).toBe(200);
    expect((await api('GET', `/v1/spaces/${space.id}/content/imports`)).body.items[0]).toMatchObject({ status: 'running' });

    await server.stop();
    expect(server.child.exitCode).toBe(0);
    await importing;
  }, 180_000);
});
