import type { Context } from '../src/domain/context.js';
import { PermanentJobFailure, type JobPayloads } from '../src/jobs/jobs.js';
import { indexSearch } from '../src/domain/search/search-indexing.js';
import { ContentError } from '../src/content/problems.js';

/**
 * Brings the search index of a space up to main's current revision. The payload's commit says which push queued
 * it; a job that runs after a later push indexes that later revision (or finds it indexed).
 */
export async function indexSearchJob(ctx: Context, payload: JobPayloads['index-search']): Promise<void> {
  try {
    await indexSearch(ctx, payload.spaceId);
  } catch (error) {
    if (error instanceof ContentError) throw new PermanentJobFailure(`index-search: ${error.message}`);
    throw error;
  }
}
