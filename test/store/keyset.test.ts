import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/sql/db.js';
import { keysetQuery } from '../../src/store/sql/keyset.js';
import { instanceSecret } from '../../src/store/sql/secrets.js';
import { createPostgresDatabase, DATABASE_KINDS } from '../helpers/databases.js';

describe.each(DATABASE_KINDS)('SQL store (%s)', (kind) => {
  let store: Store;
  let dataDir: string;
  let drop: (() => Promise<void>) | undefined;
  let databaseUrl: string | undefined;

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-store-'));
    if (kind === 'postgres') {
      const db = await createPostgresDatabase();
      databaseUrl = db.url;
      drop = db.drop;
    }
    store = await openStore({ dataDir, databaseUrl });
  });
  afterAll(async () => {
    await store?.close();
    await drop?.();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('migrates an empty database, and a second open finds it up to date', async () => {
    expect(store.dialect).toBe(kind);
    // Opening again (a second process) finds every migration applied and changes nothing.
    const again = await openStore({ dataDir, databaseUrl });
    await again.close();
    const tables = await store.db.introspection.getTables();
    expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['users', 'organizations', 'members', 'teams', 'spaces', 'collections']));
  });

  it('enforces foreign keys', async () => {
    await expect(
      store.db.insertInto('members').values({ organization_id: 'nope', user_id: 'nope', role: 'read', disabled: 0, sso: 0, joined_at: 'x', last_seen_at: null }).execute(),
    ).rejects.toThrow();
  });

  it('keeps one instance secret whoever asks first', async () => {
    const [a, b] = await Promise.all([instanceSecret(store.db, 'test'), instanceSecret(store.db, 'test')]);
    expect(a.equals(b)).toBe(true);
    expect(a.length).toBe(32);
  });

  it('pages by keyset in order, ties broken by id, stable under inserts between pages', async () => {
    const at = '2026-01-01T00:00:00.000Z';
    const ids = ['b', 'a', 'd', 'c', 'e'];
    for (const id of ids) {
      await store.db.insertInto('users').values({ id: `k-${id}`, email: `${id}@keyset.test`, display_name: id, photo_url: null, created_at: at }).execute();
    }
    const keys = [
      { column: 'users.created_at', direction: 'asc' as const },
      { column: 'users.id', direction: 'asc' as const },
    ];
    const base = () => store.db.selectFrom('users').selectAll().where('email', 'like', '%@keyset.test');
    const first = await keysetQuery(base(), keys, undefined, 2).execute();
    expect(first.map((u) => u.id)).toEqual(['k-a', 'k-b']);
    // A row sorting before the cursor appears on no later page; one after it appears once.
    await store.db.insertInto('users').values({ id: 'k-0', email: '0@keyset.test', display_name: '0', photo_url: null, created_at: at }).execute();
    await store.db.insertInto('users').values({ id: 'k-z', email: 'z@keyset.test', display_name: 'z', photo_url: null, created_at: at }).execute();
    const last = first[first.length - 1];
    const second = await keysetQuery(base(), keys, [last.created_at, last.id], 10).execute();
    expect(second.map((u) => u.id)).toEqual(['k-c', 'k-d', 'k-e', 'k-z']);
    const descending = await keysetQuery(base(), keys.map((k) => ({ ...k, direction: 'desc' as const })), [at, 'k-c'], 10).execute();
    expect(descending.map((u) => u.id)).toEqual(['k-b', 'k-a', 'k-0']);
  });
});

describe('SQLite: several processes opening a new data dir at once', () => {
  it('migrate it once, without failing each other', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-race-'));
    try {
      const { runQuire } = await import('../helpers/cli.js');
      const env = { QUIRE_DATA_DIR: dataDir, DATABASE_URL: '' };
      const results = await Promise.all(
        ['a', 'b', 'c'].map((name) => runQuire(['admin', 'bootstrap', '--init', '--email', `${name}@race.example`, '--org', `Org ${name}`], env)),
      );
      for (const result of results) {
        expect(result.stderr).toMatch(/^quire admin bootstrap: data dir .*, database SQLite .*\n$/);
        expect(result.code).toBe(0);
      }
      const store = await openStore({ dataDir });
      const orgs = await store.db.selectFrom('organizations').select('title').orderBy('title').execute();
      await store.close();
      expect(orgs.map((o) => o.title)).toEqual(['Org a', 'Org b', 'Org c']);
    } finally {
      await fs.rm(dataDir, { recursive: true, force: true });
    }
  });
});
