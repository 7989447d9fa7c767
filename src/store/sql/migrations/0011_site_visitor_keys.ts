import type { Kysely } from 'kysely';

const text = 'text' as const;

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  // The key a visitor-auth site's owners sign visitor tokens with (HS256), one per site (a Quire extension). Kept
  // readable: admins read it back to configure their signer, as they do in GitBook's site settings.
  await db.schema
    .createTable('site_visitor_keys')
    .addColumn('site_id', text, (c) => c.primaryKey().references('sites.id').onDelete('cascade'))
    .addColumn('key', text, (c) => c.notNull())
    .addColumn('created_at', text, (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('site_visitor_keys').execute();
}
