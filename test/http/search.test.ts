import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { QUEUE_DRIVERS } from '../helpers/queues.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { waitFor } from '../helpers/wait.js';
import { engineQuery, hitsOf, rankWithTermLists, readRankingBases } from '../../src/domain/search/search-queries.js';
import { indexSearch, indexSearchAt } from '../../src/domain/search/search-indexing.js';
import { rankSpace } from '../../src/domain/search/term-ranking.js';
import { queryTerms } from '../../src/content/search-text.js';
import { DOCS_PER_SPACE, resultPages, searchStates } from '../../src/store/sql/search.js';
import { termDocs, termLists } from '../../src/store/sql/search-terms.js';

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
  const titles = (res: { body: any }): string[] => res.body.items.map((p: any) => p.title);
  const organizationIdOf = () => org.id;

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

  /** True when `a` is listed before `b`. */
  const before = (list: string[], a: string, b: string) => list.indexOf(a) >= 0 && list.indexOf(a) < list.indexOf(b);

  it('ranks title matches first, heading matches above a mention in the text (searchSpaceContent)', async () => {
    const res = await search(`/v1/spaces/${handbook}/search`, { query: 'install cli' });
    expect(res.status).toBe(200);
    const found = titles(res);
    expect(found[0]).toBe('Install the CLI');
    expect([...found].sort()).toEqual(['Deploy', 'FAQ', 'Install the CLI', 'Notes', 'Tips']);
    expect(res.body.items[0]).toMatchObject({ path: 'install', urls: { app: `http://quire.test/app/s/${handbook}/install` } });
    expect(res.body.count).toBe(5);
    // Both words (Tips, Deploy) above one word once (FAQ).
    expect(before(found, 'Tips', 'FAQ') && before(found, 'Deploy', 'FAQ')).toBe(true);
    // One word: the title match first; a heading match, or more occurrences, above a single mention in the text.
    const one = titles(await search(`/v1/spaces/${handbook}/search`, { query: 'Install' }));
    expect(one[0]).toBe('Install the CLI');
    expect(one[one.length - 1]).toBe('FAQ');
    expect(one).toHaveLength(5);
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
    const all = titles(await search(`/v1/spaces/${handbook}/search`, { query: 'install' }));
    const first = await search(`/v1/spaces/${handbook}/search`, { query: 'install', limit: 2 });
    expect(titles(first)).toEqual(all.slice(0, 2));
    const second = await search(`/v1/spaces/${handbook}/search`, { query: 'install', limit: 2, page: first.body.next.page });
    expect(titles(second)).toEqual(all.slice(2, 4));
    const third = await search(`/v1/spaces/${handbook}/search`, { query: 'install', limit: 2, page: second.body.next.page });
    expect(titles(third)).toEqual(all.slice(4));
    expect(third.body.next).toBeUndefined();
    const other = await search(`/v1/spaces/${handbook}/search`, { query: 'deploy', limit: 2, page: first.body.next.page });
    expect(other.status).toBe(400);
    expect(other.body.error.message).toMatch(/^page: /);
  });

  it('searches the spaces of an organization, ranked by their best page (searchOrganizationContent)', async () => {
    const res = await search(`/v1/orgs/${org.id}/search`, { query: 'install' });
    expect(res.status).toBe(200);
    // Handbook's best page has the word in its title; Secret plans only in its text.
    expect(res.body.items.map((s: any) => [s.id, s.title])).toEqual([
      [handbook, 'Handbook'],
      [secret, 'Secret plans'],
    ]);
    // The space's pages in the order of its own search.
    expect(res.body.items[0].pages.map((p: any) => p.title)).toEqual(titles(await search(`/v1/spaces/${handbook}/search`, { query: 'install' })));
    const both = await search(`/v1/orgs/${org.id}/search`, { query: 'secret cli' });
    expect(both.body.items.map((s: any) => s.title)).toEqual(['Secret plans', 'Handbook']);
    const pages = both.body.items[1].pages.map((p: any) => p.title);
    expect(pages[0]).toBe('Install the CLI');
    expect([...pages].sort()).toEqual(['Deploy', 'Install the CLI', 'Tips']);
  });

  it('finds every page with a word, each once through every page of results, the best 10 also in the organization search', async () => {
    // 400 pages over 8 words: each word is on 100 pages or more (more than one read of 50), and many pages are alike.
    const words = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'zebra', 'eta'];
    let seed = 7;
    const pick = () => words[(seed = (seed * 48271) % 2147483647) % words.length];
    const files: Record<string, string> = { 'README.md': '# Random\n' };
    const texts = new Map<string, string>();
    for (let i = 0; i < 400; i++) {
      const body = Array.from({ length: 1 + (i % 6) }, () => pick()).join(' ');
      files[`p${i}.md`] = `# ${pick()} ${i}\n\n${body}.\n${i % 3 === 0 ? `\n## ${pick()}\n\n${pick()}\n` : ''}`;
      texts.set(`p${i}`, files[`p${i}.md`]);
    }
    const id = await space('Random', files);
    for (const query of ['alpha', 'alpha beta', 'beta gam', 'delta alpha epsilon', 'ze', 'eta zeta', 'zebra ze']) {
      const wanted = query.split(' ');
      const last = wanted[wanted.length - 1];
      const expected = [...texts]
        .filter(([, text]) => text.split(/[^a-z0-9]+/).some((w) => wanted.slice(0, -1).includes(w) || w.startsWith(last)))
        .map(([path]) => path)
        .sort();
      const found: any[] = [];
      let page: string | undefined;
      do {
        const res = await search(`/v1/spaces/${id}/search`, { query, limit: 7, ...(page ? { page } : {}) });
        found.push(...res.body.items);
        page = res.body.next?.page;
      } while (page);
      expect(found.map((p) => p.path).sort(), query).toEqual(expected);
      expect(new Set(found.map((p) => p.id)).size, query).toBe(found.length);
      // The organization search ranks each space from its term lists (bm25 over the space's own pages, where the
      // space's search reads the engine's figures): this space's best 10 by that ranking, all of them matches, the
      // pages with a query word in their title first as in the space's search.
      const org = await search(`/v1/orgs/${organizationIdOf()}/search`, { query });
      const orgPages: string[] = org.body.items.find((s: any) => s.id === id).pages.map((p: any) => p.id);
      const terms = engineQuery(queryTerms(query));
      const { key } = (await searchStates(t.container.ctx.db, [id])).get(id)!;
      const best = rankSpace((await termDocs(t.container.ctx.db, [id])).get(id)!, (await termLists(t.container.ctx.db, [id], terms)).get(id)!, terms, 10);
      const pageOf = await resultPages(t.container.ctx.db, best.map((r) => key * DOCS_PER_SPACE + r.n));
      expect(orgPages, `org ${query}`).toEqual(best.map((r) => pageOf.get(key * DOCS_PER_SPACE + r.n)!.page_id));
      expect(orgPages.length, `org ${query}`).toBe(Math.min(10, expected.length));
      const inTitle = orgPages.map((pageId) => {
        const title = texts.get(found.find((p) => p.id === pageId).path)!.split('\n')[0];
        return title.split(/[^a-z0-9]+/).some((w) => wanted.slice(0, -1).includes(w) || w.startsWith(last));
      });
      expect(inTitle, `org ${query}`).toEqual([...inTitle].sort((a, b) => Number(b) - Number(a)));
      expect(inTitle.some(Boolean), `org ${query}`).toBe(true);
    }
  });

  it('keeps each space\'s ranking for the organization search until that space is indexed again, then ranks it alone anew', async () => {
    const first = await space('Kept first', { 'README.md': '# Start\n\nA quokka lives here.\n', 'b.md': '# Bee\n\nNo quokka, quokka.\n' });
    const second = await space('Kept second', { 'README.md': '# Other\n\nAnother quokka.\n' });
    for (const id of [first, second]) await indexSearch(t.container.ctx, id);
    const quokka = async () => (await search(`/v1/orgs/${org.id}/search`, { query: 'quokka' })).body.items.map((s: any) => [s.title, s.pages.map((p: any) => p.title)]);
    const answer = await quokka();
    expect(answer.map(([title]: [string]) => title).sort()).toEqual(['Kept first', 'Kept second']);
    const kept = t.container.ctx.rankings.size;
    // The results (sections, excerpts) are kept with a ranking from the query's second asking on, not its first.
    const keptHits = async (spaceId: string) =>
      t.container.ctx.rankings.get(spaceId, (await searchStates(t.container.ctx.db, [spaceId])).get(spaceId)!, queryTerms('quokka'), 10)?.hits;
    expect(await keptHits(first)).toBeUndefined();
    // Asked again: every space's ranking is kept, none is made anew, and the results (sections, excerpts) are the same.
    const whole = async () => (await search(`/v1/orgs/${org.id}/search`, { query: 'quokka' })).body;
    const made = await whole();
    expect(made.items.find((s: any) => s.id === first).pages[0].sections).toBeDefined();
    expect((await keptHits(first))?.map((hit) => hit.title)).toEqual(made.items.find((s: any) => s.id === first).pages.map((p: any) => p.title));
    expect(await whole()).toEqual(made);
    expect(await quokka()).toEqual(answer);
    expect(t.container.ctx.rankings.size).toBe(kept);

    // A page with the word in its title comes to the first space: its ranking is made again, the other's is kept.
    const checkout = await Checkout.clone(remote(first));
    await checkout.write('quokka.md', '# Quokka facts\n\nSmall and happy.\n');
    await checkout.commitAndPush('quokka facts');
    await checkout.dispose();
    await indexSearch(t.container.ctx, first);
    const after = await quokka();
    expect(after[0]).toEqual(['Kept first', ['Quokka facts', ...answer.find(([title]: [string]) => title === 'Kept first')[1]]]);
    expect(after.find(([title]: [string]) => title === 'Kept second')).toEqual(answer.find(([title]: [string]) => title === 'Kept second'));
    expect(t.container.ctx.rankings.size).toBe(kept + 1);
    // The space's own search (not kept: its pages are paged by the engine) agrees.
    expect(titles(await search(`/v1/spaces/${first}/search`, { query: 'quokka' }))).toEqual(after[0][1]);
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

// SQLite only: there, an organization's search ranks part of its spaces, and makes part of the results, on a CPU pool
// thread reading the database on its own connection when one is free (src/domain/search/search-queries.ts splitWithThread).
describe('organization search with part of its spaces on a CPU thread (sqlite)', () => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  const spaces: string[] = [];
  const WORDS = ['otter', 'beaver', 'heron', 'osprey', 'marten', 'vole', 'stoat', 'badger', 'ermine', 'weasel'];

  beforeAll(async () => {
    // Nothing kept: every search ranks every space and makes every result anew. One CPU thread, so that a long read
    // on it leaves no thread free (the case of a search finding its thread busy).
    t = await startTestApp('sqlite', { searchRankingsBytes: 0, cpuThreads: 1 });
    org = await t.organization();
    const base = await t.listen();
    for (let s = 0; s < 12; s++) {
      const id = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: `Space ${s}` } })).body.id;
      const checkout = await Checkout.clone(spaceRemote(base, org.admin.token, id));
      for (let p = 0; p < 15; p++) {
        const word = (n: number) => WORDS[(s * 3 + p * 7 + n) % WORDS.length];
        const heading = p % 4 === 0 ? `\n## About the ${word(1)}\n\nThe ${word(2)} and the ${word(3)} meet.\n` : '';
        await checkout.write(`p${p}.md`, `# ${word(0)} ${p}\n\nA ${word(4)} saw a ${word(5)} near the ${word(s % 3)}.\n${heading}`);
      }
      await checkout.commitAndPush('animals');
      await checkout.dispose();
      await indexSearch(t.container.ctx, id);
      spaces.push(id);
    }
  });
  afterAll(async () => t?.close());

  const search = async (query: string) => {
    const res = await t.request('GET', `/v1/orgs/${org.id}/search`, { token: org.admin.token, query: { query } });
    expect(res.status).toBe(200);
    return res.body;
  };

  it('answers the same with its thread free (work split) and busy (all of it on the event loop)', async () => {
    const { cpu } = t.container.ctx;
    // A task answered: the pool's thread has started and is ready.
    await cpu.run('extractLinks', []);
    for (const query of ['otter', 'heron stoat', 'bea', 'ermine wea', 'vole about']) {
      expect(cpu.readyNow()).toBe(true);
      const split = await search(query);
      // The thread busy with a long read the whole time the second search runs: it does all of the work itself.
      let busy = true;
      const readOffLoop = cpu.run('readDatabase', {
        file: t.container.ctx.threadReadFile!,
        sql: 'with recursive n(x) as (select 1 union all select x + 1 from n where x < 3000000) select count(*) as c from n',
        parameters: [],
      }).finally(() => (busy = false));
      expect(cpu.readyNow()).toBe(false);
      const alone = await search(query);
      expect(busy, 'the long read outlasted the search').toBe(true);
      await readOffLoop;
      expect(split, query).toEqual(alone);
      expect(split.items.length, query).toBeGreaterThanOrEqual(8);
      expect(split.items.flatMap((space: any) => space.pages.flatMap((page: any) => page.sections)).length, query).toBeGreaterThan(0);
    }
  });

  it('does the thread\'s part itself when the thread fails it, with the same answer', async () => {
    const { ctx } = t.container;
    await ctx.cpu.run('extractLinks', []);
    const expected = await search('heron stoat');
    const file = ctx.threadReadFile;
    // A file the thread cannot open: its reads fail (the event loop's own connection is unaffected).
    ctx.threadReadFile = `${file}.missing`;
    try {
      expect(ctx.cpu.readyNow()).toBe(true);
      expect(await search('heron stoat')).toEqual(expected);
      await expect(ctx.cpu.run('rankSpaces', { file: ctx.threadReadFile, spaces: [], query: { whole: ['heron'], prefixes: [] }, k: 10 })).rejects.toThrow(/rankSpaces: /);
    } finally {
      ctx.threadReadFile = file;
    }
  });

  it('ranks and makes results on the thread as on the event loop (the tasks against the functions they run)', async () => {
    const { ctx } = t.container;
    const states = await searchStates(ctx.db, spaces);
    const all = spaces.map((spaceId) => ({ spaceId, key: states.get(spaceId)!.key }));
    for (const text of ['otter', 'heron stoat', 'bea']) {
      const query = engineQuery(queryTerms(text));
      const here = await rankWithTermLists(ctx.db, all, await readRankingBases(ctx.db, spaces), query, 10);
      const there = await ctx.cpu.run('rankSpaces', { file: ctx.threadReadFile!, spaces: all, query, k: 10 });
      expect(there.rows, text).toEqual(here);
      expect(there.spaces.sort(), text).toEqual([...spaces].sort());
      expect(here.length, text).toBeGreaterThan(20);
      const ranked = all.map(({ spaceId }) => ({ spaceId, docs: here.filter((row) => row.space_id === spaceId).map((row) => row.doc) }));
      const terms = new Map(spaces.map((spaceId) => [spaceId, queryTerms(text)]));
      const hits = await hitsOf(ctx.db, ranked, terms);
      expect(await ctx.cpu.run('searchHits', { file: ctx.threadReadFile!, ranked, terms }), text).toEqual(hits);
      expect([...hits.values()].flat().flatMap((hit) => hit.sections).length, text).toBeGreaterThan(0);
    }
  });
});

describe.each(DATABASE_KINDS)('search on the database engine (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let base: string;
  let guide: string;
  let german: string;
  let cjk: string;

  const find = (spaceId: string, query: string) => t.request('GET', `/v1/spaces/${spaceId}/search`, { token: org.admin.token, query: { query } });
  const titles = async (spaceId: string, query: string): Promise<string[]> => {
    const res = await find(spaceId, query);
    expect(res.status, query).toBe(200);
    return res.body.items.map((p: any) => p.title);
  };

  async function space(title: string, files: Record<string, string>): Promise<string> {
    const id = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title } })).body.id;
    const checkout = await Checkout.clone(spaceRemote(base, org.admin.token, id));
    for (const [file, content] of Object.entries(files)) await checkout.write(file, content);
    await checkout.commitAndPush('content');
    await checkout.dispose();
    await indexSearch(t.container.ctx, id);
    return id;
  }

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.organization();
    base = await t.listen();
    guide = await space('Guide', {
      'README.md': '# Guide\n\nThe tool is installed with one command.\n',
      'options.md': '# Options\n\nEvery configuration lives in one file.\n',
      'steps.md': '# Steps\n\nRead this first.\n\n## Getting ready\n\nInstalling takes a minute, then restart.\n',
      'notes.md': '# Notes\n\nA zeppelin is mentioned here, in the text only, among other words about travel.\n',
      'zeppelin.md': '# Zeppelin\n\nA page about airships.\n',
      'animals.md': '# Animals\n\nSmall ones.\n\n## Quokka\n\nIt smiles.\n',
      'mentions.md': `# Mentions\n\n${'A quokka here. '.repeat(20)}\n`,
    });
    german = await space('Handbuch', {
      'README.md':
        '# Willkommen\n\nDies ist die Dokumentation für das Projekt. Wir beschreiben, wie man die Software installiert und wie sie mit dem Server arbeitet. Es ist nicht schwer, aber es gibt einige Schritte, die man beachten muss.\n',
      'haus.md': '# Das Haus\n\nDas Haus hat einen Garten und eine Garage. Die Tür ist aus Holz, und der Keller ist trocken.\n',
    });
    cjk = await space('旅行', {
      'README.md': '# 旅行\n\n東京に行きます。\n',
      'study.md': '# 学习\n\n我们在北京大学学习计算机科学。\n',
      'korean.md': '# 한국어\n\n한국어를 배웁니다.\n',
    });
  });
  afterAll(async () => t?.close());

  it('finds words by their stem: installing finds installed, and excerpts show the stemmed match', async () => {
    expect(await titles(guide, 'installing')).toEqual(expect.arrayContaining(['Guide', 'Steps']));
    expect((await titles(guide, 'installing guide')).sort()).toEqual(['Guide', 'Steps']);
    const res = await find(guide, 'install');
    const steps = res.body.items.find((p: any) => p.title === 'Steps');
    expect(steps.sections.map((s: any) => [s.id, s.body])).toEqual([['getting-ready', 'Installing takes a minute, then restart.']]);
  });

  it('matches the last word as the start of words as written (configura finds configuration)', async () => {
    expect(await titles(guide, 'configura')).toEqual(['Options']);
    expect(await titles(guide, 'CONFIGURAT')).toEqual(['Options']);
    expect(await titles(guide, 'zep')).toEqual(['Zeppelin', 'Notes']);
  });

  it('ranks a title match above a heading match above mentions in the text, however many', async () => {
    expect(await titles(guide, 'zeppelin')).toEqual(['Zeppelin', 'Notes']);
    expect(await titles(guide, 'zeppelin airships')).toEqual(['Zeppelin', 'Notes']);
    expect(await titles(guide, 'quokka')).toEqual(['Animals', 'Mentions']);
    // `mentions` also finds Notes' `mentioned` (its text only).
    expect(await titles(guide, 'mentions quokka')).toEqual(['Mentions', 'Animals', 'Notes']);
  });

  it('tells the language of a space from its text and stems queries in it: Häuser finds Haus in German', async () => {
    const languages = await t.container.ctx.db.selectFrom('search_spaces').select(['space_id', 'language']).where('space_id', 'in', [guide, german, cjk]).execute();
    expect(Object.fromEntries(languages.map((row) => [row.space_id, row.language]))).toEqual({ [guide]: 'en', [german]: 'de', [cjk]: 'en' });
    expect(await titles(german, 'Häuser')).toEqual(['Das Haus']);
    expect(await titles(german, 'hauser')).toEqual(['Das Haus']);
    // German stop words are left out of a German query that has other words.
    expect(await titles(german, 'das Haus')).toEqual(['Das Haus']);
    // English stemming would not: `hauser` is its own stem in English.
    expect(await titles(guide, 'Häuser')).toEqual([]);
    // An organization search stems the query in each space's language.
    const across = async (query: string) =>
      (await t.request('GET', `/v1/orgs/${org.id}/search`, { token: org.admin.token, query: { query } })).body.items.map((s: any) => [s.id, s.pages.map((p: any) => p.title)]);
    expect(await across('Häuser')).toEqual([[german, ['Das Haus']]]);
    expect(await across('installing häuser')).toEqual(expect.arrayContaining([[german, ['Das Haus']], [guide, expect.arrayContaining(['Guide', 'Steps'])]]));
  });

  it('finds Chinese and Japanese words inside unspaced sentences, and Korean words', async () => {
    expect(await titles(cjk, '東京')).toEqual(['旅行']);
    expect(await titles(cjk, '北京')).toEqual(['学习']);
    expect(await titles(cjk, '计算机')).toEqual(['学习']);
    expect(await titles(cjk, '한국어')).toEqual(['한국어']);
    expect(await titles(cjk, '大阪')).toEqual([]);
    const [hit] = (await find(cjk, '北京')).body.items;
    expect(hit.sections).toEqual([]);
    const across = await t.request('GET', `/v1/orgs/${org.id}/search`, { token: org.admin.token, query: { query: '東京' } });
    expect(across.body.items.map((s: any) => s.id)).toEqual([cjk]);
  });

  it('treats FTS5 and tsquery syntax in a query as plain words, and a query of punctuation only finds nothing', async () => {
    for (const query of ['"zeppelin', 'zeppelin"', '"zeppelin"', 'zeppelin*', '(zeppelin)', 'zeppelin OR', 'NEAR(zeppelin airships)', '-zeppelin', 'title:zeppelin', "zeppelin'", 'zeppelin & !', 'zeppelin:*', '{title}: zeppelin', 'NOT AND zeppelin', 'zeppelin^2']) {
      const found = await titles(guide, query);
      expect(found[0], query).toBe('Zeppelin');
    }
    for (const query of ['"', '*', '-', ':', '()', "'", '!', '&|', '^', '""', '\\', '?!', '…']) {
      expect(await titles(guide, query), query).toEqual([]);
      const across = await t.request('GET', `/v1/orgs/${org.id}/search`, { token: org.admin.token, query: { query } });
      expect(across.status, query).toBe(200);
      expect(across.body.items, query).toEqual([]);
    }
    for (const query of ['OR', 'NEAR(', 'AND', 'NOT', 'or zeppelin']) expect((await find(guide, query)).status, query).toBe(200);
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
  async function searchFinds(query: string, expected: string[]): Promise<void> {
    await waitFor(() => find(query), { until: (found) => JSON.stringify(found) === JSON.stringify(expected), what: `search for "${query}" to find ${JSON.stringify(expected)}` });
  }

  it('indexes main after each push, page by page, and does nothing when the index is current', async () => {
    await checkout.write('README.md', '# Jobs\n\nNothing yet.\n');
    await checkout.commitAndPush('first');
    await searchFinds('nothing', ['Jobs']);

    await checkout.write('zephyr.md', '# Zephyr\n\nA westerly wind.\n');
    await checkout.write('README.md', '# Jobs\n\nSee the wind.\n');
    const second = await checkout.commitAndPush('second');
    await searchFinds('westerly', ['Zephyr']);
    await searchFinds('nothing', []);
    const state = await t.container.ctx.db.selectFrom('search_spaces').select('commit_oid').where('space_id', '=', spaceId).executeTakeFirst();
    expect(state?.commit_oid).toBe(second);
    expect(await indexSearch(t.container.ctx, spaceId)).toBe('current');

    await checkout.remove('zephyr.md');
    await checkout.commitAndPush('third');
    await searchFinds('westerly', []);
  });

  it('never puts an older revision over a newer one: an indexing that began before main moved writes nothing', async () => {
    await checkout.write('older.md', '# Older\n\nQuixotic windmills.\n');
    const older = await checkout.commitAndPush('older');
    await searchFinds('quixotic', ['Older']);
    await checkout.write('newer.md', '# Newer\n\nPhlegmatic tortoises.\n');
    const newer = await checkout.commitAndPush('newer');
    await searchFinds('phlegmatic', ['Newer']);
    // A job that resolved main before the push ends now (a worker running two jobs of the space at once).
    expect(await indexSearchAt(t.container.ctx, spaceId, older)).toBe('superseded');
    const state = await t.container.ctx.db.selectFrom('search_spaces').select('commit_oid').where('space_id', '=', spaceId).executeTakeFirst();
    expect(state?.commit_oid).toBe(newer);
    await searchFinds('phlegmatic', ['Newer']);
  });
});
