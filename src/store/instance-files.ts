/**
 * The files of a data dir that say which Quire instance it is: the SQLite database (when DATABASE_URL is unset) and
 * the record a running `quire serve` leaves of its public URL, so that commands run beside it (`quire admin ...`)
 * print the URLs the server answers at, whatever PORT their own shell has.
 */
import fs from 'node:fs';
import path from 'node:path';
import { replaceFileSync } from './replace-file.js';

export interface StoreLocation {
  dataDir: string;
  databaseUrl?: string;
}

export function sqliteFile(dataDir: string): string {
  return path.join(dataDir, 'quire.sqlite');
}

/**
 * The umask of the processes that write a store (`quire serve`, `worker`, `admin`, `migrate`; git inherits it): the
 * database, keys and every repository, private spaces included, are for the user running Quire only.
 */
export const STORE_UMASK = 0o077;

/**
 * Makes the data dir (0700, with any missing parent) when it is missing. Returns its mode when other users may enter
 * it (a data dir made before Quire made it private, or by hand): Quire says so and leaves it as it is, since a group
 * may have been given it on purpose (a backup user, say).
 */
export function prepareDataDir(dataDir: string): number | undefined {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const mode = fs.statSync(dataDir).mode & 0o777;
  return (mode & 0o077) === 0 ? undefined : mode;
}

/** Whether a store was made here already: the data dir, and its SQLite database when DATABASE_URL is unset. */
export function storeExists(location: StoreLocation): boolean {
  if (!fs.statSync(location.dataDir, { throwIfNoEntry: false })?.isDirectory()) return false;
  return location.databaseUrl !== undefined || fs.existsSync(sqliteFile(location.dataDir));
}

/** A connection URL fit for a log line: its password left out. */
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(an unparsable URL)';
  }
}

/** "data dir /srv/quire, database SQLite /srv/quire/quire.sqlite" (a PostgreSQL URL without its password). */
export function describeStore(location: StoreLocation): string {
  const database = location.databaseUrl ? `PostgreSQL ${withoutPassword(location.databaseUrl)}` : `SQLite ${sqliteFile(location.dataDir)}`;
  return `data dir ${location.dataDir}, database ${database}`;
}

const SERVE_RECORD = 'serve.json';

export interface ServeRecord {
  publicUrl: string;
  pid: number;
  startedAt: string;
}

/** Written by `quire serve` once it listens (replaced atomically: readers never see half of it). */
export function writeServeRecord(dataDir: string, record: ServeRecord): void {
  const file = path.join(dataDir, SERVE_RECORD);
  replaceFileSync(file, `${JSON.stringify(record)}\n`);
}

/** The record of the last `quire serve` on this data dir, if any (a damaged record counts as none). */
export function readServeRecord(dataDir: string): ServeRecord | undefined {
  try {
    const record = JSON.parse(fs.readFileSync(path.join(dataDir, SERVE_RECORD), 'utf8')) as Partial<ServeRecord>;
    return typeof record.publicUrl === 'string' && typeof record.pid === 'number' ? (record as ServeRecord) : undefined;
  } catch {
    return undefined;
  }
}
