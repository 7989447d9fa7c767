import type { Kysely } from 'kysely';

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  // An organization's OpenID Connect provider (at most one): its members sign in with it.
  await db.schema
    .createTable('oidc_providers')
    .addColumn('organization_id', 'text', (c) => c.primaryKey().references('organizations.id').onDelete('cascade'))
    .addColumn('issuer', 'text', (c) => c.notNull())
    .addColumn('client_id', 'text', (c) => c.notNull())
    // Sealed with the data dir's credentials key (SecretBox), never stored in clear.
    .addColumn('client_secret', 'text', (c) => c.notNull())
    .addColumn('label', 'text', (c) => c.notNull())
    // A JSON array of e-mail domains whose people join on their first sign-in.
    .addColumn('allowed_domains', 'text', (c) => c.notNull())
    // Their organization role; null: guest.
    .addColumn('default_role', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oidc_providers').execute();
}
