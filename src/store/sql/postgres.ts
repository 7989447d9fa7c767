/**
 * Kysely's dialect over a PostgreSQL pool, as every connection of Quire's is set up (the process's store, a CPU pool
 * thread's reads). The driver is loaded only for PostgreSQL: commands on SQLite start without it.
 */
import { PostgresDialect } from './kysely.js';

export interface PostgresOptions {
  /** Connections at most. */
  max: number;
  /** Told about connections the server dropped while idle. */
  onError?: (error: Error) => void;
  /** Whether idle connections are kept for good (else closed after 10 s idle, the driver's default). */
  keepIdle?: boolean;
}

export async function postgresDialect(url: string, options: PostgresOptions): Promise<PostgresDialect> {
  const { default: pg } = await import('pg');
  // PostgreSQL returns int8 (count(*)) as a string; our counts fit in a double.
  pg.types.setTypeParser(20, (value) => Number(value));
  const pool = new pg.Pool({ connectionString: url, max: options.max, ...(options.keepIdle ? { idleTimeoutMillis: 0 } : {}) });
  // An idle connection the server closes (restart, failover) is dropped from the pool and replaced on demand;
  // without a listener the pool's 'error' event would end the process.
  pool.on('error', (error) => options.onError?.(error));
  return new PostgresDialect({ pool });
}
