/**
 * SQLite's checkpoints move to a thread of their own once the WAL has grown (src/store/sql/wal-checkpoints.ts): the
 * process's connection then stops checkpointing inside its commits, the thread copies the WAL into the database file,
 * and closing the store leaves every row in the file.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/store/sql/db.js';
import { sql } from '../../src/store/sql/kysely.js';
import { sqliteFile } from '../../src/store/instance-files.js';
import { waitFor } from '../helpers/wait.js';

/** Writes `megabytes` of rows in transactions of 1 MB. */
async function write(store: Store, megabytes: number, from = 0): Promise<void> {
  for (let part = from; part < from + megabytes; part++) {
    await store.db.transaction().execute(async (trx) => {
      for (let i = 0; i < 16; i++) await sql`insert into scratch (part, body) values (${part}, ${'x'.repeat(64_000)})`.execute(trx);
    });
  }
}

const autocheckpoint = async (store: Store) => (await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(store.db)).rows[0].wal_autocheckpoint;

describe('WAL checkpoints on a thread (SQLite)', () => {
  let store: Store | undefined;
  afterEach(async () => {
    await store?.close();
    store = undefined;
  });

  it('leaves a store that writes little to SQLite, and takes over once the WAL has grown', async () => {
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-checkpoints-'));
    store = await openStore({ dataDir });
    await sql`create table scratch (part integer, body text)`.execute(store.db);
    await write(store, 1);
    expect(store.checkpoints?.threaded).toBe(false);
    expect(await autocheckpoint(store)).toBe(1000);

    await write(store, 6, 1);
    await waitFor(async () => (await autocheckpoint(store!)) === 0, { what: 'the thread to take the checkpoints over' });
    expect(store.checkpoints?.threaded).toBe(true);

    // What is written from now on reaches the database file through the thread alone.
    const before = (await fs.stat(sqliteFile(dataDir))).size;
    await write(store, 8, 7);
    await waitFor(async () => (await fs.stat(sqliteFile(dataDir))).size >= before + 7_000_000, { what: 'the thread to checkpoint the WAL into the database file' });

    await store.close();
    store = await openStore({ dataDir });
    const { rows } = await sql<{ parts: number; rows: number }>`select count(distinct part) as parts, count(*) as rows from scratch`.execute(store.db);
    expect(rows[0]).toEqual({ parts: 15, rows: 15 * 16 });
  });

  it('holds its process until the thread has closed: a script awaiting the close goes on after it', async () => {
    // In a process of its own, where nothing else holds the event loop (as in a command of the CLI).
    const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
    const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-checkpoints-'));
    const script = path.join(dataDir, 'close.mts');
    await fs.writeFile(
      script,
      `import { openStore } from ${JSON.stringify(path.join(root, 'src/store/sql/db.ts'))};
import { sql } from ${JSON.stringify(path.join(root, 'src/store/sql/kysely.ts'))};
const store = await openStore({ dataDir: ${JSON.stringify(dataDir)} });
await sql\`create table scratch (part integer, body text)\`.execute(store.db);
for (let part = 0; part < 12; part++) {
  await store.db.transaction().execute(async (trx) => {
    for (let i = 0; i < 16; i++) await sql\`insert into scratch (part, body) values (\${part}, \${'x'.repeat(64_000)})\`.execute(trx);
  });
}
for (let waited = 0; !store.checkpoints?.threaded; waited += 50) {
  if (waited > 20_000) throw new Error('the checkpoint thread never started');
  await new Promise((resolve) => setTimeout(resolve, 50));
}
await store.close();
console.log('closed');
`,
    );
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', script], { cwd: root });
    expect(stdout.trim()).toBe('closed');
  }, 60_000);
});
