import { migrate, MigrationFailure, type MigrationProgress } from '../domain/migrate/migrate.js';
import { CommandError, endProgress, print, showProgress, withContainer } from './common.js';

/** `quire migrate`: progress on stderr when it is a terminal, the report as JSON on stdout. */
export async function migrateCommand(options: { from: string; token: string; org: string[]; into?: string; init?: boolean }): Promise<void> {
  const progress: MigrationProgress = ({ step, done, total, title }) => showProgress(`${step} ${done}/${total}${title ? `: ${title}` : ''}`);
  await withContainer('migrate', options, async ({ ctx }) => {
    let report;
    try {
      report = await migrate(ctx, { from: options.from, token: options.token, orgs: options.org, into: options.into }, progress);
    } catch (error) {
      endProgress();
      // One line, exit code 1, and nothing written (the migration checks its source before writing).
      if (error instanceof MigrationFailure) throw new CommandError(`migrate: ${error.message}`);
      throw error;
    }
    showProgress('indexing what was copied');
    // Indexing and OpenAPI processing queued in this process finish before it exits (with Redis, workers do them).
    await ctx.jobs.idle();
    endProgress();
    print(report);
  });
}

