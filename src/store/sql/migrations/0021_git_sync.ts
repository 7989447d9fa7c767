import type { Kysely } from 'kysely';
import { sql } from '../kysely.js';

const text = 'text' as const;

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  // A space's Git Sync connection to a branch of a repository on another host (src/domain/git-sync). Credentials are
  // sealed (src/store/keys/secret-box.ts: AES-256-GCM under a key outside the database, bound to the space), never
  // stored in the clear. The same SQL on both databases: text columns, CHECKs both accept.
  await db.schema
    .createTable('git_sync_connections')
    .addColumn('space_id', text, (c) => c.primaryKey().references('spaces.id').onDelete('cascade'))
    // Without credentials: what the host's web page and `git clone` are at.
    .addColumn('url', text, (c) => c.notNull())
    .addColumn('ref', text, (c) => c.notNull())
    .addColumn('project_directory', text, (c) => c.notNull())
    .addColumn('first_sync', text, (c) => c.notNull())
    // `none`, `token` (HTTPS: username and token) or `ssh-key` (a deploy key); the secret sealed, null for none.
    .addColumn('auth_kind', text, (c) => c.notNull())
    .addColumn('auth_username', text)
    .addColumn('auth_secret', text)
    // Sealed like the credentials: what the host signs its webhook deliveries with.
    .addColumn('webhook_secret', text)
    // SSH: the host key seen on first connection (trust on first use); a different one later is an error.
    .addColumn('host_key', text)
    .addColumn('status', text, (c) => c.notNull())
    // A sentence saying what went wrong and what to do; null when nothing did.
    .addColumn('error', text)
    // Where each side was when they were last in step (the host's branch and the space's main).
    .addColumn('remote_commit', text)
    .addColumn('local_commit', text)
    .addColumn('last_synced_at', text)
    // A conflict parked in a change request: its id.
    .addColumn('change_request_id', text)
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .addCheckConstraint('git_sync_first_sync_known', sql`first_sync in ('import', 'export')`)
    .addCheckConstraint('git_sync_auth_kind_known', sql`auth_kind in ('none', 'token', 'ssh-key')`)
    .addCheckConstraint('git_sync_status_known', sql`status in ('syncing', 'synced', 'conflict', 'error', 'paused')`)
    .execute();
  // Several spaces on one repository (a monorepo's project directories) share one fetch: found by URL.
  await db.schema.createIndex('git_sync_connections_url').on('git_sync_connections').columns(['url', 'ref']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('git_sync_connections').execute();
}
