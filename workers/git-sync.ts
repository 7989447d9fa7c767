import type { Context } from '../src/domain/context.js';
import type { JobPayloads } from '../src/jobs/jobs.js';
import { runGitSync } from '../src/domain/git-sync/run.js';
import { pollGitSync } from '../src/domain/git-sync/poll.js';

/**
 * Syncs a connected space after its main moved. What a run finds wrong (the host down, a refused push, a conflict) is
 * the connection's state, not the job's failure: the poll tries again after a wait that grows with each failure
 * (src/domain/git-sync/poll-rule.ts), as does the next change of main or a run asked for.
 */
export async function gitSyncJob(ctx: Context, payload: JobPayloads['git-sync']): Promise<void> {
  await runGitSync(ctx, payload.spaceId);
}

/** A poll cycle: the runs it finds due are queued as `git-sync` jobs. */
export async function pollGitSyncJob(ctx: Context): Promise<void> {
  const cycle = await pollGitSync(ctx);
  if (cycle.queued.length > 0) ctx.log.info(cycle, `git sync poll: ${cycle.queued.length} of ${cycle.connections} connections to sync (${cycle.repositories} repositories read)`);
}
