/**
 * Read-only queries run on a CPU pool thread (src/cpu/pool.ts), for reads long enough to matter: the engine's ranking
 * (a space indexed without term lists) scores every match of a query's words, a long read of SQLite on a large
 * organization (bench/README.md). better-sqlite3 is synchronous: on the event loop, such a read would hold every other
 * request for as long. On a thread it holds that thread only, and requests go on being answered. Tasks that read and
 * then work on what they read (part of an organization search's spaces, src/domain/search/search-queries.ts splitWithThread)
 * use the same connection through Kysely (`threadDatabase`), so that the store's own read functions run there
 * unchanged.
 *
 * Each thread opens its own read-only connection to the database file on its first read and keeps it (its page cache
 * stays warm) until the thread ends with its pool, that is with the container. SQLite in WAL mode lets it read beside
 * the process's own connection: it sees what was committed when the read began, as a reader of another process would.
 * Only SQLite: PostgreSQL's driver is asynchronous already.
 */
import SQLite from 'better-sqlite3';
import type { Kysely } from 'kysely';
import { Kysely as KyselyDatabase, SqliteDialect } from './kysely.js';
import type { Database } from './schema.js';

/** A compiled read (Kysely's `compile`) and the file it reads: plain data, for structured clone. */
export interface ThreadRead {
  file: string;
  sql: string;
  parameters: readonly unknown[];
}

// This thread's connections, by file. A module is loaded once per thread, so each thread has its own (a pool serves
// one container, so one file); they close when the thread ends.
const connections = new Map<string, SQLite.Database>();

const databases = new Map<string, Kysely<Database>>();

function connectionTo(file: string): SQLite.Database {
  let connection = connections.get(file);
  if (!connection) {
    connection = new SQLite(file, { readonly: true, fileMustExist: true });
    connection.pragma('busy_timeout = 5000');
    connections.set(file, connection);
  }
  return connection;
}

/** This thread's connection to `file` as Kysely, for the store's read functions (a task's reads: not for writes). */
export function threadDatabase(file: string): Kysely<Database> {
  let db = databases.get(file);
  if (!db) databases.set(file, (db = new KyselyDatabase<Database>({ dialect: new SqliteDialect({ database: connectionTo(file) }) })));
  return db;
}

/** The rows of a read-only query, on this thread's connection to `file`. */
export function readOnThread({ file, sql, parameters }: ThreadRead): unknown[] {
  const statement = connectionTo(file).prepare(sql);
  if (!statement.reader) throw new Error('a thread read must be a query that returns rows');
  return statement.all(parameters);
}
