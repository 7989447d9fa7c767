/**
 * Migration 0021 makes git_sync_connections (src/store/sql/git-sync.ts): one connection per space, gone with it, known
 * first-sync modes, credential kinds and statuses only; a run records its state only while the connection is the one
 * it started with. Migration 0022 adds the count of failed runs in a row, which connecting again resets, and who
 * connected. Their down migrations remove the columns and the table. On a real database of each kind, migrated to
 * 0020 first.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Kysely, sql } from '../../src/store/sql/kysely.js';
import {
  activeGitSyncConnections,
  deleteGitSyncConnection,
  findGitSyncConnection,
  gitSyncConnectionsOf,
  saveGitSyncConnection,
  updateGitSyncState,
  type NewGitSyncConnection,
} from '../../src/store/sql/git-sync.js';
import { insertSpace } from '../../src/store/sql/spaces.js';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { spaceRow } from '../helpers/rows.js';
import { databaseAt } from '../helpers/migrations.js';

describe.each(DATABASE_KINDS)('migrations 0021 and 0022, Git Sync connections (%s)', (kind) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  // A row as of migration 0022 (later columns absent).
  const row = (fields: Partial<NewGitSyncConnection> = {}): NewGitSyncConnection => ({
    space_id: 'space1', url: 'https://git.example.com/docs/handbook.git', ref: 'refs/heads/main', project_directory: '', first_sync: 'import',
    auth_kind: 'token', auth_username: 'docs-bot', auth_secret: 'v1.sealed', webhook_secret: null, host_key: null, status: 'syncing', error: null,
    remote_commit: null, local_commit: null, last_synced_at: null, change_request_id: null, connected_by: null, notice: null, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z',
    ...fields,
  }) as NewGitSyncConnection;

  it('up: one connection per space, known values only, states recorded by the run that still holds it, gone with the space; down removes it', async () => {
    const { db, migrator } = await databaseAt(kind, '0020_sites_serve_agents', cleanups);
    await expect(sql`select count(*) from git_sync_connections`.execute(db)).rejects.toThrow();
    expect((await migrator.migrateTo('0022_git_sync_runs')).error).toBeUndefined();
    const any = db as unknown as Kysely<any>;

    await saveGitSyncConnection(db, row());
    // Connecting again replaces the connection.
    await saveGitSyncConnection(db, row({ ref: 'refs/heads/docs', updated_at: '2026-01-02T00:00:00.000Z' }));
    expect(await findGitSyncConnection(db, 'space1')).toEqual({ ...row({ ref: 'refs/heads/docs', updated_at: '2026-01-02T00:00:00.000Z' }), failures: 0 });
    expect([...(await gitSyncConnectionsOf(db, ['space1', 'other'])).keys()]).toEqual(['space1']);

    // Into a space without a connection, so that only the value refused can make an insert fail.
    await insertSpace(db, spaceRow({ id: 'space2', organization_id: 'org1' }));
    await saveGitSyncConnection(db, row({ space_id: 'space2' }));
    await deleteGitSyncConnection(db, 'space2');
    for (const bad of [{ first_sync: 'both' }, { auth_kind: 'password' }, { status: 'done' }, { space_id: 'no-such-space' }]) {
      await expect(any.insertInto('git_sync_connections').values(row({ space_id: 'space2', ...bad })).execute(), JSON.stringify(bad)).rejects.toThrow();
    }

    // A run that started with an older connection records nothing; one that started with this one does.
    const synced = { status: 'synced', error: null, remote_commit: 'a'.repeat(40), local_commit: 'a'.repeat(40), last_synced_at: '2026-01-03T00:00:00.000Z', updated_at: '2026-01-03T00:00:00.000Z' };
    expect(await updateGitSyncState(db, 'space1', '2026-01-01T00:00:00.000Z', synced)).toBe(false);
    expect(await updateGitSyncState(db, 'space1', '2026-01-02T00:00:00.000Z', synced)).toBe(true);
    expect(await findGitSyncConnection(db, 'space1')).toMatchObject(synced);
    expect((await activeGitSyncConnections(db)).map((c) => c.space_id)).toEqual(['space1']);
    expect(await updateGitSyncState(db, 'space1', synced.updated_at, { status: 'paused', updated_at: '2026-01-04T00:00:00.000Z' })).toBe(true);
    expect(await activeGitSyncConnections(db)).toEqual([]);
    // Failed runs are counted; connecting again starts the count afresh.
    expect(await updateGitSyncState(db, 'space1', '2026-01-04T00:00:00.000Z', { status: 'error', failures: 3, updated_at: '2026-01-05T00:00:00.000Z' })).toBe(true);
    expect((await findGitSyncConnection(db, 'space1'))?.failures).toBe(3);
    await saveGitSyncConnection(db, row({ updated_at: '2026-01-06T00:00:00.000Z' }));
    expect((await findGitSyncConnection(db, 'space1'))?.failures).toBe(0);

    expect(await deleteGitSyncConnection(db, 'space1')).toBe(true);
    expect(await deleteGitSyncConnection(db, 'space1')).toBe(false);
    await saveGitSyncConnection(db, row());
    await db.deleteFrom('spaces').where('id', '=', 'space1').execute();
    expect(await findGitSyncConnection(db, 'space1')).toBeUndefined();

    expect((await migrator.migrateDown()).error).toBeUndefined();
    await expect(sql`select failures from git_sync_connections`.execute(db)).rejects.toThrow();
    await sql`select count(*) from git_sync_connections`.execute(db);
    expect((await migrator.migrateDown()).error).toBeUndefined();
    await expect(sql`select count(*) from git_sync_connections`.execute(db)).rejects.toThrow();
  });
});
