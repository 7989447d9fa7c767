import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { engineQuery } from '../../src/domain/search/search-queries.js';
import { indexSearch } from '../../src/domain/search/search-indexing.js';
import { pageRows } from '../../src/content/search-ranking.js';
import { RankingBase, rankSpace, SpaceRanker } from '../../src/content/term-ranking.js';
import { loadRevision } from '../../src/domain/content/revisions.js';
import { MAIN_REF, SEARCH_VERSION } from '../../src/domain/content/refs.js';
import { queryTerms } from '../../src/content/search-text.js';
import { DOCS_PER_SPACE, rankPages, searchStates } from '../../src/store/sql/search.js';
import { decodePairs, encodePairs, hasPrefixList, isPrefixListTerm, pageTerms, postingCode, prefixListTerm, termDocs, termLists, updateTermLists } from '../../src/store/sql/search-terms.js';
import type { DocumentPage } from '../../src/content/model.js';

describe('term list encoding', () => {
  it('decodes what it encoded, large numbers and values included, and an appended part continues the list', () => {
    const docs = [1, 2, 130, 16_384, 2 ** 24 - 1];
    const values = [0, 127, 128, 2 ** 21, 2 ** 30 + 5];
    const whole = encodePairs(docs, values);
    const decoded = decodePairs(whole);
    expect([...decoded.docs]).toEqual(docs);
    expect([...decoded.values]).toEqual(values);
    const appended = Buffer.concat([encodePairs(docs.slice(0, 2), values.slice(0, 2)), encodePairs(docs.slice(2), values.slice(2), docs[1])]);
    expect(appended.equals(whole)).toBe(true);
    expect(decodePairs(Buffer.alloc(0)).docs).toHaveLength(0);
  });

  it('counts a page\'s tokens by field weight, with the tier of its best field; stems count as tokens', () => {
    const terms = pageTerms({ title: 'install guide', headings: 'installing/instal', body: 'install install guide zebra' });
    expect(terms.length).toBe(8);
    expect(terms.codes.get('install')).toBe(postingCode(10 + 2, 2));
    expect(terms.codes.get('installing')).toBe(postingCode(5, 1));
    expect(terms.codes.get('instal')).toBe(postingCode(5, 1));
    expect(terms.codes.get('guide')).toBe(postingCode(11, 2));
    expect(terms.codes.get('zebra')).toBe(postingCode(1, 0));
    // The lists of the tokens' first two and three characters: their weighted counts added up, their best tier.
    expect(terms.codes.get(prefixListTerm('in'))).toBe(postingCode(12 + 5 + 5, 2));
    expect(terms.codes.get(prefixListTerm('ins'))).toBe(postingCode(12 + 5 + 5, 2));
    expect(terms.codes.get(prefixListTerm('inst'))).toBeUndefined();
    expect(terms.codes.get(prefixListTerm('gui'))).toBe(postingCode(11, 2));
    expect(terms.codes.get(prefixListTerm('ze'))).toBe(postingCode(1, 0));
    expect(terms.length).toBe(8);
  });

  it('lists the starts of tokens by characters, not UTF-16 units; only starts of two and three have lists', () => {
    const terms = pageTerms({ title: '', headings: '', body: 'a 𠀀𠀁x 東京' });
    expect([...terms.codes.keys()].filter(isPrefixListTerm).sort()).toEqual([prefixListTerm('東京'), prefixListTerm('𠀀𠀁'), prefixListTerm('𠀀𠀁x')].sort());
    expect(['in', 'ins', '東京', '𠀀𠀁'].map(hasPrefixList)).toEqual([true, true, true, true]);
    expect(['i', 'inst', '𠀀', '東京都の'].map(hasPrefixList)).toEqual([false, false, false, false]);
  });
});

describe('ranking from term lists, pure', () => {
  it('ranks the same whether page numbers are close (a slot per number) or spread wide (a search in the live ones), gone pages skipped', () => {
    const next = random(11);
    const pages = 300;
    // Lists over pages 1..pages, with postings of gone pages (not live) in between.
    const lengths = Array.from({ length: pages }, () => 5 + Math.floor(next() * 200));
    const lists = new Map<string, Array<[number, number]>>();
    for (const token of ['install', 'instal', 'installing', 'deploy', 'cluster']) {
      const postings: Array<[number, number]> = [];
      for (let n = 1; n <= pages; n++) if (next() < 0.4) postings.push([n, postingCode(1 + Math.floor(next() * 30), Math.floor(next() * 3))]);
      lists.set(token, postings);
    }
    const gone = new Set([3, 50, 51, 299]);
    const rank = (number: (n: number) => number, text: string) => {
      const live = [...lengths.keys()].map((i) => i + 1).filter((n) => !gone.has(n));
      const docs = { docs: Int32Array.from(live.map(number)), values: Int32Array.from(live.map((n) => lengths[n - 1])) };
      const encoded = new Map([...lists].map(([token, postings]) => [token, encodePairs(postings.map(([n]) => number(n)), postings.map(([, code]) => code))]));
      return rankSpace(docs, encoded, engineQuery(queryTerms(text)), 15).map((r) => ({ ...r, n: live[live.map(number).indexOf(r.n)] }));
    };
    for (const text of ['install', 'inst', 'deploy cluster', 'cluster install']) {
      const close = rank((n) => n, text);
      expect(close.length, text).toBe(15);
      expect(close.some((r) => gone.has(r.n)), text).toBe(false);
      // 1, 100001, 200001…: far wider than 8 numbers a page.
      expect(rank((n) => (n - 1) * 100_000 + 1, text), text).toEqual(close);
    }
  });
});

// A small corpus with words at varied frequencies, in titles, headings and text, with inflected forms (stems).
const WORDS = 'install installing installed installation configure configuration deploy deployment cluster replica token tokens webhook schema migrate backup restore audit quota region gateway sandbox instance insight'.split(' ');

function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function pageText(i: number, seed: number): string {
  const next = random(seed * 7919 + i);
  const word = () => WORDS[Math.floor(next() ** 2 * WORDS.length)];
  let text = `# ${word()} ${i}\n\n`;
  for (let p = 0; p < 1 + Math.floor(next() * 5); p++) {
    if (next() < 0.3) text += `## ${word()} notes\n\n`;
    text += `${Array.from({ length: 3 + Math.floor(next() * 25) }, word).join(' ')}.\n\n`;
  }
  return text;
}

/** A new space of the organization and a clone of it over HTTP. */
async function spaceWithCheckout(t: TestApp, org: Awaited<ReturnType<TestApp['organization']>>, base: string, title: string): Promise<{ id: string; checkout: Checkout }> {
  const id = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title } })).body.id;
  return { id, checkout: await Checkout.clone(spaceRemote(base, org.admin.token, id)) };
}

const QUERIES = ['install', 'installing', 'deploy cluster', 'token webhook schema', 'inst', 'in', 'con', 'gateway', 'zebra', 'replica in'];

describe.each(DATABASE_KINDS)('term lists (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let base: string;

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.organization();
    base = await t.listen();
  });
  afterAll(async () => t?.close());

  const newSpace = (title: string) => spaceWithCheckout(t, org, base, title);

  /** A new space holding `files` (path: markdown), pushed and indexed for search; its id. */
  async function indexedSpace(title: string, files: Record<string, string>): Promise<string> {
    const { id, checkout } = await newSpace(title);
    for (const [file, text] of Object.entries(files)) await checkout.write(file, text);
    await checkout.commitAndPush(title);
    await checkout.dispose();
    await indexSearch(t.container.ctx, id);
    return id;
  }

  /** The titles of the space's pages in the organization search for `query`, in the answer's order. */
  const titlesFound = async (spaceId: string, query: string): Promise<string[]> =>
    ((await t.request('GET', `/v1/orgs/${org.id}/search`, { token: org.admin.token, query: { query } })).body.items.find((hit: any) => hit.id === spaceId)?.pages ?? []).map(
      (page: any) => page.title,
    );

  /** Each token's postings as stored (live pages only, by page id), and as made afresh from main's pages. */
  async function storedAndFresh(spaceId: string) {
    const ctx = t.container.ctx;
    const key = (await searchStates(ctx.db, [spaceId])).get(spaceId)!.key;
    const pageOf = new Map((await ctx.db.selectFrom('search_pages').select(['doc', 'page_id']).where('space_id', '=', spaceId).execute()).map((r) => [Number(r.doc) - key * DOCS_PER_SPACE, r.page_id]));
    const rows = await ctx.db.selectFrom('search_terms').select(['term', 'postings', 'last_doc']).where('space_id', '=', spaceId).execute();
    const space = (await ctx.db.selectFrom('search_spaces').select(['docs', 'dead_docs', 'last_doc']).where('space_id', '=', spaceId).executeTakeFirstOrThrow());
    const live = decodePairs(space.docs!);
    const stored = new Map<string, Map<string, number>>();
    let deadPostings = 0;
    for (const row of rows) {
      const { docs, values } = decodePairs(row.postings);
      expect(Number(row.last_doc)).toBe(docs[docs.length - 1]);
      expect(Number(row.last_doc)).toBeLessThanOrEqual(Number(space.last_doc));
      docs.forEach((n, i) => {
        const pageId = live.docs.includes(n) ? pageOf.get(n) : undefined;
        if (!pageId) return void deadPostings++;
        if (!stored.has(row.term)) stored.set(row.term, new Map());
        stored.get(row.term)!.set(pageId, values[i]);
      });
    }
    const revision = await loadRevision(ctx, spaceId, (await ctx.reader.resolveRef(spaceId, MAIN_REF))!, { final: true });
    const fresh = new Map<string, Map<string, number>>();
    const lengths = new Map<string, number>();
    for (const page of revision.pagesById.values()) {
      if (page.type !== 'document') continue;
      const terms = pageTerms(pageRows(page as DocumentPage).tokens);
      lengths.set(page.id, terms.length);
      for (const [term, code] of terms.codes) {
        if (!fresh.has(term)) fresh.set(term, new Map());
        fresh.get(term)!.set(page.id, code);
      }
    }
    const storedLengths = new Map([...live.docs].map((n, i) => [pageOf.get(n)!, live.values[i]]));
    // The same lists made afresh, under the stored numbers of the live pages (no gone page's postings in them).
    const numberOf = new Map([...live.docs].map((n) => [pageOf.get(n)!, n]));
    const freshLists = new Map<string, Buffer>();
    for (const [term, pages] of fresh) {
      const sorted = [...pages].map(([pageId, code]) => [numberOf.get(pageId)!, code]).sort((x, y) => x[0] - y[0]);
      freshLists.set(term, encodePairs(sorted.map((p) => p[0]), sorted.map((p) => p[1])));
    }
    const rankingsAgree = async () => {
      for (const text of QUERIES) {
        const query = engineQuery(queryTerms(text));
        const lists = (await termLists(ctx.db, [spaceId], query)).get(spaceId)!;
        expect(rankSpace(live, lists, query, 1000), text).toEqual(rankSpace(live, freshLists, query, 1000));
      }
    };
    return { stored, fresh, lengths, storedLengths, deadPostings, deadDocs: Number(space.dead_docs), rankingsAgree };
  }

  it('keeps each token\'s postings equal to those made afresh through edits, moves and deletions, and compacts gone pages away', async () => {
    const { id, checkout } = await newSpace('Lists');
    for (let i = 0; i < 12; i++) await checkout.write(`page-${i}.md`, pageText(i, 1));
    await checkout.commitAndPush('pages');
    await indexSearch(t.container.ctx, id);
    let state = await storedAndFresh(id);
    expect(state.stored).toEqual(state.fresh);
    expect(state.storedLengths).toEqual(state.lengths);
    expect(state.deadPostings).toBe(0);

    // Edits, a move and a deletion: the gone versions' postings stay (not live) until compacted.
    await checkout.write('page-1.md', pageText(1, 2));
    await checkout.write('page-2.md', pageText(2, 2));
    await checkout.git('mv', 'page-3.md', 'moved-3.md');
    await checkout.git('rm', '-q', 'page-11.md');
    await checkout.commitAndPush('edits');
    await indexSearch(t.container.ctx, id);
    state = await storedAndFresh(id);
    expect(state.stored).toEqual(state.fresh);
    expect(state.storedLengths).toEqual(state.lengths);
    expect(state.deadDocs).toBe(3);
    expect(state.deadPostings).toBeGreaterThan(0);
    // Ranked from the lists as stored (gone pages' postings skipped), as from lists without them.
    await state.rankingsAgree();

    // The page with the highest number went: a page written now takes a number above it, not its number again.
    const highest = async () => Number((await t.container.ctx.db.selectFrom('search_pages').select((eb) => eb.fn.max('doc').as('doc')).where('space_id', '=', id).executeTakeFirstOrThrow()).doc);
    const before = await highest();
    await checkout.git('rm', '-q', 'page-2.md');
    await checkout.commitAndPush('remove the newest');
    await indexSearch(t.container.ctx, id);
    await checkout.write('page-new.md', pageText(99, 3));
    await checkout.commitAndPush('a new page');
    await indexSearch(t.container.ctx, id);
    expect(await highest()).toBeGreaterThan(before);
    state = await storedAndFresh(id);
    expect(state.stored).toEqual(state.fresh);

    // Many edits: once gone pages outnumber live ones (and 64), the lists are rewritten without them.
    let compacted = false;
    for (let round = 0; round < 10; round++) {
      for (let i = 4; i < 11; i++) await checkout.write(`page-${i}.md`, pageText(i, 10 + round));
      await checkout.commitAndPush(`round ${round}`);
      await indexSearch(t.container.ctx, id);
      const previous = state.deadDocs;
      state = await storedAndFresh(id);
      expect(state.stored).toEqual(state.fresh);
      expect(state.storedLengths).toEqual(state.lengths);
      if (state.deadDocs < previous) {
        compacted = true;
        expect(previous + 7).toBeGreaterThanOrEqual(64);
        expect([state.deadDocs, state.deadPostings]).toEqual([0, 0]);
      }
    }
    expect(compacted).toBe(true);
    await state.rankingsAgree();
    await checkout.dispose();
  });

  it('numbers the pages of a space that has used up its range with the numbers no stored page holds, and still ranks them right', async () => {
    const { id, checkout } = await newSpace('Worn');
    for (let i = 0; i < 4; i++) await checkout.write(`page-${i}.md`, pageText(i, 1));
    await checkout.commitAndPush('pages');
    await indexSearch(t.container.ctx, id);
    const { db } = t.container.ctx;
    const numbers = async () => (await db.selectFrom('search_pages').select('doc').where('space_id', '=', id).orderBy('doc').execute()).map((row) => Number(row.doc));
    const held = await numbers();
    // As if the space had written 2^24 pages: the next number is the range's last one.
    await db.updateTable('search_spaces').set({ last_doc: DOCS_PER_SPACE - 2 }).where('space_id', '=', id).execute();
    for (let i = 4; i < 7; i++) await checkout.write(`page-${i}.md`, pageText(i, 1));
    await checkout.commitAndPush('three more');
    await indexSearch(t.container.ctx, id);
    const key = (await searchStates(db, [id])).get(id)!.key;
    const base = key * DOCS_PER_SPACE;
    const now = await numbers();
    // The kept pages keep theirs; the new ones take the last number, then the lowest ones no page holds.
    expect(now.filter((doc) => held.includes(doc))).toEqual(held);
    const fresh = now.filter((doc) => !held.includes(doc));
    expect(fresh).toHaveLength(3);
    expect(fresh).toContain(base + DOCS_PER_SPACE - 1);
    expect(fresh.every((doc) => doc >= base + 1 && doc < base + DOCS_PER_SPACE)).toBe(true);
    const state = await storedAndFresh(id);
    expect(state.stored).toEqual(state.fresh);
    await checkout.dispose();
  });

  it('appends new postings to the stored lists in SQL, and merges a number below a list\'s end in order', async () => {
    const id = await indexedSpace('Appends', Object.fromEntries([0, 1, 2].map((i) => [`page-${i}.md`, pageText(i, 4)])));
    const { db } = t.container.ctx;
    const lists = async () =>
      new Map((await db.selectFrom('search_terms').select(['term', 'postings', 'last_doc']).where('space_id', '=', id).execute()).map((row) => [row.term, { ...decodePairs(row.postings), last: Number(row.last_doc) }]));
    const before = await lists();
    const { docs: live } = decodePairs((await db.selectFrom('search_spaces').select('docs').where('space_id', '=', id).executeTakeFirstOrThrow()).docs!);
    const [low, high] = [live[0], live[live.length - 1]];
    // A page after every number: appended; a page written again under a number below the highest: merged in order.
    const appended = pageTerms({ title: 'zebra install', headings: '', body: 'walrus install' });
    await updateTermLists(db, id, { removed: [], added: [{ n: high + 5, terms: appended }] });
    const merged = pageTerms({ title: 'walrus', headings: 'okapi', body: 'install' });
    await updateTermLists(db, id, { removed: [low], added: [{ n: low, terms: merged }] });
    const after = await lists();
    for (const [term, list] of after) {
      const expected = new Map<number, number>();
      const old = before.get(term);
      old?.docs.forEach((doc, i) => doc !== low && expected.set(doc, old.values[i]));
      if (merged.codes.has(term)) expected.set(low, merged.codes.get(term)!);
      if (appended.codes.has(term)) expected.set(high + 5, appended.codes.get(term)!);
      const sorted = [...expected].sort((a, b) => a[0] - b[0]);
      expect([...list.docs], term).toEqual(sorted.map(([doc]) => doc));
      expect([...list.values], term).toEqual(sorted.map(([, code]) => code));
      expect(list.last, term).toBe(sorted[sorted.length - 1][0]);
    }
    for (const term of [...appended.codes.keys(), ...merged.codes.keys()]) expect(after.has(term), term).toBe(true);
    expect(after.get(prefixListTerm('wa'))!.docs.includes(high + 5)).toBe(true);
  });

  it('finds words of other scripts whole and by their start (a long prefix is one range of the lists in byte order, a short one its own list)', async () => {
    const id = await indexedSpace('Scripts', {
      'README.md': '# Начало\n\nОбзор.\n',
      'setup.md': '# Установка\n\nУстановка пакета и настройка.\n',
      'device.md': '# Устройство\n\nКак устроено.\n',
      'tune.md': '# Настройка\n\nТолько настройка.\n',
      'tokyo.md': '# 東京の案内\n\n東京都の地図。\n',
      // Letters beyond the first plane (two UTF-16 units each): a prefix of one is a range, of two or three a list.
      'gothic.md': '# 𐌰𐌱𐌲𐌳\n\n𐌰𐌱𐌲𐌳 𐌰𐌹𐌽𐍃.\n',
    });
    const titles = async (query: string) => (await titlesFound(id, query)).sort();
    expect(await titles('уст')).toEqual(['Установка', 'Устройство']);
    expect(await titles('настройка')).toEqual(['Настройка', 'Установка']);
    expect(await titles('東京')).toEqual(['東京の案内']);
    for (const start of ['𐌰', '𐌰𐌱', '𐌰𐌱𐌲', '𐌰𐌱𐌲𐌳', '𐌰𐌹']) expect(await titles(start), start).toEqual(['𐌰𐌱𐌲𐌳']);
    expect(await titles('𐌱')).toEqual([]);
  });

  it('finds a space ranked by the engine while it has no term lists (indexed by an earlier version)', async () => {
    const id = await indexedSpace('Older lists', { 'README.md': '# Older\n\nA narwhal guide.\n' });
    const search = async () => (await t.request('GET', `/v1/orgs/${org.id}/search`, { token: org.admin.token, query: { query: 'narwhal' } })).body.items.map((hit: any) => [hit.title, hit.pages.map((p: any) => p.title)]);
    const inSpace = async () => (await t.request('GET', `/v1/spaces/${id}/search`, { token: org.admin.token, query: { query: 'narwhal' } })).body.items.map((p: any) => p.title);
    expect(await search()).toEqual([['Older lists', ['Older']]]);
    expect(await inSpace()).toEqual(['Older']);
    await t.container.ctx.db.deleteFrom('search_terms').where('space_id', '=', id).execute();
    await t.container.ctx.db.updateTable('search_spaces').set({ docs: null }).where('space_id', '=', id).execute();
    t.container.ctx.rankings = new (t.container.ctx.rankings.constructor as any)(t.container.ctx.rankings.maxBytes);
    expect(await search()).toEqual([['Older lists', ['Older']]]);
    expect(await inSpace()).toEqual(['Older']);
  });

  it('ranks a space whose lists an earlier version made (no prefix lists) by the engine until its indexing', async () => {
    const id = await indexedSpace('Before prefix lists', { 'README.md': '# Walrus\n\nA walrus guide.\n' });
    const titles = (query: string) => titlesFound(id, query);
    expect(await titles('wa')).toEqual(['Walrus']);
    // As version 4 left it: lists of whole tokens only.
    const { db } = t.container.ctx;
    await db.deleteFrom('search_terms').where('space_id', '=', id).where('term', 'like', '%*').execute();
    await db.updateTable('search_spaces').set({ version: SEARCH_VERSION - 1 }).where('space_id', '=', id).execute();
    t.container.ctx.rankings = new (t.container.ctx.rankings.constructor as any)(t.container.ctx.rankings.maxBytes);
    expect(await titles('wa')).toEqual(['Walrus']);
    expect(await titles('wal')).toEqual(['Walrus']);
    expect(await titles('walr')).toEqual(['Walrus']);
    // Its indexing makes the lists anew, prefix lists with them.
    expect(await indexSearch(t.container.ctx, id)).toBe('indexed');
    expect((await db.selectFrom('search_terms').select('term').where('space_id', '=', id).where('term', '=', prefixListTerm('wa')).execute()).length).toBe(1);
    expect(await titles('wa')).toEqual(['Walrus']);
  });
});

// After edits and deletions FTS5's own figures drift (its page count and average length still count a contentless
// table's deleted rows), so the comparison is made on a space indexed once; the lists after edits are checked
// against lists made afresh above.
describe('ranking from term lists against FTS5 (one space alone: the same figures)', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
  });
  afterAll(async () => t?.close());

  it('gives FTS5\'s order, tiers and bm25 scores for whole words, stems, prefixes and several words', async () => {
    const org = await t.organization();
    const base = await t.listen();
    const { id, checkout } = await spaceWithCheckout(t, org, base, 'Alone');
    for (let i = 0; i < 80; i++) await checkout.write(`page-${i}.md`, pageText(i, 5));
    await checkout.commitAndPush('pages');
    await indexSearch(t.container.ctx, id);
    const { key } = (await searchStates(t.container.ctx.db, [id])).get(id)!;
    let compared = 0;
    const compare = async () => {
      for (const text of QUERIES) {
        const query = engineQuery(queryTerms(text));
        const engine = (await rankPages(t.container.ctx.db, [{ spaceId: id, key }], query, 1000)).map(({ doc, tier, score }) => ({ doc, tier, score }));
        const lists = (await termLists(t.container.ctx.db, [id], query)).get(id)!;
        const docs = (await termDocs(t.container.ctx.db, [id])).get(id)!;
        const ours = rankSpace(docs, lists, query, 1000).map((r) => ({ doc: key * DOCS_PER_SPACE + r.n, tier: r.tier, score: r.score }));
        expect(ours, text).toEqual(engine);
        compared += engine.length;
        // The best k are the first k of the whole ranking.
        const whole = rankSpace(docs, lists, query, 1000);
        expect(rankSpace(docs, lists, query, 5)).toEqual(whole.slice(0, 5));
        // A later page: the best k after a place are the whole ranking's next k, and the engine's later page.
        for (const at of [0, 3, Math.floor(whole.length / 2)].filter((i) => i < whole.length - 1)) {
          const place = whole[at];
          const later = new SpaceRanker().rank(new RankingBase(docs), lists, query, 5, place);
          expect(later, `${text} after ${at}`).toEqual(whole.slice(at + 1, at + 6));
          const engineLater = await rankPages(t.container.ctx.db, [{ spaceId: id, key }], query, 5, { tier: place.tier, score: place.score, doc: key * DOCS_PER_SPACE + place.n });
          expect(later.map((r) => ({ doc: key * DOCS_PER_SPACE + r.n, tier: r.tier, score: r.score })), `${text} after ${at}`).toEqual(engineLater.map(({ doc, tier, score }) => ({ doc, tier, score })));
        }
      }
    };
    await compare();
    await checkout.dispose();
    expect(compared).toBeGreaterThan(200);
  });
});
