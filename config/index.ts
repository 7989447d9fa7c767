/**
 * Typed settings. This is the only module that reads `process.env`; everything else receives a `Config`.
 */
import os from 'node:os';
import path from 'node:path';

export interface Config {
  /** Where repositories, the SQLite database and instance files live. */
  dataDir: string;
  port: number;
  host: string;
  /** Base URL used to build every `urls` member (no trailing slash). */
  publicUrl: string;
  /** `postgres://...` for PostgreSQL; undefined for the SQLite file in `dataDir`. */
  databaseUrl?: string;
  /** Set: jobs run on BullMQ; unset: in-process. */
  redisUrl?: string;
  /** Prefix of every BullMQ key in Redis (`QUIRE_REDIS_PREFIX`): several installations (or test runs) can share one Redis. */
  redisPrefix: string;
  /** Jobs one process runs at once (`QUIRE_JOB_CONCURRENCY`). */
  jobConcurrency: number;
  /**
   * Worker threads for parsing and indexing content and, on SQLite, ranking searches (`QUIRE_CPU_THREADS`), off the
   * event loop that answers requests; by default one core fewer than the machine has (the event loop keeps one), at
   * least 1, at most 4.
   */
  cpuThreads: number;
  /** Tries per job before it fails for good. */
  jobAttempts: number;
  /** Delay before a job's first retry (`QUIRE_JOB_RETRY_DELAY_MS`); each further retry doubles it. */
  jobRetryDelayMs: number;
  /** CIDRs or host names outbound fetches may reach although they are private or loopback. */
  fetchAllow: string[];
  /**
   * Host names `fetchAllow` applies to; absent: all. Not from the environment: `quire migrate` sets it to its
   * source's host, so that what the source's answers name (OpenAPI URLs, redirects) is reached only if public.
   */
  fetchAllowOnlyFor?: string[];
  /** Time limit of one outbound fetch, redirects included (`QUIRE_FETCH_TIMEOUT_MS`). */
  fetchTimeoutMs: number;
  /** Largest accepted JSON request body, in bytes. */
  bodyLimit: number;
  /** Deleted spaces stay restorable this long. */
  spaceRetentionMs: number;
  /** How long another process's writes may take to show in this process's read cache (0: no cache). */
  cacheTtlMs: number;
  /**
   * Bytes the content kept in memory may hold in the heap (QUIRE_CONTENT_CACHE_MB): parsed revisions, their answers,
   * page parses and links (src/domain/content/revisions.ts RevisionCache), history facts (one eighth).
   */
  contentCacheBytes: number;
  /**
   * Bytes the rankings kept for organization and site searches may hold in the heap (QUIRE_SEARCH_RANKINGS_MB,
   * default 16; 0 keeps none): each space's best pages for a query, until the space is indexed again
   * (src/domain/search/rankings.ts).
   */
  searchRankingsBytes: number;
  /**
   * How far V8 lets the JS heap grow past what its last full collection kept, in percent (QUIRE_HEAP_GROWTH_PERCENT,
   * default 25; 0: V8's own factor, which reaches 100-300% while requests allocate fast). Applied by `quire serve` and
   * `quire worker` (src/cli/serve.ts): reading 100 spaces of 1,000 pages left 350-380 MB resident with 25, 470-560 MB
   * with V8's factor, as fast (bench/README.md, issue 16).
   */
  heapGrowthPercent: number;
  /** Largest file a git push may add, in bytes. */
  gitMaxFileBytes: number;
  /** What one content import may take (see ImportLimits). */
  importLimits: ImportLimits;
  /**
   * Resident memory of this process past which its git processes are started by a small launcher process rather
   * than forked from this one (`QUIRE_GIT_LAUNCHER_MB`, default 256; 0: always; see src/store/git/launcher.ts).
   */
  gitLauncherAboveBytes: number;
  /**
   * How often `quire serve` records pushes a killed process missed and queues indexing the indexes missed (a push
   * while Redis was down) (`QUIRE_CATCH_UP_INTERVAL_MS`).
   */
  catchUpIntervalMs: number;
  logLevel: string;
  /** `QUIRE_LOG_FORMAT`: `pretty` (lines for people), `json` (one object per line), or `auto`: pretty on a terminal. */
  logFormat: 'auto' | 'pretty' | 'json';
  /**
   * `QUIRE_METRICS_TOKEN`: set, `quire serve` answers `GET /metrics` (how long its event loop was held) to this bearer
   * token; unset, there is no such route.
   */
  metricsToken?: string;
  /** `quire sync`: base URL of the Quire server it syncs with (`QUIRE_URL`; default: `publicUrl`), no trailing slash. */
  syncUrl: string;
  /** `quire sync`: the API token it authenticates with (`QUIRE_TOKEN`); only that command needs it. */
  syncToken?: string;
  /** `quire migrate`: the source server's API token (`QUIRE_MIGRATE_TOKEN`; or `--token-file`). */
  migrateToken?: string;
  /**
   * The environment this process started with, without `QUIRE_TOKEN` and `QUIRE_MIGRATE_TOKEN`: what child processes
   * such as `quire sync`'s git commands inherit (PATH, HOME, git's identity variables). Nothing outside this module
   * reads settings from it.
   */
  childEnv: NodeJS.ProcessEnv;
  /** Started by npm (`npm start`, `npx quire ...`): npm's shell sits between npm and this process. */
  startedByNpm: boolean;
  /** Which settings the environment gave rather than their defaults (commands say where they looked). */
  explicit: { dataDir: boolean; publicUrl: boolean; logLevel: boolean };
}

/**
 * Limits of one content import: archives (zip, docx) are counted as they inflate, and the conversion runs in a thread
 * of its own that is stopped past its memory or its time (src/cpu/isolated.ts).
 */
export interface ImportLimits {
  /** Files of an archive at most (`QUIRE_IMPORT_MAX_FILES`). */
  maxEntries: number;
  /** Uncompressed bytes of one file of an archive at most (`QUIRE_IMPORT_MAX_FILE_MB`). */
  maxEntryBytes: number;
  /** Uncompressed bytes of an archive in all at most (`QUIRE_IMPORT_MAX_MB`). */
  maxBytes: number;
  /** Heap of the thread converting one import, in MB (`QUIRE_IMPORT_MEMORY_MB`). */
  memoryMb: number;
  /** Time the conversion of one import may take (`QUIRE_IMPORT_TIMEOUT_MS`), within the five minutes a request waits. */
  timeMs: number;
}

export class ConfigError extends Error {}

function parsePort(raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`PORT: must be an integer between 0 and 65535, got "${raw}"`);
  }
  return port;
}

function parsePositiveInteger(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) throw new ConfigError(`${name}: must be a positive integer, got "${raw}"`);
  return value;
}

function parseNonNegativeInteger(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value < 0) throw new ConfigError(`${name}: must be an integer of 0 or more, got "${raw}"`);
  return value;
}

function parseList(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

function parseLogFormat(raw: string | undefined): Config['logFormat'] {
  if (raw === undefined || raw === '') return 'auto';
  if (raw === 'auto' || raw === 'pretty' || raw === 'json') return raw;
  throw new ConfigError(`QUIRE_LOG_FORMAT: must be auto, pretty or json, got "${raw}"`);
}

/** Reads the environment (or the given variables) into a Config; `overrides` win over both. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const port = parsePort(env.PORT, 8080);
  const host = env.HOST || '127.0.0.1';
  const databaseUrl = env.DATABASE_URL || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL: must start with postgres:// or postgresql://');
  }
  const publicUrl = (env.QUIRE_PUBLIC_URL || `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
  const { QUIRE_TOKEN: _token, QUIRE_MIGRATE_TOKEN: _migrateToken, QUIRE_METRICS_TOKEN: _metricsToken, ...childEnv } = env;
  const config: Config = {
    dataDir: path.resolve(env.QUIRE_DATA_DIR || './data'),
    port,
    host,
    publicUrl,
    databaseUrl,
    redisUrl: env.REDIS_URL || undefined,
    redisPrefix: env.QUIRE_REDIS_PREFIX || 'quire',
    jobConcurrency: parsePositiveInteger('QUIRE_JOB_CONCURRENCY', env.QUIRE_JOB_CONCURRENCY, 4),
    cpuThreads: parsePositiveInteger('QUIRE_CPU_THREADS', env.QUIRE_CPU_THREADS, Math.min(4, Math.max(1, os.availableParallelism() - 1))),
    jobAttempts: 5,
    jobRetryDelayMs: parsePositiveInteger('QUIRE_JOB_RETRY_DELAY_MS', env.QUIRE_JOB_RETRY_DELAY_MS, 1000),
    fetchAllow: parseList(env.QUIRE_FETCH_ALLOW),
    fetchTimeoutMs: parsePositiveInteger('QUIRE_FETCH_TIMEOUT_MS', env.QUIRE_FETCH_TIMEOUT_MS, 15_000),
    bodyLimit: 1024 * 1024,
    spaceRetentionMs: 7 * 24 * 60 * 60 * 1000,
    contentCacheBytes: parsePositiveInteger('QUIRE_CONTENT_CACHE_MB', env.QUIRE_CONTENT_CACHE_MB, 96) * 1024 * 1024,
    searchRankingsBytes: parseNonNegativeInteger('QUIRE_SEARCH_RANKINGS_MB', env.QUIRE_SEARCH_RANKINGS_MB, 16) * 1024 * 1024,
    cacheTtlMs: env.QUIRE_CACHE_TTL_MS === undefined || env.QUIRE_CACHE_TTL_MS === '' ? 1000 : Number(env.QUIRE_CACHE_TTL_MS),
    heapGrowthPercent: parseNonNegativeInteger('QUIRE_HEAP_GROWTH_PERCENT', env.QUIRE_HEAP_GROWTH_PERCENT, 25),
    gitMaxFileBytes: parsePositiveInteger('QUIRE_GIT_MAX_FILE_BYTES', env.QUIRE_GIT_MAX_FILE_BYTES, 100 * 1024 * 1024),
    importLimits: {
      maxEntries: parsePositiveInteger('QUIRE_IMPORT_MAX_FILES', env.QUIRE_IMPORT_MAX_FILES, 10_000),
      maxEntryBytes: parsePositiveInteger('QUIRE_IMPORT_MAX_FILE_MB', env.QUIRE_IMPORT_MAX_FILE_MB, 32) * 1024 * 1024,
      maxBytes: parsePositiveInteger('QUIRE_IMPORT_MAX_MB', env.QUIRE_IMPORT_MAX_MB, 128) * 1024 * 1024,
      memoryMb: parsePositiveInteger('QUIRE_IMPORT_MEMORY_MB', env.QUIRE_IMPORT_MEMORY_MB, 1024),
      timeMs: parsePositiveInteger('QUIRE_IMPORT_TIMEOUT_MS', env.QUIRE_IMPORT_TIMEOUT_MS, 4 * 60 * 1000),
    },
    gitLauncherAboveBytes: parseNonNegativeInteger('QUIRE_GIT_LAUNCHER_MB', env.QUIRE_GIT_LAUNCHER_MB, 256) * 1024 * 1024,
    catchUpIntervalMs: parsePositiveInteger('QUIRE_CATCH_UP_INTERVAL_MS', env.QUIRE_CATCH_UP_INTERVAL_MS, 60_000),
    logLevel: env.QUIRE_LOG_LEVEL || 'info',
    logFormat: parseLogFormat(env.QUIRE_LOG_FORMAT),
    syncUrl: (env.QUIRE_URL || publicUrl).replace(/\/+$/, ''),
    syncToken: env.QUIRE_TOKEN || undefined,
    migrateToken: env.QUIRE_MIGRATE_TOKEN || undefined,
    metricsToken: env.QUIRE_METRICS_TOKEN || undefined,
    childEnv,
    startedByNpm: Boolean(env.npm_lifecycle_event || env.npm_command),
    explicit: { dataDir: Boolean(env.QUIRE_DATA_DIR), publicUrl: Boolean(env.QUIRE_PUBLIC_URL || env.PORT || env.HOST), logLevel: Boolean(env.QUIRE_LOG_LEVEL) },
  };
  return { ...config, ...overrides };
}
