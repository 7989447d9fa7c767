/** Images' dimensions by blob oid (a blob never changes): read from git once, then by any process from here. */
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import { chunks } from './chunks.js';

/** An image's width and height; null: its blob's header gives none. */
export type StoredDimensions = { width: number; height: number } | null;

/** The stored dimensions of those of `oids` that have a row. */
export async function findImageDimensions(db: Kysely<Database>, oids: readonly string[]): Promise<Map<string, StoredDimensions>> {
  const found = new Map<string, StoredDimensions>();
  for (const part of chunks([...new Set(oids)])) {
    const rows = await db.selectFrom('image_dimensions').select(['blob_oid', 'width', 'height']).where('blob_oid', 'in', part).execute();
    for (const row of rows) found.set(row.blob_oid, row.width === null || row.height === null ? null : { width: Number(row.width), height: Number(row.height) });
  }
  return found;
}

/** Stores dimensions unless another process stored them first (they are equal: read from the same blob). */
export async function saveImageDimensions(db: Kysely<Database>, dimensions: ReadonlyMap<string, StoredDimensions>): Promise<void> {
  const rows = [...dimensions].map(([oid, found]) => ({ blob_oid: oid, width: found?.width ?? null, height: found?.height ?? null }));
  for (const part of chunks(rows, 300)) {
    await db
      .insertInto('image_dimensions')
      .values(part)
      .onConflict((oc) => oc.column('blob_oid').doNothing())
      .execute();
  }
}
