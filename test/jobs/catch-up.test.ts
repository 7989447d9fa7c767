/**
 * Indexing that missed a change of main (a job lost when the in-process queue restarted, or not queued while Redis
 * was down) catches up when `quire serve` starts: queueMissedIndexing queues exactly the spaces whose search or
 * link index is behind main, and the jobs bring them up to date. A push that moved main but was never recorded (the
 * process was killed in between) shows through every read at once and is recorded at start. Under both queue drivers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jobsSettled, QUEUE_DRIVERS } from '../helpers/queues.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { queueMissedIndexing } from '../../src/domain/content/indexing.js';
import { catchUpWithRepositories } from '../../src/domain/content/git-access.js';
import { waitFor } from '../helpers/wait.js';

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
    await waitFor(() => db.selectFrom('search_spaces').select(['space_id', 'commit_oid']).execute(), {
      until: (rows) => rows.length === 2,
      what: 'the pushes to be indexed',
    });
    await waitFor(() => db.selectFrom('link_index').select('space_id').execute(), { until: (rows) => rows.length === 2, what: 'the links of both pushes' });
    // ...and those jobs ended (a job still finishing would be the one a catch-up's job of the same revision joins,
    // and nothing would write the rows removed below again)...
    await jobsSettled(t, ['index-search', 'index-links']);
    // ...then the first loses both indexes of its current revision, as when its jobs were lost.
    await db.updateTable('search_spaces').set({ commit_oid: '0'.repeat(40) }).where('space_id', '=', behind).execute();
    await db.deleteFrom('link_index').where('space_id', '=', behind).execute();
    await db.deleteFrom('links').where('space_id', '=', behind).execute();
  });
  afterAll(async () => t?.close());

  it('queues only the spaces whose indexes are behind main, and the jobs catch them up', async () => {
    expect(await queueMissedIndexing(t.container.ctx)).toEqual([behind]);
    const db = t.container.ctx.db;
    await waitFor(() => db.selectFrom('search_spaces').select('commit_oid').where('space_id', '=', behind).executeTakeFirst(), {
      until: (row) => row?.commit_oid === revision,
      what: 'the search index to catch up',
    });
    await waitFor(() => db.selectFrom('link_index').select('commit_oid').where('space_id', '=', behind).execute(), {
      until: (rows) => rows.some((row) => row.commit_oid === revision),
      what: 'the link index to catch up',
    });
    expect(await queueMissedIndexing(t.container.ctx)).toEqual([]);
  });

  it('shows a main that moved without being recorded at once, and records and indexes it at start', async () => {
    const org = await t.organization();
    const id = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Crashed' } })).body.id as string;
    const before = (await t.request('GET', `/v1/spaces/${id}`, { token: org.admin.token })).body.revision as string;
    // As when the server was killed after git moved main and before the push was recorded: main moves in the
    // repository behind the server's back (no hook, no recording).
    const checkout = await Checkout.clone(t.container.git.repositoryPath(id));
    await checkout.write('newest.md', '# Newest\n\nZanzibarian lighthouses.\n');
    const pushed = await checkout.commitAndPush('written while the server died');
    await checkout.dispose();
    t.container.ctx.cache.invalidate();
    const row = () => t.container.ctx.db.selectFrom('spaces').select('revision').where('id', '=', id).executeTakeFirstOrThrow();
    expect((await row()).revision).toBe(before);

    // Any read shows main.
    expect((await t.request('GET', `/v1/spaces/${id}`, { token: org.admin.token })).body.revision).toBe(pushed);
    expect((await t.request('GET', `/v1/spaces/${id}/content`, { token: org.admin.token })).body.id).toBe(pushed);

    // The start records it, and search finds the newest page within 10 s.
    const { recorded } = await catchUpWithRepositories(t.container.ctx);
    expect(recorded).toEqual([id]);
    expect((await row()).revision).toBe(pushed);
    const search = await waitFor(() => t.request('GET', `/v1/spaces/${id}/search`, { token: org.admin.token, query: { query: 'zanzibarian' } }), {
      until: (res) => res.status === 200 && res.body.items.length === 1,
      what: 'search to find the newest page',
    });
    expect(search.body.items[0].title).toBe('Newest');
    // Progress: one call per space checked, counting up to the number of live spaces.
    const counts: Array<[number, number]> = [];
    expect((await catchUpWithRepositories(t.container.ctx, (checked, total) => counts.push([checked, total]))).recorded).toEqual([]);
    const live = (await t.container.ctx.db.selectFrom('spaces').select('id').where('deleted_at', 'is', null).execute()).length;
    expect(counts).toEqual(Array.from({ length: live }, (_, i) => [i + 1, live]));
  });
});
