import type { Kysely } from 'kysely';

const text = 'text' as const;

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  // A space's project directory: the folder of its repository that holds its content (monorepos). '' is the
  // repository's root; otherwise a relative path ending in '/'.
  await db.schema
    .alterTable('spaces')
    .addColumn('project_directory', text, (c) => c.notNull().defaultTo(''))
    .execute();
  // One row per repository import (a whole git repository with its history): into an organization (one space per
  // project directory, and a site from docs.yaml) or into an existing space. The import-repository job reloads it
  // by id; `status` done means finished (running the job again changes nothing).
  await db.schema
    .createTable('repository_imports')
    .addColumn('id', text, (c) => c.primaryKey())
    .addColumn('organization_id', text, (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    // null: an organization import (creates spaces); set: an import into this space.
    .addColumn('space_id', text, (c) => c.references('spaces.id').onDelete('cascade'))
    // url, bundle or zip.
    .addColumn('source', text, (c) => c.notNull())
    .addColumn('url', text)
    .addColumn('ref', text)
    // An import into a space: the project directory to set.
    .addColumn('project_directory', text)
    .addColumn('force', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('requested_by', text, (c) => c.references('users.id').onDelete('set null'))
    // pending, running, done or failed.
    .addColumn('status', text, (c) => c.notNull())
    // JSON: the ids the import creates (written before it creates them, so a retry can clean up), then the result.
    .addColumn('plan', text)
    .addColumn('result', text)
    .addColumn('error', text)
    .addColumn('created_at', text, (c) => c.notNull())
    .addColumn('updated_at', text, (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('repository_imports').execute();
  await db.schema.alterTable('spaces').dropColumn('project_directory').execute();
}
