import type { Context } from '../src/domain/context.js';
import type { JobPayloads } from '../src/jobs/jobs.js';
import { runContentImport } from '../src/domain/imports/imports.js';

/** Imports the source recorded in a content_imports row (src/domain/imports/imports.ts); a done row is left alone. */
export async function importContentJob(ctx: Context, payload: JobPayloads['import-content']): Promise<void> {
  await runContentImport(ctx, payload.importId);
}
