/**
 * Kept answers sent gzip-compressed (the `/content` of a 10,000-page space is some 20 MB): a revision's JSON
 * answers and a published site's pages, from COMPRESS_FROM_BYTES, to clients whose Accept-Encoding takes gzip, over
 * a real HTTP server read with node:http (which decompresses nothing): the compressed bytes are the plain answer,
 * compressed once per revision; others get the plain bytes; `vary` tells caches which is which. Answers made for
 * their request (a search) go with Brotli to clients that take it, else gzip.
 */
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawGet } from '../helpers/raw-http.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { COMPRESS_FROM_BYTES, answerCoding } from '../../src/http/present.js';
import { loadRevision } from '../../src/domain/content/revisions.js';
import { keptAnswer, keptAnswerKeys } from '../../src/http/answer-cache.js';

describe('Accept-Encoding', () => {
  it('reads the weights of Accept-Encoding: named codings (x-gzip as gzip, any case) and `*`, a weight of 0 or not a number refusing', () => {
    expect(answerCoding('')).toBeUndefined();
    expect(answerCoding('GZIP')).toBe('gzip');
    expect(answerCoding('gzip;q=0')).toBeUndefined();
    expect(answerCoding('gzip; q=0.000')).toBeUndefined();
    expect(answerCoding('*;q=0')).toBeUndefined();
    // A named coding wins over `*`, whichever way.
    expect(answerCoding('gzip;q=0, *')).toBe('br');
    expect(answerCoding('*;q=0, gzip')).toBe('gzip');
    expect(answerCoding('gzip;q=nonsense')).toBeUndefined();
    expect(answerCoding('br;q=nonsense, gzip')).toBe('gzip');
    expect(answerCoding(['deflate', 'gzip'])).toBe('gzip');
  });

  it('compresses answers made for the request with Brotli when it is taken at least as much as gzip, else gzip', () => {
    expect(answerCoding(undefined)).toBeUndefined();
    expect(answerCoding('identity')).toBeUndefined();
    expect(answerCoding('deflate')).toBeUndefined();
    expect(answerCoding('gzip;q=0, br;q=0, *')).toBeUndefined();
    expect(answerCoding('br, gzip, deflate')).toBe('br');
    expect(answerCoding('gzip, deflate, br')).toBe('br');
    expect(answerCoding('BR')).toBe('br');
    expect(answerCoding('gzip, deflate')).toBe('gzip');
    expect(answerCoding('x-gzip')).toBe('gzip');
    expect(answerCoding('br;q=0.5, gzip')).toBe('gzip');
    expect(answerCoding('br;q=0, *')).toBe('gzip');
    expect(answerCoding('br;q=0.8, gzip;q=0.8')).toBe('br');
    expect(answerCoding('*')).toBe('br');
    expect(answerCoding('gzip;q=0, *;q=0.1')).toBe('br');
    expect(answerCoding(['deflate', 'br'])).toBe('br');
  });
});

describe('kept answers sent compressed', () => {
  let t: TestApp;
  let server: string;
  let token: string;
  let orgId: string;
  let spaceId: string;
  let checkout: Checkout;
  let published: string;

  const api = async (method: string, url: string, body?: unknown) => (await t.request(method, url, { token, body })).body;
  const get = (path: string, acceptEncoding?: string) =>
    rawGet(`${server}${path}`, { authorization: `Bearer ${token}`, ...(acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding }) });
  /**
   * `path` asked with `acceptEncoding`: a JSON answer compressed with `coding`, at least `ratio` times smaller, that is
   * `plain` once decompressed.
   */
  const expectCompressedJson = async (path: string, acceptEncoding: string, coding: 'gzip' | 'br', plain: Buffer, ratio: number) => {
    const zipped = await get(path, acceptEncoding);
    expect(zipped.status).toBe(200);
    expect(zipped.headers['content-encoding']).toBe(coding);
    expect(zipped.headers.vary).toBe('accept-encoding');
    expect(zipped.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(zipped.headers['content-length'])).toBe(zipped.body.length);
    expect(zipped.body.length).toBeLessThan(plain.length / ratio);
    expect((coding === 'br' ? brotliDecompressSync : gunzipSync)(zipped.body).equals(plain)).toBe(true);
  };
  /** Pages of about 1 KB each: `/content` holds them all (well past COMPRESS_FROM_BYTES), one page read stays small. */
  const writePages = async (count: number, word: string) => {
    const summary = ['# Summary', '', '* [Welcome](README.md)'];
    // A long first page: the site's landing page is well past COMPRESS_FROM_BYTES too.
    await checkout.write('README.md', `# Welcome\n\n${`The ${word} handbook tells how to install, configure and run the service.\n\n`.repeat(250)}`);
    for (let i = 0; i < count; i++) {
      await checkout.write(`pages/page-${i}.md`, `# Page ${i}\n\n${`${word} paragraph ${i} about installing and configuring the service. `.repeat(14)}\n`);
      summary.push(`* [Page ${i}](pages/page-${i}.md)`);
    }
    await checkout.write('SUMMARY.md', `${summary.join('\n')}\n`);
    return checkout.commitAndPush(`${count} ${word} pages`);
  };

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const org = await t.organization();
    orgId = org.id;
    token = org.admin.token;
    server = await t.listen();
    spaceId = (await api('POST', `/v1/orgs/${orgId}/spaces`, { title: 'Handbook' })).id;
    checkout = await Checkout.clone(spaceRemote(server, token, spaceId));
    await writePages(40, 'alpha');
    const site = await api('POST', `/v1/orgs/${orgId}/sites`, { title: 'Docs', visibility: 'public' });
    await api('POST', `/v1/orgs/${orgId}/sites/${site.id}/sections`, { spaceId, title: 'Guides' });
    published = new URL((await api('GET', `/v1/orgs/${orgId}/sites/${site.id}`)).urls.published).pathname;
  });
  afterAll(async () => {
    await checkout?.dispose();
    await t?.close();
  });

  it('sends a big revision compressed to a client that takes Brotli or gzip, and the same answer plain to others', async () => {
    const plain = await get(`/v1/spaces/${spaceId}/content`);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('accept-encoding');
    expect(plain.body.length).toBeGreaterThan(COMPRESS_FROM_BYTES);
    expect(JSON.parse(plain.body.toString()).pages).toHaveLength(41);

    // Brotli when the client takes it as much as gzip (fetch and browsers do), else gzip.
    await expectCompressedJson(`/v1/spaces/${spaceId}/content`, 'gzip, deflate, br', 'br', plain.body, 4);
    await expectCompressedJson(`/v1/spaces/${spaceId}/content`, 'gzip, deflate', 'gzip', plain.body, 4);
    await expectCompressedJson(`/v1/spaces/${spaceId}/content`, 'br;q=0.5, gzip', 'gzip', plain.body, 4);

    // Refused by weight: plain.
    const refused = await get(`/v1/spaces/${spaceId}/content`, 'gzip;q=0, identity');
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(refused.body.equals(plain.body)).toBe(true);
  });

  it('compresses once per revision and coding, kept with it: concurrent and later requests get those bytes', async () => {
    await writePages(41, 'gamma');
    const codings = ['gzip', 'br'] as const;
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => get(`/v1/spaces/${spaceId}/content`, codings[i % 2])));
    const revision = await loadRevision(t.container.ctx, spaceId, JSON.parse(gunzipSync(answers[0].body).toString()).id);
    for (const coding of codings) {
      const keptKeys = () => keptAnswerKeys(revision).filter((key) => key.endsWith(`:${coding}`));
      expect(keptKeys()).toHaveLength(1);
      const kept = keptAnswer(revision, keptKeys()[0]);
      expect(Buffer.isBuffer(kept)).toBe(true);
      const again = await get(`/v1/spaces/${spaceId}/content`, coding);
      for (const answer of [...answers.filter((_, i) => codings[i % 2] === coding), again]) {
        expect(answer.headers['content-encoding']).toBe(coding);
        expect(answer.body.equals(kept as Buffer)).toBe(true);
      }
      // The same bytes still, not made again.
      expect(keptAnswer(revision, keptKeys()[0])).toBe(kept);
    }
  });

  it('leaves a small answer plain, without vary (a page read)', async () => {
    const pages = JSON.parse((await get(`/v1/spaces/${spaceId}/content/pages`)).body.toString()).pages as Array<{ id: string; title: string }>;
    const page = pages.find((p) => p.title === 'Page 3')!;
    for (const path of [`/v1/spaces/${spaceId}/content/page/${page.id}`, `/v1/spaces/${spaceId}/content/path/pages/page-3`]) {
      const answer = await get(path, 'gzip');
      expect(answer.status).toBe(200);
      expect(answer.body.length).toBeLessThan(COMPRESS_FROM_BYTES);
      expect(answer.headers['content-encoding']).toBeUndefined();
      expect(answer.headers.vary).toBeUndefined();
      expect(JSON.parse(answer.body.toString()).title).toBe('Page 3');
    }
  });

  it('sends the new revision after a push, never the compressed bytes of the old one', async () => {
    const before = await get(`/v1/spaces/${spaceId}/content`, 'gzip');
    const head = await writePages(45, 'beta');
    const after = await get(`/v1/spaces/${spaceId}/content`, 'gzip');
    expect(after.headers['content-encoding']).toBe('gzip');
    const revision = JSON.parse(gunzipSync(after.body).toString());
    expect(revision.id).toBe(head);
    expect(revision.pages).toHaveLength(46);
    expect(JSON.parse(gunzipSync(before.body).toString()).id).not.toBe(head);
  });

  it('sends a big published page compressed, with its own headers kept', async () => {
    const plain = await rawGet(`${server}${published}`, {});
    expect(plain.status).toBe(200);
    expect(plain.body.length).toBeGreaterThan(COMPRESS_FROM_BYTES);
    const zipped = await rawGet(`${server}${published}`, { 'accept-encoding': 'gzip' });
    expect(zipped.status).toBe(200);
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(zipped.headers['x-content-type-options']).toBe('nosniff');
    expect(zipped.headers['cache-control']).toBe(plain.headers['cache-control']);
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
  });

  it('sends a big answer made for the request (a search) compressed, Brotli or gzip, as UTF-8 bytes either way', async () => {
    // Words beyond Latin-1 in every result (and the excerpts' ellipses): the answer is a two-byte text in JavaScript.
    const other = (await api('POST', `/v1/orgs/${orgId}/spaces`, { title: 'Wörterbuch' })).id;
    const local = await Checkout.clone(spaceRemote(server, token, other));
    try {
      const summary = ['# Summary', ''];
      for (let i = 0; i < 30; i++) {
        const section = (n: number) => `## Gamma part ${n}\n\n${`Déjà vu, gamma ${i}: “quoted” text about the café. `.repeat(8)}\n`;
        await local.write(`w-${i}.md`, `# Gamma ${i} — 漢字\n\n${section(1)}\n${section(2)}\n${section(3)}`);
        summary.push(`* [Gamma ${i} — 漢字](w-${i}.md)`);
      }
      await local.write('SUMMARY.md', `${summary.join('\n')}\n`);
      await local.commitAndPush('gamma pages');
    } finally {
      await local.dispose();
    }
    const path = `/v1/spaces/${other}/search?query=gamma`;
    const plain = await get(path);
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toBe('accept-encoding');
    expect(Number(plain.headers['content-length'])).toBe(plain.body.length);
    expect(plain.body.length).toBeGreaterThan(COMPRESS_FROM_BYTES);
    const answer = JSON.parse(plain.body.toString());
    expect(answer.items).toHaveLength(30);
    expect(answer.items[0].title).toMatch(/^Gamma \d+ — 漢字$/);

    await expectCompressedJson(path, 'gzip, deflate, br', 'br', plain.body, 3);
    await expectCompressedJson(path, 'gzip, deflate', 'gzip', plain.body, 3);

    // A small answer made for the request: plain, without vary.
    const small = await get(`/v1/spaces/${other}/search?query=${encodeURIComponent('漢字 gamma')}&limit=1`, 'gzip');
    expect(small.status).toBe(200);
    expect(small.body.length).toBeLessThan(COMPRESS_FROM_BYTES);
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.headers.vary).toBeUndefined();
    expect(JSON.parse(small.body.toString()).items).toHaveLength(1);
  });
});
