/**
 * A change request's branch moved, or its status changed: in a space whose Git Sync keeps branches in step
 * (./branches.ts), a run is queued to bring the host's branch along. Main's moves queue theirs elsewhere
 * (src/domain/content/indexing.ts).
 */
import type { Context } from '../context.js';
import { findGitSyncConnection } from '../../store/sql/git-sync.js';

/** Queues a Git Sync run for the change request's sake (`what`: its new head or status, so a run already waiting for the same is not queued twice). */
export async function queueGitSyncOfChangeRequest(ctx: Context, spaceId: string, changeRequestId: string, what: string): Promise<void> {
  const connection = await findGitSyncConnection(ctx.db, spaceId);
  if (!connection || connection.branch_pattern === null || connection.status === 'paused') return;
  const outcome = await ctx.jobs.enqueueWhenReachable({ name: 'git-sync', payload: { spaceId, commit: `change-request-${changeRequestId}-${what}` } });
  if (outcome === 'dropped') ctx.log.warn({ space: spaceId, changeRequest: changeRequestId }, 'Git Sync of a change request not queued: the next poll takes it');
}
