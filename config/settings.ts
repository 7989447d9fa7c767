/**
 * Every setting Quire takes from the environment: its variable, its default, what it does and which commands read it.
 * The one list of them: config/index.ts reads the environment through it (and takes its defaults from it), and
 * `quire <command> --help` prints it, so that a setting cannot be added without showing in the help. Imports nothing:
 * `quire --help` loads it.
 */

/** The commands of src/main.ts, as typed after `quire`. */
export const COMMANDS = ['serve', 'worker', 'admin bootstrap', 'admin create-user', 'admin create-token', 'admin reset-password', 'admin purge', 'sync', 'site export', 'migrate', 'git-sync status'] as const;
export type CommandName = (typeof COMMANDS)[number];

export interface Setting {
  /** What the loader takes when the variable is unset or empty. Absent: the setting stays unset, or is computed. */
  readonly default?: string | number;
  /** The default as the help says it, where the value alone would not (unset, computed, units). */
  readonly shown?: string;
  readonly description: string;
  /** The commands whose work it changes. */
  readonly commands: readonly CommandName[];
}

const SERVERS = ['serve', 'worker'] as const satisfies readonly CommandName[];
/** The commands that run jobs or queue them (`migrate` indexes what it copied). */
const JOBS = ['serve', 'worker', 'migrate'] as const satisfies readonly CommandName[];
/** The commands that open the store `quire serve` uses. */
const STORE = ['serve', 'worker', 'admin bootstrap', 'admin create-user', 'admin create-token', 'admin reset-password', 'admin purge', 'site export', 'migrate', 'git-sync status'] as const satisfies readonly CommandName[];
/** The commands that log through the process's logger (`sync` prints its own lines). */
const LOGGING = STORE;

export const SETTINGS = {
  QUIRE_DATA_DIR: {
    default: './data',
    description: 'repositories, signing keys, and the SQLite database when DATABASE_URL is unset; made private to this user (0700)',
    commands: STORE,
  },
  DATABASE_URL: {
    shown: 'unset: SQLite, quire.sqlite in the data dir',
    description: 'postgres://... to keep the metadata in PostgreSQL',
    commands: STORE,
  },
  PORT: { default: 8080, description: 'the port the HTTP API listens on', commands: ['serve'] },
  HOST: { default: '127.0.0.1', description: 'the address the HTTP API binds to', commands: ['serve'] },
  QUIRE_PUBLIC_URL: {
    shown: 'http://HOST:PORT; admin commands: the URL of the server last started on the data dir',
    description: 'base of every `urls` member in answers',
    commands: [...STORE, 'sync'],
  },
  REDIS_URL: {
    shown: 'unset: jobs run in the `quire serve` process',
    description: 'redis://...: background jobs on BullMQ, run by `quire worker`',
    commands: JOBS,
  },
  QUIRE_REDIS_PREFIX: { default: 'quire', description: 'prefix of every BullMQ key (installations sharing one Redis)', commands: JOBS },
  QUIRE_JOB_CONCURRENCY: { default: 4, description: 'jobs one process runs at once', commands: JOBS },
  QUIRE_JOB_RETRY_DELAY_MS: { default: 1000, description: "delay before a failed job's first retry, doubled for each further one", commands: JOBS },
  QUIRE_CPU_THREADS: {
    shown: 'as many as the cores, at most 4',
    description: 'threads that parse, index and render content off the event loop',
    commands: [...JOBS, 'site export'],
  },
  QUIRE_FETCH_ALLOW: {
    shown: 'unset: none',
    description: 'comma-separated CIDRs or host names that outbound fetches may reach although private or loopback',
    commands: JOBS,
  },
  QUIRE_FETCH_TIMEOUT_MS: { default: 15_000, description: 'time limit of one outbound fetch, redirects included', commands: JOBS },
  QUIRE_LOG_LEVEL: {
    default: 'info',
    shown: 'info for serve and worker, warn for the other commands',
    description: 'fatal, error, warn, info (one line per request), debug, trace or silent',
    commands: LOGGING,
  },
  QUIRE_LOG_FORMAT: { default: 'auto', description: 'pretty (lines for people), json (one object per line), or auto: pretty on a terminal', commands: LOGGING },
  QUIRE_GIT_MAX_FILE_BYTES: { default: 100 * 1024 * 1024, shown: '104857600 (100 MiB)', description: 'largest file a git push may add', commands: ['serve'] },
  QUIRE_IMPORT_MAX_MB: { default: 128, description: 'an archive import (zip, docx) at most, uncompressed, in MB', commands: SERVERS },
  QUIRE_IMPORT_MAX_FILE_MB: { default: 32, description: 'one file of an archive import at most, uncompressed, in MB', commands: SERVERS },
  QUIRE_IMPORT_MAX_FILES: { default: 10_000, description: 'files of an archive import at most', commands: SERVERS },
  QUIRE_IMPORT_MEMORY_MB: { default: 1024, description: 'heap of the thread converting one import; past it the import fails', commands: SERVERS },
  QUIRE_IMPORT_TIMEOUT_MS: { default: 240_000, description: 'time the conversion of one import may take; past it the import fails', commands: SERVERS },
  QUIRE_GIT_LAUNCHER_MB: {
    default: 0,
    description: 'resident memory past which git is started through a small launcher process instead of a fork (0, the default: always)',
    commands: SERVERS,
  },
  QUIRE_CATCH_UP_INTERVAL_MS: {
    default: 60_000,
    description: 'how often the server catches up with the repositories: pushes a killed process missed, indexing a restart lost',
    commands: ['serve'],
  },
  QUIRE_GIT_SYNC_POLL_S: {
    default: 60,
    description: 'how often Git Sync reads each connected repository\'s branch (one ref read; a fetch only when it moved), for hosts whose webhooks cannot reach this server',
    commands: SERVERS,
  },
  QUIRE_CACHE_TTL_MS: {
    default: 1000,
    description: "how long another process's writes may take to show in this one's cache of tokens, access and refs (0: no cache)",
    commands: SERVERS,
  },
  QUIRE_CONTENT_CACHE_MB: { default: 96, description: 'memory for parsed content and the answers made from it', commands: [...SERVERS, 'site export', 'migrate'] },
  QUIRE_SEARCH_RANKINGS_MB: { default: 16, description: 'memory for the rankings of organization and site searches (0: none kept)', commands: ['serve'] },
  QUIRE_HEAP_GROWTH_PERCENT: {
    default: 25,
    description: "how far the JS heap may grow past what its last full collection kept (0: V8's own factor)",
    commands: SERVERS,
  },
  QUIRE_METRICS_TOKEN: {
    shown: 'unset: no /metrics route',
    description: 'the bearer token GET /metrics answers to (event-loop figures, Prometheus text format)',
    commands: ['serve'],
  },
  QUIRE_OIDC_ISSUER: {
    shown: 'unset: no instance-wide OpenID Connect sign-in',
    description: "the OpenID Connect provider's issuer URL (https; plain http only to a host QUIRE_FETCH_ALLOW allows), discovered at its /.well-known/openid-configuration",
    commands: ['serve'],
  },
  QUIRE_OIDC_CLIENT_ID: { shown: 'unset (required with QUIRE_OIDC_ISSUER)', description: "Quire's client id at that provider", commands: ['serve'] },
  QUIRE_OIDC_CLIENT_SECRET_FILE: {
    shown: 'unset',
    description: 'a file holding the client secret (preferred: the secret stays out of the environment and `ps`)',
    commands: ['serve'],
  },
  QUIRE_OIDC_CLIENT_SECRET: { shown: 'unset', description: 'the client secret itself, when no QUIRE_OIDC_CLIENT_SECRET_FILE is given', commands: ['serve'] },
  QUIRE_OIDC_LABEL: { default: 'Single sign-on', description: "the sign-in button's text (public)", commands: ['serve'] },
  QUIRE_SMTP_URL: {
    shown: 'unset: no password reset by e-mail',
    description: 'smtp://USER:PASSWORD@HOST:PORT (STARTTLS when offered) or smtps://... (TLS): the server that sends password-reset mail; the password is never logged',
    commands: SERVERS,
  },
  QUIRE_MAIL_FROM: { shown: 'unset (required with QUIRE_SMTP_URL)', description: 'the From of the mail Quire sends: an address, or "Name <address>"', commands: SERVERS },
  QUIRE_URL: { shown: 'QUIRE_PUBLIC_URL', description: 'the server to sync with', commands: ['sync'] },
  QUIRE_TOKEN: { shown: 'unset (required)', description: 'the API token sync uses (edit permission on the space to push)', commands: ['sync'] },
  QUIRE_MIGRATE_TOKEN: { shown: 'unset: --token-file', description: "the source server's API token", commands: ['migrate'] },
} as const satisfies Record<string, Setting>;

export type SettingName = keyof typeof SETTINGS;

/** The settings `commands` read, in the table's order. */
export function settingsOf(commands: readonly CommandName[]): Array<[SettingName, Setting]> {
  return (Object.entries(SETTINGS) as Array<[SettingName, Setting]>).filter(([, setting]) => setting.commands.some((command) => commands.includes(command)));
}

/** The default of a setting as the help says it. */
export function shownDefault(setting: Setting): string {
  return setting.shown ?? (setting.default === undefined ? 'unset' : String(setting.default));
}
