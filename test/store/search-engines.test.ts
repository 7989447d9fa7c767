import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { indexSearch } from '../../src/domain/search/search-indexing.js';
import { SEARCH_VERSION } from '../../src/domain/content/refs.js';
import { engineQuery } from '../../src/domain/search/search-queries.js';
import { queryTerms } from '../../src/content/search-text.js';
import { fts5Query, rankPages, searchRowCounts, searchStates, tsqueryLiteral, tsvectorLiteral } from '../../src/store/sql/search.js';
import { deleteSpaceRow } from '../../src/store/sql/spaces.js';
import { cachedRevision, RevisionCache } from '../../src/domain/content/revisions.js';

describe('engine queries and documents', () => {
  it('quotes every token: FTS5 strings with " doubled, tsquery and tsvector lexemes with \' doubled', () => {
    expect(fts5Query({ whole: ['install', 'a"b'], prefixes: ['conf'] })).toBe('"install" OR "a""b" OR "conf"*');
    expect(tsqueryLiteral({ whole: ['install', "it's"], prefixes: ['conf'] })).toBe("'install' | 'it''s' | 'conf':*");
    expect(tsvectorLiteral({ title: 'install', headings: 'configuring/configur', body: 'install it\\s' })).toBe("'install':1A,3C 'configuring':2B 'configur':2B 'it\\\\s':4C");
  });

  it('keeps the first positions of a lexeme, and a huge page under the size PostgreSQL takes', () => {
    const literal = tsvectorLiteral({ title: 'word', headings: '', body: Array.from({ length: 20 }, () => 'word').join(' ') });
    expect(literal).toBe(`'word':1A,${Array.from({ length: 7 }, (_, i) => `${i + 2}C`).join(',')}`);
    const huge = Array.from({ length: 120_000 }, (_, i) => `w${i.toString(36)}x${i}`).join(' ');
    expect(tsvectorLiteral({ title: '', headings: '', body: huge }).length).toBeLessThan(1_000_000);
  });
});

describe.each(DATABASE_KINDS)('the search index rows (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let base: string;

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.organization();
    base = await t.listen();
  });
  afterAll(async () => t?.close());

  async function newSpace(title: string): Promise<{ id: string; checkout: Checkout }> {
    const id = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title } })).body.id;
    return { id, checkout: await Checkout.clone(spaceRemote(base, org.admin.token, id)) };
  }

  /** Each page's number in the index and path, by page path (a page written again gets a new number). */
  async function docs(spaceId: string): Promise<Map<string, { doc: number; id: string; path: string }>> {
    const rows = await t.container.ctx.db
      .selectFrom('search_pages as p')
      .innerJoin('search_results as r', 'r.doc', 'p.doc')
      .select(['p.page_id', 'p.doc', 'r.path'])
      .where('p.space_id', '=', spaceId)
      .execute();
    return new Map(rows.map((row) => [row.page_id, { doc: Number(row.doc), id: row.page_id, path: row.path }]));
  }

  const search = async (spaceId: string, query: string): Promise<string[]> =>
    (await t.request('GET', `/v1/spaces/${spaceId}/search`, { token: org.admin.token, query: { query } })).body.items.map((p: any) => p.title);

  it('rewrites only the rows of the page that changed; a moved page keeps its rows and gets its new path', async () => {
    const { id, checkout } = await newSpace('Incremental');
    await checkout.write('README.md', '# Home\n\nWelcome aboard.\n');
    await checkout.write('alpha.md', '# Alpha\n\nThe first page.\n');
    await checkout.write('beta.md', '# Beta\n\nThe second page.\n');
    await checkout.write('gamma.md', '# Gamma\n\nThe third page.\n');
    await checkout.commitAndPush('four pages');
    expect(['indexed', 'current']).toContain(await indexSearch(t.container.ctx, id));
    const before = await docs(id);
    expect(before.size).toBe(4);
    expect(await searchRowCounts(t.container.ctx.db, id)).toMatchObject({ pages: 4, engine: 4 });

    await checkout.write('beta.md', '# Beta\n\nThe second page, now about kangaroos.\n');
    await checkout.git('mv', 'gamma.md', 'moved-gamma.md');
    await checkout.commitAndPush('one change, one move');
    expect(['indexed', 'current']).toContain(await indexSearch(t.container.ctx, id));
    const after = await docs(id);
    const byTitle = async (title: string) =>
      (await t.container.ctx.db.selectFrom('search_pages as p').innerJoin('search_results as r', 'r.doc', 'p.doc').select('p.page_id').where('p.space_id', '=', id).where('r.title', '=', title).executeTakeFirstOrThrow()).page_id;
    const [home, alpha, beta, gamma] = await Promise.all(['Home', 'Alpha', 'Beta', 'Gamma'].map(byTitle));
    expect(after.get(home)!.doc).toBe(before.get(home)!.doc);
    expect(after.get(alpha)!.doc).toBe(before.get(alpha)!.doc);
    expect(after.get(beta)!.doc).not.toBe(before.get(beta)!.doc);
    expect(after.get(gamma)).toEqual({ ...before.get(gamma)!, path: 'moved-gamma' });
    expect(await searchRowCounts(t.container.ctx.db, id)).toMatchObject({ pages: 4, engine: 4 });
    expect(await search(id, 'kangaroos')).toEqual(['Beta']);
    expect(await search(id, 'third')).toEqual(['Gamma']);
    expect((await t.request('GET', `/v1/spaces/${id}/search`, { token: org.admin.token, query: { query: 'third' } })).body.items[0].path).toBe('moved-gamma');
    expect(await indexSearch(t.container.ctx, id)).toBe('current');

    // Rows of older rules are all made again. The push's own indexing job must be done first: run after the version
    // is lowered, it would make the rows again itself, and the call below would find them current.
    await t.container.ctx.jobs.idle();
    await t.container.ctx.db.updateTable('search_spaces').set({ version: SEARCH_VERSION - 1 }).where('space_id', '=', id).execute();
    expect(await indexSearch(t.container.ctx, id)).toBe('indexed');
    const redone = await docs(id);
    for (const [pageId, row] of after) expect(redone.get(pageId)!.doc, pageId).not.toBe(row.doc);
    expect(await searchRowCounts(t.container.ctx.db, id)).toMatchObject({ pages: 4, engine: 4 });
    await checkout.dispose();
  });

  it('writes a big indexing in parts, and finishes one that stopped half-way from the rows it wrote', async () => {
    const { id, checkout } = await newSpace('Big');
    for (let i = 0; i < 600; i++) await checkout.write(`part-${Math.floor(i / 100)}/page-${i}.md`, `# Page ${i}\n\nMarker${i} and shared words.\n`);
    await checkout.commitAndPush('600 pages');
    const main = (await checkout.git('rev-parse', 'HEAD')).trim();
    await t.container.ctx.jobs.idle();
    expect(['indexed', 'current']).toContain(await indexSearch(t.container.ctx, id));
    expect((await searchStates(t.container.ctx.db, [id])).get(id)?.commit_oid).toBe(main);
    expect(await searchRowCounts(t.container.ctx.db, id)).toMatchObject({ pages: 601, engine: 601 });
    const written = await docs(id);
    expect(await search(id, 'Marker599')).toEqual(['Page 599']);
    expect(await search(id, 'Marker0')).toEqual(['Page 0']);

    // An indexing that wrote its first parts and stopped leaves a state naming no commit: the next one keeps the rows
    // written (their numbers stay) and writes the others.
    await t.container.ctx.db.updateTable('search_spaces').set({ commit_oid: '' }).where('space_id', '=', id).execute();
    expect(await indexSearch(t.container.ctx, id)).toBe('indexed');
    expect((await searchStates(t.container.ctx.db, [id])).get(id)?.commit_oid).toBe(main);
    expect(await docs(id)).toEqual(written);
    expect(await search(id, 'Marker599')).toEqual(['Page 599']);
    await checkout.dispose();
  }, 300_000);

  it('indexes each revision of a history from the one before in memory, to the rows of an indexing that reads every stored row', async () => {
    // Two spaces get the same commits (pushed straight into their repositories: no job indexes them). The first is
    // indexed with the revision before still in memory (the pages told apart by comparing the two revisions); the
    // second with nothing in memory (every stored row read and compared). Their rows must be the same at each step.
    const ctx = t.container.ctx;
    const spaces = await Promise.all(['Compared', 'Read'].map(async (title) => {
      const id = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title } })).body.id as string;
      return { id, checkout: await Checkout.clone(t.container.git.repositoryPath(id)) };
    }));
    const [compared, read] = spaces;
    const kept = ctx.revisions;
    const toc = (items: string[]) => `# Table of contents\n\n${items.join('\n')}\n`;
    const german = (topic: string) => `# ${topic}\n\nDas ist die Seite über ${topic}. Wir haben hier nicht viel, aber es ist auch nicht wenig, und das ist gut so.\n`;
    const steps: Array<{ name: string; files: Record<string, string | null>; moves?: Array<[string, string]> }> = [
      {
        name: 'four pages',
        files: {
          'SUMMARY.md': toc(['* [Home](README.md)', '* [Alpha](alpha.md)', '* [Beta](beta.md)', '* [Gamma](gamma.md)']),
          'README.md': '# Home\n\nWelcome aboard.\n',
          'alpha.md': '# Alpha\n\nFirst page.\n',
          'beta.md': '# Beta\n\nSecond page.\n',
          'gamma.md': '# Gamma\n\nThird page.\n',
        },
      },
      {
        name: 'an edit, a move, a title changed in the table of contents only',
        files: {
          'beta.md': '# Beta\n\nSecond page, kangaroos.\n',
          'SUMMARY.md': toc(['* [Home](README.md)', '* [Alpha renamed](alpha.md)', '* [Beta](beta.md)', '* [Gamma](guide/gamma.md)']),
        },
        moves: [['gamma.md', 'guide/gamma.md']],
      },
      {
        name: 'a page deleted, one added',
        files: {
          'alpha.md': null,
          'delta.md': '# Delta\n\nFourth page.\n',
          'SUMMARY.md': toc(['* [Home](README.md)', '* [Beta](beta.md)', '* [Gamma](guide/gamma.md)', '* [Delta](delta.md)']),
        },
      },
      {
        name: 'German pages: the space turns German',
        files: {
          'haus.md': german('Haus'),
          'garten.md': german('Garten'),
          'keller.md': german('Keller'),
          'SUMMARY.md': toc(['* [Home](README.md)', '* [Beta](beta.md)', '* [Gamma](guide/gamma.md)', '* [Delta](delta.md)', '* [Haus](haus.md)', '* [Garten](garten.md)', '* [Keller](keller.md)']),
        },
      },
      {
        name: 'German pages gone, English written: it turns English again',
        files: {
          'garten.md': null,
          'keller.md': null,
          'haus.md': '# Haus\n\nThis is the page about the house. It is in English now, and it is about what the house is and what it is not, as the others were.\n',
          'SUMMARY.md': toc(['* [Home](README.md)', '* [Beta](beta.md)', '* [Gamma](guide/gamma.md)', '* [Delta](delta.md)', '* [Haus](haus.md)']),
        },
      },
    ];
    const dump = async (spaceId: string) => ({
      state: await ctx.db.selectFrom('search_spaces').select(['language', 'version']).where('space_id', '=', spaceId).executeTakeFirstOrThrow(),
      pages: (
        await ctx.db
          .selectFrom('search_pages as p')
          .innerJoin('search_results as r', 'r.doc', 'p.doc')
          .select(['r.path', 'r.title', 'p.signature', 'p.language', 'p.stop_words'])
          .where('p.space_id', '=', spaceId)
          .execute()
      )
        .map((row) => ({ ...row, stop_words: Number(row.stop_words) }))
        .sort((a, b) => (a.path < b.path ? -1 : 1)),
      counts: await searchRowCounts(ctx.db, spaceId).then(({ pages, engine }) => ({ pages, engine })),
      found: await Promise.all(['kangaroos', 'page', 'haus', 'häuser', 'renamed'].map((query) => search(spaceId, query))),
    });
    const languages: string[] = [];
    try {
      for (const step of steps) {
        const commits: string[] = [];
        for (const { checkout } of spaces) {
          for (const [from, to] of step.moves ?? []) {
            await checkout.write(to, await checkout.read(from));
            await checkout.remove(from);
          }
          for (const [file, content] of Object.entries(step.files)) {
            if (content === null) await checkout.remove(file);
            else await checkout.write(file, content);
          }
          commits.push(await checkout.commitAndPush(step.name));
        }
        const previous = await searchStates(ctx.db, [compared.id]);
        // The revision before is in memory: it was indexed (and so loaded) by the step before.
        if (previous.has(compared.id)) expect(await cachedRevision(ctx, compared.id, previous.get(compared.id)!.commit_oid), step.name).toBeDefined();
        ctx.revisions = kept;
        expect(await indexSearch(ctx, compared.id), step.name).toBe('indexed');
        ctx.revisions = new RevisionCache();
        expect(await indexSearch(ctx, read.id), step.name).toBe('indexed');
        ctx.revisions = kept;
        const [a, b] = [await dump(compared.id), await dump(read.id)];
        expect(a, step.name).toEqual(b);
        languages.push(a.state.language);
      }
    } finally {
      ctx.revisions = kept;
      for (const { checkout } of spaces) await checkout.dispose();
    }
    // The history does what it is meant to: the language turns, and back.
    expect(languages).toEqual(['en', 'en', 'en', 'de', 'en']);
  });

  it('tells the language again as pages come: a space created empty turns German with German pages, stemmed anew', async () => {
    const { id, checkout } = await newSpace('Sprachen');
    await checkout.write('README.md', '# Start\n\nNothing yet.\n');
    await checkout.commitAndPush('empty');
    await indexSearch(t.container.ctx, id);
    const language = async () => (await t.container.ctx.db.selectFrom('search_spaces').select('language').where('space_id', '=', id).executeTakeFirstOrThrow()).language;
    expect(await language()).toBe('en');
    const start = await docs(id);
    await checkout.write('haus.md', '# Das Haus\n\nDas Haus hat einen Garten und eine Garage. Die Tür ist aus Holz, und der Keller ist trocken.\n');
    await checkout.write('server.md', '# Der Server\n\nWir beschreiben, wie man die Software installiert und wie sie mit dem Server arbeitet. Es ist nicht schwer.\n');
    await checkout.commitAndPush('deutsch');
    await indexSearch(t.container.ctx, id);
    expect(await language()).toBe('de');
    // Every page stemmed in German: the old English rows were rewritten too.
    const [readme] = [...start.keys()];
    expect((await docs(id)).get(readme)!.doc).not.toBe(start.get(readme)!.doc);
    expect(await search(id, 'Häuser')).toEqual(['Das Haus']);
    // One English page more changes nothing.
    await checkout.write('english.md', '# English\n\nThis page is in English, and it is about the house and the garden, which is what the others are about.\n');
    await checkout.commitAndPush('english');
    await indexSearch(t.container.ctx, id);
    expect(await language()).toBe('de');
    await checkout.dispose();
  });

  it('ranks a space\'s and an organization\'s search from term lists; the engine through the context\'s long read (SQLite: on a CPU pool thread) as the process\'s own connection', async () => {
    const spaces = [];
    for (const title of ['Ranked one', 'Ranked two']) {
      const { id, checkout } = await newSpace(title);
      await checkout.write('README.md', `# ${title}\n\nAn otter guide.\n`);
      await checkout.write('otters.md', '# Otters\n\nOtters, otters and more otters.\n');
      await checkout.write('rivers.md', '# Rivers\n\nWhere an otter swims.\n');
      await checkout.commitAndPush('otters');
      await checkout.dispose();
      await indexSearch(t.container.ctx, id);
      spaces.push({ spaceId: id, key: (await searchStates(t.container.ctx.db, [id])).get(id)!.key });
    }
    const run = vi.spyOn(t.container.ctx.cpu, 'run');
    try {
      const found = await t.request('GET', `/v1/orgs/${org.id}/search`, { token: org.admin.token, query: { query: 'otter' } });
      expect(found.status).toBe(200);
      const ranked = found.body.items.filter((hit: any) => hit.title.startsWith('Ranked ')).map((hit: any) => [hit.title, hit.pages.map((page: any) => page.title).sort()]);
      expect(new Map(ranked)).toEqual(
        new Map([
          ['Ranked one', ['Otters', 'Ranked one', 'Rivers']],
          ['Ranked two', ['Otters', 'Ranked two', 'Rivers']],
        ]),
      );
      // The organization's spaces were ranked from their term lists, and so is a space's own search: no engine query
      // (SQLite would send it to the thread).
      const engineReads = () => run.mock.calls.filter(([task]) => task === 'readDatabase').map(([, input]) => (input as { sql: string }).sql);
      expect(engineReads()).toEqual([]);
      const inSpace = await t.request('GET', `/v1/spaces/${spaces[0].spaceId}/search`, { token: org.admin.token, query: { query: 'otter' } });
      expect(inSpace.body.items.map((page: any) => page.title).sort()).toEqual(['Otters', 'Ranked one', 'Rivers']);
      expect(engineReads()).toEqual([]);
      // The engine ranks as the process's own connection does through the long read (SQLite: on the thread), for the
      // spaces without term lists (indexed by an earlier version).
      const query = engineQuery(queryTerms('otter'));
      const own = await rankPages(t.container.ctx.db, spaces, query, 10);
      expect(own.map((page) => page.doc)).toHaveLength(6);
      expect(await rankPages(t.container.ctx.db, spaces, query, 10, undefined, t.container.ctx.readOffLoop)).toEqual(own);
    } finally {
      run.mockRestore();
    }
  });

  it('takes a purged space\'s rows with it, engine rows and term lists included', async () => {
    const { id, checkout } = await newSpace('Doomed');
    await checkout.write('README.md', '# Doomed\n\nSoon gone.\n');
    await checkout.commitAndPush('content');
    await checkout.dispose();
    await indexSearch(t.container.ctx, id);
    const key = Number((await t.container.ctx.db.selectFrom('search_spaces').select('key').where('space_id', '=', id).executeTakeFirstOrThrow()).key);
    expect((await searchRowCounts(t.container.ctx.db, id)).engine).toBe(1);
    const terms = () => t.container.ctx.db.selectFrom('search_terms').select('term').where('space_id', '=', id).execute();
    expect((await terms()).length).toBeGreaterThan(0);
    await deleteSpaceRow(t.container.ctx.db, id);
    expect(await t.container.ctx.db.selectFrom('search_pages').select('doc').where('space_id', '=', id).execute()).toEqual([]);
    expect(await terms()).toEqual([]);
    if (kind === 'sqlite') {
      const { sql } = await import('kysely');
      const left = await sql<{ n: number }>`select count(*) as n from search_fts_docsize where id between ${key * 2 ** 24} and ${(key + 1) * 2 ** 24 - 1}`.execute(t.container.ctx.db);
      expect(Number(left.rows[0].n)).toBe(0);
    }
  });
});
