#!/usr/bin/env node
/**
 * The `quire` command: serve, and the admin commands of architecture.md section 1.
 */
import { Command, InvalidArgumentError } from 'commander';
import { loadConfig, type Config } from '../config/index.js';
import { createContainer, type Container } from './container.js';
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
import { DEFAULT_DEBOUNCE_MS, DEFAULT_INTERVAL_MS, Sync, SyncError } from './sync/sync.js';

async function withContainer<T>(run: (container: Container) => Promise<T>): Promise<T> {
  const container = await createContainer(loadConfig());
  try {
    return await run(container);
  } finally {
    await container.close();
  }
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
    await catchUpWithRepositories(container.ctx).then(
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
  await app.listen({ port: config.port, host: config.host });
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
  const log = (level: number, msg: string, extra: Record<string, unknown> = {}) =>
    process.stdout.write(`${JSON.stringify({ level, time: Date.now(), msg, ...extra })}\n`);
  if (!config.redisUrl) {
    process.stderr.write('quire worker: REDIS_URL is not set; without it `quire serve` runs the jobs in its own process\n');
    process.exit(1);
  }
  const container = await createContainer(config, { workers: true });
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) process.exit(1);
    closing = true;
    log(30, 'shutting down: finishing running jobs', { signal });
    await container.close();
    process.exit(0);
  };
  // Before "worker started": whoever waits for that line may signal at once.
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  await scheduleRecurringJobs(container, (message, error) => log(40, message, { err: (error as Error).message }));
  log(30, 'worker started', { concurrency: config.jobConcurrency });
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
  .action(async (options: { email: string; name?: string; org: string }) =>
    withContainer(async ({ ctx, config }) => {
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
    withContainer(async ({ ctx, config }) => {
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
    withContainer(async ({ ctx }) => {
      print({ purged: await purgeDeletedSpaces(ctx) });
    }),
  );

admin
  .command('create-token')
  .description('a new API token for a user')
  .requiredOption('--user <userId>', 'id of the user')
  .action(async (options: { user: string }) =>
    withContainer(async ({ ctx }) => {
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
    withContainer(async ({ ctx }) => {
      print(await exportSite(ctx, siteId, dir));
    }),
  );

/** `quire migrate`: progress on stderr when it is a terminal, the report as JSON on stdout. */
async function migrateCommand(options: { from: string; token: string; org: string[]; into?: string }): Promise<void> {
  const terminal = process.stderr.isTTY === true;
  const progress: MigrationProgress = ({ step, done, total, title }) => {
    if (!terminal) return;
    const line = `${step} ${done}/${total}${title ? `: ${title}` : ''}`.slice(0, (process.stderr.columns ?? 80) - 1);
    process.stderr.write(`\r\x1b[K${line}`);
  };
  await withContainer(async ({ ctx }) => {
    let report;
    try {
      report = await migrate(ctx, { from: options.from, token: options.token, orgs: options.org, into: options.into }, progress);
    } catch (error) {
      if (error instanceof MigrationFailure) {
        process.stderr.write(`${terminal ? '\r\x1b[K' : ''}quire migrate: ${error.message}\n`);
        process.exitCode = 1;
        return;
      }
      throw error;
    }
    if (terminal) process.stderr.write('\r\x1b[Kindexing what was copied\n');
    // Indexing and OpenAPI processing queued in this process finish before it exits (with Redis, workers do them).
    await ctx.jobs.idle();
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
  .action(async (options: { from: string; token: string; org: string[]; into?: string }) => migrateCommand(options));

program.parseAsync(process.argv).catch((error: unknown) => {
  const message = error instanceof DomainError || error instanceof InvalidArgumentError ? error.message : (error as Error).stack ?? String(error);
  process.stderr.write(`quire: ${message}\n`);
  process.exit(1);
});
