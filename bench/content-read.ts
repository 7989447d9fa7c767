/**
 * Issue 3 performance lines for reads (run by hand: `npx tsx bench/content-read.ts`):
 * - GET one page of a 1,000-page space, warm: requests/s against a bare Fastify route answering a body of the same
 *   size in the same run; target ratio >= 0.5.
 * - GET /content of a 1,000-page space, warm: p50 latency with one connection; target < 10 ms.
 */
import Fastify from 'fastify';
import { load, machine, spaceWithPages, startBenchServer } from './lib.js';

const PAGES = Number(process.env.PAGES ?? 1000);
const SECONDS = Number(process.env.SECONDS ?? 8);

const server = await startBenchServer();
try {
  const { spaceId, checkout } = await spaceWithPages(server, PAGES);
  await checkout.dispose();
  const auth = { authorization: `Bearer ${server.token}` };
  const pages = (await (await fetch(`${server.url}/v1/spaces/${spaceId}/content/pages`, { headers: auth })).json()) as { pages: Array<{ id: string; title: string }> };
  const target = pages.pages[Math.floor(pages.pages.length / 2)];
  const pageUrl = `${server.url}/v1/spaces/${spaceId}/content/page/${target.id}`;
  const body = await (await fetch(pageUrl, { headers: auth })).text();

  // The baseline: the same bytes from a route that does nothing else.
  const bare = Fastify({ logger: false });
  bare.get('/page', async (_request, reply) => reply.type('application/json').send(body));
  const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' });

  await load(pageUrl, { token: server.token, seconds: 2 });
  await load(`${bareUrl}/page`, { seconds: 2 });
  const ours = await load(pageUrl, { token: server.token, seconds: SECONDS });
  const baseline = await load(`${bareUrl}/page`, { seconds: SECONDS });
  await bare.close();

  const contentUrl = `${server.url}/v1/spaces/${spaceId}/content`;
  await load(contentUrl, { token: server.token, connections: 1, seconds: 2 });
  const revision = await load(contentUrl, { token: server.token, connections: 1, seconds: SECONDS });

  console.log(`machine: ${machine()}`);
  console.log(`space: ${PAGES} pages; page body ${body.length} bytes; /content body ${Math.round(revision.bytesPerRequest / 1024)} KiB`);
  console.log(`GET page (ours):      ${ours.requestsPerSecond.toFixed(0)} req/s  p50 ${ours.p50} ms  p99 ${ours.p99} ms  errors ${ours.errors + ours.non2xx}`);
  console.log(`bare Fastify, same body: ${baseline.requestsPerSecond.toFixed(0)} req/s  p50 ${baseline.p50} ms`);
  console.log(`ratio: ${(ours.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)} (target >= 0.50)`);
  console.log(`GET /content, 1 connection: p50 ${revision.p50} ms  p99 ${revision.p99} ms  (target p50 < 10 ms)  errors ${revision.errors + revision.non2xx}`);
} finally {
  await server.close();
}
