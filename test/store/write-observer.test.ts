/**
 * The store tells the caches of its process about writes (src/store/sql/write-observer.ts): every write that may
 * change what a cache holds, and not the writes of the indexes and facts derived from git, nor a space row's lock.
 * Over a real database of each kind, counting the reports `openStore` makes.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/sql/db.js';
import { insertSpace, lockSpaceRow } from '../../src/store/sql/spaces.js';
import { insertOrganization } from '../../src/store/sql/organizations.js';
import { spaceRow } from '../helpers/rows.js';
import { sql } from '../../src/store/sql/kysely.js';
import { createPostgresDatabase, DATABASE_KINDS } from '../helpers/databases.js';
import { waitFor } from '../helpers/wait.js';

describe.each(DATABASE_KINDS)('writes reported to caches (%s)', (kind) => {
  let store: Store;
  let dataDir: string;
  let drop: (() => Promise<void>) | undefined;
  let reports = 0;

  /** How many reports `run` made (0: none; a reported write makes two, as it starts and once it is done). */
  const reportsOf = async (run: () => Promise<unknown>) => {
    const before = reports;
    await run();
    return reports - before;
  };

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-observer-'));
    let databaseUrl: string | undefined;
    if (kind === 'postgres') {
      const db = await createPostgresDatabase();
      databaseUrl = db.url;
      drop = db.drop;
    }
    store = await openStore({ dataDir, databaseUrl, onWrite: () => (reports += 1) });
    const now = new Date().toISOString();
    await insertOrganization(store.db, {
      id: 'org1',
      title: 'Org',
      type: 'business',
      use_case: null,
      community_type: null,
      hostname: null,
      default_role: null,
      default_content: null,
      logo_url: null,
      sso: 0,
      ai: 0,
      invite_links: 0,
      plan: 'free',
      created_at: now,
      updated_at: now,
    });
    await insertSpace(store.db, spaceRow({ id: 'space1', organization_id: 'org1', created_at: now }));
  });
  afterAll(async () => {
    await store?.close();
    await drop?.();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('reports inserts, updates (aliased too), deletes and writes under a WITH clause', async () => {
    const { db } = store;
    expect(await reportsOf(() => db.insertInto('instance_secrets').values({ name: 'observer', value: 'v' }).execute())).toBe(2);
    expect(await reportsOf(() => db.updateTable('spaces as s').set({ title: 'Renamed' }).where('s.id', '=', 'space1').execute())).toBe(2);
    expect(await reportsOf(() => db.deleteFrom('instance_secrets').where('name', '=', 'observer').execute())).toBe(2);
    // A derived table's write with a WITH clause counts as a write to anything (on PostgreSQL the clause may write).
    const withClause = db
      .with('gone', (w) => w.selectFrom('instance_secrets').select('name'))
      .deleteFrom('link_pages')
      .where('space_id', 'in', (eb) => eb.selectFrom('gone').select('name'));
    expect(await reportsOf(() => withClause.execute())).toBe(2);
    // Reads are not reported.
    expect(await reportsOf(() => db.selectFrom('spaces').selectAll().execute())).toBe(0);
  });

  it('does not report writes to the derived tables alone, nor the lock of a space row', async () => {
    const { db } = store;
    expect(await reportsOf(() => db.insertInto('revision_facts').values({ space_id: 'space1', commit_oid: 'a'.repeat(40), facts: '{}' }).execute())).toBe(0);
    expect(await reportsOf(() => db.updateTable('revision_facts').set({ facts: '{"x":1}' }).where('space_id', '=', 'space1').execute())).toBe(0);
    expect(await reportsOf(() => db.deleteFrom('revision_facts').where('space_id', '=', 'space1').execute())).toBe(0);
    expect(await reportsOf(() => db.deleteFrom('link_pages').where('space_id', '=', 'space1').execute())).toBe(0);
    expect(await reportsOf(() => db.updateTable('search_spaces').set({ version: 0 }).where('space_id', '=', 'space1').execute())).toBe(0);
    expect(await reportsOf(() => db.transaction().execute((trx) => lockSpaceRow(trx, 'space1')))).toBe(0);
    // The space row itself is not derived.
    expect(await reportsOf(() => db.updateTable('spaces').set({ title: 'Again' }).where('id', '=', 'space1').execute())).toBe(2);
  });

  it("takes the space row's lock: a second transaction waits for the first to end", async () => {
    if (kind === 'sqlite') {
      // One connection per process: the lock is between processes (the file's write lock), held while a second
      // connection's write waits and fails once its busy timeout passes.
      const order: string[] = [];
      await store.db.transaction().execute(async (trx) => {
        await lockSpaceRow(trx, 'space1');
        const other = await openStore({ dataDir });
        try {
          await sql`pragma busy_timeout = 50`.execute(other.db);
          await expect(other.db.updateTable('spaces').set({ title: 'Other' }).where('id', '=', 'space1').execute()).rejects.toThrow(/locked|busy/i);
          order.push('refused while held');
        } finally {
          await other.close();
        }
      });
      expect(order).toEqual(['refused while held']);
      return;
    }
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const lockTaken = new Promise<void>((resolve) => (locked = resolve));
    const first = store.db.transaction().execute(async (trx) => {
      await lockSpaceRow(trx, 'space1');
      locked();
      await held;
      order.push('first done');
    });
    await lockTaken;
    const second = store.db.transaction().execute(async (trx) => {
      await lockSpaceRow(trx, 'space1');
      order.push('second locked');
    });
    // PostgreSQL shows the second transaction waiting for a lock (it could only be the first's).
    await waitFor(
      async () => {
        const waiting = await sql<{ n: number }>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`.execute(store.db);
        return waiting.rows[0].n;
      },
      { until: (n) => n === 1, what: 'the second transaction to wait for the lock' },
    );
    expect(order).toEqual([]);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first done', 'second locked']);
  });
});
