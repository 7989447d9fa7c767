/**
 * Typed settings. This is the only module that reads `process.env` (the variables and defaults of ./settings.ts, and
 * npm's markers); everything else receives a `Config`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SETTINGS, type SettingName } from './settings.js';

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
   * event loop that answers requests; by default as many as the machine has cores, at most 4: they run below the
   * loop's priority (src/cpu/thread-priority.ts), so the loop still gets a core first, and work no longer waits for
   * one thread while the loop's core is idle.
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
   * default 25; 0: V8's own factor, which lets the heap double or more while requests allocate fast). Applied by
   * `quire serve` and `quire worker` (src/cli/serve.ts): a server reading many large spaces stays markedly smaller
   * with 25 than with V8's factor, and as fast (bench/README.md).
   */
  heapGrowthPercent: number;
  /** Largest file a git push may add, in bytes. */
  gitMaxFileBytes: number;
  /** What one content import may take (see ImportLimits). */
  importLimits: ImportLimits;
  /**
   * Resident memory of this process past which its git processes are started by a small launcher process rather
   * than forked from this one (`QUIRE_GIT_LAUNCHER_MB`; 0, the default: always; see src/store/git/launcher.ts).
   */
  gitLauncherAboveBytes: number;
  /**
   * How often `quire serve` records pushes a killed process missed and queues indexing the indexes missed (a push
   * while Redis was down) (`QUIRE_CATCH_UP_INTERVAL_MS`).
   */
  catchUpIntervalMs: number;
  /** How often Git Sync polls the connected repositories, in ms (`QUIRE_GIT_SYNC_POLL_S`, in seconds). */
  gitSyncPollMs: number;
  logLevel: string;
  /** `QUIRE_LOG_FORMAT`: `pretty` (lines for people), `json` (one object per line), or `auto`: pretty on a terminal. */
  logFormat: 'auto' | 'pretty' | 'json';
  /**
   * `QUIRE_METRICS_TOKEN`: set, `quire serve` answers `GET /metrics` (how long its event loop was held) to this bearer
   * token; unset, there is no such route.
   */
  metricsToken?: string;
  /** The instance's OpenID Connect provider (QUIRE_OIDC_*), when configured: anyone it vouches for may sign in. */
  oidc?: OidcProviderSettings;
  /** Where password-reset mail is sent through (QUIRE_SMTP_URL, QUIRE_MAIL_FROM), when configured. */
  mail?: MailSettings;
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

/** An OpenID Connect provider Quire signs people in with (the instance's, from QUIRE_OIDC_*). */
export interface OidcProviderSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The sign-in button's text. */
  label: string;
}

/** How Quire sends mail: an SMTP server (its URL holds the credentials) and the sender. */
export interface MailSettings {
  /** `smtp://` or `smtps://`, with `USER:PASSWORD@` when the server wants them: a secret, as a whole. */
  smtpUrl: string;
  /** An address, or `Name <address>`. */
  from: string;
}

/** A sender as mail headers take it: `address`, or `Name <address>`. */
const MAIL_FROM = /^(?:[^<>]*<[^<>\s]+@[^<>\s]+>|[^<>\s]+@[^<>\s]+)$/;

/** QUIRE_SMTP_URL and QUIRE_MAIL_FROM: both unset, or an SMTP URL with a sender. */
function parseMail(value: (name: SettingName) => string | undefined): MailSettings | undefined {
  const smtpUrl = value('QUIRE_SMTP_URL');
  const from = value('QUIRE_MAIL_FROM')?.trim();
  if (!smtpUrl) {
    if (from) throw new ConfigError('QUIRE_MAIL_FROM: is set but QUIRE_SMTP_URL is not; set both to send mail');
    return undefined;
  }
  // The URL is never quoted back: it may hold the password.
  if (!URL.canParse(smtpUrl) || !/^smtps?:$/.test(new URL(smtpUrl).protocol) || !new URL(smtpUrl).hostname) {
    throw new ConfigError('QUIRE_SMTP_URL: must be an smtp:// or smtps:// URL with a host (smtp://USER:PASSWORD@HOST:PORT)');
  }
  if (!from) throw new ConfigError('QUIRE_MAIL_FROM: required with QUIRE_SMTP_URL');
  if (!MAIL_FROM.test(from)) throw new ConfigError(`QUIRE_MAIL_FROM: must be an address or "Name <address>", got "${from}"`);
  return { smtpUrl, from };
}

/** QUIRE_OIDC_*: all unset, or an issuer with a client id and a secret (the file preferred). */
function parseOidc(value: (name: SettingName) => string | undefined): OidcProviderSettings | undefined {
  const [issuer, clientId, file, secret, label] = (
    ['QUIRE_OIDC_ISSUER', 'QUIRE_OIDC_CLIENT_ID', 'QUIRE_OIDC_CLIENT_SECRET_FILE', 'QUIRE_OIDC_CLIENT_SECRET', 'QUIRE_OIDC_LABEL'] as const
  ).map((name) => value(name));
  if (!issuer) return undefined;
  if (!URL.canParse(issuer) || !/^https?:$/.test(new URL(issuer).protocol)) throw new ConfigError('QUIRE_OIDC_ISSUER: must be an http(s) URL');
  if (!clientId) throw new ConfigError('QUIRE_OIDC_CLIENT_ID: required with QUIRE_OIDC_ISSUER');
  let clientSecret = secret;
  if (file) {
    try {
      clientSecret = fs.readFileSync(file, 'utf8').trim();
    } catch (error) {
      throw new ConfigError(`QUIRE_OIDC_CLIENT_SECRET_FILE: cannot read ${file}: ${(error as Error).message}`);
    }
  }
  if (!clientSecret) throw new ConfigError('QUIRE_OIDC_CLIENT_SECRET_FILE: required with QUIRE_OIDC_ISSUER (or QUIRE_OIDC_CLIENT_SECRET)');
  return { issuer, clientId, clientSecret, label: label || SETTINGS.QUIRE_OIDC_LABEL.default };
}

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
  if (raw === undefined || raw === '') return SETTINGS.QUIRE_LOG_FORMAT.default;
  if (raw === 'auto' || raw === 'pretty' || raw === 'json') return raw;
  throw new ConfigError(`QUIRE_LOG_FORMAT: must be auto, pretty or json, got "${raw}"`);
}

/** The settings whose default is a number (the integer ones). */
type IntegerSettingName = { [Name in SettingName]: (typeof SETTINGS)[Name] extends { default: number } ? Name : never }[SettingName];

const MB = 1024 * 1024;

/** Reads the environment (or the given variables) into a Config; `overrides` win over both. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  // Only the variables of the settings table are read (and npm's markers, below).
  const value = (name: SettingName): string | undefined => env[name];
  const positive = (name: IntegerSettingName) => parsePositiveInteger(name, value(name), SETTINGS[name].default);
  const nonNegative = (name: IntegerSettingName) => parseNonNegativeInteger(name, value(name), SETTINGS[name].default);
  const port = parsePort(value('PORT'), SETTINGS.PORT.default);
  const host = value('HOST') || SETTINGS.HOST.default;
  const databaseUrl = value('DATABASE_URL') || undefined;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL: must start with postgres:// or postgresql://');
  }
  const publicUrl = (value('QUIRE_PUBLIC_URL') || `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
  const { QUIRE_TOKEN: _token, QUIRE_MIGRATE_TOKEN: _migrateToken, QUIRE_METRICS_TOKEN: _metricsToken, QUIRE_OIDC_CLIENT_SECRET: _oidcSecret, QUIRE_SMTP_URL: _smtpUrl, ...childEnv } = env;
  const cacheTtl = value('QUIRE_CACHE_TTL_MS');
  const config: Config = {
    dataDir: path.resolve(value('QUIRE_DATA_DIR') || SETTINGS.QUIRE_DATA_DIR.default),
    port,
    host,
    publicUrl,
    databaseUrl,
    redisUrl: value('REDIS_URL') || undefined,
    redisPrefix: value('QUIRE_REDIS_PREFIX') || SETTINGS.QUIRE_REDIS_PREFIX.default,
    jobConcurrency: positive('QUIRE_JOB_CONCURRENCY'),
    cpuThreads: parsePositiveInteger('QUIRE_CPU_THREADS', value('QUIRE_CPU_THREADS'), Math.min(4, os.availableParallelism())),
    jobAttempts: 5,
    jobRetryDelayMs: positive('QUIRE_JOB_RETRY_DELAY_MS'),
    fetchAllow: parseList(value('QUIRE_FETCH_ALLOW')),
    fetchTimeoutMs: positive('QUIRE_FETCH_TIMEOUT_MS'),
    bodyLimit: 1024 * 1024,
    spaceRetentionMs: 7 * 24 * 60 * 60 * 1000,
    contentCacheBytes: positive('QUIRE_CONTENT_CACHE_MB') * MB,
    searchRankingsBytes: nonNegative('QUIRE_SEARCH_RANKINGS_MB') * MB,
    cacheTtlMs: cacheTtl === undefined || cacheTtl === '' ? SETTINGS.QUIRE_CACHE_TTL_MS.default : Number(cacheTtl),
    heapGrowthPercent: nonNegative('QUIRE_HEAP_GROWTH_PERCENT'),
    gitMaxFileBytes: positive('QUIRE_GIT_MAX_FILE_BYTES'),
    importLimits: {
      maxEntries: positive('QUIRE_IMPORT_MAX_FILES'),
      maxEntryBytes: positive('QUIRE_IMPORT_MAX_FILE_MB') * MB,
      maxBytes: positive('QUIRE_IMPORT_MAX_MB') * MB,
      memoryMb: positive('QUIRE_IMPORT_MEMORY_MB'),
      timeMs: positive('QUIRE_IMPORT_TIMEOUT_MS'),
    },
    gitLauncherAboveBytes: nonNegative('QUIRE_GIT_LAUNCHER_MB') * MB,
    catchUpIntervalMs: positive('QUIRE_CATCH_UP_INTERVAL_MS'),
    gitSyncPollMs: positive('QUIRE_GIT_SYNC_POLL_S') * 1000,
    logLevel: value('QUIRE_LOG_LEVEL') || SETTINGS.QUIRE_LOG_LEVEL.default,
    logFormat: parseLogFormat(value('QUIRE_LOG_FORMAT')),
    syncUrl: (value('QUIRE_URL') || publicUrl).replace(/\/+$/, ''),
    syncToken: value('QUIRE_TOKEN') || undefined,
    migrateToken: value('QUIRE_MIGRATE_TOKEN') || undefined,
    metricsToken: value('QUIRE_METRICS_TOKEN') || undefined,
    oidc: parseOidc(value),
    mail: parseMail(value),
    childEnv,
    // Set by npm itself, not settings.
    startedByNpm: Boolean(env.npm_lifecycle_event || env.npm_command),
    explicit: {
      dataDir: Boolean(value('QUIRE_DATA_DIR')),
      publicUrl: Boolean(value('QUIRE_PUBLIC_URL') || value('PORT') || value('HOST')),
      logLevel: Boolean(value('QUIRE_LOG_LEVEL')),
    },
  };
  return { ...config, ...overrides };
}
