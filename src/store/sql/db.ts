/**
 * Opens the metadata database (SQLite file in the data dir by default, PostgreSQL when DATABASE_URL is set) and
 * applies the migrations. The only place that knows which driver is in use.
 */
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import type { Migration, MigrationProvider } from 'kysely';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from './kysely.js';
import type { Database } from './schema.js';
import { WriteObserverPlugin } from './write-observer.js';
import { WalCheckpoints } from './wal-checkpoints.js';
import { sqliteFile } from '../instance-files.js';
import * as m0001 from './migrations/0001_initial.js';
import * as m0002 from './migrations/0002_revision_facts.js';
import * as m0003 from './migrations/0003_change_requests_comments.js';
import * as m0004 from './migrations/0004_org_admin.js';
import * as m0005 from './migrations/0005_openapi.js';
import * as m0006 from './migrations/0006_imports.js';
import * as m0007 from './migrations/0007_sites.js';
import * as m0008 from './migrations/0008_links_search.js';
import * as m0009 from './migrations/0009_monorepo.js';
import * as m0010 from './migrations/0010_migrated.js';
import * as m0011 from './migrations/0011_site_visitor_keys.js';
import * as m0012 from './migrations/0012_search_engines.js';
import * as m0013 from './migrations/0013_links_incremental.js';
import * as m0014 from './migrations/0014_search_terms.js';
import * as m0015 from './migrations/0015_search_texts.js';
import * as m0016 from './migrations/0016_search_results.js';
import * as m0017 from './migrations/0017_revision_fact_changes.js';
import * as m0018 from './migrations/0018_link_slots_unindexed.js';
import * as m0019 from './migrations/0019_site_page_feedback.js';
import * as m0020 from './migrations/0020_sites_serve_agents.js';
import * as m0021 from './migrations/0021_git_sync.js';
import * as m0022 from './migrations/0022_git_sync_runs.js';
import * as m0023 from './migrations/0023_change_request_reviews.js';
import * as m0024 from './migrations/0024_sessions.js';
import * as m0025 from './migrations/0025_oidc_providers.js';
import * as m0026 from './migrations/0026_merge_rules.js';
import * as m0027 from './migrations/0027_saml_sign_in.js';
import * as m0028 from './migrations/0028_site_visitor_oidc_and_preview_revocations.js';
import * as m0029 from './migrations/0029_git_sync_branches.js';
import * as m0030 from './migrations/0030_image_dimensions.js';

export type Dialect = 'sqlite' | 'postgres';

export interface Store {
  db: Kysely<Database>;
  dialect: Dialect;
  /** SQLite's checkpoints (see ./wal-checkpoints.ts); none on PostgreSQL. */
  checkpoints?: WalCheckpoints;
  close(): Promise<void>;
}

/** The schema's migrations, by name, in order (tests migrate to one of them). */
export const migrations: Record<string, Migration> = {
  '0001_initial': m0001,
  '0002_revision_facts': m0002,
  '0003_change_requests_comments': m0003,
  '0004_org_admin': m0004,
  '0005_openapi': m0005,
  '0006_imports': m0006,
  '0007_sites': m0007,
  '0008_links_search': m0008,
  '0009_monorepo': m0009,
  '0010_migrated': m0010,
  '0011_site_visitor_keys': m0011,
  '0012_search_engines': m0012,
  '0013_links_incremental': m0013,
  '0014_search_terms': m0014,
  '0015_search_texts': m0015,
  '0016_search_results': m0016,
  '0017_revision_fact_changes': m0017,
  '0018_link_slots_unindexed': m0018,
  '0019_site_page_feedback': m0019,
  '0020_sites_serve_agents': m0020,
  '0021_git_sync': m0021,
  '0022_git_sync_runs': m0022,
  '0023_change_request_reviews': m0023,
  '0024_sessions': m0024,
  '0025_oidc_providers': m0025,
  '0026_merge_rules': m0026,
  '0027_saml_sign_in': m0027,
  '0028_site_visitor_oidc_and_preview_revocations': m0028,
  '0029_git_sync_branches': m0029,
  '0030_image_dimensions': m0030,
};

class StaticMigrationProvider implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations;
  }
}

export interface OpenStoreOptions {
  dataDir: string;
  databaseUrl?: string;
  /** Told about connections the PostgreSQL server dropped while idle. */
  onPoolError?: (error: Error) => void;
  /** Told about every write made through the returned database object (caches forget what they hold). */
  onWrite?: () => void;
}

/**
 * A lock between processes: the directory exists while someone holds it (mkdir is atomic). A lock older than
 * `staleMs` was left by a process that died while migrating and is taken over.
 */
async function lockDirectory(dir: string, timeoutMs = 60_000, staleMs = 120_000): Promise<() => void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      fs.mkdirSync(dir);
      return () => fs.rmSync(dir, { recursive: true, force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = Date.now() - (fs.statSync(dir, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > staleMs) fs.rmSync(dir, { recursive: true, force: true });
      // eslint-disable-next-line preserve-caught-error -- EEXIST is the lock being held, expected; what fails is the wait.
      else if (Date.now() > deadline) throw new Error(`database migration: ${dir} is held by another process`);
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** Opens the database and migrates it to the latest schema (safe when several processes start at once). */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  let db: Kysely<Database>;
  let dialect: Dialect;
  let checkpoints: WalCheckpoints | undefined;
  if (options.databaseUrl) {
    dialect = 'postgres';
    // Loaded only for PostgreSQL (commands on SQLite start without it).
    const { default: pg } = await import('pg');
    // PostgreSQL returns int8 (count(*)) as a string; our counts fit in a double.
    pg.types.setTypeParser(20, (value) => Number(value));
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
    // An idle connection the server closes (restart, failover) is dropped from the pool and replaced on demand;
    // without a listener the pool's 'error' event would end the process.
    pool.on('error', (error) => options.onPoolError?.(error));
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  } else {
    dialect = 'sqlite';
    fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
    // Made for this user only, whatever the umask: SQLite gives its -wal and -shm files the database file's mode.
    const database = sqliteFile(options.dataDir);
    fs.closeSync(fs.openSync(database, 'a', 0o600));
    const file = new SQLite(database);
    file.pragma('journal_mode = WAL');
    file.pragma('foreign_keys = ON');
    file.pragma('busy_timeout = 5000');
    file.pragma('synchronous = NORMAL');
    checkpoints = new WalCheckpoints(file, database);
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: file }) });
  }
  if (options.onWrite) db = db.withPlugin(new WriteObserverPlugin(options.onWrite));
  const migrator = new Migrator({ db, provider: new StaticMigrationProvider() });
  // PostgreSQL: Kysely's migrator takes a database lock. SQLite: it does not (one connection per process), so two
  // processes starting on a new data dir (say `quire serve` and `quire admin bootstrap`) take a lock directory.
  const release = dialect === 'sqlite' ? await lockDirectory(path.join(options.dataDir, 'quire.sqlite.migrating')) : undefined;
  const { error, results } = await migrator.migrateToLatest().finally(() => release?.());
  if (error) {
    await checkpoints?.close();
    await db.destroy();
    const failed = results?.find((r) => r.status === 'Error');
    const reason = (error as Error).message ?? String(error);
    // No migration ran: the database itself could not be reached (a wrong host, a refused connection, a bad password).
    if (!failed) throw new Error(`${dialect === 'postgres' ? 'DATABASE_URL' : 'the SQLite database'}: could not open it: ${reason}`);
    throw new Error(`database migration ${failed.migrationName} failed: ${reason}`);
  }
  return {
    db,
    dialect,
    checkpoints,
    close: async () => {
      await checkpoints?.close();
      await db.destroy();
    },
  };
}
