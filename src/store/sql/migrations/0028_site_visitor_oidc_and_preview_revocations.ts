import type { Kysely } from 'kysely';

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  // A visitor-auth site's OpenID Connect provider (at most one): its visitors sign in with it, its claims theirs.
  await db.schema
    .createTable('site_oidc_providers')
    .addColumn('site_id', 'text', (c) => c.primaryKey().references('sites.id').onDelete('cascade'))
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    // Sealed with the data dir's credentials key (SecretBox), never stored in clear.
    .addColumn('client_secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // When a change request's preview links were last revoked by its space's editors: links made before it are void.
  await db.schema
    .createTable('change_request_preview_revocations')
    .addColumn('change_request_id', 'text', (c) => c.primaryKey().references('change_requests.id').onDelete('cascade'))
    .addColumn('revoked_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('change_request_preview_revocations').execute();
  await db.schema.dropTable('site_oidc_providers').execute();
}
