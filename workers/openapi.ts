import type { Context } from '../src/domain/context.js';
import { PermanentJobFailure, type JobPayloads } from '../src/jobs/jobs.js';
import { processSpec, refreshUrlSpecs } from '../src/domain/openapi/specs.js';

/**
 * Processes the spec's current source. `requestId` only keeps a PUT made while an older fetch runs from being
 * de-duplicated away; the job always works on what the spec holds now. A fetch or parse failure, once recorded on
 * the spec, fails the job for good (its reason goes to the job failure log; the next PUT or refresh tries again).
 */
export async function fetchOpenApiJob(ctx: Context, payload: JobPayloads['fetch-openapi']): Promise<void> {
  const outcome = await processSpec(ctx, payload.specId);
  if (outcome.result === 'failed') {
    throw new PermanentJobFailure(`fetch-openapi: spec ${payload.specId}: ${outcome.failure.code}: ${outcome.failure.message}`);
  }
}

/** Periodic: queues a fetch of every spec whose source is a URL, and of any whose processing never completed. */
export async function refreshOpenApiSpecsJob(ctx: Context): Promise<void> {
  await refreshUrlSpecs(ctx);
}
