/** A Git Sync connection as it is shown: what it is and where it stands, no secret in it. */
import type { GitSyncConnectionRow } from '../../store/sql/git-sync.js';
import type { GitSyncBranchRow } from '../../store/sql/git-sync-branches.js';
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
  /** With branches on: which of the host's branches open change requests (`docs/*`). */
  branchPattern?: string;
  /** With branches on: each branch of the host kept in step with a change request, and where it stands. */
  branches?: GitSyncBranchState[];
  updatedAt: string;
}

/** A branch of the host kept in step with a change request. */
export interface GitSyncBranchState {
  /** The branch's name on the host (`docs/intro`, `quire/cr-3`). */
  branch: string;
  /** `host`: the branch came from the host; `quire`: the change request was made in Quire. */
  origin: 'host' | 'quire';
  /** The change request's id; absent while the branch holds nothing to review. */
  changeRequestId?: string;
  /** Where both sides were when last in step. */
  commit?: string;
  /** Why the last run could not bring them in step. */
  error?: string;
}

export function gitSyncState(row: GitSyncConnectionRow, branches: readonly GitSyncBranchRow[] = []): GitSyncState {
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
    ...(row.branch_pattern !== null ? { branchPattern: row.branch_pattern, branches: branches.map(branchState) } : {}),
    updatedAt: row.updated_at,
  };
}

function branchState(row: GitSyncBranchRow): GitSyncBranchState {
  return {
    branch: row.remote_ref.replace(/^refs\/heads\//, ''),
    origin: row.origin as GitSyncBranchState['origin'],
    ...(row.change_request_id ? { changeRequestId: row.change_request_id } : {}),
    ...(row.synced_commit ? { commit: row.synced_commit } : {}),
    ...(row.error ? { error: row.error } : {}),
  };
}
