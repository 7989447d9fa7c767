import type { Kysely } from 'kysely';
import { PostgresAdapter } from './kysely.js';

/** Whether `db` talks to PostgreSQL (else SQLite): where the two need different SQL. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any database's handle: the migrations' are untyped.
export function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}
