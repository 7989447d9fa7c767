/**
 * Issue 3 and 16 performance lines for reads (run by hand: `npm run build && ROUNDS=5 SECONDS=4 npx tsx bench/content-read.ts`):
 * - GET one page of a 1,000-page space, warm: requests/s of `quire serve` (the build, its own process, as users run
 *   it) against a bare Fastify server in its own process (bench/bare-fastify.ts) answering the same bytes, in
 *   alternating rounds of the same run (medians); target ratio >= 0.7 (issue 16; issue 3 asked 0.5 of a route in the
 *   same process). Also the benchmark's own in-process server (under tsx), for comparison with earlier figures.
 * - GET /content of a 1,000-page space, warm: p50 latency with one connection; target < 10 ms.
 */
import { bareFastify, load, machine, spaceWithPages, startBenchServer, startQuireServe, type LoadResult } from './lib.js';
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

  // `quire serve` on the same data (SQLite in WAL mode: both processes read it).
  const serve = await startQuireServe(server.container.config.dataDir);
  const servedUrl = `${serve.url}${new URL(pageUrl).pathname}`;
  const rounds = { serve: [] as LoadResult[], inProcess: [] as LoadResult[], bare: [] as LoadResult[] };
  const runs: Array<[keyof typeof rounds, () => Promise<LoadResult>]> = [
    ['serve', () => load(servedUrl, { token: server.token, seconds: SECONDS })],
    ['bare', () => load(`${bare.url}/page`, { seconds: SECONDS })],
    ['inProcess', () => load(pageUrl, { token: server.token, seconds: SECONDS })],
  ];
  for (const [, run] of runs) await run();
  for (let round = 0; round < ROUNDS; round++) {
    // Each round in another order: the machine's drift falls on each variant alike.
    const order = round % 2 === 0 ? runs : [...runs].reverse();
    for (const [name, run] of order) rounds[name].push(await run());
  }
  bare.close();
  await serve.close();
  const rate = (results: LoadResult[]) => median(results.map((r) => r.requestsPerSecond));
  const ratios = (results: LoadResult[]) => results.map((r, i) => r.requestsPerSecond / rounds.bare[i].requestsPerSecond);
  const errors = (results: LoadResult[]) => results.reduce((n, r) => n + r.errors + r.non2xx, 0);

  const contentUrl = `${server.url}/v1/spaces/${spaceId}/content`;
  await load(contentUrl, { token: server.token, connections: 1, seconds: 2 });
  const revision = await load(contentUrl, { token: server.token, connections: 1, seconds: SECONDS });

  console.log(`machine: ${machine()}`);
  console.log(`space: ${PAGES} pages; page body ${body.length} bytes; /content body ${Math.round(revision.bytesPerRequest / 1024)} KiB`);
  console.log(`${ROUNDS} rounds of ${SECONDS} s each, alternating; medians`);
  console.log(`GET page, quire serve (dist/, own process): ${rate(rounds.serve).toFixed(0)} req/s  p50 ${median(rounds.serve.map((r) => r.p50))} ms  errors ${errors(rounds.serve)}`);
  console.log(`GET page, this process's server (tsx):     ${rate(rounds.inProcess).toFixed(0)} req/s  p50 ${median(rounds.inProcess.map((r) => r.p50))} ms  errors ${errors(rounds.inProcess)}`);
  console.log(`bare Fastify, own process:                  ${rate(rounds.bare).toFixed(0)} req/s  p50 ${median(rounds.bare.map((r) => r.p50))} ms`);
  console.log(`ratio, quire serve to bare Fastify: ${median(ratios(rounds.serve)).toFixed(2)} (rounds ${ratios(rounds.serve).map((r) => r.toFixed(2)).join(' ')}; target >= 0.70)`);
  console.log(`ratio, this process's server to bare Fastify: ${median(ratios(rounds.inProcess)).toFixed(2)} (rounds ${ratios(rounds.inProcess).map((r) => r.toFixed(2)).join(' ')})`);
  console.log(`GET /content, 1 connection: p50 ${revision.p50} ms  p99 ${revision.p99} ms  (target p50 < 10 ms)  errors ${revision.errors + revision.non2xx}`);
} finally {
  await server.close();
}
