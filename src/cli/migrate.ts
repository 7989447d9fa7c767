import fs from 'node:fs/promises';
import { loadConfig } from '../../config/index.js';
import { migrate, MigrationFailure } from '../domain/migrate/migrate.js';
import type { MigrationProgress } from '../domain/migrate/migration-run.js';
import { CommandError, endProgress, print, showProgress, withContainer } from './common.js';

export interface MigrateOptions {
  from: string;
  /** Refused: see sourceToken. */
  token?: string;
  tokenFile?: string;
  org: string[];
  into?: string;
  init?: boolean;
}

/**
 * The source's API token: from the file `--token-file` names, else QUIRE_MIGRATE_TOKEN. Never from the command line,
 * where every user of the machine reads it (`ps`, /proc/PID/cmdline) and the shell's history keeps it: `--token` is
 * refused rather than warned about, since by the time a warning shows the token has been exposed.
 */
async function sourceToken(options: MigrateOptions): Promise<string> {
  const where = 'give it in QUIRE_MIGRATE_TOKEN or in a file named by --token-file';
  if (options.token !== undefined) throw new CommandError(`--token: a token on the command line is visible to every user of this machine (ps) and kept in shell history; ${where}`);
  if (options.tokenFile !== undefined) {
    const text = await fs.readFile(options.tokenFile, 'utf8').catch((error: NodeJS.ErrnoException) => {
      throw new CommandError(`--token-file: cannot read ${options.tokenFile}: ${error.code ?? error.message}`);
    });
    const token = text.trim();
    if (token === '') throw new CommandError(`--token-file: ${options.tokenFile} is empty`);
    return token;
  }
  const token = loadConfig().migrateToken;
  if (token === undefined) throw new CommandError(`the source's API token is missing: ${where}`);
  return token;
}

/** The host of `--from` (undefined when it is not a URL: migrate() says why). */
function hostOf(from: string): string | undefined {
  try {
    return new URL(from).hostname;
  } catch {
    return undefined;
  }
}

/** `quire migrate`: progress on stderr when it is a terminal, the report as JSON on stdout. */
export async function migrateCommand(options: MigrateOptions): Promise<void> {
  const token = await sourceToken(options);
  const progress: MigrationProgress = ({ step, done, total, title }) => showProgress(`${step} ${done}/${total}${title ? `: ${title}` : ''}`);
  const source = hostOf(options.from);
  // QUIRE_FETCH_ALLOW lets the migration reach a source on a private address; what the source's answers name
  // (OpenAPI URLs, redirects elsewhere) is fetched only if public.
  await withContainer('migrate', { init: options.init, config: { fetchAllowOnlyFor: source === undefined ? [] : [source] } }, async ({ ctx }) => {
    let report;
    try {
      report = await migrate(ctx, { from: options.from, token, orgs: options.org, into: options.into }, progress);
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
