/**
 * kill -9 under load: `quire serve` is killed while several writers push over HTTP with the real git client and
 * readers read. After each kill: every repository passes `git fsck`, and once the server is started again the API's
 * revision of every space equals its main ref (in the space and in the list of spaces), and search finds the newest
 * page within 10 s. Several cycles on one data directory, on SQLite and on PostgreSQL.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { runQuire, startServer, type ServerProcess } from '../helpers/cli.js';
import { createPostgresDatabase, DATABASE_KINDS } from '../helpers/databases.js';
import { Checkout, spaceRemote } from '../helpers/git.js';

const exec = promisify(execFile);

const WRITERS = 4;
const SPACES = 2;
const CYCLES = 3;

/**
 * A word nobody else writes, from a counter (letters only: search splits words at digits). It ends in `x`, which
 * the English stemmer leaves alone (`crashwordy` and `crashwordi` would share a stem and find each other's page).
 */
function wordOf(n: number): string {
  let word = '';
  do {
    word = String.fromCharCode(97 + (n % 26)) + word;
    n = Math.floor(n / 26);
  } while (n > 0);
  return `crashword${word}x`;
}

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * git processes the killed server started that are still running (a receive-pack finishing its push): their pid,
 * state, parent and command line, so that a wait that times out names what it waited for.
 */
async function gitProcessesIn(dataDir: string): Promise<string[]> {
  const { stdout } = await exec('ps', ['-eo', 'pid,stat,ppid,etime,args']);
  return stdout.split('\n').filter((line) => line.includes('git') && line.includes(dataDir));
}

describe.each(DATABASE_KINDS)('kill -9 under load (%s)', (kind) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  });

  it('keeps every repository sound and shows exactly what the refs say after each restart', { timeout: 300_000 }, async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-crash-'));
    cleanups.push(() => fs.rm(dataDir, { recursive: true, force: true }));
    let databaseUrl = '';
    if (kind === 'postgres') {
      const db = await createPostgresDatabase();
      cleanups.push(db.drop);
      databaseUrl = db.url;
    }
    const env = { QUIRE_DATA_DIR: dataDir, DATABASE_URL: databaseUrl, REDIS_URL: '', QUIRE_CACHE_TTL_MS: '0' };
    const bootstrap = await runQuire(['admin', 'bootstrap', '--init', '--email', 'crash@example.com', '--org', 'Crash'], env);
    expect(bootstrap.code, bootstrap.stderr).toBe(0);
    const { token, organization } = JSON.parse(bootstrap.stdout);

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
    const spaces: string[] = [];
    for (let i = 0; i < SPACES; i++) {
      const created = await api('POST', `/v1/orgs/${organization.id}/spaces`, { title: `Space ${i}` });
      expect(created.status).toBe(201);
      spaces.push(created.body.id);
    }
    // The repository of a space, as the store lays them out (GitStore.repositoryPath).
    const gitDirOf = (spaceId: string) => path.join(dataDir, 'repositories', spaceId.slice(0, 2), `${spaceId}.git`);
    const mainOf = async (spaceId: string) => (await exec('git', ['--git-dir', gitDirOf(spaceId), 'rev-parse', 'refs/heads/main'])).stdout.trim();

    let counter = 0;
    for (let cycle = 0; cycle < CYCLES; cycle++) {
      // Load: writers push one page per commit (fetch and rebase when refused), a reader reads.
      let killed = false;
      const landed: number[] = [];
      const writers = Array.from({ length: WRITERS }, async (_, w) => {
        const spaceId = spaces[w % SPACES];
        const checkout = await Checkout.clone(spaceRemote(server.url, token, spaceId)).catch(() => undefined);
        if (!checkout) return;
        try {
          while (!killed) {
            const n = counter++;
            await checkout.write(`page-${n}.md`, `# Page ${n}\n\nThe word ${wordOf(n)} is here.\n`);
            await checkout.commit(wordOf(n));
            for (let attempt = 0; attempt < 5 && !killed; attempt++) {
              try {
                await checkout.push('HEAD:refs/heads/main');
                landed.push(n);
                break;
              } catch {
                await checkout.git('pull', '--quiet', '--rebase', 'origin', 'main').catch(() => undefined);
              }
            }
          }
        } finally {
          await checkout.dispose();
        }
      });
      const reader = (async () => {
        while (!killed) await api('GET', `/v1/spaces/${spaces[0]}/content`).catch(() => undefined);
      })();
      await until('some pushes to land', async () => landed.length, (count) => count >= 3 + cycle, 60_000);
      // Mid-flight: the next pushes are on their way when the server dies.
      await new Promise((resolve) => setTimeout(resolve, 150 + cycle * 100));
      server.child.kill('SIGKILL');
      killed = true;
      await Promise.all([...writers, reader]);
      await until('the killed server\'s git processes to end', () => gitProcessesIn(dataDir), (processes) => processes.length === 0, 30_000);

      for (const spaceId of spaces) {
        const fsck = await exec('git', ['--git-dir', gitDirOf(spaceId), 'fsck', '--full', '--no-dangling', '--no-progress']);
        expect(fsck.stderr.trim(), `git fsck of ${spaceId}`).toBe('');
      }

      server = await startServer(env);
      for (const spaceId of spaces) {
        const main = await mainOf(spaceId);
        expect((await api('GET', `/v1/spaces/${spaceId}`)).body.revision, `space ${spaceId} after cycle ${cycle}`).toBe(main);
        await until(
          'the list of spaces to show main',
          async () => (await api('GET', `/v1/orgs/${organization.id}/spaces`)).body.items.find((s: any) => s.id === spaceId)?.revision,
          (revision) => revision === main,
          5_000,
        );
        const newest = (await exec('git', ['--git-dir', gitDirOf(spaceId), 'log', '-1', '--format=%s', 'refs/heads/main'])).stdout.trim();
        if (!newest.startsWith('crashword')) continue;
        await until(
          `search to find the newest page of ${spaceId} (${newest})`,
          async () => (await api('GET', `/v1/spaces/${spaceId}/search?query=${newest}`)).body?.items?.length ?? 0,
          (count) => count === 1,
          10_000,
        );
      }
    }
  });
});
