import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Database, TranslationSettingsTable } from './schema.js';
import { keysetQuery } from './keyset.js';

export type TranslationSettingsRow = Selectable<TranslationSettingsTable>;

const TRANSLATION_LIST_KEYS = [
  { column: 'translation_settings.created_at', direction: 'asc' as const },
  { column: 'translation_settings.id', direction: 'asc' as const },
];

export async function insertTranslationSettings(db: Kysely<Database>, row: TranslationSettingsRow): Promise<void> {
  await db.insertInto('translation_settings').values(row).execute();
}

export async function findTranslationSettings(
  db: Kysely<Database>,
  organizationId: string,
  id: string,
): Promise<TranslationSettingsRow | undefined> {
  return db
    .selectFrom('translation_settings')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The organization's translation settings, oldest first. */
export async function listTranslationSettings(
  db: Kysely<Database>,
  organizationId: string,
  after: unknown[] | undefined,
  limit: number,
): Promise<TranslationSettingsRow[]> {
  const query = db.selectFrom('translation_settings').selectAll().where('organization_id', '=', organizationId);
  return keysetQuery(query, TRANSLATION_LIST_KEYS, after, limit).execute();
}

export async function updateTranslationSettingsRow(
  db: Kysely<Database>,
  organizationId: string,
  id: string,
  changes: Updateable<TranslationSettingsTable>,
): Promise<void> {
  await db.updateTable('translation_settings').set(changes).where('organization_id', '=', organizationId).where('id', '=', id).execute();
}

export async function deleteTranslationSettingsRow(db: Kysely<Database>, organizationId: string, id: string): Promise<boolean> {
  const result = await db
    .deleteFrom('translation_settings')
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
