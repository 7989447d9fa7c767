/**
 * A big revision's link rows are written in parts, each its own short transaction, into a slot only the last one
 * makes the revision's: other readers meanwhile see the slot's rows grow and no indexed revision, and once it is
 * claimed, the rows a full index stores. Rows of slots no revision owns (pruned revisions, replaced ones, writes
 * whose process stopped half-way) are removed in parts, and a write given up can no longer be claimed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout } from '../helpers/git.js';
import { indexLinks, indexLinksOfRevision, removeUnindexedLinkRows } from '../../src/domain/content/link-index.js';
import { LINKS_VERSION } from '../../src/domain/content/refs.js';
import { addLinkRows, claimLinkSlot, LINK_ROWS_PER_WRITE, pruneLinks, startLinkSlot } from '../../src/store/sql/links.js';

/** Pages enough for their rows to need several parts. */
const PAGES = Math.ceil(LINK_ROWS_PER_WRITE * 0.6);

describe.each(DATABASE_KINDS)('link rows written and removed in parts (%s)', (kind) => {
  let t: TestApp;
  let spaceId: string;
  let commit: string;
  const db = () => t.container.ctx.db;

  const rowsOf = async (slot: string) => ({
    links: Number((await db().selectFrom('links').select((eb) => eb.fn.countAll().as('n')).where('space_id', '=', spaceId).where('slot', '=', slot).executeTakeFirstOrThrow()).n),
    pages: Number((await db().selectFrom('link_pages').select((eb) => eb.fn.countAll().as('n')).where('space_id', '=', spaceId).where('slot', '=', slot).executeTakeFirstOrThrow()).n),
    answers: Number((await db().selectFrom('link_answers').select((eb) => eb.fn.countAll().as('n')).where('space_id', '=', spaceId).where('slot', '=', slot).executeTakeFirstOrThrow()).n),
  });
  const slotOf = async (oid: string) =>
    (await db().selectFrom('link_index').select('slot').where('space_id', '=', spaceId).where('commit_oid', '=', oid).executeTakeFirst())?.slot;
  const unindexed = async () =>
    (await db().selectFrom('link_slots_unindexed').select(['slot', 'since']).where('space_id', '=', spaceId).orderBy('slot').execute()).map((row) => row.slot);
  /** The slots holding any link page row, indexed or not. */
  const slotsWithRows = async () =>
    new Set((await db().selectFrom('link_pages').select('slot').where('space_id', '=', spaceId).distinct().execute()).map((row) => row.slot));

  beforeAll(async () => {
    t = await startTestApp(kind);
    const org = await t.organization();
    spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Big' } })).body.id;
    const checkout = await Checkout.clone(t.container.git.repositoryPath(spaceId));
    await checkout.git('checkout', '--quiet', '-B', 'main');
    const summary = ['# Summary', '', '* [Home](README.md)'];
    await checkout.write('README.md', '# Home\n');
    for (let i = 0; i < PAGES; i++) {
      await checkout.write(`pages/page-${i}.md`, `# Page ${i}\n\n[Home](../README.md) [Gone](missing-${i}.md)\n`);
      summary.push(`* [Page ${i}](pages/page-${i}.md)`);
    }
    await checkout.write('SUMMARY.md', `${summary.join('\n')}\n`);
    commit = await checkout.commit('Many pages');
    await checkout.push('--force', 'HEAD:refs/heads/main');
    await checkout.dispose();
  });

  afterAll(async () => {
    await t?.close();
  });

  it('writes a big revision in parts that others see grow, and stores every row once it is claimed', async () => {
    // The job after a push, with nothing indexed: a full index, and the pruned rows removed.
    await pruneLinks(db(), spaceId, []);
    await indexLinksOfRevision(t.container.ctx, spaceId, commit);
    expect(await slotsWithRows()).toEqual(new Set([await slotOf(commit)]));
    expect(await unindexed()).toEqual([]);
    await pruneLinks(db(), spaceId, []);
    await removeUnindexedLinkRows(t.container.ctx, spaceId);
    expect(await slotsWithRows()).toEqual(new Set());

    // Another reader, between the parts: the rows of a slot no revision owns yet, growing.
    const seen: number[] = [];
    let done = false;
    const reader = (async () => {
      while (!done) {
        const rows = await db().selectFrom('links').select((eb) => eb.fn.countAll().as('n')).where('space_id', '=', spaceId).executeTakeFirstOrThrow();
        if ((await slotOf(commit)) === undefined) seen.push(Number(rows.n));
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const written = await indexLinks(t.container.ctx, spaceId, commit, { full: true });
    done = true;
    await reader;
    expect(seen.some((n) => n > 0 && n < PAGES * 2)).toBe(true);

    expect(written).toBe(PAGES * 2);
    const slot = (await slotOf(commit))!;
    expect(await rowsOf(slot)).toEqual({ links: PAGES * 2, pages: PAGES + 1, answers: PAGES + 2 });
    const broken = await db().selectFrom('links').select('target').where('space_id', '=', spaceId).where('slot', '=', slot).where('status', '=', 'broken').execute();
    expect(new Set(broken.map((row) => row.target)).size).toBe(PAGES);
    const orders = await db().selectFrom('link_pages').select('page_order').where('space_id', '=', spaceId).where('slot', '=', slot).orderBy('page_order').execute();
    expect(orders.map((row) => Number(row.page_order))).toEqual([...Array(PAGES + 1).keys()]);
    const index = await db().selectFrom('link_index').select('version').where('space_id', '=', spaceId).where('commit_oid', '=', commit).executeTakeFirstOrThrow();
    expect(Number(index.version)).toBe(LINKS_VERSION);
    expect(await unindexed()).toEqual([]);
  });

  it('removes the rows of abandoned writes and pruned revisions in parts, keeps a write under way, and refuses to claim a write given up; a later write of a revision replaces the earlier', async () => {
    const hourAgo = new Date(Date.now() - 2 * 60 * 60_000).toISOString();
    const rows = {
      pages: Array.from({ length: LINK_ROWS_PER_WRITE }, (_, i) => ({ page_id: `p${i}`, page_order: i, git_path: `p${i}.md`, signature: 's', probes: null })),
      links: [],
      answers: Array.from({ length: 10 }, (_, i) => ({ path: `p${i}.md`, answer: `page:p${i}` })),
    };
    await startLinkSlot(db(), spaceId, 'abandoned', hourAgo);
    await addLinkRows(db(), spaceId, 'abandoned', rows);
    await startLinkSlot(db(), spaceId, 'under-way', new Date().toISOString());
    await addLinkRows(db(), spaceId, 'under-way', rows);
    const indexedSlot = (await slotOf(commit))!;

    // A new revision of main: the old one pruned, and what no revision owns removed.
    await pruneLinks(db(), spaceId, []);
    await removeUnindexedLinkRows(t.container.ctx, spaceId);
    expect(await slotsWithRows()).toEqual(new Set(['under-way']));
    expect(await rowsOf('abandoned')).toEqual({ links: 0, pages: 0, answers: 0 });
    expect(await rowsOf(indexedSlot)).toEqual({ links: 0, pages: 0, answers: 0 });
    expect(await unindexed()).toEqual(['under-way']);
    expect(await claimLinkSlot(db(), spaceId, 'c-abandoned', { slot: 'abandoned', root: '', version: LINKS_VERSION, at: hourAgo })).toBe(false);

    // The write under way claims its revision; a later write of the same revision replaces it, whose rows then go.
    expect(await claimLinkSlot(db(), spaceId, 'c-new', { slot: 'under-way', root: '', version: LINKS_VERSION, at: hourAgo })).toBe(true);
    expect(await unindexed()).toEqual([]);
    await startLinkSlot(db(), spaceId, 'second', new Date().toISOString());
    expect(await claimLinkSlot(db(), spaceId, 'c-new', { slot: 'second', root: '', version: LINKS_VERSION, at: hourAgo })).toBe(true);
    expect(await slotOf('c-new')).toBe('second');
    expect(await unindexed()).toEqual(['under-way']);
    await removeUnindexedLinkRows(t.container.ctx, spaceId);
    expect(await slotsWithRows()).toEqual(new Set());
    expect(await unindexed()).toEqual([]);
  });
});
