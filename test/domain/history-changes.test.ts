/**
 * History facts stored as changes (src/domain/content/history.ts): a push's facts are stored as the change from the
 * facts of the stored commit they were computed from, whole again after a number of changes in a row or when most
 * paths change. Read back in another process (nothing in memory), they are the facts computed from nothing. On a
 * real database of each kind, with real pushes: edits, a rename, a deletion, two commits pushed at once, a merge.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout } from '../helpers/git.js';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { HistoryFacts } from '../../src/domain/content/history.js';
import type { FactChanges, Facts } from '../../src/domain/content/path-facts.js';

describe.each(DATABASE_KINDS)('history facts stored as changes (%s)', (kind) => {
  let t: TestApp;
  let organizationId: string;
  let adminToken: string;

  beforeAll(async () => {
    t = await startTestApp(kind);
    const org = await t.organization();
    organizationId = org.id;
    adminToken = org.admin.token;
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A space of `pages` pages pushed in one commit, straight into its repository (no facts computed by Quire). */
  async function spaceWithPages(pages: number): Promise<{ spaceId: string; checkout: Checkout; first: string }> {
    const spaceId = (await t.request('POST', `/v1/orgs/${organizationId}/spaces`, { token: adminToken, body: { title: 'Changes' } })).body.id;
    const checkout = await Checkout.clone(t.container.git.repositoryPath(spaceId));
    for (let i = 0; i < pages; i++) await checkout.write(`guide/page-${i}.md`, `# Page ${i}\n\nText of page ${i}.\n`);
    return { spaceId, checkout, first: await checkout.commitAndPush('pages') };
  }

  /** History facts of another process: its own memory, the test app's database and repositories. */
  const historyOfAnotherProcess = (options: { changesPerWhole?: number } = {}) =>
    new HistoryFacts({ db: t.container.ctx.db, git: t.container.git, reader: t.container.ctx.reader }, options);

  async function rows(spaceId: string) {
    const found = await t.container.ctx.db.selectFrom('revision_facts').selectAll().where('space_id', '=', spaceId).execute();
    return new Map(found.map((row) => [row.commit_oid, { base: row.base_oid, depth: Number(row.depth), facts: row.facts }]));
  }

  const changesOf = (facts: string) => JSON.parse(facts) as FactChanges;

  it('stores each push as the change from the commit it was computed from, whole again past the changes allowed in a row, and reads them back as computed from nothing', async () => {
    const { spaceId, checkout, first } = await spaceWithPages(24);
    const history = historyOfAnotherProcess({ changesPerWhole: 3 });
    const computed = new Map<string, Facts>();
    const push = async (tip: string) => {
      computed.set(tip, await history.factsOf(spaceId, tip));
      return tip;
    };
    await push(first);
    await checkout.write('guide/page-1.md', '# Page 1\n\nEdited.\n');
    const edit = await push(await checkout.commitAndPush('edit'));
    await checkout.git('mv', 'guide/page-2.md', 'guide/renamed.md');
    const rename = await push(await checkout.commitAndPush('rename'));
    // Two commits pushed at once: the facts of the second are computed from the tip before them.
    await checkout.remove('guide/page-3.md');
    const between = await checkout.commit('delete');
    await checkout.write('guide/added.md', '# Added\n');
    const pair = await push(await checkout.commitAndPush('add'));
    // A merge of a branch: computed from its first parent.
    await checkout.git('checkout', '--quiet', '-b', 'side');
    await checkout.write('guide/side.md', '# Side\n');
    await checkout.commit('side');
    await checkout.git('checkout', '--quiet', 'main');
    await checkout.write('guide/page-4.md', '# Page 4\n\nEdited on main.\n');
    const beforeMerge = await push(await checkout.commitAndPush('main edit'));
    await checkout.git('merge', '--quiet', '--no-ff', '-m', 'merge side', 'side');
    const merge = await push(await checkout.commitAndPush('merge'));
    await checkout.write('guide/page-5.md', '# Page 5\n\nEdited.\n');
    const last = await push(await checkout.commitAndPush('edit again'));
    await history.saveNow();

    const stored = await rows(spaceId);
    expect(stored.has(between)).toBe(false);
    const shapes = [first, edit, rename, pair, beforeMerge, merge, last].map((oid) => {
      const row = stored.get(oid)!;
      if (row.base === null) return { base: null, depth: row.depth };
      const changes = changesOf(row.facts);
      return { base: row.base, depth: row.depth, set: changes.set.map(([path]) => path).sort(), gone: changes.gone };
    });
    expect(shapes).toEqual([
      { base: null, depth: 0 },
      { base: first, depth: 1, set: ['guide/page-1.md'], gone: [] },
      { base: edit, depth: 2, set: ['guide/renamed.md'], gone: ['guide/page-2.md'] },
      { base: rename, depth: 3, set: ['guide/added.md'], gone: ['guide/page-3.md'] },
      // Three changes in a row: whole again.
      { base: null, depth: 0 },
      { base: beforeMerge, depth: 1, set: ['guide/side.md'], gone: [] },
      { base: merge, depth: 2, set: ['guide/page-5.md'], gone: [] },
    ]);
    // The renamed page kept its id, in the stored change too.
    expect(changesOf(stored.get(rename)!.facts).set[0][1].i).toBe(computed.get(first)!.get('guide/page-2.md')!.i);

    // Another process reads the newest first (every change back to a whole copy), then the others.
    const reader = historyOfAnotherProcess({ changesPerWhole: 3 });
    for (const oid of [last, ...computed.keys()]) expect(await reader.factsOf(spaceId, oid)).toEqual(computed.get(oid));
    // From nothing: the same facts.
    await t.container.ctx.db.deleteFrom('revision_facts').where('space_id', '=', spaceId).execute();
    expect(await historyOfAnotherProcess().factsOf(spaceId, last)).toEqual(computed.get(last));
    await checkout.dispose();
  });

  it('stores whole a change of most paths, and a change whose base could not be stored', async () => {
    const { spaceId, checkout, first } = await spaceWithPages(8);
    const history = historyOfAnotherProcess();
    await history.factsOf(spaceId, first);
    await checkout.git('mv', 'guide', 'chapter');
    const moved = await checkout.commitAndPush('folder renamed');
    const movedFacts = await history.factsOf(spaceId, moved);
    await checkout.write('chapter/page-0.md', '# Page 0\n\nEdited.\n');
    const edit = await checkout.commitAndPush('edit');
    const editFacts = await history.factsOf(spaceId, edit);
    await history.saveNow();
    let stored = await rows(spaceId);
    expect(stored.get(moved)).toMatchObject({ base: null, depth: 0 });
    expect(stored.get(edit)).toMatchObject({ base: moved, depth: 1 });
    expect(await historyOfAnotherProcess().factsOf(spaceId, edit)).toEqual(editFacts);

    // Its base's row gone (dropped: the rows are a cache) while the base is still in memory: the change cannot be
    // stored, and is stored whole.
    await t.container.ctx.db.deleteFrom('revision_facts').where('space_id', '=', spaceId).where('commit_oid', '=', edit).execute();
    await checkout.write('chapter/page-1.md', '# Page 1\n\nEdited.\n');
    const next = await checkout.commitAndPush('another edit');
    const nextFacts = await history.factsOf(spaceId, next);
    await history.saveNow();
    stored = await rows(spaceId);
    expect(stored.get(next)).toMatchObject({ base: null, depth: 0 });
    expect(JSON.parse(stored.get(next)!.facts)).toEqual(Object.fromEntries(nextFacts));
    expect(stored.get(moved)).toMatchObject({ base: null });
    expect(movedFacts.get('chapter/page-3.md')!.i).toBe(nextFacts.get('chapter/page-3.md')!.i);
    await checkout.dispose();
  });

  it('stores one store after another: a store asked for while another is under way (the timer\'s) resolves after it', async () => {
    const { spaceId, checkout, first } = await spaceWithPages(8);
    await checkout.write('guide/page-0.md', '# Page 0\n\nEdited.\n');
    const edit = await checkout.commitAndPush('edit');
    const history = historyOfAnotherProcess();
    await history.factsOf(spaceId, first);
    const storingFirst = history.saveNow();
    // Nothing new to store: it waits for the store under way.
    await history.saveNow();
    expect((await rows(spaceId)).get(first)).toMatchObject({ base: null, depth: 0 });
    // A change stored after its base's store began: after it, so as a change from it.
    await history.factsOf(spaceId, edit);
    await history.saveNow();
    expect((await rows(spaceId)).get(edit)).toMatchObject({ base: first, depth: 1 });
    await storingFirst;
    await checkout.dispose();
  });

  it('drops the changes based on a row that goes, and computes their facts again the same', async () => {
    const { spaceId, checkout, first } = await spaceWithPages(16);
    const history = historyOfAnotherProcess();
    await history.factsOf(spaceId, first);
    await checkout.write('guide/page-0.md', '# Page 0\n\nEdited.\n');
    const edit = await checkout.commitAndPush('edit');
    await checkout.git('mv', 'guide/page-1.md', 'guide/moved.md');
    const move = await checkout.commitAndPush('move');
    const facts = await history.factsOf(spaceId, move);
    // The edit is not asked for: the move is stored as the change from the first commit.
    await history.saveNow();
    expect((await rows(spaceId)).get(move)).toMatchObject({ base: first, depth: 1 });
    expect((await rows(spaceId)).has(edit)).toBe(false);
    await t.container.ctx.db.deleteFrom('revision_facts').where('space_id', '=', spaceId).where('commit_oid', '=', first).execute();
    expect((await rows(spaceId)).size).toBe(0);
    expect(await historyOfAnotherProcess().factsOf(spaceId, move)).toEqual(facts);
    await checkout.dispose();
  });
});
