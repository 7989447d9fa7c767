/**
 * Hostile code on a published site: a page holding a 200 KB hostile block in each language Quire added to
 * highlight.js's common ones is rendered (on the CPU pool: such a page has much code) without holding the server's
 * event loop, in bounded time, highlighted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { EVENT_LOOP_RETRIES, expectEventLoopFree, localEventLoop } from '../helpers/event-loop.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { EXTRA_LANGUAGES } from '../../src/content/code-highlight.js';
import { hostileCode } from '../content/hostile-code.js';

const LANGUAGES = [...EXTRA_LANGUAGES, 'hcl'];

describe('hostile code blocks on a published site', () => {
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
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
    // The push's indexing jobs run in this process: measured beside them, the loop would be theirs.
    for (const deadline = Date.now() + 180_000; ; await new Promise((resolve) => setTimeout(resolve, 500))) {
      const found = await t.request('GET', `/v1/spaces/${spaceId}/search`, { token, query: { query: 'Hostile' } });
      if ((found.body.items ?? []).length > 0) break;
      if (Date.now() > deadline) throw new Error('the space was not indexed in 180 s');
    }
    const site = (await t.request('POST', `/v1/orgs/${org.id}/sites`, { token, body: { title: 'Code', visibility: 'public', spaces: [spaceId] } })).body;
    base = new URL(site.urls.published).pathname;
  }, 240_000);
  afterAll(async () => t?.close());

  it.each(LANGUAGES)('renders %s without holding the event loop', { timeout: 120_000, retry: EVENT_LOOP_RETRIES }, async (language) => {
    const started = performance.now();
    const { result, report } = await localEventLoop.measure(() => t.request('GET', `${base}/${language}`, { unchecked: true }));
    const took = performance.now() - started;
    expect(result.status).toBe(200);
    // Its code block, in its language (grammars that expect a request line or a header, like http's, find none here).
    expect(String(result.body)).toContain(`class="hljs language-${language}"`);
    expectEventLoopFree(report, `${language} page`);
    expect(took, `${language}: ${took.toFixed(0)} ms`).toBeLessThan(30_000);
  });
});
