import type { Kysely } from 'kysely';

// `any`: migrations are frozen in time and must not follow later changes of the Database type.
export async function up(db: Kysely<any>): Promise<void> {
  // The width and height of an image by its blob's oid (null for a blob whose header gives none), as a revision's
  // build reads them from the image's first bytes: a blob never changes, so a process that builds a revision finds
  // what another process read, instead of reading every image of the space from git again. Derived from git: rows
  // can be dropped at any time and read again.
  await db.schema
    .createTable('image_dimensions')
    .addColumn('blob_oid', 'text', (c) => c.primaryKey())
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('image_dimensions').execute();
}
