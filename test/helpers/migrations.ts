/** A real database of each kind, migrated to a given migration, with one organization and one space in it. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from '../../src/store/sql/kysely.js';
import { migrations } from '../../src/store/sql/db.js';
import type { Database } from '../../src/store/sql/schema.js';
import { insertSpace } from '../../src/store/sql/spaces.js';
import { insertOrganization } from '../../src/store/sql/organizations.js';
import { spaceRow } from './rows.js';
import { createPostgresDatabase, type DatabaseKind } from './databases.js';

/**
 * The database at `migration` (organization `org1`, space `space1`), and its migrator; `cleanups` gets what closes and
 * removes it.
 */
export async function databaseAt(
  kind: DatabaseKind,
  migration: string,
  cleanups: Array<() => Promise<void>>,
): Promise<{ db: Kysely<Database>; migrator: Migrator }> {
  let db: Kysely<Database>;
  if (kind === 'postgres') {
    const created = await createPostgresDatabase();
    cleanups.push(created.drop);
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: created.url, max: 2 }) }) });
  } else {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-migration-'));
    cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
    const file = new SQLite(path.join(dir, 'quire.sqlite'));
    file.pragma('foreign_keys = ON');
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: file }) });
  }
  cleanups.push(() => db.destroy());
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error } = await migrator.migrateTo(migration);
  if (error) throw error;
  const now = new Date().toISOString();
  await insertOrganization(db, {
    id: 'org1', title: 'Org', type: 'business', use_case: null, community_type: null, hostname: null, default_role: null, default_content: null,
    logo_url: null, sso: 0, ai: 0, invite_links: 0, plan: 'free', created_at: now, updated_at: now,
  });
  await insertSpace(db, spaceRow({ id: 'space1', organization_id: 'org1', created_at: now }));
  return { db, migrator };
}
