/**
 * Migration 0030 makes image_dimensions (src/store/sql/image-dimensions.ts): an image's width and height by blob oid,
 * or none for a blob whose header gives none, stored once (another process's equal row is left as it is), found for
 * many oids at once. The down migration removes the table. On a real database of each kind, migrated to 0029 first.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sql } from '../../src/store/sql/kysely.js';
import { findImageDimensions, saveImageDimensions } from '../../src/store/sql/image-dimensions.js';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { databaseAt } from '../helpers/migrations.js';

describe.each(DATABASE_KINDS)('migration 0030, image dimensions (%s)', (kind) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('up: dimensions or none by blob oid, stored once, found in bulk; down removes the table', async () => {
    const { db, migrator } = await databaseAt(kind, '0029_git_sync_branches', cleanups);
    await expect(sql`select count(*) from image_dimensions`.execute(db)).rejects.toThrow();
    expect((await migrator.migrateTo('0030_image_dimensions')).error).toBeUndefined();

    const oid = (n: number) => n.toString(16).padStart(40, '0');
    await saveImageDimensions(db, new Map([[oid(1), { width: 640, height: 480 }], [oid(2), null]]));
    // A second store of the same blob (another process) is no error and changes nothing.
    await saveImageDimensions(db, new Map([[oid(1), { width: 640, height: 480 }]]));
    expect(await findImageDimensions(db, [oid(1), oid(2), oid(3), oid(1)])).toEqual(new Map([[oid(1), { width: 640, height: 480 }], [oid(2), null]]));

    // More oids than one statement takes.
    const many = new Map(Array.from({ length: 1200 }, (_, i) => [oid(1000 + i), { width: i + 1, height: 2 * (i + 1) }] as const));
    await saveImageDimensions(db, many);
    const found = await findImageDimensions(db, [...many.keys()]);
    expect(found.size).toBe(1200);
    expect(found.get(oid(2199))).toEqual({ width: 1200, height: 2400 });

    expect((await migrator.migrateTo('0029_git_sync_branches')).error).toBeUndefined();
    await expect(sql`select count(*) from image_dimensions`.execute(db)).rejects.toThrow();
  });
});
