#!/usr/bin/env node
/**
 * The `quire` command: serve, and the admin commands of architecture.md section 1.
 */
import { Command, InvalidArgumentError } from 'commander';
import { ConfigError, loadConfig, type Config } from '../config/index.js';
import { createContainer, type Container } from './container.js';
import { errorField } from './log.js';
import { buildApp } from './http/app.js';
import { Urls } from './http/urls.js';
import { presentUser } from './http/present.js';
import { presentOrganization } from './http/routes/organizations/presenter.js';
import { createApiToken, createUser } from './domain/identity/users.js';
import { createOrganization } from './domain/organizations/organizations.js';
import { addMember } from './domain/members/members.js';
import { loadOrgAccess, isRole, type Role } from './domain/permissions.js';
import { findUserByEmail } from './store/sql/users.js';
import { emailDomainsOf } from './store/sql/organizations.js';
import { DomainError } from './domain/errors.js';
import { purgeDeletedSpaces } from './domain/content/spaces.js';
import { catchUpWithRepositories } from './domain/content/git-access.js';
import { migrate, MigrationFailure, type MigrationProgress } from './domain/migrate/migrate.js';
import { exportSite } from './http/routes/published/export.js';
import { describeStore, readServeRecord, storeExists, withoutPassword, writeServeRecord } from './store/instance-files.js';
import { DEFAULT_DEBOUNCE_MS, DEFAULT_INTERVAL_MS, Sync, SyncError } from './sync/sync.js';

/** A failure the command explains in one line (no stack, even with --verbose: there is nothing more to say). */
class CommandError extends Error {}

interface StoreOptions {
  /** Make a new empty store when none is where the settings point (`--init`). */
  init?: boolean;
}

/**
 * The settings of a command that works on the store `quire serve` uses: the URLs it prints are the server's (the
 * record the server left in the data dir) unless QUIRE_PUBLIC_URL, HOST or PORT is set here.
 */
function commandConfig(): Config {
  const config = loadConfig();
  const served = config.explicit.publicUrl ? undefined : readServeRecord(config.dataDir);
  // Only warnings by default: the command's own output says what it did.
  return { ...config, ...(served ? { publicUrl: served.publicUrl } : {}), logLevel: config.explicit.logLevel ? config.logLevel : 'warn' };
}

/**
 * Runs `run` on the store the settings point at, after saying which one on stderr. A store that does not exist is
 * refused unless `--init` asks for a new one: a command run from another folder would otherwise make an empty
 * `./data` there and print tokens the running server rejects.
 */
async function withContainer<T>(command: string, options: StoreOptions, run: (container: Container) => Promise<T>): Promise<T> {
  const config = commandConfig();
  if (!storeExists(config) && !options.init) {
    const where = config.explicit.dataDir ? 'QUIRE_DATA_DIR' : 'QUIRE_DATA_DIR is not set: ./data of this folder';
    const init = command === 'admin bootstrap' || command === 'migrate' ? ', or pass --init to make a new, empty one there' : '';
    throw new CommandError(`no Quire data at ${config.dataDir} (${where}). Set QUIRE_DATA_DIR and DATABASE_URL to what \`quire serve\` uses${init}.`);
  }
  process.stderr.write(`quire ${command}: ${describeStore(config)}\n`);
  const container = await createContainer(config, { logTo: 'stderr' });
  try {
    return await run(container);
  } finally {
    await container.close();
  }
}

/**
 * Started through npm (`npm start`, `npx quire ...`), this process is the child of the shell npm runs it in, which
 * does not pass npm's SIGTERM on: when npm is gone (this process was handed to another parent), stop as on SIGTERM
 * instead of running on unseen. Not otherwise: a server started with `nohup quire serve &` must outlive its shell.
 */
function stopWhenNpmExits(config: Config, stop: (signal: string) => void): void {
  if (!config.startedByNpm) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    stop('npm exited');
  }, 500);
  timer.unref();
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

function parseRole(value: string): Role | null {
  if (value === 'guest') return null;
  if (!isRole(value)) throw new InvalidArgumentError('must be admin, create, review, edit, comment, read or guest');
  return value;
}

async function serve(config: Config): Promise<void> {
  const container = await createContainer(config);
  const app = await buildApp(container);
  // Spaces deleted more than the retention period ago are removed for good: at start, then every hour.
  const purge = () =>
    purgeDeletedSpaces(container.ctx).then(
      (ids) => ids.length > 0 && app.log.info({ spaces: ids }, 'purged deleted spaces'),
      (error: unknown) => app.log.error({ err: error }, 'purging deleted spaces failed'),
    );
  const purgeTimer = setInterval(() => void purge(), 60 * 60 * 1000);
  purgeTimer.unref();
  let catchingUp = false;
  const catchUp = async () => {
    if (catchingUp) return;
    catchingUp = true;
    // Counts every few seconds while a long catch-up runs (thousands of spaces after a crash), so it is seen to move.
    let shown = Date.now();
    const progress = (checked: number, total: number) => {
      if (Date.now() - shown < 5000) return;
      shown = Date.now();
      app.log.info(`catching up with the repositories: ${checked} of ${total} spaces checked`);
    };
    await catchUpWithRepositories(container.ctx, progress).then(
      ({ recorded, indexed }) =>
        (recorded.length > 0 || indexed.length > 0) && app.log.info({ recorded: recorded.length, indexed: indexed.length }, 'caught up with the repositories'),
      (error: unknown) => app.log.warn({ err: error }, 'could not catch up with the repositories'),
    );
    catchingUp = false;
  };
  let catchUpTimer: NodeJS.Timeout | undefined;
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    clearInterval(purgeTimer);
    clearInterval(catchUpTimer);
    app.log.info({ signal }, 'shutting down');
    // In-flight requests get a grace period; keep-alive connections a client never closes must not hold the exit.
    const grace = setTimeout(() => app.server.closeAllConnections(), 3000);
    await app.close();
    clearTimeout(grace);
    await container.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  stopWhenNpmExits(config, (reason) => void shutdown(reason));
  const address = await app.listen({ port: config.port, host: config.host });
  writeServeRecord(config.dataDir, { publicUrl: config.publicUrl, pid: process.pid, startedAt: new Date().toISOString() });
  app.log.info(`public URL ${config.publicUrl} (listening on ${address})`);
  app.log.info(describeStore(config));
  app.log.info(config.redisUrl ? `jobs on BullMQ, Redis ${withoutPassword(config.redisUrl)}, key prefix ${config.redisPrefix}: run \`quire worker\` beside it` : 'jobs in this process (REDIS_URL is not set)');
  void purge();
  await scheduleRecurringJobs(container, (message, error) => app.log.warn({ err: error }, message));
  // Pushes a killed process did not record, and indexing that a restart lost (in-process queue) or that could not be
  // queued (Redis down), catch up now and then every few minutes: nothing else would bring them forward.
  void catchUp();
  catchUpTimer = setInterval(() => void catchUp(), config.catchUpIntervalMs);
  catchUpTimer.unref();
}

/** OpenAPI specifications with a URL source are fetched again every hour. */
const OPENAPI_REFRESH_MS = 60 * 60 * 1000;

/** Schedules the recurring jobs (idempotent: every serve and worker process may do it; BullMQ keeps one schedule). */
async function scheduleRecurringJobs(container: Container, warn: (message: string, error: unknown) => void): Promise<void> {
  await container.ctx.jobs
    .every({ name: 'refresh-openapi-specs', payload: {} }, OPENAPI_REFRESH_MS)
    .catch((error: unknown) => warn('the hourly refresh of OpenAPI specifications is not scheduled', error));
}

/** `quire worker`: BullMQ workers for every queue until SIGINT or SIGTERM; running jobs finish before it exits. */
async function worker(config: Config): Promise<void> {
  if (!config.redisUrl) throw new CommandError('worker: REDIS_URL is not set; without it `quire serve` runs the jobs in its own process');
  const container = await createContainer(config, { workers: true });
  const { log } = container;
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) process.exit(1);
    closing = true;
    log.info(`shutting down (${signal}): finishing running jobs`);
    await container.close();
    process.exit(0);
  };
  // Before "worker started": whoever waits for that line may signal at once.
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  stopWhenNpmExits(config, (reason) => void shutdown(reason));
  await scheduleRecurringJobs(container, (message, error) => log.warn({ err: errorField(error) }, message));
  log.info(describeStore(config));
  log.info(`worker started: jobs from Redis ${withoutPassword(config.redisUrl)}, key prefix ${config.redisPrefix}, ${config.jobConcurrency} at a time`);
}

const program = new Command('quire').description('Quire: documentation whose content lives in git');

program
  .command('serve')
  .description('HTTP API and git over HTTP on HOST:PORT')
  .action(async () => serve(loadConfig()));

program
  .command('worker')
  .description('BullMQ workers for every job queue (needs REDIS_URL); several may run at once')
  .action(async () => worker(loadConfig()));

const admin = program.command('admin').description('administration from the command line');

admin
  .command('bootstrap')
  .description('first admin user, an organization and an API token')
  .requiredOption('--email <email>', 'e-mail of the admin')
  .option('--name <name>', 'display name')
  .option('--org <title>', 'title of the organization', 'My organization')
  .option('--init', 'make a new, empty store when there is none at QUIRE_DATA_DIR (and DATABASE_URL)')
  .action(async (options: { email: string; name?: string; org: string; init?: boolean }) =>
    withContainer('admin bootstrap', options, async ({ ctx, config }) => {
      const user = (await findUserByEmail(ctx.db, options.email)) ?? (await createUser(ctx, { email: options.email, name: options.name }));
      const organization = await createOrganization(ctx, user.id, { title: options.org });
      const token = await createApiToken(ctx, user.id);
      const urls = new Urls(config.publicUrl);
      const access = await loadOrgAccess(ctx, organization.id, user.id);
      const domains = await emailDomainsOf(ctx.db, [organization.id]);
      print({
        user: presentUser(urls, user),
        organization: presentOrganization(urls, { organization, access, emailDomains: domains.get(organization.id) ?? [] }),
        token,
      });
    }),
  );

admin
  .command('create-user')
  .description('a user, optionally a member of an organization, with an API token')
  .requiredOption('--email <email>', 'e-mail of the user')
  .option('--name <name>', 'display name')
  .option('--org <organizationId>', 'make the user a member of this organization')
  .option('--role <role>', 'role in --org: admin, create, review, edit, comment, read or guest', parseRole)
  .action(async (options: { email: string; name?: string; org?: string; role?: Role | null }) =>
    withContainer('admin create-user', {}, async ({ ctx, config }) => {
      if (options.role !== undefined && !options.org) throw new InvalidArgumentError('--role needs --org');
      const user = await createUser(ctx, { email: options.email, name: options.name });
      if (options.org) await addMember(ctx, options.org, user.id, options.role === undefined ? 'read' : options.role);
      const token = await createApiToken(ctx, user.id);
      print({ user: presentUser(new Urls(config.publicUrl), user), token });
    }),
  );

admin
  .command('purge')
  .description('remove for good the spaces deleted more than 7 days ago (serve also does it every hour)')
  .action(async () =>
    withContainer('admin purge', {}, async ({ ctx }) => {
      print({ purged: await purgeDeletedSpaces(ctx) });
    }),
  );

admin
  .command('create-token')
  .description('a new API token for a user')
  .requiredOption('--user <userId>', 'id of the user')
  .action(async (options: { user: string }) =>
    withContainer('admin create-token', {}, async ({ ctx }) => {
      print({ token: await createApiToken(ctx, options.user) });
    }),
  );

function parseCount(name: string, min: number) {
  return (value: string): number => {
    const number = Number(value);
    if (!/^\d+$/.test(value) || !Number.isSafeInteger(number) || number < min) throw new InvalidArgumentError(`${name} must be an integer of at least ${min}`);
    return number;
  };
}

/** `quire sync`: runs until SIGINT or SIGTERM, then finishes what is in flight and exits 0. */
async function sync(config: Config, spaceId: string, dir: string, options: { changeRequest?: number; debounceMs: number; intervalMs: number }): Promise<void> {
  const fail = (message: string): never => {
    process.stderr.write(`quire sync: ${message}\n`);
    process.exit(1);
  };
  if (!config.syncToken) fail('QUIRE_TOKEN is not set: set it to an API token of a user who can edit the space (and QUIRE_URL to the server)');
  const run = new Sync({
    spaceId,
    dir,
    serverUrl: config.syncUrl,
    token: config.syncToken!,
    changeRequest: options.changeRequest,
    debounceMs: options.debounceMs,
    intervalMs: options.intervalMs,
    env: config.childEnv,
    log: (line) => process.stdout.write(`${line}\n`),
  });
  let signalled = false;
  const shutdown = (signal: string) => {
    // A second signal does not wait for the push in flight.
    if (signalled) process.exit(1);
    signalled = true;
    process.stdout.write(`${signal}: finishing the sync in flight\n`);
    run.stop().then(
      () => process.exit(0),
      (error: unknown) => fail((error as Error).message),
    );
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  stopWhenNpmExits(config, shutdown);
  try {
    await run.start();
  } catch (error) {
    if (error instanceof SyncError) fail(error.message);
    throw error;
  }
}

program
  .command('sync')
  .description('two-way sync of a folder with a space: QUIRE_URL (default: QUIRE_PUBLIC_URL) and QUIRE_TOKEN')
  .argument('<spaceId>', 'id of the space')
  .argument('<dir>', 'the folder: cloned into when missing or empty, reused when it is a checkout of the space')
  .option('--change-request <number>', 'sync the change request branch change-requests/N instead of main', parseCount('--change-request', 1))
  .option('--debounce-ms <ms>', 'quiet time after the last saved change before committing', parseCount('--debounce-ms', 0), DEFAULT_DEBOUNCE_MS)
  .option('--interval-ms <ms>', 'time between fetches from the server', parseCount('--interval-ms', 100), DEFAULT_INTERVAL_MS)
  .action(async (spaceId: string, dir: string, options: { changeRequest?: number; debounceMs: number; intervalMs: number }) =>
    sync(loadConfig(), spaceId, dir, options),
  );

const site = program.command('site').description('published sites');

site
  .command('export')
  .description('the whole public site as static files in DIR (HTML, files, a search index): for any static host serving DIR at its root')
  .argument('<siteId>', 'id of a public or unlisted site')
  .argument('<dir>', 'the folder to write (made when missing; files of the same names are replaced)')
  .action(async (siteId: string, dir: string) =>
    withContainer('site export', {}, async ({ ctx }) => {
      const result = await exportSite(ctx, siteId, dir, ({ pages, files }) => showProgress(`exported ${pages} pages, ${files} files`));
      endProgress();
      print(result);
    }),
  );

/** One line of progress on stderr, rewritten in place, when stderr is a terminal (nothing otherwise). */
function showProgress(line: string): void {
  if (process.stderr.isTTY !== true) return;
  process.stderr.write(`\r\x1b[K${line.slice(0, (process.stderr.columns ?? 80) - 1)}`);
}

/** Ends a progress line (so what follows starts on a line of its own). */
function endProgress(): void {
  if (process.stderr.isTTY === true) process.stderr.write('\r\x1b[K');
}

/** `quire migrate`: progress on stderr when it is a terminal, the report as JSON on stdout. */
async function migrateCommand(options: { from: string; token: string; org: string[]; into?: string; init?: boolean }): Promise<void> {
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

program
  .command('migrate')
  .description('copy organizations from a server of this API (the hosted platform, or another Quire) into this one; prints a JSON report')
  .requiredOption('--from <url>', 'the source server, e.g. https://api.gitbook.com')
  .requiredOption('--token <token>', 'an API token of the source server')
  .option('--org <organizationId>', 'a source organization to copy (repeatable; default: all of the token\'s user)', (value: string, all: string[]) => [...all, value], [] as string[])
  .option('--into <organizationId>', 'an organization here to copy into (default: a new organization per source organization)')
  .option('--init', 'make a new, empty store when there is none at QUIRE_DATA_DIR (and DATABASE_URL)')
  .action(async (options: { from: string; token: string; org: string[]; into?: string; init?: boolean }) => migrateCommand(options));

program.option('--verbose', 'on failure, print the stack of an unexpected error');

program.parseAsync(process.argv).catch((error: unknown) => {
  const expected = error instanceof CommandError || error instanceof ConfigError || error instanceof DomainError || error instanceof InvalidArgumentError;
  const verbose = program.opts<{ verbose?: boolean }>().verbose === true;
  const message = !expected && verbose ? ((error as Error).stack ?? String(error)) : error instanceof Error ? error.message : String(error);
  process.stderr.write(`quire: ${message}${!expected && !verbose ? ' (--verbose shows where)' : ''}\n`);
  process.exit(1);
});
