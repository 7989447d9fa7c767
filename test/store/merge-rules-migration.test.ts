/**
 * Migration 0026 makes merge_rules (src/store/sql/merge-rules.ts): one row per organization or space, set again in
 * place, within the range of required approvals, an organization's or a space's (a space's names no organization, so
 * that it moves with the space), gone with its organization or space. The down migration removes the
 * table. On a real database of each kind, migrated to 0024 first.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { Kysely, sql } from '../../src/store/sql/kysely.js';
import { deleteMergeRules, findMergeRules, upsertMergeRules, type MergeRulesRow } from '../../src/store/sql/merge-rules.js';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { databaseAt } from '../helpers/migrations.js';

describe.each(DATABASE_KINDS)('migration 0026, merge rules (%s)', (kind) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const row = (fields: Partial<MergeRulesRow>): MergeRulesRow => ({
    owner_id: 'org1', organization_id: 'org1', space_id: null, required_approvals: 1, no_new_broken_links: 0, no_content_problems: 0,
    updated_by: null, updated_at: '2026-01-01T00:00:00.000Z', ...fields,
  });

  it('up: one row per owner, replaced in place, in range, gone with its space and organization; down removes the table', async () => {
    const { db, migrator } = await databaseAt(kind, '0024_sessions', cleanups);
    await expect(sql`select count(*) from merge_rules`.execute(db)).rejects.toThrow();
    expect((await migrator.migrateTo('0026_merge_rules')).error).toBeUndefined();
    const any = db as unknown as Kysely<any>;

    await upsertMergeRules(db, row({}));
    await upsertMergeRules(db, row({ required_approvals: 3, no_new_broken_links: 1 }));
    expect(await findMergeRules(db, 'org1')).toEqual(row({ required_approvals: 3, no_new_broken_links: 1 }));
    await upsertMergeRules(db, row({ owner_id: 'space1', organization_id: null, space_id: 'space1', no_content_problems: 1 }));
    expect((await findMergeRules(db, 'space1'))?.no_content_problems).toBe(1);
    await expect(any.insertInto('merge_rules').values(row({ owner_id: 'x', required_approvals: 11 })).execute()).rejects.toThrow();
    await expect(any.insertInto('merge_rules').values(row({ owner_id: 'y', organization_id: 'nope' })).execute()).rejects.toThrow();
    // A row is an organization's or a space's, never both nor neither.
    await expect(any.insertInto('merge_rules').values(row({ owner_id: 'z', space_id: 'space1' })).execute()).rejects.toThrow();
    await expect(any.insertInto('merge_rules').values(row({ owner_id: 'z', organization_id: null })).execute()).rejects.toThrow();

    await deleteMergeRules(db, 'org1');
    expect(await findMergeRules(db, 'org1')).toBeUndefined();
    await db.deleteFrom('spaces').where('id', '=', 'space1').execute();
    expect(await findMergeRules(db, 'space1')).toBeUndefined();
    await upsertMergeRules(db, row({}));
    await db.deleteFrom('organizations').where('id', '=', 'org1').execute();
    expect(await findMergeRules(db, 'org1')).toBeUndefined();

    expect((await migrator.migrateTo('0024_sessions')).error).toBeUndefined();
    await expect(sql`select count(*) from merge_rules`.execute(db)).rejects.toThrow();
  });
});
