/**
 * The data dir holds the database (visitor signing keys, share secrets, HMAC keys) and every repository, private
 * spaces included: made by `quire serve` or `quire admin bootstrap --init`, it is 0700 and nothing in it is open to
 * other users (SQLite's database, -wal and -shm files, keys, repositories), on both databases; a data dir open to
 * others is reported at start.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuire, startServer } from '../helpers/cli.js';
import { createPostgresDatabase, DATABASE_KINDS } from '../helpers/databases.js';
import { Checkout, spaceRemote } from '../helpers/git.js';

/**
 * Every path under `dir` (itself included) whose mode lets another user read, write or enter it. The server may be
 * running: a file gone between its listing and its reading (a lock taken and let go) was nobody's to read.
 */
async function openToOthers(dir: string): Promise<string[]> {
  const open: string[] = [];
  const gone = (error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    return undefined;
  };
  const walk = async (at: string) => {
    const stat = await fs.lstat(at).catch(gone);
    if (stat === undefined) return;
    if (!stat.isSymbolicLink() && (stat.mode & 0o077) !== 0) open.push(`${path.relative(dir, at) || '.'} ${(stat.mode & 0o777).toString(8)}`);
    if (stat.isDirectory()) for (const name of (await fs.readdir(at).catch(gone)) ?? []) await walk(path.join(at, name));
  };
  await walk(dir);
  return open;
}

describe.each(DATABASE_KINDS)('the data dir (%s)', (kind) => {
  let root: string;
  let databaseUrl = '';
  let drop: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-data-dir-'));
    if (kind === 'postgres') ({ url: databaseUrl, drop } = await createPostgresDatabase());
  });
  afterAll(async () => {
    await fs.rm(root, { recursive: true, force: true });
    await drop?.();
  });

  it('made by `quire admin bootstrap --init`: 0700, its files for the owner only', async () => {
    const dataDir = path.join(root, 'bootstrapped', 'data');
    const boot = await runQuire(['admin', 'bootstrap', '--init', '--email', 'ops@example.com', '--org', 'Docs'], { QUIRE_DATA_DIR: dataDir, DATABASE_URL: databaseUrl, REDIS_URL: '' });
    expect(boot.code, boot.stderr).toBe(0);
    expect((await fs.stat(dataDir)).mode & 0o777).toBe(0o700);
    if (kind === 'sqlite') expect((await fs.stat(path.join(dataDir, 'quire.sqlite'))).mode & 0o777).toBe(0o600);
    expect(await openToOthers(dataDir)).toEqual([]);
  }, 120_000);

  it('made by `quire serve`: 0700, and the database, keys and repositories it writes for the owner only', async () => {
    const dataDir = path.join(root, 'served');
    const env = { QUIRE_DATA_DIR: dataDir, DATABASE_URL: kind === 'postgres' ? databaseUrl : '', REDIS_URL: '' };
    const server = await startServer(env, { startTimeoutMs: 90_000 });
    try {
      expect((await fs.stat(dataDir)).mode & 0o777).toBe(0o700);
      const boot = await runQuire(['admin', 'bootstrap', '--email', 'served@example.com', '--org', 'Served'], env);
      expect(boot.code, boot.stderr).toBe(0);
      const { token, organization } = JSON.parse(boot.stdout) as { token: string; organization: { id: string } };
      const created = await fetch(`${server.url}/v1/orgs/${organization.id}/spaces`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ title: 'Private runbook', visibility: 'private' }),
      });
      const space = (await created.json()) as { id: string };
      const checkout = await Checkout.clone(spaceRemote(server.url, token, space.id));
      await checkout.write('README.md', '# Runbook\n\nThe pager number.\n');
      await checkout.commitAndPush('Runbook');
      await checkout.dispose();
      // While the server runs: SQLite's -wal and -shm files are there.
      if (kind === 'sqlite') for (const name of ['quire.sqlite', 'quire.sqlite-wal', 'quire.sqlite-shm']) expect([name, (await fs.stat(path.join(dataDir, name))).mode & 0o777]).toEqual([name, 0o600]);
      expect(await openToOthers(dataDir)).toEqual([]);
    } finally {
      await server.stop();
    }
  }, 240_000);

  it('open to others already: said at start, and left as it is', async () => {
    const dataDir = path.join(root, 'open');
    await fs.mkdir(dataDir, { mode: 0o755 });
    await fs.chmod(dataDir, 0o755);
    const env = { QUIRE_DATA_DIR: dataDir, DATABASE_URL: databaseUrl, REDIS_URL: '' };
    const boot = await runQuire(['admin', 'bootstrap', '--init', '--email', 'open@example.com', '--org', 'Open'], env);
    expect(boot.code, boot.stderr).toBe(0);
    expect(boot.stderr).toContain(`data dir ${dataDir} is open to other users of this machine (mode 755)`);
    expect(boot.stderr).toContain(`chmod -R go= ${dataDir}`);
    expect((await fs.stat(dataDir)).mode & 0o777).toBe(0o755);
  }, 120_000);
});
