/**
 * Performance lines for published sites (run by hand: `npx tsx bench/published.ts`):
 * - A warm page of a 1,000-page public site: requests/s against the same HTML served as a static file (read from
 *   disk at each request) by a route of the same process, measured in the same run (alternate rounds, medians);
 *   target ratio >= 0.75.
 * - Cold pages: the first read of pages never rendered (each one a different page of the same revision), p50 and
 *   the worst; target p50 < 25 ms.
 * - Claims nothing reads: the warm page with `?visitor.x=N` (a new N at each request: unsigned claims any reader can
 *   send, which no condition of the page reads) against the same page without, one request at a time (alternating),
 *   p50; target ratio <= 1.5 (the page kept for everyone, not rendered for each of them).
 * PAGES, SECONDS, ROUNDS and CLAIMS (requests of the claims round) change the sizes.
 */
import Fastify from 'fastify';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { load, machine, spaceWithPages, startBenchServer } from './lib.js';
import { median } from './stats.js';

const PAGES = Number(process.env.PAGES ?? 1000);
const SECONDS = Number(process.env.SECONDS ?? 5);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const CLAIMS = Number(process.env.CLAIMS ?? 50);

const server = await startBenchServer();
const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-bench-published-'));
try {
  const body = (i: number) =>
    `# Page ${i}\n\n{% hint style="info" %}\nRead [the next page](page-${i + 1}.md) first.\n{% endhint %}\n\n## Install\n\n\`\`\`bash\nnpm install quire --save\n\`\`\`\n\n${'Some **bold** text and `code`, with a [link](https://example.com). '.repeat(12)}\n\n## Configure\n\n| Key | Value |\n| --- | --- |\n| a | 1 |\n`;
  const { spaceId, checkout } = await spaceWithPages(server, PAGES, { body });
  await checkout.dispose();
  const auth = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
  const site = (await (await fetch(`${server.url}/v1/orgs/${server.organizationId}/sites`, { method: 'POST', headers: auth, body: JSON.stringify({ title: 'Bench docs', visibility: 'public', spaces: [spaceId] }) })).json()) as { urls: { published: string } };
  const base = `${server.url}${new URL(site.urls.published).pathname}`;
  const pageUrl = (i: number) => `${base}/section-${Math.floor(i / 50)}/page-${i}`;

  // Cold: pages never rendered before (the revision itself is read already, as on a running site).
  await fetch(pageUrl(0));
  const cold: number[] = [];
  for (let i = 1; i <= 50; i++) {
    const started = performance.now();
    const response = await fetch(pageUrl(i * 7));
    await response.text();
    if (response.status !== 200) throw new Error(`GET ${pageUrl(i * 7)}: ${response.status}`);
    cold.push(performance.now() - started);
  }

  const target = pageUrl(Math.floor(PAGES / 2));
  const html = await (await fetch(target)).text();
  const file = path.join(dir, 'page.html');
  await fs.writeFile(file, html);
  // The baseline: the same bytes as a static file, read at each request, from a Fastify server of this process.
  const bare = Fastify({ logger: false });
  bare.get('/page.html', async (_request, reply) => reply.type('text/html; charset=utf-8').send(await fs.readFile(file)));
  const staticUrl = `${await bare.listen({ port: 0, host: '127.0.0.1' })}/page.html`;

  await load(target, { seconds: 2 });
  await load(staticUrl, { seconds: 2 });
  const ours: number[] = [];
  const baseline: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    baseline.push((await load(staticUrl, { seconds: SECONDS })).requestsPerSecond);
    const result = await load(target, { seconds: SECONDS });
    if (result.errors + result.non2xx > 0) throw new Error(`errors while loading ${target}`);
    ours.push(result.requestsPerSecond);
  }

  // Claims nothing reads, each request its own, against the plain warm read (alternating, one at a time).
  const timed = async (url: string) => {
    const started = performance.now();
    const response = await fetch(url);
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`GET ${url}: ${response.status}`);
    return performance.now() - started;
  };
  const plainReads: number[] = [];
  const claimReads: number[] = [];
  for (let i = 0; i < CLAIMS; i++) {
    plainReads.push(await timed(target));
    claimReads.push(await timed(`${target}?visitor.x=${i}`));
  }

  await bare.close();
  console.log(`machine: ${machine()}`);
  console.log(`site: ${PAGES} pages; page HTML ${html.length} bytes; medians of ${ROUNDS} alternating rounds of ${SECONDS} s`);
  console.log(`warm page (ours):          ${median(ours).toFixed(0)} req/s`);
  console.log(`static file, same process: ${median(baseline).toFixed(0)} req/s`);
  console.log(`ratio: ${(median(ours) / median(baseline)).toFixed(2)} (target >= 0.75)`);
  console.log(`cold page, 50 pages: p50 ${median(cold).toFixed(1)} ms, worst ${Math.max(...cold).toFixed(1)} ms (target p50 < 25 ms)`);
  console.log(`?visitor.x=N (nothing reads it), ${CLAIMS} requests: p50 ${median(claimReads).toFixed(1)} ms, worst ${Math.max(...claimReads).toFixed(1)} ms`);
  console.log(`same page without claims, alternating: p50 ${median(plainReads).toFixed(1)} ms, worst ${Math.max(...plainReads).toFixed(1)} ms`);
  console.log(`claims ratio: ${(median(claimReads) / median(plainReads)).toFixed(2)} (target <= 1.5)`);
} finally {
  await server.close();
  await fs.rm(dir, { recursive: true, force: true });
}
