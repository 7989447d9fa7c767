/** A Git Sync connection as it is shown: what it is and where it stands, no secret in it. */
import type { GitSyncConnectionRow } from '../../store/sql/git-sync.js';
import type { FirstSync } from './sync-step.js';

/** What a connection is and where it stands (no secret in it). */
export interface GitSyncState {
  url: string;
  ref: string;
  projectDirectory: string;
  firstSync: FirstSync;
  status: 'syncing' | 'synced' | 'conflict' | 'error' | 'paused';
  error?: string;
  remoteCommit?: string;
  localCommit?: string;
  lastSyncedAt?: string;
  changeRequestId?: string;
  /** News of the last run that moved commits, not an error (main followed a force-push; where the former main is). */
  notice?: string;
  /** Whether a webhook secret is set (the secret itself is never shown). */
  webhook: boolean;
  updatedAt: string;
}

export function gitSyncState(row: GitSyncConnectionRow): GitSyncState {
  return {
    url: row.url,
    ref: row.ref,
    projectDirectory: row.project_directory,
    firstSync: row.first_sync as FirstSync,
    status: row.status as GitSyncState['status'],
    ...(row.error ? { error: row.error } : {}),
    ...(row.remote_commit ? { remoteCommit: row.remote_commit } : {}),
    ...(row.local_commit ? { localCommit: row.local_commit } : {}),
    ...(row.last_synced_at ? { lastSyncedAt: row.last_synced_at } : {}),
    ...(row.change_request_id ? { changeRequestId: row.change_request_id } : {}),
    ...(row.notice ? { notice: row.notice } : {}),
    webhook: row.webhook_secret !== null,
    updatedAt: row.updated_at,
  };
}
