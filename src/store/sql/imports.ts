/**
 * Content imports (#42, #51): one row per import, written by the request, worked on by the import-content job.
 */
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { ContentImportsTable, Database } from './schema.js';

export type ContentImportRow = Selectable<ContentImportsTable>;

export async function insertContentImport(db: Kysely<Database>, row: ContentImportRow): Promise<void> {
  await db.insertInto('content_imports').values(row).execute();
}

export async function findContentImport(db: Kysely<Database>, id: string): Promise<ContentImportRow | undefined> {
  return db.selectFrom('content_imports').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Changes a row that has no result yet; false when it already has one (a finished import never changes again). */
export async function updateUnfinishedImport(db: Kysely<Database>, id: string, changes: Updateable<ContentImportsTable>): Promise<boolean> {
  const result = await db.updateTable('content_imports').set(changes).where('id', '=', id).where('result_revision', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
