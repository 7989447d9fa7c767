import type { Kysely } from 'kysely';

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  // The AuthnRequests Quire sent (the ACS accepts a response only InResponseTo one of them, once), and where the
  // browser goes after. A table rather than a cookie: the identity provider's POST to the ACS is cross-site, and a
  // SameSite=Lax cookie does not come with it.
  await db.schema
    .createTable('saml_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider_id', 'text', (c) => c.notNull().references('saml_providers.id').onDelete('cascade'))
    .addColumn('next', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('saml_requests_expires_at').on('saml_requests').column('expires_at').execute();
  // The assertions already used, kept until they would expire anyway: a replayed response is refused.
  await db.schema
    .createTable('saml_used_assertions')
    .addColumn('provider_id', 'text', (c) => c.notNull().references('saml_providers.id').onDelete('cascade'))
    .addColumn('assertion_id', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('saml_used_assertions_pk', ['provider_id', 'assertion_id'])
    .execute();
  await db.schema.createIndex('saml_used_assertions_expires_at').on('saml_used_assertions').column('expires_at').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('saml_used_assertions').execute();
  await db.schema.dropTable('saml_requests').execute();
}
