/**
 * kill -9 in the middle of a Git Sync run, on `quire serve` itself: the run's job is holding a fetch from a host that
 * hangs when the server is killed; started again, the server's first poll finds main moved since the two sides were
 * last in step and finishes the work, so both sides end with the same commits and the state says synced. On both
 * databases.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase, DATABASE_KINDS } from '../helpers/databases.js';
import { runQuire, startServer, type ServerProcess } from '../helpers/cli.js';
import { startGitHttpServer } from '../helpers/git-http-server.js';
import { Checkout, isolatedGitEnv, spaceRemote } from '../helpers/git.js';
import { HOST_TOKEN, HOST_USER } from '../helpers/git-sync.js';
import { waitFor } from '../helpers/wait.js';

const exec = promisify(execFile);

describe.each(DATABASE_KINDS)('Git Sync: kill -9 in the middle of a run (%s)', (kind) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  });

  it('finishes the run after a restart: both sides the same commits, the state synced', { timeout: 180_000 }, async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-sync-crash-'));
    const hostRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-sync-crash-host-'));
    cleanups.push(() => fs.rm(dataDir, { recursive: true, force: true }), () => fs.rm(hostRoot, { recursive: true, force: true }));
    let databaseUrl = '';
    if (kind === 'postgres') {
      const db = await createPostgresDatabase();
      cleanups.push(db.drop);
      databaseUrl = db.url;
    }
    // The poll runs once at start only (the test is over long before an hour).
    const env = { QUIRE_DATA_DIR: dataDir, DATABASE_URL: databaseUrl, REDIS_URL: '', QUIRE_FETCH_ALLOW: '127.0.0.1', QUIRE_GIT_SYNC_POLL_S: '3600' };
    const bootstrap = await runQuire(['admin', 'bootstrap', '--init', '--email', 'sync-crash@example.com', '--org', 'Crash'], env);
    expect(bootstrap.code, bootstrap.stderr).toBe(0);
    const { token, organization } = JSON.parse(bootstrap.stdout);
    const host = await startGitHttpServer(hostRoot, { auth: { username: HOST_USER, password: HOST_TOKEN } });
    cleanups.push(() => host.close());
    const gitEnv = await isolatedGitEnv();
    const hostGit = path.join(hostRoot, 'handbook.git');
    await exec('git', ['init', '--bare', '--quiet', '--initial-branch=main', hostGit], { env: gitEnv });
    const hostMain = async () => (await exec('git', ['--git-dir', hostGit, 'rev-parse', 'refs/heads/main'], { env: gitEnv })).stdout.trim();

    let server: ServerProcess = await startServer(env);
    cleanups.push(() => server.stop());
    const api = async (method: string, url: string, body?: unknown) => {
      const res = await fetch(`${server.url}${url}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, body: (await res.json().catch(() => null)) as any };
    };
    const spaceId = (await api('POST', `/v1/orgs/${organization.id}/spaces`, { title: 'Handbook' })).body.id as string;
    const connected = await api('PUT', `/v1/spaces/${spaceId}/git/sync`, { url: `${host.url}/handbook.git`, firstSync: 'export', auth: { username: HOST_USER, token: HOST_TOKEN } });
    expect(connected.status).toBe(200);
    await waitFor(async () => (await api('GET', `/v1/spaces/${spaceId}/git/sync`)).body.status === 'synced', { what: 'the first export', timeoutMs: 30_000 });

    // A push to Quire; its run's job reaches the host, which hangs; the server is killed in the middle.
    const writer = await Checkout.clone(spaceRemote(server.url, token, spaceId), gitEnv);
    const release = host.hold();
    const seen = host.requests.length;
    await writer.write('guide.md', '# Guide\n\nPushed while the host hangs.\n');
    const pushed = await writer.commitAndPush('Pushed before the crash');
    await waitFor(() => host.requests.length > seen, { what: 'the run to reach the host', timeoutMs: 30_000 });
    server.child.kill('SIGKILL');
    await new Promise((resolve) => server.child.once('exit', resolve));
    release();
    expect(await hostMain()).not.toBe(pushed);

    server = await startServer(env);
    await waitFor(async () => (await hostMain()) === pushed, { what: 'the restarted server to finish the run', timeoutMs: 60_000 });
    // The state said synced before the crash too (the killed run recorded nothing): wait for the run's own record.
    await waitFor(
      async () => {
        const state = (await api('GET', `/v1/spaces/${spaceId}/git/sync`)).body;
        return state.status === 'synced' && state.localCommit === pushed && state.remoteCommit === pushed;
      },
      { what: 'the state to say synced at the pushed commit', timeoutMs: 30_000 },
    );
    const spaceLog = (await writer.git('log', '--format=%H', 'HEAD')).trim();
    const hostLog = (await exec('git', ['--git-dir', hostGit, 'log', '--format=%H', 'main'], { env: gitEnv })).stdout.trim();
    expect(hostLog).toBe(spaceLog);
    await writer.dispose();
  });
});
