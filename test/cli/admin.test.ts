import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuire, startServer, type ServerProcess } from '../helpers/cli.js';
import { createPostgresDatabase } from '../helpers/databases.js';

describe('quire admin (SQLite data dir)', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let server: ServerProcess | undefined;

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-cli-'));
    env = { QUIRE_DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '' };
  });
  afterAll(async () => {
    await server?.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('bootstrap prints {user, organization, token}, and the token lists the organization', async () => {
    const result = await runQuire(['admin', 'bootstrap', '--init', '--email', 'a@example.com', '--name', 'Ada', '--org', 'Acme'], env);
    // stderr says which store it used, and nothing else.
    expect(result.stderr).toBe(`quire admin bootstrap: data dir ${dataDir}, database SQLite ${path.join(dataDir, 'quire.sqlite')}\n`);
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout);
    expect(Object.keys(printed).sort()).toEqual(['organization', 'token', 'user']);
    expect(printed.user).toMatchObject({ object: 'user', email: 'a@example.com', displayName: 'Ada' });
    expect(printed.organization).toMatchObject({ object: 'organization', title: 'Acme', permissions: { admin: true } });
    expect(printed.token).toMatch(/^qt_[A-Za-z0-9_-]{43}$/);

    server = await startServer(env);
    const res = await fetch(`${server.url}/v1/orgs`, { headers: { authorization: `Bearer ${printed.token}` } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.items.map((o: { title: string }) => o.title)).toEqual(['Acme']);
    const refused = await fetch(`${server.url}/v1/orgs`, { headers: { authorization: 'Bearer qt_wrong' } });
    expect(refused.status).toBe(401);
  });

  it('create-user makes a member with a role and a working token; create-token adds another', async () => {
    const boot = JSON.parse((await runQuire(['admin', 'bootstrap', '--init', '--email', 'owner@example.com', '--org', 'Second'], env)).stdout);
    const created = await runQuire(['admin', 'create-user', '--email', 'Bob@Example.com', '--org', boot.organization.id, '--role', 'edit'], env);
    expect(created.code).toBe(0);
    const printed = JSON.parse(created.stdout);
    expect(Object.keys(printed).sort()).toEqual(['token', 'user']);
    expect(printed.user.email).toBe('bob@example.com');
    server ??= await startServer(env);
    const member = await fetch(`${server.url}/v1/orgs/${boot.organization.id}`, { headers: { authorization: `Bearer ${printed.token}` } });
    expect(member.status).toBe(200);
    expect((await member.json()).permissions).toMatchObject({ view: true, admin: false });

    const second = await runQuire(['admin', 'create-token', '--user', printed.user.id], env);
    expect(second.code).toBe(0);
    const { token } = JSON.parse(second.stdout);
    expect(token).not.toBe(printed.token);
    const again = await fetch(`${server.url}/v1/orgs`, { headers: { authorization: `Bearer ${token}` } });
    expect((await again.json()).items.map((o: { id: string }) => o.id)).toEqual([boot.organization.id]);
  });

  it('fails with a message and exit code 1 on bad input', async () => {
    const duplicate = await runQuire(['admin', 'create-user', '--email', 'bob@example.com'], env);
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toMatch(/email: a user with e-mail "bob@example.com" already exists/);
    const badRole = await runQuire(['admin', 'create-user', '--email', 'carol@example.com', '--org', 'x', '--role', 'owner'], env);
    expect(badRole.code).toBe(1);
    expect(badRole.stderr).toMatch(/--role/);
    const badEmail = await runQuire(['admin', 'bootstrap', '--init', '--email', 'not-an-email'], env);
    expect(badEmail.code).toBe(1);
    expect(badEmail.stderr).toMatch(/^quire: email: /m);
    const unknownUser = await runQuire(['admin', 'create-token', '--user', 'nobody'], env);
    expect(unknownUser.code).toBe(1);
    expect(unknownUser.stderr).toMatch(/user: no user "nobody"/);
    const unknownOrg = await runQuire(['admin', 'create-user', '--email', 'dave@example.com', '--org', 'nope'], env);
    expect(unknownOrg.code).toBe(1);
    expect(unknownOrg.stderr).toMatch(/no organization "nope"/);
  });
});

describe('quire commands outside a data dir', () => {
  let folder: string;
  beforeAll(async () => {
    folder = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-elsewhere-'));
  });
  afterAll(async () => {
    await fs.rm(folder, { recursive: true, force: true });
  });

  it('fail with a message that says what to set, and create nothing', async () => {
    const env = { QUIRE_DATA_DIR: undefined, DATABASE_URL: undefined, REDIS_URL: undefined, QUIRE_MIGRATE_TOKEN: 'qt_x' };
    const commands = [
      ['admin', 'bootstrap', '--email', 'a@example.com'],
      ['admin', 'create-user', '--email', 'b@example.com'],
      ['admin', 'create-token', '--user', 'someone'],
      ['admin', 'purge'],
      ['site', 'export', 'site', path.join(folder, 'out')],
      ['migrate', '--from', 'http://127.0.0.1:9'],
    ];
    for (const args of commands) {
      const result = await runQuire(args, env, { cwd: folder });
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stdout).toBe('');
      const message = result.stderr.trim();
      expect(message.split('\n'), message).toHaveLength(1);
      expect(message).toContain(`no Quire data at ${path.join(folder, 'data')} (QUIRE_DATA_DIR is not set: ./data of this folder)`);
      expect(message).toContain('Set QUIRE_DATA_DIR and DATABASE_URL to what `quire serve` uses');
      // Only the commands that can start a new instance offer to make one.
      expect(message.includes('--init'), args.join(' ')).toBe(args[1] === 'bootstrap' || args[0] === 'migrate');
    }
    expect(await fs.readdir(folder)).toEqual([]);

    // With QUIRE_DATA_DIR pointing at an empty folder (not a store): refused the same way, the folder left empty.
    const empty = path.join(folder, 'empty');
    await fs.mkdir(empty);
    const refused = await runQuire(['admin', 'bootstrap', '--email', 'a@example.com'], { ...env, QUIRE_DATA_DIR: empty }, { cwd: folder });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`no Quire data at ${empty} (QUIRE_DATA_DIR)`);
    expect(await fs.readdir(empty)).toEqual([]);

    // --init makes the store.
    const made = await runQuire(['admin', 'bootstrap', '--init', '--email', 'a@example.com'], env, { cwd: folder });
    expect(made.code, made.stderr).toBe(0);
    expect(await fs.readdir(path.join(folder, 'data'))).toContain('quire.sqlite');
  });

  it('fail in one line, without a stack, when the database cannot be reached', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-nodb-'));
    try {
      const result = await runQuire(['admin', 'purge'], { QUIRE_DATA_DIR: dataDir, DATABASE_URL: 'postgres://quire@no-such-host.invalid/quire', REDIS_URL: undefined });
      expect(result.code).toBe(1);
      const lines = result.stderr.trim().split('\n');
      expect(lines[0]).toBe(`quire admin purge: data dir ${dataDir}, database PostgreSQL postgres://quire@no-such-host.invalid/quire`);
      expect(lines.slice(1)).toEqual([expect.stringMatching(/^quire: DATABASE_URL: could not open it: .*ENOTFOUND no-such-host\.invalid \(--verbose shows where\)$/)]);
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });

  it('print the URLs of the server running on the data dir, not of their own PORT', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-record-'));
    const env = { QUIRE_DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '', PORT: undefined, HOST: undefined, QUIRE_PUBLIC_URL: undefined };
    const server = await startServer(env);
    try {
      const created = await runQuire(['admin', 'bootstrap', '--email', 'u@example.com'], env, { cwd: folder });
      expect(created.code, created.stderr).toBe(0);
      const printed = JSON.parse(created.stdout);
      expect(printed.user.urls.location).toBe(`${server.url}/v1/users/${printed.user.id}`);
      // A URL set for the command wins over the record.
      const chosen = await runQuire(['admin', 'create-user', '--email', 'v@example.com'], { ...env, QUIRE_PUBLIC_URL: 'https://docs.example.com' });
      expect(JSON.parse(chosen.stdout).user.urls.location).toMatch(/^https:\/\/docs\.example\.com\/v1\/users\//);
    } finally {
      await server.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});

describe('two quire serve processes on one PostgreSQL database', () => {
  let db: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let dataDir: string;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    db = await createPostgresDatabase();
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-two-'));
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await db?.drop();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  // Two `quire serve` and three `quire admin` processes: seconds each on a busy machine.
  it('serve the same data, and agree on page tokens', { timeout: 120_000 }, async () => {
    // Both processes start together on an empty database: migrations and the cursor secret must not race.
    const env = { DATABASE_URL: db.url, QUIRE_DATA_DIR: dataDir };
    servers.push(...(await Promise.all([startServer(env), startServer(env)])));
    const [a, b] = servers;
    const boot = JSON.parse((await runQuire(['admin', 'bootstrap', '--init', '--email', 'two@example.com', '--org', 'Shared'], env)).stdout);
    const auth = { authorization: `Bearer ${boot.token}`, 'content-type': 'application/json' };

    const patched = await fetch(`${a.url}/v1/orgs/${boot.organization.id}`, { method: 'PATCH', headers: auth, body: JSON.stringify({ title: 'Written by A' }) });
    expect(patched.status).toBe(200);
    const read = await fetch(`${b.url}/v1/orgs/${boot.organization.id}`, { headers: auth });
    expect((await read.json()).title).toBe('Written by A');

    for (const title of ['Second org', 'Third org']) {
      // Extra organizations for the same user, so the list has pages.
      await runQuire(['admin', 'bootstrap', '--init', '--email', 'two@example.com', '--org', title], env);
    }
    const first = await (await fetch(`${a.url}/v1/orgs?limit=2`, { headers: auth })).json();
    expect(first.count).toBe(2);
    const rest = await (await fetch(`${b.url}/v1/orgs?limit=2&page=${encodeURIComponent(first.next.page)}`, { headers: auth })).json();
    expect([...first.items, ...rest.items].map((o: { title: string }) => o.title)).toEqual(['Written by A', 'Second org', 'Third org']);
  });
});

describe('quire admin purge', () => {
  it('removes spaces deleted more than 7 days ago and prints their ids', async () => {
    const { startTestApp } = await import('../helpers/app.js');
    const t = await startTestApp('sqlite');
    try {
      const org = await t.organization();
      const create = async (title: string) => (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title } })).body.id as string;
      const [old, recent] = [await create('Old'), await create('Recent')];
      for (const id of [old, recent]) await t.request('DELETE', `/v1/spaces/${id}`, { token: org.admin.token });
      await t.container.ctx.db
        .updateTable('spaces')
        .set({ deleted_at: new Date(Date.now() - 8 * 24 * 3600 * 1000).toISOString() })
        .where('id', '=', old)
        .execute();
      const result = await runQuire(['admin', 'purge'], { QUIRE_DATA_DIR: t.config.dataDir, DATABASE_URL: '' });
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ purged: [old] });
      await expect(fs.access(t.container.git.repositoryPath(old))).rejects.toThrow();
      await fs.access(t.container.git.repositoryPath(recent));
    } finally {
      await t.close();
    }
  });
});
