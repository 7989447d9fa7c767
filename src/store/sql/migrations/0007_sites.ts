import type { Kysely } from 'kysely';
import { sql } from '../kysely.js';

const text = 'text' as const;

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sites')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('organization_id', text, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('type', text, (c) => c.notNull())
    .addColumn('title', text, (c) => c.notNull())
    .addColumn('visibility', text, (c) => c.notNull())
    .addColumn('basename', text)
    .addColumn('proxy', text)
    .addColumn('agents_context', text, (c) => c.notNull())
    .addColumn('adaptive_content', 'integer', (c) => c.notNull())
    .addColumn('adaptive_schema', text)
    .addColumn('adaptive_schema_updated_at', text)
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sites_org').on('sites').columns(['organization_id', 'created_at', 'id']).execute();
  // Published URLs are /sites/<organization>/<basename or id>: a basename names one site of the organization.
  await db.schema.createIndex('sites_basename').on('sites').columns(['organization_id', 'basename']).unique().execute();

  await db.schema
    .createTable('site_section_groups')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('site_id', text, (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('title', text, (c) => c.notNull())
    .addColumn('icon', text)
    // Order among the site's top-level items (groups and the sections outside groups).
    .addColumn('position', 'double precision', (c) => c.notNull())
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('site_section_groups_site').on('site_section_groups').column('site_id').execute();

  await db.schema
    .createTable('site_sections')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('site_id', text, (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('group_id', text, (c) => c.references('site_section_groups.id').onDelete('set null'))
    .addColumn('title', text, (c) => c.notNull())
    .addColumn('description', text)
    .addColumn('path', text, (c) => c.notNull())
    .addColumn('condition', text)
    .addColumn('icon', text)
    .addColumn('is_default', 'integer', (c) => c.notNull())
    // Order among the siblings: the site's top-level items, or the sections of the group.
    .addColumn('position', 'double precision', (c) => c.notNull())
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('site_sections_path').on('site_sections').columns(['site_id', 'path']).unique().execute();
  await sql`create unique index site_sections_default on site_sections (site_id) where is_default = 1`.execute(db);

  await db.schema
    .createTable('site_spaces')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('site_id', text, (c) => c.notNull().references('sites.id').onDelete('cascade'))
    // null: the site has no sections and the site space sits at its root.
    .addColumn('section_id', text, (c) => c.references('site_sections.id').onDelete('cascade'))
    .addColumn('space_id', text, (c) => c.notNull().references('spaces.id').onDelete('cascade'))
    .addColumn('path', text, (c) => c.notNull())
    .addColumn('condition', text)
    .addColumn('is_default', 'integer', (c) => c.notNull())
    .addColumn('position', 'double precision', (c) => c.notNull())
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('site_spaces_space').on('site_spaces').column('space_id').execute();
  // One path and one default per container (a section, or the root when section_id is null).
  await sql`create unique index site_spaces_path on site_spaces (site_id, coalesce(section_id, ''), path)`.execute(db);
  await sql`create unique index site_spaces_default on site_spaces (site_id, coalesce(section_id, '')) where is_default = 1`.execute(db);

  await db.schema
    .createTable('share_links')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('site_id', text, (c) => c.notNull().references('sites.id').onDelete('cascade'))
    .addColumn('name', text, (c) => c.notNull())
    .addColumn('token', text, (c) => c.notNull().unique())
    .addColumn('active', 'integer', (c) => c.notNull())
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .execute();
  await db.schema.createIndex('share_links_site').on('share_links').columns(['site_id', 'created_at', 'id']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['share_links', 'site_spaces', 'site_sections', 'site_section_groups', 'sites']) await db.schema.dropTable(table).execute();
}
