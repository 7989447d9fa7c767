import type { Kysely } from 'kysely';

const text = 'text' as const;

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('openapi_specs')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('organization_id', text, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('slug', text, (c) => c.notNull())
    // Exactly one of the two is set.
    .addColumn('source_url', text)
    .addColumn('source_text', text)
    .addColumn('processing_state', text, (c) => c.notNull())
    // The latest request to process the source (creation or PUT): a fetch started for an older one discards its result.
    .addColumn('request_id', text, (c) => c.notNull())
    .addColumn('last_processed_at', text)
    .addColumn('last_process_error_code', text)
    .addColumn('last_process_error', text)
    .addColumn('last_version_id', text)
    .addColumn('created_by', text, (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .addUniqueConstraint('openapi_specs_slug', ['organization_id', 'slug'])
    .execute();

  await db.schema
    .createTable('openapi_spec_versions')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('spec_id', text, (c) => c.notNull().references('openapi_specs.id').onDelete('cascade'))
    // 1, 2, 3... within the spec: the list order.
    .addColumn('number', 'integer', (c) => c.notNull())
    // The URL fetched; null for a text source.
    .addColumn('url', text)
    .addColumn('hash', text, (c) => c.notNull())
    .addColumn('content', text, (c) => c.notNull())
    .addColumn('created_at', text, (c) => c.notNull())
    .addUniqueConstraint('openapi_spec_versions_number', ['spec_id', 'number'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['openapi_spec_versions', 'openapi_specs']) await db.schema.dropTable(table).execute();
}
