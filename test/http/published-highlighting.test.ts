/**
 * Hostile code on a published site: a page holding a 200 KB hostile block is rendered (on the CPU pool: such a page
 * has much code) without holding the server's event loop, in bounded time, highlighted. Every language Quire adds to
 * highlight.js's common ones is proven bounded on such a block where it is highlighted
 * (test/content/code-highlight.test.ts); here, the way to the reader, with the grammars that took longest there and
 * Quire's own (HCL).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { EVENT_LOOP_RETRIES, expectEventLoopFree, localEventLoop } from '../helpers/event-loop.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { hostileCode } from '../content/hostile-code.js';
import { waitFor } from '../helpers/wait.js';

const LANGUAGES = ['crystal', 'dockerfile', 'vim', 'erlang', 'hcl'];

describe('hostile code blocks on a published site', () => {
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    // A content cache too small to keep a revision: every try renders its page anew (a retry answered from the cache
    // would measure nothing).
    t = await startTestApp('sqlite', { contentCacheBytes: 1 });
    const org = await t.organization('Hostile Code');
    const server = await t.listen();
    const token = org.admin.token;
    const spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token, body: { title: 'Code' } })).body.id as string;
    const checkout = await Checkout.clone(spaceRemote(server, token, spaceId));
    const code = hostileCode(200 * 1024);
    await checkout.write('README.md', '# Code\n\nHostile code below.\n');
    for (const language of LANGUAGES) await checkout.write(`${language}.md`, `# ${language}\n\n\`\`\`${language}\n${code}\n\`\`\`\n`);
    await checkout.write('SUMMARY.md', `# Summary\n\n* [Code](README.md)\n${LANGUAGES.map((language) => `* [${language}](${language}.md)\n`).join('')}`);
    await checkout.commitAndPush('Hostile code');
    await checkout.dispose();
    // The push's indexing jobs run in this process: measured beside them, the loop would be theirs. Searchable: the
    // jobs were queued and the search index is done; then the queue is idle: the link index is done too.
    await waitFor(async () => (await t.request('GET', `/v1/spaces/${spaceId}/search`, { token, query: { query: 'Hostile' } })).body.items ?? [], {
      until: (items) => items.length > 0,
      what: 'search to find the pushed pages',
      timeoutMs: 180_000,
      intervalMs: 250,
    });
    await t.container.ctx.jobs.idle();
    const site = (await t.request('POST', `/v1/orgs/${org.id}/sites`, { token, body: { title: 'Code', visibility: 'public', spaces: [spaceId] } })).body;
    base = new URL(site.urls.published).pathname;
  }, 240_000);
  afterAll(async () => t?.close());

  it.each(LANGUAGES)('renders %s without holding the event loop', { timeout: 120_000, retry: EVENT_LOOP_RETRIES }, async (language) => {
    // CPU time of this process (its CPU pool threads included), not time on the clock: other test files busy on the
    // same cores delay the render without adding to it.
    const started = process.cpuUsage();
    const { result, report } = await localEventLoop.measure(() => t.request('GET', `${base}/${language}`, { unchecked: true }));
    const used = process.cpuUsage(started);
    const took = (used.user + used.system) / 1000;
    expect(result.status).toBe(200);
    // Its code block, in its language (grammars that expect a request line or a header, like http's, find none here).
    expect(String(result.body)).toContain(`class="hljs language-${language}"`);
    expectEventLoopFree(report, `${language} page`);
    expect(took, `${language}: ${took.toFixed(0)} ms of CPU`).toBeLessThan(30_000);
  });
});
