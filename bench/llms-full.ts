/**
 * `llms-full.txt` of a big published site, for agents (run by hand: `npx tsx bench/llms-full.ts`):
 * - a public site of one space of PAGES pages (10,000 by default), pushed through a real git checkout, served by the
 *   app in this process as bench/published.ts serves it, its push's jobs left to finish;
 * - `GET {site}/llms-full.txt`: the time to its first byte of body (the answer streams page by page) and to its end;
 * - the baseline, in the same run: the first byte of one page's markdown twin (`{page}.md`), the site's smallest
 *   answer for agents, through the same route, auth and site lookup.
 * ROUNDS rounds (5 by default), which one first alternating; medians. The first round's llms-full.txt is the first
 * read of the whole site since the push (printed apart as well).
 * Target: the first byte within 200 ms on a 10,000-page site.
 * `PAGES=10000 ROUNDS=5 npx tsx bench/llms-full.ts`
 */
import { performance } from 'node:perf_hooks';
import { machine, spaceWithPages, startBenchServer } from './lib.js';
import { median } from './stats.js';

const PAGES = Number(process.env.PAGES ?? 10_000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);

/** Times to the first byte of the body and to its end, and the bytes read. */
async function timed(url: string): Promise<{ first: number; whole: number; bytes: number }> {
  const started = performance.now();
  const response = await fetch(url);
  if (response.status !== 200 || !response.body) throw new Error(`GET ${url}: ${response.status}`);
  const reader = response.body.getReader();
  let first = 0;
  let bytes = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (bytes === 0) first = performance.now() - started;
    bytes += value.byteLength;
  }
  return { first, whole: performance.now() - started, bytes };
}

const server = await startBenchServer();
try {
  const pushed = performance.now();
  const { spaceId, checkout } = await spaceWithPages(server, PAGES);
  await checkout.dispose();
  const auth = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
  const created = await fetch(`${server.url}/v1/orgs/${server.organizationId}/sites`, { method: 'POST', headers: auth, body: JSON.stringify({ title: 'Bench docs', visibility: 'public', spaces: [spaceId] }) });
  const site = (await created.json()) as { urls: { published: string }; agentsContext: string };
  if (created.status !== 201 || site.agentsContext !== 'included') throw new Error(`the site was not created serving agents: ${created.status} ${JSON.stringify(site)}`);
  const base = `${server.url}${new URL(site.urls.published).pathname}`;
  await server.container.ctx.jobs.idle();
  console.log(`pushed and published ${PAGES} pages in ${((performance.now() - pushed) / 1000).toFixed(1)} s`);

  // Page 1's markdown twin: its address as llms.txt lists it.
  const index = await (await fetch(`${base}/llms.txt`)).text();
  const twin = /\]\((https?:\/\/[^)]+\.md)\)/.exec(index.split('\n').filter((line) => line.startsWith('- [')).at(1) ?? '')?.[1];
  if (!twin) throw new Error('llms.txt lists no page');
  const twinUrl = `${server.url}${new URL(twin).pathname}`;

  const full: Array<{ first: number; whole: number; bytes: number }> = [];
  const page: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      full.push(await timed(`${base}/llms-full.txt`));
      page.push((await timed(twinUrl)).first);
    } else {
      page.push((await timed(twinUrl)).first);
      full.push(await timed(`${base}/llms-full.txt`));
    }
  }
  const first = median(full.map((r) => r.first));
  console.log(`machine: ${machine()}`);
  console.log(`site: ${PAGES} pages, one space; ${ROUNDS} rounds, alternating; medians`);
  console.log(`llms-full.txt: first byte ${first.toFixed(1)} ms (target < 200 ms), whole ${median(full.map((r) => r.whole)).toFixed(0)} ms, ${(full[0].bytes / 1e6).toFixed(1)} MB`);
  console.log(`  first round (first read of the whole site since the push): first byte ${full[0].first.toFixed(1)} ms, whole ${full[0].whole.toFixed(0)} ms`);
  console.log(`a page's .md twin: first byte ${median(page).toFixed(1)} ms`);
  console.log(`ratio (llms-full.txt first byte / .md twin first byte): ${(first / median(page)).toFixed(2)}`);
} finally {
  await server.close();
}
