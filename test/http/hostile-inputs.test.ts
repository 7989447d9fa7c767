/**
 * No input may hold the event loop for more than 100 ms. Each hostile input below is sent to `quire serve` running
 * in its own process (its event loop read through `GET /metrics`, test/helpers/event-loop.ts), on each database (the
 * line of links on SQLite only, below): while it is pushed, read and published, the loop is held under 100 ms at the
 * 99th percentile, and the server answers after every case. The inputs are those that froze the server: a SUMMARY.md
 * heading of 200 KB of `<` (read again by a restarted server, with nothing cached), a character reference past
 * U+10FFFF in SUMMARY.md, a 5 MB one-line page and a 5 MB line of links and emphasis (pushed, then read as markdown,
 * as a document and on a published site), and a JSON body nested a few hundred thousand levels deep.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuire, startServer, type ServerProcess } from '../helpers/cli.js';
import { createPostgresDatabase, DATABASE_KINDS } from '../helpers/databases.js';
import { EVENT_LOOP_RETRIES, expectEventLoopFree, serverEventLoop } from '../helpers/event-loop.js';
import { Checkout, isolatedGitEnv, spaceRemote } from '../helpers/git.js';
import { waitFor } from '../helpers/wait.js';

const METRICS_TOKEN = 'hostile-inputs-metrics';
const WORDS = ['lorem', 'ipsum', 'dolor', 'sit', 'amet', 'consectetur', 'adipiscing', 'elit', 'sed', 'do', 'eiusmod', 'tempor'];
const MARKUP = ['lorem', '[ipsum](other.md)', '*dolor*', 'sit', '[amet', '_consectetur', '**adipiscing**', 'elit', '[sed](https://example.com/x)', 'do', '`eiusmod`', '*tempor'];
const MB5 = 5 * 1024 * 1024;

/** About `bytes` of `words` on one line, starting with `first`. */
function oneLine(bytes: number, first: string, words: string[]): string {
  const parts = [first];
  let size = first.length;
  for (let i = 0; size < bytes; i++) {
    parts.push(words[i % words.length]);
    size += words[i % words.length].length + 1;
  }
  return parts.join(' ');
}

describe.each(DATABASE_KINDS)('hostile inputs never hold the event loop (%s)', (kind) => {
  let dataDir: string;
  let env: Record<string, string>;
  let dropDatabase: (() => Promise<void>) | undefined;
  let server: ServerProcess;
  let token: string;
  let organizationId: string;
  let spaceId: string;
  let checkout: Checkout;
  let sitePath: string;

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-hostile-inputs-'));
    const postgres = kind === 'postgres' ? await createPostgresDatabase() : undefined;
    dropDatabase = postgres?.drop;
    env = { QUIRE_DATA_DIR: dataDir, DATABASE_URL: postgres?.url ?? '', REDIS_URL: '', QUIRE_METRICS_TOKEN: METRICS_TOKEN };
    const bootstrap = await runQuire(['admin', 'bootstrap', '--init', '--email', 'admin@example.com', '--org', 'Hostile'], env);
    expect(bootstrap.code, bootstrap.stderr).toBe(0);
    const printed = JSON.parse(bootstrap.stdout) as { token: string; organization: { id: string } };
    token = printed.token;
    organizationId = printed.organization.id;
    server = await startServer(env, { startTimeoutMs: 120_000 });
    const space = await api('POST', `/v1/orgs/${organizationId}/spaces`, { title: 'Hostile' });
    expect(space.status).toBe(201);
    spaceId = space.body.id;
    checkout = await Checkout.clone(spaceRemote(server.url, token, spaceId), await isolatedGitEnv());
    await checkout.write('README.md', '# Welcome\n\nA small page.\n');
    await checkout.write('other.md', '# Other\n\nNothing here.\n');
    await checkout.commitAndPush('Start');
    const site = await api('POST', `/v1/orgs/${organizationId}/sites`, { title: 'Docs', visibility: 'public', spaces: [spaceId] });
    expect(site.status, JSON.stringify(site.body)).toBe(201);
    sitePath = new URL(site.body.urls.published).pathname;
  }, 300_000);

  afterAll(async () => {
    await server?.stop();
    await checkout?.dispose();
    await dropDatabase?.();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  async function api(method: string, url: string, body?: unknown, raw?: string): Promise<{ status: number; body: any }> {
    const res = await fetch(`${server.url}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined || raw !== undefined ? { 'content-type': 'application/json' } : {}) },
      body: raw ?? (body !== undefined ? JSON.stringify(body) : undefined),
    });
    const text = await res.text();
    return { status: res.status, body: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text };
  }

  /** Runs `work` with the server's event loop measured; then the loop was never held long, and the server answers. */
  async function hostile<T>(what: string, work: () => Promise<T>): Promise<T> {
    const { result, report } = await serverEventLoop(server.url, METRICS_TOKEN).measure(work);
    process.stdout.write(`${kind}: ${what}: event loop held p99 ${report.held.p99Ms.toFixed(0)} ms, at most ${report.held.maxMs.toFixed(0)} ms; timer delay p99 ${report.delay.p99Ms.toFixed(0)} ms\n`);
    expectEventLoopFree(report, `${kind}: ${what}`);
    expect(server.child.exitCode, `${what}: the server exited: ${server.output().slice(-3000)}`).toBeNull();
    expect((await api('GET', '/v1/orgs')).status, `${what}: the server answers`).toBe(200);
    return result;
  }

  /** Pushes what the checkout holds, then waits until searching `word` finds the page `title` (its indexing is done). */
  async function pushAndIndex(message: string, word: string, title: string): Promise<void> {
    await checkout.commitAndPush(message);
    await waitFor(
      async () => {
        if (server.child.exitCode !== null) throw new Error(`the server exited with ${server.child.exitCode}: ${server.output().slice(-3000)}`);
        const found = await api('GET', `/v1/spaces/${spaceId}/search?query=${word}`);
        return ((found.body.items ?? []) as Array<{ title: string }>).map((item) => item.title);
      },
      { until: (titles) => titles.includes(title), what: `search to find ${word} in "${title}"`, timeoutMs: 240_000, intervalMs: 250 },
    );
  }

  async function pageId(title: string): Promise<string> {
    const pages = (await api('GET', `/v1/spaces/${spaceId}/content/pages`)).body.pages as Array<{ id: string; title: string }>;
    const page = pages.find((candidate) => candidate.title === title);
    expect(page, `a page titled ${title}`).toBeDefined();
    return page!.id;
  }

  /** A page read as markdown, as a document and on the published site, each measured. */
  async function readEveryWay(title: string, slug: string, first: string): Promise<void> {
    const id = await pageId(title);
    const markdown = await hostile(`${title} read as markdown`, () => api('GET', `/v1/spaces/${spaceId}/content/page/${id}`));
    expect(markdown.status).toBe(200);
    expect(markdown.body.markdown.length).toBeGreaterThan(MB5);
    const document = await hostile(`${title} read as a document`, () => api('GET', `/v1/spaces/${spaceId}/content/page/${id}?format=document`));
    expect(document.status).toBe(200);
    // Past its first megabyte, the page is paragraphs of plain text: all of it is there.
    const text = JSON.stringify(document.body.document);
    expect(text).toContain(first);
    expect(text.length).toBeGreaterThan(MB5);
    const published = await hostile(`${title} on the published site`, () => fetch(`${server.url}${sitePath}/${slug}`).then(async (res) => ({ status: res.status, html: await res.text() })));
    expect(published.status).toBe(200);
    expect(published.html).toContain(first);
  }

  it('a SUMMARY.md heading of 200 KB of "<" and a reference past U+10FFFF: pushed, then read by a restarted server', { timeout: 600_000, retry: EVENT_LOOP_RETRIES }, async () => {
    await checkout.write('SUMMARY.md', `# Summary\n\n* [Welcome](README.md)\n\n## ${'<'.repeat(200_000)}\n\n* [Other &#x110000; page](other.md)\n`);
    await hostile('SUMMARY.md pushed', () => checkout.commitAndPush('A hostile table of contents'));
    const titles = async () => JSON.stringify((await api('GET', `/v1/spaces/${spaceId}/content/pages`)).body);
    expect(await titles()).toContain('Other \ufffd page');

    await server.stop();
    server = await startServer(env, { startTimeoutMs: 120_000 });
    await checkout.git('remote', 'set-url', 'origin', spaceRemote(server.url, token, spaceId));
    const pages = await hostile('SUMMARY.md read after a restart', titles);
    expect(pages).toContain('<'.repeat(200_000));
    expect(pages).toContain('Other \ufffd page');
  });

  /** SUMMARY.md lists the pages pushed (a file it does not list is not a page). */
  const listed: string[] = [];
  async function writePage(file: string, title: string, text: string): Promise<void> {
    await checkout.write(file, text);
    listed.push(`* [${title}](${file})`);
    await checkout.write('SUMMARY.md', `# Summary\n\n* [Welcome](README.md)\n* [Other](other.md)\n${listed.join('\n')}\n`);
  }

  it('a 5 MB one-line page: pushed, read as markdown, as a document and on the published site', { timeout: 900_000, retry: EVENT_LOOP_RETRIES }, async () => {
    await writePage('big.md', 'Big page', `# Big page\n\n${oneLine(MB5, 'zebrafirst', WORDS)}\n`);
    await hostile('a 5 MB one-line page pushed and indexed', () => pushAndIndex('A big page', 'zebrafirst', 'Big page'));
    await readEveryWay('Big page', 'big', 'zebrafirst');
  });

  // On one database: what is hostile here is the parse of a megabyte of dense markup, the same whatever stores the
  // page's few distinct links; the rows of a big page go to both databases in the case above.
  if (kind === 'sqlite') {
    it('a 5 MB line of links and emphasis: pushed, read as markdown, as a document and on the published site', { timeout: 900_000, retry: EVENT_LOOP_RETRIES }, async () => {
      await writePage('links.md', 'Links page', `# Links page\n\n${oneLine(MB5, 'yakfirst', MARKUP)}\n`);
      await hostile('a 5 MB line of links pushed and indexed', () => pushAndIndex('A page of links', 'yakfirst', 'Links page'));
      await readEveryWay('Links page', 'links', 'yakfirst');
    });
  }

  it('JSON bodies nested a few hundred thousand levels deep are refused at once', { timeout: 120_000, retry: EVENT_LOOP_RETRIES }, async () => {
    const levels = 400_000;
    const body = `{"title": ${'['.repeat(levels)}${']'.repeat(levels)}}`;
    const answers = await hostile('20 deeply nested JSON bodies', async () => {
      const refused = [];
      for (let i = 0; i < 20; i++) refused.push(await api('PATCH', `/v1/orgs/${organizationId}`, undefined, body));
      return refused;
    });
    for (const refused of answers) expect(refused).toEqual({ status: 400, body: { error: { code: 400, message: 'body: nests arrays and objects more than 256 deep' } } });
  });
});
