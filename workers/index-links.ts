import type { Context } from '../src/domain/context.js';
import { PermanentJobFailure, type JobPayloads } from '../src/jobs/jobs.js';

// PLACEHOLDER: replaced by the processor of this job before it lands.
export async function indexLinksJob(_ctx: Context, _payload: JobPayloads['index-links']): Promise<void> {
  throw new PermanentJobFailure('index-links: not built yet');
}
