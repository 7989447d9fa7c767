/**
 * Hostile imports fail alone: a Word document that inflates to hundreds of megabytes (a zip bomb), and a zip of
 * 120 MB of markdown in one-paragraph pages, each built here at its real scale (a megabyte or two on disk). While each
 * is imported the server keeps answering and its event loop is never held over 100 ms; the import ends failed with the
 * limit it passed, fetched once (a permanent failure is not retried); and imports of large but legal sources still
 * end done. On both queue drivers and both databases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { EVENT_LOOP_RETRIES, expectEventLoopFree, localEventLoop } from '../helpers/event-loop.js';
import { startFileServer, type FileServer } from '../helpers/file-server.js';
import { zipOf } from '../helpers/web.js';
import { docxOfParagraphs, markdownZipBomb, wordZipBomb } from '../helpers/zip-bombs.js';
import type { DatabaseKind } from '../helpers/databases.js';
import type { QueueDriver } from '../helpers/queues.js';
import { sleep } from '../helpers/wait.js';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

/** A legal archive of many pages: 60 pages of prose, each linking to the next. */
function manyPages(): Buffer {
  const prose = 'A paragraph of ordinary prose, with a [link](https://example.com) and some *emphasis*.\n\n'.repeat(8);
  return zipOf(Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`guide/page-${i + 1}.md`, `# Page ${i + 1}\n\n${prose}[Next](page-${i + 2}.md)\n`])));
}

const SETUPS: Array<[DatabaseKind, QueueDriver]> = [
  ['sqlite', 'in-process'],
  ['postgres', 'bullmq'],
];

describe.each(SETUPS)('hostile imports fail alone (%s, %s)', (kind, queue) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let site: FileServer;

  beforeAll(async () => {
    // The conversion thread gets less memory and time than by default, so that the markdown bomb passes a limit in
    // seconds; the archive limits are the defaults.
    const importLimits = { ...loadConfig({}).importLimits, memoryMb: 256, timeMs: 30_000 };
    t = await startTestApp(kind, { fetchAllow: ['127.0.0.1'], importLimits }, { queue });
    org = await t.organization();
    site = await startFileServer({
      '/bomb.docx': { contentType: DOCX, body: wordZipBomb() },
      '/bomb.zip': { contentType: 'application/zip', body: markdownZipBomb() },
      '/big.docx': { contentType: DOCX, body: docxOfParagraphs('A paragraph of a long report, with more words than most.', 3000) },
      '/many.zip': { contentType: 'application/zip', body: manyPages() },
      '/warm-up.md': { contentType: 'text/markdown', body: '# Warm-up\n\nHello.\n' },
    });
    // The first import of a process loads what every later one uses (the job code, the HTTP client, a conversion
    // thread), and the first answer of a route compiles its schemas (the server's and this harness's): done here, so
    // that what is measured is the hostile input's doing, not the process warming up.
    const spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Warm-up' } })).body.id;
    await t.request('POST', `/v1/spaces/${spaceId}/content/import`, { token: org.admin.token, body: { url: `${site.base}/warm-up.md`, source: 'markdown' } });
    await t.request('POST', `/v1/spaces/${spaceId}/content/import`, { token: org.admin.token, body: { url: `${site.base}/missing.md`, source: 'markdown' } });
    await t.request('GET', `/v1/orgs/${org.id}`, { token: org.admin.token });
  }, 120_000);
  afterAll(async () => {
    await site?.close();
    await t?.close();
  });

  /**
   * Imports `path` as `source` into a new space while the API is asked for the organization again and again: the
   * import's answer, its row, whether every other request was answered, and how late the event loop ran meanwhile.
   */
  async function importWatched(path: string, source: string) {
    const spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Hostile' } })).body.id as string;
    let done = false;
    const answered: number[] = [];
    const { result: answer, report: loop } = await localEventLoop.measure(async () => {
      const others = (async () => {
        while (!done) {
          answered.push((await t.request('GET', `/v1/orgs/${org.id}`, { token: org.admin.token, unchecked: true })).status);
          // Pacing: a request every ~20 ms beside the import.
          await sleep(20);
        }
      })();
      const imported = await t.request('POST', `/v1/spaces/${spaceId}/content/import`, { token: org.admin.token, body: { url: `${site.base}${path}`, source }, unchecked: true });
      done = true;
      await others;
      return imported;
    });
    const row = await t.container.ctx.db.selectFrom('content_imports').selectAll().where('space_id', '=', spaceId).executeTakeFirstOrThrow();
    return { answer, row, answered, loop };
  }

  it('a .docx whose document.xml inflates to 340 MB fails at once, fetched once, the server answering throughout', { timeout: 120_000, retry: EVENT_LOOP_RETRIES }, async () => {
    const hitsBefore = site.hits('/bomb.docx');
    const { answer, row, answered, loop } = await importWatched('/bomb.docx', 'docx');
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toBe(
      'url: the document is too large: word/document.xml inflates past 32 MB; Quire imports Word documents of at most 32 MB per part and 128 MB in all',
    );
    expect(row).toMatchObject({ status: 'failed', result_revision: null, error: answer.body.error.message });
    expect(site.hits('/bomb.docx') - hitsBefore, 'a permanent failure is not retried').toBe(1);
    expect(answered.length).toBeGreaterThan(0);
    expect(answered.every((status) => status === 200)).toBe(true);
    expectEventLoopFree(loop, 'the import');
  });

  it('a zip of 120 MB of one-paragraph markdown pages fails at a limit of its conversion, the server answering throughout', { timeout: 120_000, retry: EVENT_LOOP_RETRIES }, async () => {
    const hitsBefore = site.hits('/bomb.zip');
    const { answer, row, answered, loop } = await importWatched('/bomb.zip', 'zip');
    expect(answer.status).toBe(400);
    expect(answer.body.error.message).toMatch(/^url: converting http:\/\/127\.0\.0\.1:\d+\/bomb\.zip went past the import limit of (256 MB of memory|30 s) \(it (needed more than 256 MB of memory|took longer than 30 s)\); nothing was imported$/);
    expect(row).toMatchObject({ status: 'failed', result_revision: null, error: answer.body.error.message });
    expect(site.hits('/bomb.zip') - hitsBefore, 'a permanent failure is not retried').toBe(1);
    expect(answered.length).toBeGreaterThan(0);
    expect(answered.every((status) => status === 200)).toBe(true);
    expectEventLoopFree(loop, 'the import');
  });

  it('large but legal imports (a long .docx, an archive of many pages) end done without holding the event loop', { timeout: 180_000, retry: EVENT_LOOP_RETRIES }, async () => {
    const docx = await importWatched('/big.docx', 'docx');
    expect(docx.answer.status, JSON.stringify(docx.answer.body)).toBe(201);
    expect(docx.row).toMatchObject({ status: 'done', result_revision: docx.answer.body.revision, imported_resources: 1 });
    expectEventLoopFree(docx.loop, '/big.docx');

    const zip = await importWatched('/many.zip', 'zip');
    expect(zip.answer.status, JSON.stringify(zip.answer.body)).toBe(201);
    expect(zip.row).toMatchObject({ status: 'done', result_revision: zip.answer.body.revision, imported_resources: 60 });
    expectEventLoopFree(zip.loop, '/many.zip');
    for (const watched of [docx, zip]) expect(watched.answered.every((status) => status === 200)).toBe(true);
  });
});
