/**
 * Migration 0029 adds a Git Sync connection's branch pattern and the branches it keeps in step with change requests
 * (src/store/sql/git-sync-branches.ts): one row per branch of the host, a change request linked to one branch at
 * most, the rows gone with the connection, a deleted change request unlinked. Its down migration removes both. On a
 * real database of each kind, migrated to 0028 first.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sql } from '../../src/store/sql/kysely.js';
import { deleteGitSyncConnection, findGitSyncConnection, saveGitSyncConnection, type NewGitSyncConnection } from '../../src/store/sql/git-sync.js';
import { forgetGitSyncBranches, gitSyncBranchesOf, saveGitSyncBranch, type GitSyncBranchRow } from '../../src/store/sql/git-sync-branches.js';
import { insertChangeRequest } from '../../src/store/sql/change-requests.js';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { databaseAt } from '../helpers/migrations.js';

describe.each(DATABASE_KINDS)('migration 0029, Git Sync branches (%s)', (kind) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const at = '2026-01-01T00:00:00.000Z';
  const connection: NewGitSyncConnection = {
    space_id: 'space1', url: 'https://git.example.com/docs/handbook.git', ref: 'refs/heads/main', project_directory: '', first_sync: 'import',
    auth_kind: 'none', auth_username: null, auth_secret: null, webhook_secret: null, host_key: null, status: 'synced', error: null,
    remote_commit: null, local_commit: null, last_synced_at: null, change_request_id: null, connected_by: null, notice: null, branch_pattern: 'docs/*',
    created_at: at, updated_at: at,
  };
  const branch = (fields: Partial<GitSyncBranchRow>): GitSyncBranchRow => ({
    space_id: 'space1', remote_ref: 'refs/heads/docs/intro', change_request_id: 'cr1', origin: 'host', synced_commit: 'a'.repeat(40),
    remote_commit: 'a'.repeat(40), error: null, updated_at: at, ...fields,
  });

  it('up: a row per branch, a change request linked once, rows gone with the connection; down removes them', async () => {
    const { db, migrator } = await databaseAt(kind, '0028_site_visitor_oidc_and_preview_revocations', cleanups);
    await expect(sql`select count(*) from git_sync_branches`.execute(db)).rejects.toThrow();
    expect((await migrator.migrateTo('0029_git_sync_branches')).error).toBeUndefined();
    await saveGitSyncConnection(db, connection);
    expect((await findGitSyncConnection(db, 'space1'))?.branch_pattern).toBe('docs/*');
    for (const [id, number] of [['cr1', 1], ['cr2', 2]] as const) {
      await insertChangeRequest(db, {
        id, space_id: 'space1', number, subject: '', status: 'open', created_by: null, revision_initial: 'a'.repeat(40), revision_merged_ancestor: null,
        revision_merged: null, created_at: at, updated_at: at,
      });
    }

    await saveGitSyncBranch(db, branch({}));
    await saveGitSyncBranch(db, branch({ remote_ref: 'refs/heads/quire/cr-2', change_request_id: 'cr2', origin: 'quire', synced_commit: null, remote_commit: null }));
    // Saved again: the row is replaced, not doubled.
    await saveGitSyncBranch(db, branch({ synced_commit: 'b'.repeat(40), error: 'both sides changed the same lines' }));
    expect(await gitSyncBranchesOf(db, 'space1')).toEqual([
      branch({ synced_commit: 'b'.repeat(40), error: 'both sides changed the same lines' }),
      branch({ remote_ref: 'refs/heads/quire/cr-2', change_request_id: 'cr2', origin: 'quire', synced_commit: null, remote_commit: null }),
    ]);
    // One branch per change request.
    await expect(saveGitSyncBranch(db, branch({ remote_ref: 'refs/heads/docs/other' }))).rejects.toThrow();
    // A change request removed leaves its branch's row unlinked.
    await db.deleteFrom('change_requests').where('id', '=', 'cr2').execute();
    expect((await gitSyncBranchesOf(db, 'space1')).map((row) => row.change_request_id)).toEqual(['cr1', null]);
    await forgetGitSyncBranches(db, 'space1');
    expect(await gitSyncBranchesOf(db, 'space1')).toEqual([]);
    await saveGitSyncBranch(db, branch({}));
    expect(await deleteGitSyncConnection(db, 'space1')).toBe(true);
    expect(await gitSyncBranchesOf(db, 'space1')).toEqual([]);

    expect((await migrator.migrateDown()).error).toBeUndefined();
    await expect(sql`select count(*) from git_sync_branches`.execute(db)).rejects.toThrow();
    await expect(sql`select branch_pattern from git_sync_connections`.execute(db)).rejects.toThrow();
  });
});
