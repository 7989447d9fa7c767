/**
 * The databases every store and API suite runs against: SQLite in a temp dir, and a throwaway PostgreSQL database
 * created for the suite and dropped after it. PostgreSQL is required: a suite fails (it is not skipped) when the
 * server is unreachable. QUIRE_TEST_POSTGRES_URL points at the server's maintenance database.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { openStore } from '../../src/store/sql/db.js';
import { waitFor } from './wait.js';

export type DatabaseKind = 'sqlite' | 'postgres';

export const DATABASE_KINDS: DatabaseKind[] = ['sqlite', 'postgres'];

/**
 * The database of a suite whose subject is not the database but a browser's walk through the app's views. What such
 * a walk stores and reads goes through the same API routes and store functions that the API and store suites prove on
 * both databases; walking it twice costs minutes and adds no case. Each such suite names its one database, and they
 * alternate, so that both databases serve walks.
 */
export const WALK_ON_SQLITE: DatabaseKind[] = ['sqlite'];
export const WALK_ON_POSTGRES: DatabaseKind[] = ['postgres'];

export const POSTGRES_ADMIN_URL = process.env.QUIRE_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function connectAdmin(): Promise<pg.Client> {
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(`PostgreSQL is required for the test suite and is not reachable at ${POSTGRES_ADMIN_URL}: ${(error as Error).message}`);
  }
  return admin;
}

const MIGRATIONS_DIR = path.join(import.meta.dirname, '../../src/store/sql/migrations');

/** The migrations' sources, hashed: a template database is named by it, so that a changed migration makes a new one. */
function migrationsHash(): string {
  const hash = crypto.createHash('sha256');
  for (const file of fs.readdirSync(MIGRATIONS_DIR).sort()) hash.update(file).update(fs.readFileSync(path.join(MIGRATIONS_DIR, file)));
  return hash.digest('hex').slice(0, 16);
}

let template: Promise<string> | undefined;

/**
 * A database migrated to the latest schema by the store's own migrator, made once per set of migrations and kept on
 * the server (a test run makes it once; every later run reuses it): an app's database is copied from it in a tenth of
 * the time its migrations take. The migrations themselves are proven by the migration suites and by every suite that
 * starts `quire serve` on an empty database. Workers that make it at once each migrate a copy of their own and rename
 * it; the first rename wins.
 */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const name = `quire_template_${migrationsHash()}`;
    const admin = await connectAdmin();
    try {
      const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      if (found.rowCount) return name;
      const making = `${name}_${crypto.randomBytes(4).toString('hex')}`;
      await admin.query(`CREATE DATABASE ${making}`);
      const store = await openStore({ dataDir: '', databaseUrl: withDatabase(POSTGRES_ADMIN_URL, making) });
      await store.close();
      try {
        await admin.query(`ALTER DATABASE ${making} RENAME TO ${name}`);
      } catch (error) {
        await admin.query(`DROP DATABASE ${making}`);
        // 42P04: another worker's copy took the name first; theirs is the same schema.
        if ((error as { code?: string }).code !== '42P04') throw error;
      }
      return name;
    } finally {
      await admin.end();
    }
  })();
  return template;
}

/**
 * Creates a PostgreSQL database and returns its URL and a function that drops it: empty, or with `migrated`, at the
 * latest schema (copied from the migrated template).
 */
export async function createPostgresDatabase(options: { migrated?: boolean } = {}): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `quire_test_${crypto.randomBytes(6).toString('hex')}`;
  const from = options.migrated ? await migratedTemplate() : undefined;
  const admin = await connectAdmin();
  try {
    await admin.query(from ? `CREATE DATABASE ${name} TEMPLATE ${from}` : `CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return {
    url: withDatabase(POSTGRES_ADMIN_URL, name),
    // Waits for the suite's own connections to finish closing; FORCE only for what a failed test left open.
    drop: async () => {
      const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
      await client.connect();
      try {
        // Dropped, or still in use (55006) by connections closing: tried again until they are gone, for 5 s.
        const dropped = await waitFor(
          () =>
            client.query(`DROP DATABASE IF EXISTS ${name}`).then(
              () => 'dropped' as const,
              (error: { code?: string }) => (error.code === '55006' ? undefined : ('failed' as const)),
            ),
          { what: `the connections to ${name} to close`, timeoutMs: 5_000, intervalMs: 100 },
        ).catch(() => 'in use' as const);
        if (dropped !== 'dropped') await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
