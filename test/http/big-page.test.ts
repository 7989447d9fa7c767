/**
 * One page must not freeze the server. A 5 MB single-line markdown page is pushed with a real git
 * client; while the server parses and indexes it, the server's event loop is never held long (test/helpers/
 * event-loop.ts: the app runs in this process) and `GET /v1/orgs`, sampled every ~50 ms over real HTTP, answers every
 * time. The page is indexed as far as the index limit reaches (a word of its first part is found, a word after the
 * limit is not), and the push says so. The acceptance figure (every answer under 200 ms) is one for a quiet machine:
 * bench/big-page.ts measures it.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { EVENT_LOOP_RETRIES, expectEventLoopFree, localEventLoop } from '../helpers/event-loop.js';
import { sleep, waitFor } from '../helpers/wait.js';

const WORDS = ['lorem', 'ipsum', 'dolor', 'sit', 'amet', 'consectetur', 'adipiscing', 'elit', '[sed](other.md)', 'do', 'eiusmod', '*tempor*'];

/** About `bytes` of words on one line, starting with `first` and ending with `last`. */
function oneLine(bytes: number, first: string, last: string): string {
  const parts = [first];
  let size = first.length;
  for (let i = 0; size < bytes; i++) {
    parts.push(WORDS[i % WORDS.length]);
    size += WORDS[i % WORDS.length].length + 1;
  }
  parts.push(last);
  return parts.join(' ');
}

describe.each(DATABASE_KINDS)('a 5 MB one-line page (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let base: string;

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.organization();
    base = await t.listen();
  });
  afterAll(async () => t?.close());

  it('never holds the API while it is parsed and indexed, and is indexed partly', { timeout: 180_000, retry: EVENT_LOOP_RETRIES }, async () => {
    const spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Big' } })).body.id;
    const checkout = await Checkout.clone(spaceRemote(base, org.admin.token, spaceId));
    await checkout.write('README.md', '# Welcome\n\nA small page.\n');
    await checkout.write('big.md', `# Big page\n\n${oneLine(5 * 1024 * 1024, 'zebrafirstpart', 'zebralastpart')}\n`);
    await checkout.write('other.md', '# Other\n\nNothing here.\n');
    await checkout.git('add', '--all');
    await checkout.git('commit', '--quiet', '-m', 'A big page');

    const headers = { authorization: `Bearer ${org.admin.token}` };
    const statuses: number[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const res = await fetch(`${base}/v1/orgs`, { headers });
        await res.arrayBuffer();
        statuses.push(res.status);
        // Pacing: one probe every ~50 ms beside the work.
        await sleep(50);
      }
    })();

    let push: { stdout: string; stderr: string };
    let report;
    try {
      ({ result: push, report } = await localEventLoop.measure(async () => {
        // What the client prints, warnings included (stderr).
        const pushed = await promisify(execFile)('git', ['push', 'origin', 'HEAD:refs/heads/main'], { cwd: checkout.dir, env: checkout.env });
        // Until search finds a word of the page's first part: the index job has parsed and stored it.
        await waitFor(
          async () => {
            const res = await fetch(`${base}/v1/spaces/${spaceId}/search?query=zebrafirstpart`, { headers });
            return ((await res.json()) as any).items?.map((item: any) => item.title) ?? [];
          },
          { until: (titles) => titles.includes('Big page'), what: 'search to find a word of the big page', timeoutMs: 150_000, intervalMs: 250 },
        );
        return pushed;
      }));
    } finally {
      sampling = false;
      await sampler;
      await checkout.dispose();
    }
    process.stdout.write(
      `big page (${kind}): GET /v1/orgs answered ${statuses.length} times meanwhile; event loop held p99 ${report.held.p99Ms.toFixed(0)} ms, ` +
        `at most ${report.held.maxMs.toFixed(0)} ms\n`,
    );

    // The page was cut for the index, and the push said so.
    expect(push.stderr).toMatch(/warning: big\.md: .*only its first/);
    const last = await t.request('GET', `/v1/spaces/${spaceId}/search`, { token: org.admin.token, query: { query: 'zebralastpart' } });
    expect(last.body.items).toEqual([]);
    // The page itself reads whole.
    const page = await t.request('GET', `/v1/spaces/${spaceId}/content/path/big`, { token: org.admin.token });
    expect(page.status).toBe(200);

    // The API answered throughout (before the CPU pool, the first answer took minutes), and the loop was never held.
    expect(statuses.length).toBeGreaterThan(5);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    expectEventLoopFree(report, `big page (${kind})`);
  });
});
