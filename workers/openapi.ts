import type { Context } from '../src/domain/context.js';
import { PermanentJobFailure, type JobPayloads } from '../src/jobs/jobs.js';

// PLACEHOLDER: replaced by the processors of these jobs before they land.
export async function fetchOpenApiJob(_ctx: Context, _payload: JobPayloads['fetch-openapi']): Promise<void> {
  throw new PermanentJobFailure('fetch-openapi: not built yet');
}

export async function refreshOpenApiSpecsJob(_ctx: Context): Promise<void> {
  throw new PermanentJobFailure('refresh-openapi-specs: not built yet');
}
