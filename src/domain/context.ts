import type { CompiledQuery, Kysely } from 'kysely';
import type { Database } from '../store/sql/schema.js';
import type { GitStore } from '../store/git/repositories.js';
import type { GitReader } from '../store/git/reader.js';
import type { UserRow } from '../store/sql/users.js';
import type { CursorCodec } from './lists.js';
import type { ReadCache } from './cache.js';
import type { LinkSigner } from './signing.js';
import type { SecretBox } from '../store/keys/secret-box.js';
import type { GuardedFetcher } from '../store/net/guarded-fetch.js';
import type { JobQueue } from '../jobs/jobs.js';
import type { VisitorClaimsSigner } from './members/visitor-claims.js';
import type { HistoryFacts } from './content/history.js';
import type { RevisionCache } from './content/revision-cache.js';
import type { CpuPool } from '../cpu/pool.js';
import type { SharedWork } from './shared-work.js';
import type { SpaceRankings } from './search/rankings.js';
import type { Logger } from '../log.js';
import type { ImportLimits, OidcProviderSettings } from '../../config/index.js';
import type { SignInLimits } from './identity/sign-in-limits.js';
import type { Mailer } from '../store/mail/smtp-mailer.js';
import type { EventPublisher } from './events.js';

/** What domain functions work with; built once by the container and passed down explicitly. */
export interface Context {
  db: Kysely<Database>;
  git: GitStore;
  /** Object and ref reads (long-lived cat-file processes). */
  reader: GitReader;
  cursors: CursorCodec;
  /** Ids and dates of paths derived from history, computed when commits arrive and stored per commit. */
  history: HistoryFacts;
  /** Parsed revisions by commit. */
  revisions: RevisionCache;
  /** Reads every request makes (tokens, access, space rows); forgets on local writes, expires for others'. */
  cache: ReadCache;
  /** Signs expiring download links (change-request PDFs). */
  downloadLinks: LinkSigner;
  /** The only way out to the network: refuses private addresses unless QUIRE_FETCH_ALLOW allows them. */
  fetcher: GuardedFetcher;
  /** Worker threads for CPU-heavy content work (parsing pages, search rows, links): never on the event loop. */
  cpu: CpuPool;
  /**
   * Runs a long read-only query where it does not hold the event loop (an organization's search): on SQLite, on a
   * CPU pool thread's own connection (src/store/sql/thread-reads.ts); on PostgreSQL, as any query. It sees what is
   * committed: not for reads inside a transaction.
   */
  readOffLoop: (query: CompiledQuery) => Promise<unknown[]>;
  /**
   * The SQLite database file, which CPU pool threads read on connections of their own (src/store/sql/thread-reads.ts):
   * reads and the CPU work on what they read can be split between the event loop and a thread. Undefined on
   * PostgreSQL.
   */
  threadReadFile: string | undefined;
  /** The best pages of spaces for queries, kept until each space is indexed again (organization and site search). */
  rankings: SpaceRankings;
  /** Work per key in this process: shared while it runs (one indexing several reads would start), or in turn (Git Sync runs). */
  workByKey: SharedWork;
  /** Where work that must not block a request goes (imports, indexing, OpenAPI fetches). */
  jobs: JobQueue;
  /** Signs the visitor claims the ping operation returns (key pair kept in the data dir). */
  visitorClaims: VisitorClaimsSigner;
  /** Seals the credentials stored for other hosts (Git Sync), with a key kept out of the database. */
  secrets: SecretBox;
  /** Deleted spaces stay restorable this long. */
  spaceRetentionMs: number;
  /** How often Git Sync reads each connected repository's branch (./git-sync/poll.ts). */
  gitSyncPollMs: number;
  /** Largest file a git push may add, in bytes (checked by the pre-receive hook). */
  gitMaxFileBytes: number;
  /** What one content import may take: archive sizes, and the memory and time of its conversion thread. */
  importLimits: ImportLimits;
  /** The instance's OpenID Connect provider (QUIRE_OIDC_*), when configured (./identity/oidc.ts). */
  oidc: OidcProviderSettings | undefined;
  /** Failed sign-ins counted per e-mail and client address, to refuse guessing (./identity/sign-in-limits.ts). */
  signInLimits: SignInLimits;
  /** Password-reset requests counted per e-mail and client address, every one of them (./identity/password-reset.ts). */
  passwordResetLimits: SignInLimits;
  /** Mail this instance sends (password resets), when QUIRE_SMTP_URL is set. */
  mail: OutgoingMail | undefined;
  /** Tells the readers of a change request, in every process, that something changed on it (./events.ts). */
  events: EventPublisher;
  /** The process's logger: the HTTP server's, the job runners' and the command's (long work says how far it got). */
  log: Logger;
}

/** What sending mail needs: the server, and the addresses of this instance that mail links to. */
export interface OutgoingMail {
  mailer: Mailer;
  /** The instance's public URL (QUIRE_PUBLIC_URL), named in the mail. */
  instanceUrl: string;
  /** The app's address that sets a password with a one-time link's token. */
  setPasswordLink(token: string): string;
}

/** The authenticated user a request acts for. */
export interface Caller {
  user: UserRow;
  /** The browser session the request came with (a cookie), when it came with no API token. */
  sessionId?: string;
}
