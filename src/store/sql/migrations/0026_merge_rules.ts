import type { Kysely } from 'kysely';
import { sql } from '../kysely.js';

const text = 'text' as const;

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  // The merge rules of an organization (its default, `space_id` null) or of one of its spaces. `owner_id` is the
  // organization's id or the space's: one row each. No row: the organization's rules, or the defaults. A space's row
  // names no organization: a space moved to another organization keeps its rules and falls back to the new one's.
  await db.schema
    .createTable('merge_rules')
    .addColumn('owner_id', text, (c) => c.primaryKey())
    .addColumn('organization_id', text, (c) => c.references('organizations.id').onDelete('cascade'))
    .addColumn('space_id', text, (c) => c.references('spaces.id').onDelete('cascade'))
    .addColumn('required_approvals', 'integer', (c) => c.notNull())
    .addColumn('no_new_broken_links', 'integer', (c) => c.notNull())
    .addColumn('no_content_problems', 'integer', (c) => c.notNull())
    .addColumn('updated_by', text, (c) => c.references('users.id').onDelete('set null'))
    .addColumn('updated_at', text, (c) => c.notNull())
    .addCheckConstraint('merge_rules_required_approvals_range', sql`required_approvals between 0 and 10`)
    .addCheckConstraint('merge_rules_one_owner', sql`(organization_id is null) <> (space_id is null)`)
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('merge_rules').execute();
}
