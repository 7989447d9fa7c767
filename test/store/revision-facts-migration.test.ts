/**
 * Migration 0017 lets a commit's history facts be stored as the change from another commit's (base_oid, depth): the
 * rows stored before stay, as whole ones; a change needs its stored base and goes with it. Its down migration keeps
 * the whole rows. On a real database of each kind, migrated to 0016 first.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Kysely } from '../../src/store/sql/kysely.js';
import { findRevisionFacts, saveRevisionFacts } from '../../src/store/sql/revisions.js';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { databaseAt } from '../helpers/migrations.js';

describe.each(DATABASE_KINDS)('migration 0017, history facts as changes (%s)', (kind) => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  const A = 'a'.repeat(40);
  const B = 'b'.repeat(40);
  const C = 'c'.repeat(40);
  const whole = JSON.stringify({ 'README.md': { i: 'id1', c: '2020', u: '2021', o: '1'.repeat(40) } });
  const change = JSON.stringify({ set: [['a.md', { i: 'id2', c: '2022', u: '2022', o: '2'.repeat(40) }]], gone: [] });

  async function at0016() {
    const at = await databaseAt(kind, '0016_search_results', cleanups);
    const any = at.db as unknown as Kysely<any>;
    await any.insertInto('revision_facts').values({ space_id: 'space1', commit_oid: A, facts: whole }).execute();
    return at;
  }

  it('keeps the rows stored before as whole ones; a change needs its base, and goes with it and with its space', async () => {
    const { db, migrator } = await at0016();
    expect((await migrator.migrateTo('0017_revision_fact_changes')).error).toBeUndefined();
    expect(await findRevisionFacts(db, 'space1', A)).toEqual({ facts: whole, baseOid: null, depth: 0 });
    await saveRevisionFacts(db, 'space1', B, { facts: change, baseOid: A, depth: 1 });
    expect(await findRevisionFacts(db, 'space1', B)).toEqual({ facts: change, baseOid: A, depth: 1 });
    // No base stored: refused.
    await expect(saveRevisionFacts(db, 'space1', C, { facts: change, baseOid: 'd'.repeat(40), depth: 1 })).rejects.toThrow();
    expect(await findRevisionFacts(db, 'space1', C)).toBeUndefined();
    await db.deleteFrom('revision_facts').where('commit_oid', '=', A).execute();
    expect(await findRevisionFacts(db, 'space1', B)).toBeUndefined();
    await saveRevisionFacts(db, 'space1', A, { facts: whole, baseOid: null, depth: 0 });
    await saveRevisionFacts(db, 'space1', B, { facts: change, baseOid: A, depth: 1 });
    await db.deleteFrom('spaces').where('id', '=', 'space1').execute();
    expect(await db.selectFrom('revision_facts').selectAll().execute()).toEqual([]);
  });

  it('down: the whole rows stay, the changes go', async () => {
    const { db, migrator } = await at0016();
    expect((await migrator.migrateTo('0017_revision_fact_changes')).error).toBeUndefined();
    await saveRevisionFacts(db, 'space1', B, { facts: change, baseOid: A, depth: 1 });
    expect((await migrator.migrateTo('0016_search_results')).error).toBeUndefined();
    const any = db as unknown as Kysely<any>;
    expect(await any.selectFrom('revision_facts').selectAll().execute()).toEqual([{ space_id: 'space1', commit_oid: A, facts: whole }]);
    // And up again.
    expect((await migrator.migrateTo('0017_revision_fact_changes')).error).toBeUndefined();
    expect(await findRevisionFacts(db, 'space1', A)).toEqual({ facts: whole, baseOid: null, depth: 0 });
  });
});
