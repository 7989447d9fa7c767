import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Database, OpenApiSpecsTable, OpenApiSpecVersionsTable } from './schema.js';
import { keysetQuery } from './keyset.js';

export type OpenApiSpecRow = Selectable<OpenApiSpecsTable>;
export type OpenApiSpecVersionRow = Selectable<OpenApiSpecVersionsTable>;
/** A version without its content (lists and version answers never need the document). */
export type OpenApiSpecVersionMeta = Omit<OpenApiSpecVersionRow, 'content'>;

const VERSION_META = ['id', 'spec_id', 'number', 'url', 'hash', 'created_at'] as const;

export async function insertSpec(db: Kysely<Database>, spec: OpenApiSpecRow): Promise<void> {
  await db.insertInto('openapi_specs').values(spec).execute();
}

export async function findSpecBySlug(db: Kysely<Database>, organizationId: string, slug: string): Promise<OpenApiSpecRow | undefined> {
  return db.selectFrom('openapi_specs').selectAll().where('organization_id', '=', organizationId).where('slug', '=', slug).executeTakeFirst();
}

export async function findSpecById(db: Kysely<Database>, id: string): Promise<OpenApiSpecRow | undefined> {
  return db.selectFrom('openapi_specs').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateSpec(db: Kysely<Database>, id: string, changes: Updateable<OpenApiSpecsTable>): Promise<void> {
  await db.updateTable('openapi_specs').set(changes).where('id', '=', id).execute();
}

/**
 * Updates the spec only while `request_id` is still `requestId` (no newer request came in): the compare-and-swap of
 * the fetch job. With `lastVersionId`, also only while the latest version is still that one. Returns whether it did.
 */
export async function updateSpecIfCurrent(
  db: Kysely<Database>,
  id: string,
  expected: { requestId: string; lastVersionId?: string | null },
  changes: Updateable<OpenApiSpecsTable>,
): Promise<boolean> {
  let query = db.updateTable('openapi_specs').set(changes).where('id', '=', id).where('request_id', '=', expected.requestId);
  if (expected.lastVersionId !== undefined) {
    query = expected.lastVersionId === null ? query.where('last_version_id', 'is', null) : query.where('last_version_id', '=', expected.lastVersionId);
  }
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Deletes a spec of this organization (its versions go with it, by foreign key). */
export async function deleteSpecRow(db: Kysely<Database>, organizationId: string, slug: string): Promise<boolean> {
  const result = await db.deleteFrom('openapi_specs').where('organization_id', '=', organizationId).where('slug', '=', slug).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The organization's specs whose slug or source URL is one of `names` (the OpenAPI blocks of a published page). */
export async function findSpecsNamed(db: Kysely<Database>, organizationId: string, names: string[]): Promise<OpenApiSpecRow[]> {
  if (names.length === 0) return [];
  return db
    .selectFrom('openapi_specs')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where((eb) => eb.or([eb('slug', 'in', names), eb('source_url', 'in', names)]))
    .orderBy('slug')
    .execute();
}

export const SPEC_LIST_KEYS = [{ column: 'openapi_specs.slug', direction: 'asc' as const }];

/** The organization's specs in slug order. */
export async function listSpecs(db: Kysely<Database>, organizationId: string, after: unknown[] | undefined, limit: number): Promise<OpenApiSpecRow[]> {
  const query = db.selectFrom('openapi_specs').selectAll('openapi_specs').where('openapi_specs.organization_id', '=', organizationId);
  return keysetQuery(query, SPEC_LIST_KEYS, after, limit).execute();
}

/**
 * Ids of the specs the periodic refresh queues, in id order after `afterId`: every spec whose source is a URL, and
 * any other whose processing never completed (its job was lost, say with the in-process queue at a restart).
 */
export async function specIdsToRefresh(db: Kysely<Database>, afterId: string | undefined, limit: number): Promise<string[]> {
  let query = db
    .selectFrom('openapi_specs')
    .select('id')
    .where((eb) => eb.or([eb('source_url', 'is not', null), eb('processing_state', '<>', 'complete')]));
  if (afterId !== undefined) query = query.where('id', '>', afterId);
  const rows = await query.orderBy('id').limit(limit).execute();
  return rows.map((r) => r.id);
}

export async function insertVersion(db: Kysely<Database>, version: OpenApiSpecVersionRow): Promise<void> {
  await db.insertInto('openapi_spec_versions').values(version).execute();
}

/** The number the next version of a spec gets. */
export async function nextVersionNumber(db: Kysely<Database>, specId: string): Promise<number> {
  const row = await db
    .selectFrom('openapi_spec_versions')
    .select((eb) => eb.fn.max('number').as('n'))
    .where('spec_id', '=', specId)
    .executeTakeFirst();
  return Number(row?.n ?? 0) + 1;
}

export async function findVersion(db: Kysely<Database>, specId: string, versionId: string): Promise<OpenApiSpecVersionMeta | undefined> {
  return db.selectFrom('openapi_spec_versions').select(VERSION_META).where('spec_id', '=', specId).where('id', '=', versionId).executeTakeFirst();
}

export async function versionContent(db: Kysely<Database>, versionId: string): Promise<string | undefined> {
  const row = await db.selectFrom('openapi_spec_versions').select('content').where('id', '=', versionId).executeTakeFirst();
  return row?.content;
}

export const VERSION_LIST_KEYS = [{ column: 'openapi_spec_versions.number', direction: 'desc' as const }];

/** A spec's versions, newest first. */
export async function listVersions(db: Kysely<Database>, specId: string, after: unknown[] | undefined, limit: number): Promise<OpenApiSpecVersionMeta[]> {
  const query = db
    .selectFrom('openapi_spec_versions')
    .select(VERSION_META.map((c) => `openapi_spec_versions.${c}` as const))
    .where('openapi_spec_versions.spec_id', '=', specId);
  return keysetQuery(query, VERSION_LIST_KEYS, after, limit).execute();
}
