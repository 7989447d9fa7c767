import type { Kysely } from 'kysely';

const text = 'text' as const;

// Organization administration: SAML providers, translation settings, and the listing order of invite links.
// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('saml_providers')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('organization_id', text, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('label', text, (c) => c.notNull())
    // null until the administrator configures them; the provider is `active` once all three are set.
    .addColumn('entity_id', text)
    .addColumn('sso_url', text)
    .addColumn('certificate', text)
    .addColumn('default_team_id', text, (c) => c.references('teams.id').onDelete('set null'))
    .addColumn('default_role', text)
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('saml_providers_organization').on('saml_providers').columns(['organization_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('translation_settings')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('organization_id', text, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('title', text, (c) => c.notNull())
    // JSON array of language codes.
    .addColumn('languages', text, (c) => c.notNull())
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('translation_settings_organization')
    .on('translation_settings')
    .columns(['organization_id', 'created_at', 'id'])
    .execute();

  await db.schema.createIndex('link_invites_organization').on('link_invites').columns(['organization_id', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('link_invites_organization').execute();
  await db.schema.dropTable('translation_settings').execute();
  await db.schema.dropTable('saml_providers').execute();
}
