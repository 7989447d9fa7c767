/**
 * Git Sync connections (table git_sync_connections, src/domain/git-sync): one per space at most, gone with the
 * space. The secrets in a row are sealed by the domain before they get here (src/store/keys/secret-box.ts).
 */
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Database, GitSyncConnectionsTable } from './schema.js';

export type GitSyncConnectionRow = Selectable<GitSyncConnectionsTable>;
/** A connection as made: no run has failed yet. */
export type NewGitSyncConnection = Omit<GitSyncConnectionRow, 'failures'>;

/** Stores the space's connection, replacing the one it had (and what its runs found). */
export async function saveGitSyncConnection(db: Kysely<Database>, row: NewGitSyncConnection): Promise<void> {
  const { space_id: _spaceId, ...rest } = row;
  await db
    .insertInto('git_sync_connections')
    .values(row)
    .onConflict((oc) => oc.column('space_id').doUpdateSet({ ...rest, failures: 0 }))
    .execute();
}

export async function findGitSyncConnection(db: Kysely<Database>, spaceId: string): Promise<GitSyncConnectionRow | undefined> {
  return db.selectFrom('git_sync_connections').selectAll().where('space_id', '=', spaceId).executeTakeFirst();
}

/** The connections of `spaceIds` (a list of spaces shows each one's state), by space id. */
export async function gitSyncConnectionsOf(db: Kysely<Database>, spaceIds: readonly string[]): Promise<Map<string, GitSyncConnectionRow>> {
  if (spaceIds.length === 0) return new Map();
  const rows = await db.selectFrom('git_sync_connections').selectAll().where('space_id', 'in', spaceIds).execute();
  return new Map(rows.map((row) => [row.space_id, row]));
}

/** Removes the space's connection; false when it had none. */
export async function deleteGitSyncConnection(db: Kysely<Database>, spaceId: string): Promise<boolean> {
  const result = await db.deleteFrom('git_sync_connections').where('space_id', '=', spaceId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Records what a run found or did (status, error, where each side is), provided the connection is still the one the
 * run started with (`updated_at` unchanged: not replaced or disconnected meanwhile); false otherwise.
 */
export async function updateGitSyncState(
  db: Kysely<Database>,
  spaceId: string,
  startedWith: string,
  state: Pick<Updateable<GitSyncConnectionsTable>, 'status' | 'error' | 'remote_commit' | 'local_commit' | 'last_synced_at' | 'change_request_id' | 'host_key' | 'failures' | 'notice'> & { updated_at: string },
): Promise<boolean> {
  const result = await db.updateTable('git_sync_connections').set(state).where('space_id', '=', spaceId).where('updated_at', '=', startedWith).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Every connection, paused or not, oldest first. */
export async function allGitSyncConnections(db: Kysely<Database>): Promise<GitSyncConnectionRow[]> {
  return db.selectFrom('git_sync_connections').selectAll().orderBy('created_at').orderBy('space_id').execute();
}

/** Every connection not paused (what a poll cycle reads), oldest first. */
export async function activeGitSyncConnections(db: Kysely<Database>): Promise<GitSyncConnectionRow[]> {
  return db.selectFrom('git_sync_connections').selectAll().where('status', '!=', 'paused').orderBy('created_at').orderBy('space_id').execute();
}
