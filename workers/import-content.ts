import type { Context } from '../src/domain/context.js';
import { PermanentJobFailure, type JobPayloads } from '../src/jobs/jobs.js';

// PLACEHOLDER: replaced by the processor of this job before it lands.
export async function importContentJob(_ctx: Context, _payload: JobPayloads['import-content']): Promise<void> {
  throw new PermanentJobFailure('import-content: not built yet');
}
