import type { Context } from '../src/domain/context.js';
import type { JobPayloads } from '../src/jobs/jobs.js';
import { runRepositoryImport } from '../src/domain/imports/repositories.js';

/** Imports the git repository recorded in a repository_imports row (src/domain/imports/repositories.ts); a done row is left alone. */
export async function importRepositoryJob(ctx: Context, payload: JobPayloads['import-repository']): Promise<void> {
  await runRepositoryImport(ctx, payload.importId);
}
