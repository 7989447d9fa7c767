/**
 * The host's branches a Git Sync connection keeps in step with change requests (table git_sync_branches,
 * src/domain/git-sync/branches.ts): one row per branch of the host, gone with the connection.
 */
import type { Kysely, Selectable } from 'kysely';
import type { Database, GitSyncBranchesTable } from './schema.js';

export type GitSyncBranchRow = Selectable<GitSyncBranchesTable>;

/** The connection's branches, by name on the host. */
export async function gitSyncBranchesOf(db: Kysely<Database>, spaceId: string): Promise<GitSyncBranchRow[]> {
  return db.selectFrom('git_sync_branches').selectAll().where('space_id', '=', spaceId).orderBy('remote_ref').execute();
}

/** Stores what a run found of a branch (replacing what the row said). */
export async function saveGitSyncBranch(db: Kysely<Database>, row: GitSyncBranchRow): Promise<void> {
  const { space_id: _spaceId, remote_ref: _ref, ...rest } = row;
  await db
    .insertInto('git_sync_branches')
    .values(row)
    .onConflict((oc) => oc.columns(['space_id', 'remote_ref']).doUpdateSet(rest))
    .execute();
}

/** Forgets every branch of the connection (it now follows another repository or branch). */
export async function forgetGitSyncBranches(db: Kysely<Database>, spaceId: string): Promise<void> {
  await db.deleteFrom('git_sync_branches').where('space_id', '=', spaceId).execute();
}
