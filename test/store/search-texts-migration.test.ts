/**
 * Migration 0015 moves the stored sections of search results (a row per section in search_sections) to one packed
 * row per page (search_texts) on a database that has them, leaving the spaces' search state as it was; and its down
 * migration has every space indexed again. On a real database of each kind, migrated to 0014 first.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Kysely, sql } from '../../src/store/sql/kysely.js';
import { packSections, unpackSections } from '../../src/store/sql/search.js';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { databaseAt as migratedTo } from '../helpers/migrations.js';

describe.each(DATABASE_KINDS)('migration 0015, search texts (%s)', (kind) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });
  const databaseAt = (migration: string) => migratedTo(kind, migration, cleanups);

  it('packs each page\'s sections after its first heading, in order, and leaves the spaces\' state as it was', async () => {
    const { db, migrator } = await databaseAt('0014_search_terms');
    const any = db as unknown as Kysely<any>;
    await any.insertInto('search_spaces').values({ space_id: 'space1', key: 1, commit_oid: 'c'.repeat(40), version: 3, language: 'en', indexed_at: 'now' }).execute();
    const page = (pageId: string, doc: number) => ({
      doc, space_id: 'space1', page_id: pageId, title: `Title ${pageId}`, path: `path/${pageId}`, signature: 's', language: 'en', stop_words: 0,
      ...(kind === 'postgres' ? { document: sql`''::tsvector`, heads: sql`''::tsvector` } : {}),
    });
    await any.insertInto('search_pages').values([page('p1', 2 ** 24 + 1), page('p2', 2 ** 24 + 2)]).execute();
    // Inserted out of order; the text before the first heading (position 0) is not shown; separators in a text.
    const sections = [
      { position: 2, anchor: 'second', title: 'Second', body: 'Line one\nline two, with ünïcode' },
      { position: 0, anchor: '', title: '', body: 'intro' },
      { position: 10, anchor: 'tenth', title: 'Tenth\u001eheading', body: 'a\u001fb' },
      { position: 1, anchor: 'first', title: 'First', body: '' },
    ];
    await any.insertInto('search_sections').values(sections.map((s) => ({ space_id: 'space1', page_id: 'p1', ...s }))).execute();
    await any.insertInto('search_sections').values({ space_id: 'space1', page_id: 'p2', position: 0, anchor: '', title: '', body: 'only an intro' }).execute();

    const { error } = await migrator.migrateTo('0015_search_texts');
    expect(error).toBeUndefined();
    const rows = await any.selectFrom('search_texts').selectAll().execute();
    expect(rows.map((row) => Number(row.doc))).toEqual([2 ** 24 + 1]);
    expect(unpackSections(rows[0].sections)).toEqual([
      { position: 1, anchor: 'first', title: 'First', body: '' },
      { position: 2, anchor: 'second', title: 'Second', body: 'Line one\nline two, with ünïcode' },
      { position: 3, anchor: 'tenth', title: 'Tenth heading', body: 'a b' },
    ]);
    // What the index writes now is what the migration made of the same sections.
    expect(packSections(unpackSections(rows[0].sections))).toBe(rows[0].sections);
    // The space's stored state is as it was.
    expect((await db.selectFrom('search_spaces').select('version').executeTakeFirstOrThrow()).version).toBe(3);
    await expect(sql`select count(*) from search_sections`.execute(db)).rejects.toThrow();
    // A page's row goes with the page's, the space's with the space.
    await db.deleteFrom('search_pages').where('doc', '=', 2 ** 24 + 1).execute();
    expect(await any.selectFrom('search_texts').selectAll().execute()).toEqual([]);
    await any.insertInto('search_texts').values({ doc: 2 ** 24 + 2, sections: packSections([{ anchor: 'a', title: 'A', body: 'b' }]) }).execute();
    await db.deleteFrom('spaces').where('id', '=', 'space1').execute();
    expect(await any.selectFrom('search_texts').selectAll().execute()).toEqual([]);
    // A row for no page is refused.
    await expect(any.insertInto('search_texts').values({ doc: 12345, sections: '' }).execute()).rejects.toThrow();
  });

  it('down: the sections table back, and every space to be indexed again', async () => {
    const { db, migrator } = await databaseAt('0015_search_texts');
    await (db as unknown as Kysely<any>).insertInto('search_spaces').values({ space_id: 'space1', key: 1, commit_oid: 'c'.repeat(40), version: 3, language: 'en', indexed_at: 'now' }).execute();
    const { error } = await migrator.migrateTo('0014_search_terms');
    expect(error).toBeUndefined();
    expect((await db.selectFrom('search_spaces').select('version').executeTakeFirstOrThrow()).version).toBe(0);
    // PostgreSQL's count is an int8, a string unless a pool of the store has set its parser (src/store/sql/db.ts).
    expect(Number((await sql<{ n: number | string }>`select count(*) as n from search_sections`.execute(db)).rows[0].n)).toBe(0);
    await expect(sql`select count(*) from search_texts`.execute(db)).rejects.toThrow();
  });

  it('packs and unpacks any text (separators become spaces, nothing else changes)', () => {
    const sections = [
      { anchor: 'a', title: '', body: '' },
      { anchor: '', title: 'T', body: 'x\u001ey\u001fz\n\t' },
    ];
    expect(unpackSections(packSections(sections))).toEqual([
      { position: 1, anchor: 'a', title: '', body: '' },
      { position: 2, anchor: '', title: 'T', body: 'x y z\n\t' },
    ]);
    expect(unpackSections(packSections([]))).toEqual([]);
  });
});
