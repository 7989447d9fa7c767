/**
 * Indexing that missed a change of main (a job lost when the in-process queue restarted, or not queued while Redis
 * was down) catches up when `quire serve` starts: queueMissedIndexing queues exactly the spaces whose search or
 * link index is behind main, and the jobs bring them up to date. Under both queue drivers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUEUE_DRIVERS } from '../helpers/queues.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { queueMissedIndexing } from '../../src/domain/content/indexing.js';

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 8000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.each(QUEUE_DRIVERS)('indexing catch-up at start (%s queue)', (queue) => {
  let t: TestApp;
  let behind: string;
  let revision: string;

  beforeAll(async () => {
    t = await startTestApp('sqlite', {}, { queue });
    const org = await t.organization();
    const base = await t.listen();
    const space = async (title: string) => {
      const id = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title } })).body.id as string;
      const checkout = await Checkout.clone(spaceRemote(base, org.admin.token, id));
      await checkout.write('guide.md', '# Guide\n\nSee the [missing page](missing.md).\n');
      const pushed = await checkout.commitAndPush('content');
      await checkout.dispose();
      return { id, pushed };
    };
    const first = await space('Behind');
    await space('Current');
    behind = first.id;
    revision = first.pushed;
    const db = t.container.ctx.db;
    // Both spaces indexed by the jobs their pushes queued...
    await until(
      () => db.selectFrom('search_spaces').select(['space_id', 'commit_oid']).execute(),
      (rows) => rows.length === 2,
      'the pushes to be indexed',
    );
    await until(() => db.selectFrom('link_index').select('space_id').execute(), (rows) => rows.length === 2, 'the links of both pushes');
    // ...then the first loses both indexes of its current revision, as when its jobs were lost.
    await db.updateTable('search_spaces').set({ commit_oid: '0'.repeat(40) }).where('space_id', '=', behind).execute();
    await db.deleteFrom('link_index').where('space_id', '=', behind).execute();
    await db.deleteFrom('links').where('space_id', '=', behind).execute();
  });
  afterAll(async () => t?.close());

  it('queues only the spaces whose indexes are behind main, and the jobs catch them up', async () => {
    expect(await queueMissedIndexing(t.container.ctx)).toEqual([behind]);
    const db = t.container.ctx.db;
    await until(
      () => db.selectFrom('search_spaces').select('commit_oid').where('space_id', '=', behind).executeTakeFirst(),
      (row) => row?.commit_oid === revision,
      'the search index to catch up',
    );
    await until(
      () => db.selectFrom('link_index').select('commit_oid').where('space_id', '=', behind).execute(),
      (rows) => rows.some((row) => row.commit_oid === revision),
      'the link index to catch up',
    );
    expect(await queueMissedIndexing(t.container.ctx)).toEqual([]);
  });
});
