/**
 * The databases every store and API suite runs against: SQLite in a temp dir, and a throwaway PostgreSQL database
 * created for the suite and dropped after it. PostgreSQL is required: a suite fails (it is not skipped) when the
 * server is unreachable. QUIRE_TEST_POSTGRES_URL points at the server's maintenance database.
 */
import crypto from 'node:crypto';
import pg from 'pg';
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

/** Creates an empty PostgreSQL database and returns its URL and a function that drops it. */
export async function createPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `quire_test_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  try {
    await admin.connect();
  } catch (error) {
    throw new Error(`PostgreSQL is required for the test suite and is not reachable at ${POSTGRES_ADMIN_URL}: ${(error as Error).message}`);
  }
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
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
