/**
 * Migration 0019 makes site_page_feedback (readers' answers to "Was this page helpful?"): one vote per site, page and
 * reader key, known ratings only, rows gone with their site or space, and the store's upsert replacing a reader's
 * vote; its down migration removes the table, and up again makes it anew. On a real database of each kind, migrated
 * to 0018 first.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Kysely, sql } from '../../src/store/sql/kysely.js';
import { upsertPageFeedback, type PageFeedbackRow } from '../../src/store/sql/page-feedback.js';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { databaseAt } from '../helpers/migrations.js';

describe.each(DATABASE_KINDS)('migration 0019, site page feedback (%s)', (kind) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const row = (fields: Partial<PageFeedbackRow>): PageFeedbackRow => ({
    id: 'f1', site_id: 'site1', space_id: 'space1', page_id: 'p1', rating: 'good', comment: null, client_key: 'k1', created_at: '2026-01-01T00:00:00.000Z', ...fields,
  });

  async function at0018() {
    const at = await databaseAt(kind, '0018_link_slots_unindexed', cleanups);
    const any = at.db as unknown as Kysely<any>;
    const now = new Date().toISOString();
    await any.insertInto('sites').values({
      id: 'site1', organization_id: 'org1', type: 'basic', title: 'Docs', visibility: 'public', basename: null, proxy: null, agents_context: 'excluded',
      adaptive_content: 0, adaptive_schema: null, adaptive_schema_updated_at: null, created_at: now, updated_at: now,
    }).execute();
    return { ...at, any };
  }

  it('up: one vote per site, page and reader key (the upsert replaces it), known ratings only, gone with the site or the space', async () => {
    const { db, migrator, any } = await at0018();
    await expect(sql`select count(*) from site_page_feedback`.execute(db)).rejects.toThrow();
    const { error } = await migrator.migrateTo('0019_site_page_feedback');
    expect(error).toBeUndefined();

    await upsertPageFeedback(db, row({}));
    await expect(any.insertInto('site_page_feedback').values(row({ id: 'f2' })).execute()).rejects.toThrow();
    await upsertPageFeedback(db, row({ id: 'f3', rating: 'bad', comment: 'Changed my mind', created_at: '2026-01-01T10:00:00.000Z' }));
    expect(await db.selectFrom('site_page_feedback').selectAll().execute()).toEqual([
      row({ rating: 'bad', comment: 'Changed my mind', created_at: '2026-01-01T10:00:00.000Z' }),
    ]);
    // Another reader, another page: rows of their own.
    await upsertPageFeedback(db, row({ id: 'f4', client_key: 'k2' }));
    await upsertPageFeedback(db, row({ id: 'f5', page_id: 'p2' }));
    expect(await db.selectFrom('site_page_feedback').select('id').orderBy('id').execute()).toEqual([{ id: 'f1' }, { id: 'f4' }, { id: 'f5' }]);

    await expect(any.insertInto('site_page_feedback').values(row({ id: 'f6', client_key: 'k6', rating: 'meh' })).execute()).rejects.toThrow();
    await expect(any.insertInto('site_page_feedback').values(row({ id: 'f7', client_key: 'k7', site_id: 'no-such-site' })).execute()).rejects.toThrow();

    await db.deleteFrom('sites').where('id', '=', 'site1').execute();
    expect(await db.selectFrom('site_page_feedback').selectAll().execute()).toEqual([]);
  });

  it('rows go with their space too', async () => {
    const { db, migrator } = await at0018();
    expect((await migrator.migrateTo('0019_site_page_feedback')).error).toBeUndefined();
    await upsertPageFeedback(db, row({}));
    await db.deleteFrom('spaces').where('id', '=', 'space1').execute();
    expect(await db.selectFrom('site_page_feedback').selectAll().execute()).toEqual([]);
  });

  it('down: the table and its indexes are gone; up again makes them anew', async () => {
    const { db, migrator } = await at0018();
    expect((await migrator.migrateTo('0019_site_page_feedback')).error).toBeUndefined();
    await upsertPageFeedback(db, row({}));
    expect((await migrator.migrateTo('0018_link_slots_unindexed')).error).toBeUndefined();
    await expect(sql`select count(*) from site_page_feedback`.execute(db)).rejects.toThrow();
    const indexes =
      kind === 'postgres'
        ? await sql<{ name: string }>`select indexname as name from pg_indexes where indexname like 'site_page_feedback%'`.execute(db)
        : await sql<{ name: string }>`select name from sqlite_master where name like 'site_page_feedback%'`.execute(db);
    expect(indexes.rows).toEqual([]);
    expect((await migrator.migrateTo('0019_site_page_feedback')).error).toBeUndefined();
    expect(await db.selectFrom('site_page_feedback').selectAll().execute()).toEqual([]);
    await upsertPageFeedback(db, row({}));
    expect(await db.selectFrom('site_page_feedback').select('id').execute()).toEqual([{ id: 'f1' }]);
  });
});
