import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { QUEUE_DRIVERS } from '../helpers/queues.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { indexSearch, indexSearchAt, searchTuning } from '../../src/domain/search/search.js';
import { matchTerm, queryTerms } from '../../src/content/search-text.js';

const HANDBOOK: Record<string, string> = {
  'README.md': '# Welcome\n\nWelcome to the handbook.\n',
  'install.md': '# Install the CLI\n\nDownload the binary.\n\n## Configure\n\nSet the token.\n\n## Upgrade\n\nGet a newer version when one ships.\n',
  'deploy.md': '# Deploy\n\nBefore you deploy, install the CLI and configure the token; the CLI needs it.\n\n## Install on servers\n\nCopy the binary.\n',
  'tips.md': '# Tips\n\nTip: install the cli once, then install plugins.\n',
  'notes.md': '# Notes\n\nInstall, install, install, install, install.\n',
  'faq.md': '# FAQ\n\nPeople ask whether to install first.\n',
};

describe.each(DATABASE_KINDS)('search (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let base: string;
  let handbook: string;
  let secret: string;

  const remote = (id: string) => spaceRemote(base, org.admin.token, id);
  const search = (url: string, query: Record<string, string | number> | undefined, token: string | null = org.admin.token) => t.request('GET', url, { token, query });
  const titles = (res: { body: any }) => res.body.items.map((p: any) => p.title);

  async function space(title: string, files: Record<string, string>): Promise<string> {
    const id = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title } })).body.id;
    const checkout = await Checkout.clone(remote(id));
    for (const [file, content] of Object.entries(files)) await checkout.write(file, content);
    await checkout.commitAndPush('content');
    await checkout.dispose();
    return id;
  }

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.organization();
    base = await t.listen();
    handbook = await space('Handbook', HANDBOOK);
    secret = await space('Secret plans', { 'README.md': '# Secret plans\n\nInstall the secret CLI.\n' });
  });
  afterAll(async () => t?.close());

  it('ranks title matches first, then more matching terms, then headings, then occurrences (#49)', async () => {
    const res = await search(`/v1/spaces/${handbook}/search`, { query: 'install cli' });
    expect(res.status).toBe(200);
    expect(titles(res)).toEqual(['Install the CLI', 'Deploy', 'Tips', 'Notes', 'FAQ']);
    expect(res.body.items[0]).toMatchObject({ path: 'install', urls: { app: `http://quire.test/app/s/${handbook}/install` } });
    expect(res.body.count).toBe(5);
    // One word: the title match first, the heading match next, then by occurrences.
    expect(titles(await search(`/v1/spaces/${handbook}/search`, { query: 'Install' }))).toEqual(['Install the CLI', 'Deploy', 'Notes', 'Tips', 'FAQ']);
  });

  it('matches the last word as a prefix, case and accents aside, and shows the matching sections', async () => {
    const res = await search(`/v1/spaces/${handbook}/search`, { query: 'CONFIGU' });
    expect(titles(res)).toEqual(['Install the CLI', 'Deploy']);
    expect(res.body.items[0].sections).toEqual([
      { id: 'configure', title: 'Configure', path: 'install#configure', body: 'Set the token.', urls: { app: `http://quire.test/app/s/${handbook}/install#configure` } },
    ]);
    // Deploy matches in the text before its first heading: a page hit without sections.
    expect(res.body.items[1].sections).toEqual([]);
    const upgrade = await search(`/v1/spaces/${handbook}/search`, { query: 'newer versions' });
    expect(titles(upgrade)).toEqual(['Install the CLI']);
    expect(upgrade.body.items[0].sections.map((s: any) => [s.id, s.body])).toEqual([['upgrade', 'Get a newer version when one ships.']]);
    expect((await search(`/v1/spaces/${handbook}/search`, { query: 'nothing-like-this' })).body).toEqual({ items: [], count: 0 });
  });

  it('pages results with a cursor bound to the query', async () => {
    const first = await search(`/v1/spaces/${handbook}/search`, { query: 'install', limit: 2 });
    expect(titles(first)).toEqual(['Install the CLI', 'Deploy']);
    const second = await search(`/v1/spaces/${handbook}/search`, { query: 'install', limit: 2, page: first.body.next.page });
    expect(titles(second)).toEqual(['Notes', 'Tips']);
    const third = await search(`/v1/spaces/${handbook}/search`, { query: 'install', limit: 2, page: second.body.next.page });
    expect(titles(third)).toEqual(['FAQ']);
    expect(third.body.next).toBeUndefined();
    const other = await search(`/v1/spaces/${handbook}/search`, { query: 'deploy', limit: 2, page: first.body.next.page });
    expect(other.status).toBe(400);
    expect(other.body.error.message).toMatch(/^page: /);
  });

  it('searches the spaces of an organization, ranked by their best page (#92)', async () => {
    const res = await search(`/v1/orgs/${org.id}/search`, { query: 'install' });
    expect(res.status).toBe(200);
    // Handbook's best page has the word in its title; Secret plans only in its text.
    expect(res.body.items.map((s: any) => [s.id, s.title])).toEqual([
      [handbook, 'Handbook'],
      [secret, 'Secret plans'],
    ]);
    expect(res.body.items[0].pages.map((p: any) => p.title)).toEqual(['Install the CLI', 'Deploy', 'Notes', 'Tips', 'FAQ']);
    const both = await search(`/v1/orgs/${org.id}/search`, { query: 'secret cli' });
    expect(both.body.items.map((s: any) => s.title)).toEqual(['Secret plans', 'Handbook']);
    expect(both.body.items[1].pages.map((p: any) => p.title)).toEqual(['Install the CLI', 'Deploy', 'Tips']);
  });

  it('finds the same pages in the same order as scoring every page, through every page of results', async () => {
    // 400 pages over 8 words: each word is on 100 pages or more (more than one read of 50), and many pages share
    // terms and scores, so ties and deep reads are exercised.
    const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'zebra', 'eta'];
    let seed = 7;
    const pick = () => words[(seed = (seed * 48271) % 2147483647) % words.length];
    const files: Record<string, string> = { 'README.md': '# Random\n' };
    for (let i = 0; i < 400; i++) {
      const body = Array.from({ length: 1 + (i % 6) }, () => pick()).join(' ');
      files[`p${i}.md`] = `# ${pick()} ${i}\n\n${body}.\n${i % 3 === 0 ? `\n## ${pick()}\n\n${pick()}\n` : ''}`;
    }
    const id = await space('Random', files);
    const organizationId = org.id;
    await search(`/v1/spaces/${id}/search`, { query: 'alpha' });
    const postings = await t.container.ctx.db.selectFrom('search_postings').select(['page_id', 'term', 'score']).where('space_id', '=', id).execute();
    const defaults = { ...searchTuning };
    // Every way of reading: short lists read whole; the longest read best first with look-ups; with whole reads.
    const tunings = [defaults, { readWhole: 0, lookUp: 10_000 }, { readWhole: 0, lookUp: 0 }];
    for (const [tuning, query] of tunings.flatMap((tuning) => ['alpha', 'alpha beta', 'beta gam', 'delta alpha epsilon', 'ze', 'eta zeta', 'zebra ze'].map((q) => [tuning, q] as const))) {
      const terms = queryTerms(query);
      const totals = new Map<string, Map<number, number>>();
      for (const posting of postings) {
        const q = matchTerm(terms, posting.term);
        if (q < 0) continue;
        const byTerm = totals.get(posting.page_id) ?? new Map<number, number>();
        byTerm.set(q, Math.max(byTerm.get(q) ?? 0, Number(posting.score)));
        totals.set(posting.page_id, byTerm);
      }
      const expected = [...totals]
        .map(([pageId, byTerm]) => ({ pageId, score: [...byTerm.values()].reduce((a, b) => a + b, 0) }))
        .sort((a, b) => (a.score !== b.score ? b.score - a.score : a.pageId < b.pageId ? 1 : -1))
        .map((p) => p.pageId);
      Object.assign(searchTuning, tuning);
      try {
        const found: string[] = [];
        let page: string | undefined;
        do {
          const res = await search(`/v1/spaces/${id}/search`, { query, limit: 7, ...(page ? { page } : {}) });
          found.push(...res.body.items.map((p: any) => p.id));
          page = res.body.next?.page;
        } while (page);
        expect(found, `${query} ${JSON.stringify(tuning)}`).toEqual(expected);
        expect(found.length, query).toBeGreaterThan(7);
        // The organization search reads every space at once, the same way: this space's best 10 pages.
        const org = await search(`/v1/orgs/${organizationId}/search`, { query });
        expect(org.body.items.find((s: any) => s.id === id).pages.map((p: any) => p.id), `org ${query}`).toEqual(expected.slice(0, 10));
      } finally {
        Object.assign(searchTuning, defaults);
      }
    }
  });

  describe('visibility and input', () => {
    let guest: TestUser;
    let stranger: TestUser;

    beforeAll(async () => {
      guest = await t.member(org.id, null);
      await t.grant(org.id, { space: handbook }, { user: guest.user.id }, 'read');
      stranger = await t.user();
    });

    it('gives a reader results only from the spaces they can read', async () => {
      const res = await search(`/v1/orgs/${org.id}/search`, { query: 'secret install' }, guest.token);
      expect(res.body.items.map((s: any) => s.id)).toEqual([handbook]);
      expect((await search(`/v1/spaces/${secret}/search`, { query: 'secret' }, guest.token)).status).toBe(404);
      expect(titles(await search(`/v1/spaces/${handbook}/search`, { query: 'install cli' }, guest.token))).toHaveLength(5);
    });

    it('answers 404 to callers who cannot see the space or organization, 401 without a token', async () => {
      expect((await search(`/v1/spaces/${handbook}/search`, { query: 'install' }, stranger.token)).status).toBe(404);
      expect((await search(`/v1/orgs/${org.id}/search`, { query: 'install' }, stranger.token)).status).toBe(404);
      expect((await search(`/v1/spaces/${handbook}/search`, { query: 'install' }, null)).status).toBe(401);
    });

    it('refuses a missing, empty or too long query with 400 naming query', async () => {
      for (const url of [`/v1/spaces/${handbook}/search`, `/v1/orgs/${org.id}/search`]) {
        const missing = await search(url, undefined);
        expect(missing.status).toBe(400);
        expect(missing.body.error.message).toBe('query: is required');
        const long = await search(url, { query: 'x'.repeat(513) });
        expect(long.status).toBe(400);
        expect(long.body.error.message).toBe('query: must be at most 512 characters');
        expect((await search(url, { query: '' })).body.error.message).toBe('query: must be at least 1 character');
        expect((await search(url, { query: 'x'.repeat(512) })).status).toBe(200);
      }
    });

    it('leaves deleted spaces out', async () => {
      const doomed = await space('Doomed', { 'README.md': '# Doomed\n\nUnmistakablezebra here.\n' });
      expect((await search(`/v1/orgs/${org.id}/search`, { query: 'unmistakablezebra' })).body.items.map((s: any) => s.id)).toEqual([doomed]);
      expect((await t.request('DELETE', `/v1/spaces/${doomed}`, { token: org.admin.token })).status).toBe(205);
      expect((await search(`/v1/orgs/${org.id}/search`, { query: 'unmistakablezebra' })).body.items).toEqual([]);
      expect((await search(`/v1/spaces/${doomed}/search`, { query: 'unmistakablezebra' })).status).toBe(404);
    });
  });
});

describe.each(QUEUE_DRIVERS)('the index-search job after a push (%s queue)', (queue) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let spaceId: string;
  let checkout: Checkout;

  beforeAll(async () => {
    t = await startTestApp('sqlite', {}, { queue });
    org = await t.organization();
    const base = await t.listen();
    spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Jobs' } })).body.id;
    checkout = await Checkout.clone(spaceRemote(base, org.admin.token, spaceId));
  });
  afterAll(async () => {
    await checkout?.dispose();
    await t?.close();
  });

  const find = async (query: string) => (await t.request('GET', `/v1/spaces/${spaceId}/search`, { token: org.admin.token, query: { query } })).body.items.map((p: any) => p.title);

  /** Polls the API (searches never re-index a space indexed before: only the job brings new revisions in). */
  async function waitFor(query: string, expected: string[], deadlineMs = 5000): Promise<void> {
    const deadline = Date.now() + deadlineMs;
    for (;;) {
      const found = await find(query);
      if (JSON.stringify(found) === JSON.stringify(expected)) return;
      if (Date.now() > deadline) throw new Error(`search for "${query}" still finds ${JSON.stringify(found)} after ${deadlineMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('indexes main after each push, page by page, and does nothing when the index is current', async () => {
    await checkout.write('README.md', '# Jobs\n\nNothing yet.\n');
    await checkout.commitAndPush('first');
    await waitFor('nothing', ['Jobs']);

    await checkout.write('zephyr.md', '# Zephyr\n\nA westerly wind.\n');
    await checkout.write('README.md', '# Jobs\n\nSee the wind.\n');
    const second = await checkout.commitAndPush('second');
    await waitFor('westerly', ['Zephyr']);
    await waitFor('nothing', []);
    const state = await t.container.ctx.db.selectFrom('search_spaces').select('commit_oid').where('space_id', '=', spaceId).executeTakeFirst();
    expect(state?.commit_oid).toBe(second);
    expect(await indexSearch(t.container.ctx, spaceId)).toBe('current');

    await checkout.remove('zephyr.md');
    await checkout.commitAndPush('third');
    await waitFor('westerly', []);
  });

  it('never puts an older revision over a newer one: an indexing that began before main moved writes nothing', async () => {
    await checkout.write('older.md', '# Older\n\nQuixotic windmills.\n');
    const older = await checkout.commitAndPush('older');
    await waitFor('quixotic', ['Older']);
    await checkout.write('newer.md', '# Newer\n\nPhlegmatic tortoises.\n');
    const newer = await checkout.commitAndPush('newer');
    await waitFor('phlegmatic', ['Newer']);
    // A job that resolved main before the push ends now (a worker running two jobs of the space at once).
    expect(await indexSearchAt(t.container.ctx, spaceId, older)).toBe('superseded');
    const state = await t.container.ctx.db.selectFrom('search_spaces').select('commit_oid').where('space_id', '=', spaceId).executeTakeFirst();
    expect(state?.commit_oid).toBe(newer);
    await waitFor('phlegmatic', ['Newer']);
  });
});
