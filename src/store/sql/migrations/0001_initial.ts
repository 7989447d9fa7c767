import type { Kysely } from 'kysely';

const text = 'text' as const;

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('email', text, (c) => c.notNull().unique())
    .addColumn('display_name', text, (c) => c.notNull())
    .addColumn('photo_url', text)
    .addColumn('created_at', text, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_tokens')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('user_id', text, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('token_hash', text, (c) => c.notNull().unique())
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('last_used_at', text)
    .execute();
  await db.schema.createIndex('api_tokens_user').on('api_tokens').column('user_id').execute();

  await db.schema
    .createTable('organizations')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('title', text, (c) => c.notNull())
    .addColumn('type', text, (c) => c.notNull())
    .addColumn('use_case', text)
    .addColumn('community_type', text)
    .addColumn('hostname', text, (c) => c.unique())
    .addColumn('default_role', text)
    .addColumn('default_content', text)
    .addColumn('logo_url', text)
    .addColumn('sso', 'integer', (c) => c.notNull())
    .addColumn('ai', 'integer', (c) => c.notNull())
    .addColumn('invite_links', 'integer', (c) => c.notNull())
    .addColumn('plan', text, (c) => c.notNull())
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('organization_email_domains')
    .addColumn('organization_id', text, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('domain', text, (c) => c.notNull())
    .addPrimaryKeyConstraint('organization_email_domains_pk', ['organization_id', 'domain'])
    .execute();
  await db.schema.createIndex('organization_email_domains_domain').on('organization_email_domains').column('domain').execute();

  await db.schema
    .createTable('members')
    .addColumn('organization_id', text, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('user_id', text, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', text)
    .addColumn('disabled', 'integer', (c) => c.notNull())
    .addColumn('sso', 'integer', (c) => c.notNull())
    .addColumn('joined_at', text, (c) => c.notNull())
    .addColumn('last_seen_at', text)
    .addPrimaryKeyConstraint('members_pk', ['organization_id', 'user_id'])
    .execute();
  await db.schema.createIndex('members_user').on('members').column('user_id').execute();
  await db.schema.createIndex('members_joined').on('members').columns(['organization_id', 'joined_at', 'user_id']).execute();

  await db.schema
    .createTable('teams')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('organization_id', text, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('title', text, (c) => c.notNull())
    .addColumn('created_at', text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('teams_org').on('teams').columns(['organization_id', 'created_at', 'id']).execute();

  await db.schema
    .createTable('team_members')
    .addColumn('team_id', text, (c) => c.notNull().references('teams.id').onDelete('cascade'))
    .addColumn('user_id', text, (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('role', text, (c) => c.notNull())
    .addColumn('added_at', text, (c) => c.notNull())
    .addPrimaryKeyConstraint('team_members_pk', ['team_id', 'user_id'])
    .execute();
  await db.schema.createIndex('team_members_user').on('team_members').column('user_id').execute();

  await db.schema
    .createTable('collections')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('organization_id', text, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('parent_id', text, (c) => c.references('collections.id').onDelete('cascade'))
    .addColumn('title', text, (c) => c.notNull())
    .addColumn('description', text)
    .addColumn('default_level', text)
    .addColumn('position', 'double precision', (c) => c.notNull())
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('collections_org').on('collections').columns(['organization_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('collections_parent').on('collections').column('parent_id').execute();

  await db.schema
    .createTable('spaces')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('organization_id', text, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('parent_id', text, (c) => c.references('collections.id').onDelete('set null'))
    .addColumn('title', text, (c) => c.notNull())
    .addColumn('emoji', text, (c) => c.notNull())
    .addColumn('visibility', text, (c) => c.notNull())
    .addColumn('edit_mode', text, (c) => c.notNull())
    .addColumn('default_level', text)
    .addColumn('position', 'double precision', (c) => c.notNull())
    .addColumn('revision', text, (c) => c.notNull())
    .addColumn('created_by', text, (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .addColumn('deleted_at', text)
    .execute();
  await db.schema.createIndex('spaces_org').on('spaces').columns(['organization_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('spaces_parent').on('spaces').columns(['parent_id', 'position']).execute();

  await db.schema
    .createTable('content_grants')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('organization_id', text, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('space_id', text, (c) => c.references('spaces.id').onDelete('cascade'))
    .addColumn('collection_id', text, (c) => c.references('collections.id').onDelete('cascade'))
    .addColumn('team_id', text, (c) => c.references('teams.id').onDelete('cascade'))
    .addColumn('user_id', text, (c) => c.references('users.id').onDelete('cascade'))
    .addColumn('role', text, (c) => c.notNull())
    .addColumn('created_at', text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('content_grants_team').on('content_grants').column('team_id').execute();
  await db.schema.createIndex('content_grants_user').on('content_grants').column('user_id').execute();

  await db.schema
    .createTable('link_invites')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('organization_id', text, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('role', text)
    .addColumn('created_by', text, (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', text, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('instance_secrets')
    .addColumn('name', text, (c) => c.primaryKey())
    .addColumn('value', text, (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of [
    'instance_secrets',
    'link_invites',
    'content_grants',
    'spaces',
    'collections',
    'team_members',
    'teams',
    'members',
    'organization_email_domains',
    'organizations',
    'api_tokens',
    'users',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
