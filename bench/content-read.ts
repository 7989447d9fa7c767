/**
 * Issue 3 and 16 performance lines for reads (run by hand: `ROUNDS=5 SECONDS=4 npx tsx bench/content-read.ts`):
 * - GET one page of a 1,000-page space, warm: requests/s against a bare Fastify server in its own process
 *   (bench/bare-fastify.ts) answering the same bytes, in alternating rounds of the same run (medians); target ratio
 *   >= 0.7 (issue 16; issue 3 asked 0.5 of a route in the same process).
 * - GET /content of a 1,000-page space, warm: p50 latency with one connection; target < 10 ms.
 */
import { bareFastify, load, machine, spaceWithPages, startBenchServer, type LoadResult } from './lib.js';
import { median } from './stats.js';

const PAGES = Number(process.env.PAGES ?? 1000);
const SECONDS = Number(process.env.SECONDS ?? 4);
const ROUNDS = Number(process.env.ROUNDS ?? 5);

const server = await startBenchServer();
try {
  const { spaceId, checkout } = await spaceWithPages(server, PAGES);
  await checkout.dispose();
  const auth = { authorization: `Bearer ${server.token}` };
  const pages = (await (await fetch(`${server.url}/v1/spaces/${spaceId}/content/pages`, { headers: auth })).json()) as { pages: Array<{ id: string; title: string }> };
  const target = pages.pages[Math.floor(pages.pages.length / 2)];
  const pageUrl = `${server.url}/v1/spaces/${spaceId}/content/page/${target.id}`;
  const body = await (await fetch(pageUrl, { headers: auth })).text();
  const bare = await bareFastify(body);

  await load(pageUrl, { token: server.token, seconds: 2 });
  await load(`${bare.url}/page`, { seconds: 2 });
  const ours: LoadResult[] = [];
  const baseline: LoadResult[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      ours.push(await load(pageUrl, { token: server.token, seconds: SECONDS }));
      baseline.push(await load(`${bare.url}/page`, { seconds: SECONDS }));
    } else {
      baseline.push(await load(`${bare.url}/page`, { seconds: SECONDS }));
      ours.push(await load(pageUrl, { token: server.token, seconds: SECONDS }));
    }
  }
  bare.close();
  const rate = (results: LoadResult[]) => median(results.map((r) => r.requestsPerSecond));
  const ratios = ours.map((r, i) => r.requestsPerSecond / baseline[i].requestsPerSecond);

  const contentUrl = `${server.url}/v1/spaces/${spaceId}/content`;
  await load(contentUrl, { token: server.token, connections: 1, seconds: 2 });
  const revision = await load(contentUrl, { token: server.token, connections: 1, seconds: SECONDS });

  console.log(`machine: ${machine()}`);
  console.log(`space: ${PAGES} pages; page body ${body.length} bytes; /content body ${Math.round(revision.bytesPerRequest / 1024)} KiB`);
  console.log(`${ROUNDS} rounds of ${SECONDS} s each, alternating; medians`);
  console.log(`GET page (ours):          ${rate(ours).toFixed(0)} req/s  p50 ${median(ours.map((r) => r.p50))} ms  errors ${ours.reduce((n, r) => n + r.errors + r.non2xx, 0)}`);
  console.log(`bare Fastify, own process: ${rate(baseline).toFixed(0)} req/s  p50 ${median(baseline.map((r) => r.p50))} ms`);
  console.log(`ratio: ${median(ratios).toFixed(2)} (rounds ${ratios.map((r) => r.toFixed(2)).join(' ')}; target >= 0.70)`);
  console.log(`GET /content, 1 connection: p50 ${revision.p50} ms  p99 ${revision.p99} ms  (target p50 < 10 ms)  errors ${revision.errors + revision.non2xx}`);
} finally {
  await server.close();
}
