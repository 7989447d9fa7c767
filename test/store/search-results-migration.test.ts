/**
 * Migration 0016 makes what results show of a page one row (search_results: id, title, path, packed sections) from
 * search_pages' title and path and search_texts' sections, every page with a row; on PostgreSQL the texts are kept
 * uncompressed. Its down migration puts title, path and search_texts back. On a real database of each kind, migrated
 * to 0015 first.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Kysely, sql } from '../../src/store/sql/kysely.js';
import { packSections, resultPages } from '../../src/store/sql/search.js';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { databaseAt } from '../helpers/migrations.js';

describe.each(DATABASE_KINDS)('migration 0016, search results (%s)', (kind) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const P1 = 2 ** 24 + 1;
  const P2 = 2 ** 24 + 2;
  // Long and repetitive: PostgreSQL compresses such a text by default.
  const packed = packSections([
    { anchor: 'first', title: 'First', body: 'Install the package, then configure it. '.repeat(100) },
    { anchor: 'second', title: 'Second ünïcode', body: 'Line one\nline two' },
  ]);

  /** The database at 0015 with two pages: p1 with sections, p2 with none. */
  async function at0015() {
    const at = await databaseAt(kind, '0015_search_texts', cleanups);
    const any = at.db as unknown as Kysely<any>;
    await any.insertInto('search_spaces').values({ space_id: 'space1', key: 1, commit_oid: 'c'.repeat(40), version: 4, language: 'en', indexed_at: 'now' }).execute();
    const page = (pageId: string, doc: number) => ({
      doc, space_id: 'space1', page_id: pageId, title: `Title ${pageId}`, path: `path/${pageId}`, signature: 's', language: 'en', stop_words: 0,
      ...(kind === 'postgres' ? { document: sql`''::tsvector`, heads: sql`''::tsvector` } : {}),
    });
    await any.insertInto('search_pages').values([page('p1', P1), page('p2', P2)]).execute();
    await any.insertInto('search_texts').values({ doc: P1, sections: packed }).execute();
    return { ...at, any };
  }

  it('moves each page\'s title, path and sections to one row, every page with one; the texts uncompressed on PostgreSQL', async () => {
    const { db, migrator } = await at0015();
    const { error } = await migrator.migrateTo('0016_search_results');
    expect(error).toBeUndefined();
    const found = await resultPages(db, [P1, P2, P2 + 1]);
    expect(found.size).toBe(2);
    expect(found.get(P1)).toEqual({ page_id: 'p1', title: 'Title p1', path: 'path/p1', sections: packed });
    expect(found.get(P2)).toEqual({ page_id: 'p2', title: 'Title p2', path: 'path/p2', sections: '' });
    // One copy: title and path are gone from search_pages, search_texts is gone.
    await expect(sql`select title from search_pages`.execute(db)).rejects.toThrow();
    await expect(sql`select path from search_pages`.execute(db)).rejects.toThrow();
    await expect(sql`select count(*) from search_texts`.execute(db)).rejects.toThrow();
    if (kind === 'postgres') {
      // Stored as long as it is (a compressed value is far shorter than its text).
      const sizes = await sql<{ stored: number; bytes: number }>`select pg_column_size(sections) as stored, octet_length(sections) as bytes from search_results where doc = ${P1}`.execute(db);
      expect(Number(sizes.rows[0].stored)).toBeGreaterThanOrEqual(Number(sizes.rows[0].bytes));
      expect(Number(sizes.rows[0].bytes)).toBeGreaterThan(4000);
    }
    // A page's row goes with the page's, and with its space; a row for no page is refused.
    await db.deleteFrom('search_pages').where('doc', '=', P1).execute();
    expect((await db.selectFrom('search_results').select('doc').execute()).map((row) => Number(row.doc))).toEqual([P2]);
    await db.deleteFrom('spaces').where('id', '=', 'space1').execute();
    expect(await db.selectFrom('search_results').selectAll().execute()).toEqual([]);
    await expect(db.insertInto('search_results').values({ doc: 12345, page_id: 'x', title: '', path: '', sections: '' }).execute()).rejects.toThrow();
  });

  it('keeps new texts uncompressed on PostgreSQL too (rows the index writes after the migration)', async () => {
    const { db, migrator } = await at0015();
    expect((await migrator.migrateTo('0016_search_results')).error).toBeUndefined();
    await db.deleteFrom('search_results').where('doc', '=', P2).execute();
    await db.insertInto('search_results').values({ doc: P2, page_id: 'p2', title: 'T', path: 'p', sections: packed }).execute();
    expect((await resultPages(db, [P2])).get(P2)!.sections).toBe(packed);
    if (kind === 'postgres') {
      const sizes = await sql<{ stored: number; bytes: number }>`select pg_column_size(sections) as stored, octet_length(sections) as bytes from search_results where doc = ${P2}`.execute(db);
      expect(Number(sizes.rows[0].stored)).toBeGreaterThanOrEqual(Number(sizes.rows[0].bytes));
    }
  });

  it('down: title and path back on search_pages, the sections back in search_texts', async () => {
    const { db, migrator, any } = await at0015();
    expect((await migrator.migrateTo('0016_search_results')).error).toBeUndefined();
    expect((await migrator.migrateTo('0015_search_texts')).error).toBeUndefined();
    const pages = await any.selectFrom('search_pages').select(['doc', 'title', 'path']).orderBy('doc').execute();
    expect(pages.map((row) => ({ ...row, doc: Number(row.doc) }))).toEqual([
      { doc: P1, title: 'Title p1', path: 'path/p1' },
      { doc: P2, title: 'Title p2', path: 'path/p2' },
    ]);
    const texts = await any.selectFrom('search_texts').selectAll().execute();
    expect(texts.map((row) => ({ doc: Number(row.doc), sections: row.sections }))).toEqual([{ doc: P1, sections: packed }]);
    await expect(sql`select count(*) from search_results`.execute(db)).rejects.toThrow();
  });
});
