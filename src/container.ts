/**
 * Builds the stores and the domain context once, from the config, and hands them down explicitly.
 */
import type { Config } from '../config/index.js';
import { openStore, type Store } from './store/sql/db.js';
import { instanceSecret } from './store/sql/secrets.js';
import { GitStore } from './store/git/repositories.js';
import { GitReader } from './store/git/reader.js';
import { ProcessLauncher } from './store/git/launcher.js';
import { HistoryFacts } from './domain/content/history.js';
import { SharedWork } from './domain/shared-work.js';
import { SpaceRankings } from './domain/search/rankings.js';
import { RevisionCache } from './domain/content/revision-cache.js';
import { CursorCodec } from './domain/lists.js';
import { ReadCache } from './domain/cache.js';
import { LinkSigner } from './domain/signing.js';
import { GuardedFetcher } from './store/net/guarded-fetch.js';
import { loadOrCreateSigningKey } from './store/keys/signing-key.js';
import { SecretBox } from './store/keys/secret-box.js';
import { VISITOR_CLAIMS_KEY, VisitorClaimsSigner } from './domain/members/visitor-claims.js';
import type { Context } from './domain/context.js';
import type { Job, JobQueue } from './jobs/jobs.js';
import { InProcessQueue } from './jobs/in-process.js';
import type { BullMqWorkers } from './jobs/bullmq.js';
import { CpuPool } from './cpu/pool.js';
import { prepareDataDir, sqliteFile } from './store/instance-files.js';
import type { DestinationStream } from 'pino';
import { createLogger, errorField, type Logger } from './log.js';
import { SignInLimits, type AttemptCounts } from './domain/identity/sign-in-limits.js';
import { MemoryAttemptCounts } from './domain/identity/memory-attempt-counts.js';
import { PASSWORD_RESET_LIMITS } from './domain/identity/password-reset.js';
import { SmtpMailer } from './store/mail/smtp-mailer.js';
import { Urls } from './http/urls.js';
import { appPaths } from './http/app-paths.js';
import { InProcessEventBus, type EventBus } from './events/bus.js';

export interface Container {
  config: Config;
  store: Store;
  git: GitStore;
  ctx: Context;
  /** Change request events: published by the domain, heard by the streams of the events route. */
  events: EventBus;
  close(): Promise<void>;
}

export interface ContainerOptions {
  /** With REDIS_URL: also run BullMQ workers for every queue in this process (`quire worker`, tests). */
  workers?: boolean;
  /** Where the logs go: stdout for the servers (default), stderr for commands whose stdout is their answer. */
  logTo?: 'stdout' | 'stderr';
  /** Where the log lines go instead of `logTo` (tests read what the server logged). */
  logOutput?: DestinationStream;
}

/** Runs each job through `handle`, logging its start, its end and its duration (a failed try at warn). */
function loggedJobs(handle: (job: Job) => Promise<void>, log: Logger): (job: Job) => Promise<void> {
  return async (job) => {
    const started = performance.now();
    const fields = { job: job.name, ...job.payload };
    log.info(fields, `job ${job.name} started`);
    try {
      await handle(job);
    } catch (error) {
      log.warn({ ...fields, ms: Math.round(performance.now() - started), err: errorField(error) }, `job ${job.name} failed: ${errorField(error)}`);
      throw error;
    }
    log.info({ ...fields, ms: Math.round(performance.now() - started) }, `job ${job.name} done`);
  };
}

export async function createContainer(config: Config, options: ContainerOptions = {}): Promise<Container> {
  const log = createLogger(config, options.logTo, options.logOutput);
  const openMode = prepareDataDir(config.dataDir);
  if (openMode !== undefined) {
    log.warn(`data dir ${config.dataDir} is open to other users of this machine (mode ${openMode.toString(8)}): it holds the database's secrets and every repository; chmod -R go= ${config.dataDir} makes it private`);
  }
  const cache = new ReadCache(config.cacheTtlMs);
  const store = await openStore({
    onWrite: () => cache.invalidate(),
    dataDir: config.dataDir,
    databaseUrl: config.databaseUrl,
    onPoolError: (error) => log.warn({ err: error.message }, 'database connection dropped'),
  });
  const launcher = new ProcessLauncher(config.gitLauncherAboveBytes);
  const git = new GitStore(config.dataDir, { launcher });
  const cursors = new CursorCodec(await instanceSecret(store.db, 'cursor-signing'));
  const revisions = new RevisionCache(config.contentCacheBytes - Math.floor(config.contentCacheBytes / 8));
  const reader = new GitReader(git, { listings: revisions.treeListings });
  const history = new HistoryFacts(
    { db: store.db, git, reader },
    // One eighth of the content cache's bytes: facts are stored in the database too, and read again in a millisecond.
    { memoryBytes: Math.floor(config.contentCacheBytes / 8), log: (msg, fields) => log.warn(fields, msg) },
  );
  const downloadLinks = new LinkSigner(await instanceSecret(store.db, 'link-signing'));
  const secrets = await SecretBox.ofDataDir(config.dataDir, 'credentials');
  const visitorClaims = await VisitorClaimsSigner.create(await loadOrCreateSigningKey(config.dataDir, VISITOR_CLAIMS_KEY), config.publicUrl);
  const cpu = new CpuPool(config.cpuThreads);
  const databaseFile = sqliteFile(config.dataDir);
  const readOffLoop: Context['readOffLoop'] =
    store.dialect === 'sqlite'
      ? (query) => cpu.run('readDatabase', { file: databaseFile, sql: query.sql, parameters: query.parameters })
      : async (query) => (await store.db.executeQuery(query)).rows;
  const fetcher = new GuardedFetcher({ allow: config.fetchAllow, timeoutMs: config.fetchTimeoutMs, ...(config.fetchAllowOnlyFor ? { allowOnlyFor: config.fetchAllowOnlyFor } : {}) });
  // The handler needs the context and the context needs the queue: the handler reads `ctx` when a job runs.
  // Job code (imports of documents, PDFs, repositories...) and BullMQ are loaded when first needed: a command such
  // as `quire admin purge` starts without them.
  let processors: Promise<typeof import('../workers/processors.js')> | undefined;
  const handle = loggedJobs(async (job: Job) => {
    processors ??= import('../workers/processors.js');
    return (await processors).jobHandler(ctx)(job);
  }, log);
  const onFailure = (job: Job, error: unknown) => log.error({ job: job.name, ...job.payload, err: errorField(error) }, `job ${job.name} failed for good: ${errorField(error)}`);
  const retries = { attempts: config.jobAttempts, retryDelayMs: config.jobRetryDelayMs };
  let jobs: JobQueue;
  let workers: BullMqWorkers | undefined;
  if (config.redisUrl) {
    const bull = { ...retries, redisUrl: config.redisUrl, prefix: config.redisPrefix };
    const { BullMqQueue, startBullMqWorkers } = await import('./jobs/bullmq.js');
    jobs = new BullMqQueue(bull);
    if (options.workers) workers = startBullMqWorkers(handle, { ...bull, concurrency: config.jobConcurrency, onFailure });
  } else {
    jobs = new InProcessQueue(handle, { ...retries, concurrency: config.jobConcurrency, onFailure });
  }
  const mailer = config.mail && new SmtpMailer(config.mail);
  const appUrls = new Urls(config.publicUrl);
  // Like the queue: across processes through Redis when there is one, within this process otherwise.
  let events: EventBus;
  if (config.redisUrl) {
    const { RedisEventBus } = await import('./events/redis-bus.js');
    events = new RedisEventBus({ redisUrl: config.redisUrl, prefix: config.redisPrefix, warn: (message) => log.warn(message) });
  } else {
    events = new InProcessEventBus();
  }
  // Failed sign-ins counted across processes too, so that N processes do not allow N times the guesses.
  const inProcessAttempts = new MemoryAttemptCounts();
  let attempts: AttemptCounts = inProcessAttempts;
  let sharedAttempts: { close(): Promise<void> } | undefined;
  if (config.redisUrl) {
    const { RedisAttemptCounts } = await import('./store/redis/attempt-counts.js');
    attempts = sharedAttempts = new RedisAttemptCounts({ redisUrl: config.redisUrl, prefix: config.redisPrefix, warn: (message) => log.warn(message) }, inProcessAttempts);
  }
  const ctx: Context = {
    db: store.db,
    git,
    reader,
    history,
    revisions,
    workByKey: new SharedWork(),
    rankings: new SpaceRankings(config.searchRankingsBytes),
    cpu,
    readOffLoop,
    threadReadFile: store.dialect === 'sqlite' ? databaseFile : undefined,
    cursors,
    cache,
    downloadLinks,
    fetcher,
    jobs,
    visitorClaims,
    secrets,
    spaceRetentionMs: config.spaceRetentionMs,
    gitSyncPollMs: config.gitSyncPollMs,
    gitMaxFileBytes: config.gitMaxFileBytes,
    importLimits: config.importLimits,
    oidc: config.oidc,
    signInLimits: new SignInLimits(attempts, 'sign-in'),
    passwordResetLimits: new SignInLimits(attempts, 'password-reset', PASSWORD_RESET_LIMITS),
    // The token rides in the fragment, as in `quire admin reset-password`'s links: browsers never send it.
    mail: mailer && { mailer, instanceUrl: config.publicUrl, setPasswordLink: (token) => appUrls.app(`${appPaths.setPassword}#token=${token}`) },
    events,
    log,
  };
  return {
    config,
    store,
    git,
    ctx,
    events,
    close: async () => {
      await events.close();
      await sharedAttempts?.close();
      // Imports converting in threads of their own are stopped first: their jobs then fail at once (retried elsewhere
      // on BullMQ) rather than hold the stop for as long as a conversion may take.
      await cpu.isolated.close();
      // Running jobs finish first: they use the database and the repositories closed below.
      await workers?.close();
      await jobs.close();
      await history.close();
      await cpu.close();
      reader.close();
      await git.close();
      launcher.close();
      await fetcher.close();
      mailer?.close();
      await store.close();
    },
  };
}
