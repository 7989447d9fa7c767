import type { Context } from '../src/domain/context.js';
import type { JobPayloads } from '../src/jobs/jobs.js';
import { runGitSync } from '../src/domain/git-sync/run.js';

/**
 * Syncs a connected space after its main moved. What a run finds wrong (the host down, a refused push, a conflict) is
 * the connection's state, not the job's failure: the next change of main, or a run asked for, tries again.
 */
export async function gitSyncJob(ctx: Context, payload: JobPayloads['git-sync']): Promise<void> {
  await runGitSync(ctx, payload.spaceId);
}
