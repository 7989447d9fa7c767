import type { Context } from '../src/domain/context.js';
import { PermanentJobFailure, type JobPayloads } from '../src/jobs/jobs.js';
import { indexLinksOfRevision } from '../src/domain/content/link-index.js';
import { ContentError } from '../src/content/problems.js';

/** Indexes the links of a revision of a space (main's, after a push or a merge), then prunes unread revisions. */
export async function indexLinksJob(ctx: Context, payload: JobPayloads['index-links']): Promise<void> {
  try {
    await indexLinksOfRevision(ctx, payload.spaceId, payload.commit);
  } catch (error) {
    // A revision that does not follow the format will not follow it on the next try either.
    if (error instanceof ContentError) throw new PermanentJobFailure(`index-links: ${error.message}`);
    throw error;
  }
}
