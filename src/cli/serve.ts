/** `quire serve` and `quire worker`. */
import v8 from 'node:v8';
import type { Config } from '../../config/index.js';
import { createContainer, type Container } from '../container.js';
import { buildApp } from '../http/app.js';
import { errorField } from '../log.js';
import { EventLoopMonitor } from '../event-loop.js';
import { purgeDeletedSpaces } from '../domain/content/spaces.js';
import { catchUpWithRepositories } from '../domain/content/git-access.js';
import { describeStore, withoutPassword, writeServeRecord } from '../store/instance-files.js';
import { CommandError, stopWhenNpmExits } from './common.js';
import { reportProcessErrors } from './process-errors.js';

/**
 * The JS heap's growth past its last full collection (QUIRE_HEAP_GROWTH_PERCENT): V8's own factor lets a server
 * that parses content in bursts keep hundreds of MB of heap it no longer uses. A long-running process's setting, so
 * here and not in the container (tests and `quire admin` build containers too). V8 reads the flag at each collection.
 */
function limitHeapGrowth(config: Config): void {
  if (config.heapGrowthPercent > 0) v8.setFlagsFromString(`--heap-growing-percent=${config.heapGrowthPercent}`);
}

export async function serve(config: Config): Promise<void> {
  limitHeapGrowth(config);
  const container = await createContainer(config);
  reportProcessErrors(container.ctx.log);
  const eventLoop = new EventLoopMonitor(container.ctx.log);
  const app = await buildApp(container, { eventLoop });
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
    eventLoop.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  stopWhenNpmExits(config, (reason) => void shutdown(reason));
  const address = await app.listen({ port: config.port, host: config.host });
  eventLoop.start();
  writeServeRecord(config.dataDir, { publicUrl: config.publicUrl, pid: process.pid, startedAt: new Date().toISOString() });
  app.log.info(`public URL ${config.publicUrl} (listening on ${address})`);
  app.log.info(describeStore(config));
  app.log.info(config.redisUrl ? `jobs on BullMQ, Redis ${withoutPassword(config.redisUrl)}, key prefix ${config.redisPrefix}: run \`quire worker\` beside it` : 'jobs in this process (REDIS_URL is not set)');
  app.log.info(container.ctx.mail ? `password reset by e-mail, sent through ${container.ctx.mail.mailer.server}` : 'no password reset by e-mail (QUIRE_SMTP_URL is not set)');
  // A CPU pool thread loads now rather than on the first push or search (which splits its work with a thread only
  // once one is running).
  container.ctx.cpu.startThread();
  void purge();
  await scheduleRecurringJobs(container, (message, error) => app.log.warn({ err: error }, message));
  // Git Sync resumes at once: a run a stopped process left unfinished, and whatever moved on either side meanwhile.
  void container.ctx.jobs.enqueueWhenReachable({ name: 'poll-git-sync', payload: {} });
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
  await container.ctx.jobs
    .every({ name: 'poll-git-sync', payload: {} }, container.ctx.gitSyncPollMs)
    .catch((error: unknown) => warn('the Git Sync poll is not scheduled', error));
}

/** `quire worker`: BullMQ workers for every queue until SIGINT or SIGTERM; running jobs finish before it exits. */
export async function worker(config: Config): Promise<void> {
  if (!config.redisUrl) throw new CommandError('worker: REDIS_URL is not set; without it `quire serve` runs the jobs in its own process');
  limitHeapGrowth(config);
  const container = await createContainer(config, { workers: true });
  const { log } = container.ctx;
  reportProcessErrors(log);
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

