#!/usr/bin/env node
/**
 * The `quire` command: serve and the other commands (`quire --help` lists them). Each command's code is imported when
 * it runs, so `quire --help` (and a command's own start) loads only what it uses. Each command's `--help` ends with the
 * settings it reads (config/settings.ts).
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { ConfigError, loadConfig } from '../config/index.js';
import type { CommandName } from '../config/settings.js';
import { DomainError } from './domain/errors.js';
import { CommandError } from './cli/common.js';
import type { MigrateOptions } from './cli/migrate.js';
import { STORE_UMASK } from './store/instance-files.js';
import { DEFAULT_DEBOUNCE_MS, DEFAULT_INTERVAL_MS } from './sync/defaults.js';
import { settingsHelp } from './cli/settings-help.js';
import { packageVersion } from './cli/version.js';

const program = new Command('quire')
  .description('Quire: documentation whose content lives in git')
  .version(packageVersion(), '-v, --version', 'print the version')
  .addHelpText('after', '\nquire <command> --help: the options of a command and the settings (environment variables) it reads.');

/** Ends `command`'s help with the settings `commands` read (written when the help is asked for). */
function withSettings(command: Command, commands: readonly CommandName[]): Command {
  return command.addHelpText('after', () => settingsHelp(commands));
}

/** The commands that write the store: what they (and the git they run) create is for this user only. */
const WRITING_THE_STORE = new Set(['serve', 'worker', 'bootstrap', 'create-user', 'purge', 'create-token', 'reset-password', 'migrate']);
program.hook('preAction', (_program, command) => {
  if (WRITING_THE_STORE.has(command.name())) process.umask(STORE_UMASK);
});

withSettings(program.command('serve'), ['serve'])
  .description('HTTP API and git over HTTP on HOST:PORT')
  .action(async () => (await import('./cli/serve.js')).serve(loadConfig()));

withSettings(program.command('worker'), ['worker'])
  .description('BullMQ workers for every job queue (needs REDIS_URL); several may run at once')
  .action(async () => (await import('./cli/serve.js')).worker(loadConfig()));

const admin = withSettings(program.command('admin'), ['admin bootstrap', 'admin create-user', 'admin purge', 'admin create-token', 'admin reset-password']).description(
  'administration from the command line',
);

withSettings(admin.command('bootstrap'), ['admin bootstrap'])
  .description('first admin user, an organization and an API token')
  .requiredOption('--email <email>', 'e-mail of the admin')
  .option('--name <name>', 'display name')
  .option('--org <title>', 'title of the organization', 'My organization')
  .option('--init', 'make a new, empty store when there is none at QUIRE_DATA_DIR (and DATABASE_URL)')
  .action(async (options: { email: string; name?: string; org: string; init?: boolean }) => (await import('./cli/admin.js')).bootstrap(options));

withSettings(admin.command('create-user'), ['admin create-user'])
  .description('a user, optionally a member of an organization, with an API token')
  .requiredOption('--email <email>', 'e-mail of the user')
  .option('--name <name>', 'display name')
  .option('--org <organizationId>', 'make the user a member of this organization')
  .option('--role <role>', 'role in --org: admin, create, review, edit, comment, read or guest')
  .action(async (options: { email: string; name?: string; org?: string; role?: string }) => (await import('./cli/admin.js')).createUserCommand(options));

withSettings(admin.command('purge'), ['admin purge'])
  .description('remove for good the spaces deleted more than 7 days ago (serve also does it every hour)')
  .action(async () => (await import('./cli/admin.js')).purge());

withSettings(admin.command('create-token'), ['admin create-token'])
  .description('a new API token for a user')
  .requiredOption('--user <userId>', 'id of the user')
  .action(async (options: { user: string }) => (await import('./cli/admin.js')).createToken(options));

withSettings(admin.command('reset-password'), ['admin reset-password'])
  .description('a one-time link (valid 24 hours) with which the user sets a password in the app; signs out their sessions once used')
  .argument('<USER>', 'e-mail or id of the user')
  .action(async (user: string) => (await import('./cli/admin.js')).resetPassword(user));

const gitSync = withSettings(program.command('git-sync'), ['git-sync status']).description('Git Sync: spaces kept in step with a branch of a repository on a git host');

withSettings(gitSync.command('status'), ['git-sync status'])
  .description('every connection (or SPACE_ID\'s) and where it stands: status, repository, branch, last in step, error')
  .argument('[SPACE_ID]', 'only this space\'s connection')
  .option('--json', 'the API\'s gitSync objects, as JSON')
  .action(async (spaceId: string | undefined, options: { json?: boolean }) => (await import('./cli/git-sync.js')).gitSyncStatus(spaceId, options));

function parseCount(name: string, min: number) {
  return (value: string): number => {
    const number = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < min) throw new InvalidArgumentError(`${name} must be an integer of at least ${min}`);
    return number;
  };
}

withSettings(program.command('sync'), ['sync'])
  .description('two-way sync of a folder with a space: QUIRE_URL (default: QUIRE_PUBLIC_URL) and QUIRE_TOKEN')
  .argument('<spaceId>', 'id of the space')
  .argument('<dir>', 'the folder: cloned into when missing or empty, reused when it is a checkout of the space')
  .option('--change-request <number>', 'sync the change request branch change-requests/N instead of main', parseCount('--change-request', 1))
  .option('--debounce-ms <ms>', 'quiet time after the last saved change before committing', parseCount('--debounce-ms', 0), DEFAULT_DEBOUNCE_MS)
  .option('--interval-ms <ms>', 'time between fetches from the server', parseCount('--interval-ms', 100), DEFAULT_INTERVAL_MS)
  .action(async (spaceId: string, dir: string, options: { changeRequest?: number; debounceMs: number; intervalMs: number }) =>
    (await import('./cli/sync.js')).sync(loadConfig(), spaceId, dir, options),
  );

const site = withSettings(program.command('site'), ['site export']).description('published sites');

withSettings(site.command('export'), ['site export'])
  .description('the whole public site as static files in DIR (HTML, files, a search index): for any static host serving DIR at its root')
  .argument('<siteId>', 'id of a public or unlisted site')
  .argument('<dir>', 'the folder to write (made when missing; files of the same names are replaced)')
  .action(async (siteId: string, dir: string) => (await import('./cli/site.js')).siteExport(siteId, dir));

withSettings(program.command('migrate'), ['migrate'])
  .description('copy organizations from a server of this API (the hosted platform, or another Quire) into this one; prints a JSON report')
  .requiredOption('--from <url>', 'the source server, e.g. https://api.gitbook.com')
  .option('--token-file <path>', 'a file holding an API token of the source server (or set QUIRE_MIGRATE_TOKEN)')
  .addOption(new Option('--token <token>').hideHelp())
  .option('--org <organizationId>', 'a source organization to copy (repeatable; default: all of the token\'s user)', (value: string, all: string[]) => [...all, value], [] as string[])
  .option('--into <organizationId>', 'an organization here to copy into (default: a new organization per source organization)')
  .option('--init', 'make a new, empty store when there is none at QUIRE_DATA_DIR (and DATABASE_URL)')
  .action(async (options: MigrateOptions) => (await import('./cli/migrate.js')).migrateCommand(options));

program.option('--verbose', 'on failure, print the stack of an unexpected error');

program.parseAsync(process.argv).catch((error: unknown) => {
  const expected = error instanceof CommandError || error instanceof ConfigError || error instanceof DomainError || error instanceof InvalidArgumentError;
  const verbose = program.opts<{ verbose?: boolean }>().verbose === true;
  const message = !expected && verbose ? ((error as Error).stack ?? String(error)) : error instanceof Error ? error.message : String(error);
  process.stderr.write(`quire: ${message}${!expected && !verbose ? ' (--verbose shows where)' : ''}\n`);
  process.exit(1);
});
