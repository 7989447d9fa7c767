/**
 * Content imports: one row per import, written by the request, worked on by the import-content job.
 */
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { ContentImportsTable, Database, RepositoryImportsTable } from './schema.js';
import { keysetQuery } from './keyset.js';

export type ContentImportRow = Selectable<ContentImportsTable>;

export async function insertContentImport(db: Kysely<Database>, row: ContentImportRow): Promise<void> {
  await db.insertInto('content_imports').values(row).execute();
}

export async function findContentImport(db: Kysely<Database>, id: string): Promise<ContentImportRow | undefined> {
  return db.selectFrom('content_imports').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Changes a row that has no result yet; false when it already has one (a finished import never changes again). */
const CONTENT_IMPORT_KEYS = [
  { column: 'content_imports.created_at', direction: 'desc' as const },
  { column: 'content_imports.id', direction: 'desc' as const },
];

/** A space's content imports, newest first (main's and its change requests'). */
export async function listContentImportRows(db: Kysely<Database>, spaceId: string, after: unknown[] | undefined, limit: number): Promise<ContentImportRow[]> {
  return keysetQuery(db.selectFrom('content_imports').selectAll().where('space_id', '=', spaceId), CONTENT_IMPORT_KEYS, after, limit).execute();
}

export async function updateUnfinishedImport(db: Kysely<Database>, id: string, changes: Updateable<ContentImportsTable>): Promise<boolean> {
  const result = await db.updateTable('content_imports').set(changes).where('id', '=', id).where('result_revision', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

// ---- repository imports (a whole git repository, with its history)

export type RepositoryImportRow = Selectable<RepositoryImportsTable>;

export async function insertRepositoryImport(db: Kysely<Database>, row: RepositoryImportRow): Promise<void> {
  await db.insertInto('repository_imports').values(row).execute();
}

export async function findRepositoryImport(db: Kysely<Database>, id: string): Promise<RepositoryImportRow | undefined> {
  return db.selectFrom('repository_imports').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Changes a row that is not done yet; false when it is (a finished import never changes again). */
export async function updateUnfinishedRepositoryImport(db: Kysely<Database>, id: string, changes: Updateable<RepositoryImportsTable>): Promise<boolean> {
  const result = await db.updateTable('repository_imports').set(changes).where('id', '=', id).where('status', '!=', 'done').executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
