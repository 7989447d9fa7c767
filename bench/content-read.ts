/**
 * Performance lines for reads (run by hand: `npm run build && ROUNDS=5 SECONDS=4 npx tsx bench/content-read.ts`):
 * - GET one page of a 1,000-page space, warm: requests/s of `quire serve` (the build, its own process, as users run it)
 *   against a bare Fastify server in its own process (bench/bare-fastify.ts) answering the same bytes to the same
 *   request (path and Authorization header; since 2026-12-01: before, the baseline was asked `GET /page` bare), in
 *   alternating rounds of the same run (medians); target ratio >= 0.7. Also the benchmark's own in-process server
 *   (under tsx), for comparison with earlier figures. On these 2-core machines one process runs faster or slower than
 *   an identical one started beside it, and stays so (three `quire serve` of one build differ widely against bare
 *   Fastify, bench/README.md): PROCESSES (default 3) processes of each are started, each `quire serve` measured against
 *   one bare Fastify in each round, and the median over every pair is the figure.
 * - The same read from `quire serve` with its request log on (QUIRE_LOG_LEVEL=info, the default users run with; JSON,
 *   one access line per request, to a file as a log collector takes it) against the same bare Fastify, in the same
 *   rounds; target ratio >= 0.9. The other `quire serve` runs at `warn` (no access line; `SERVE_LOG_LEVEL` changes
 *   it). `LOGGED=0` leaves this one out.
 * - GET /content of a 1,000-page space, warm: p50 latency with one connection; target < 10 ms.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { bareFastify, cpuMs, indexSpace, load, machine, spaceWithPages, startBenchServer, startQuireServe, type LoadResult, type ServeProcess } from './lib.js';
import { median } from './stats.js';

const PAGES = Number(process.env.PAGES ?? 1000);
const SECONDS = Number(process.env.SECONDS ?? 4);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const PROCESSES = Number(process.env.PROCESSES ?? 3);
/** BEFORE=<dist directory of an earlier build>: its `quire serve` is measured too, in the same rounds. */
const BEFORE = process.env.BEFORE;
const LOGGED = process.env.LOGGED !== '0';

const server = await startBenchServer();
try {
  const { spaceId, checkout } = await spaceWithPages(server, PAGES);
  await checkout.dispose();
  // Indexed before the measured servers start: otherwise each indexes the space itself while it is measured.
  await indexSpace(server, spaceId);
  const auth = { authorization: `Bearer ${server.token}` };
  const pages = (await (await fetch(`${server.url}/v1/spaces/${spaceId}/content/pages`, { headers: auth })).json()) as { pages: Array<{ id: string; title: string }> };
  const target = pages.pages[Math.floor(pages.pages.length / 2)];
  const pageUrl = `${server.url}/v1/spaces/${spaceId}/content/page/${target.id}`;
  const body = await (await fetch(pageUrl, { headers: auth })).text();

  // `quire serve` on the same data (SQLite in WAL mode: every process reads it), and bare Fastify, PROCESSES of each.
  const pagePath = new URL(pageUrl).pathname;
  const bares: Array<{ url: string; pid: number; close(): void }> = [];
  const serves: ServeProcess[] = [];
  const befores: ServeProcess[] = [];
  const loggeds: ServeProcess[] = [];
  const logDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-bench-logs-'));
  const logFiles: string[] = [];
  for (let i = 0; i < PROCESSES; i++) {
    bares.push(await bareFastify(body));
    serves.push(await startQuireServe(server.container.config.dataDir));
    if (BEFORE) befores.push(await startQuireServe(server.container.config.dataDir, {}, { build: BEFORE }));
    if (LOGGED) {
      logFiles.push(path.join(logDir, `serve-${i}.log`));
      loggeds.push(await startQuireServe(server.container.config.dataDir, { QUIRE_LOG_LEVEL: 'info', QUIRE_LOG_FORMAT: 'json' }, { stdoutFile: logFiles[i] }));
    }
  }
  // Each run also gives the server's CPU time per request (µs): steadier than its rate on a shared machine.
  const cpuPerRequest = new WeakMap<LoadResult, number>();
  const measured = async (pid: number, run: () => Promise<LoadResult>) => {
    const before = await cpuMs(pid);
    const result = await run();
    cpuPerRequest.set(result, ((await cpuMs(pid)) - before) * 1000 / Math.max(1, result.requests));
    return result;
  };
  const served = (serve: ServeProcess) => () => measured(serve.pid, () => load(`${serve.url}${pagePath}`, { token: server.token, seconds: SECONDS }));
  // The same request as Quire's (its path and its Authorization header, which bare Fastify reads as any header).
  const bareRun = (bare: { url: string; pid: number }) => () => measured(bare.pid, () => load(`${bare.url}${pagePath}`, { token: server.token, seconds: SECONDS }));
  const inProcessRun = () => load(pageUrl, { token: server.token, seconds: SECONDS });
  const loggedRequests: LoadResult[] = [];
  const loggedRun = (serve: ServeProcess) => async () => {
    const result = await served(serve)();
    loggedRequests.push(result);
    return result;
  };
  for (const run of [...serves.map(served), ...befores.map(served), ...loggeds.map(loggedRun), ...bares.map(bareRun), inProcessRun]) await run();
  const pairs: Array<{ process: number; serve: LoadResult; before?: LoadResult; logged?: LoadResult; bare: LoadResult }> = [];
  const inProcess: Array<{ result: LoadResult; bare: LoadResult }> = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < PROCESSES; i++) {
      const runs: Array<[string, () => Promise<LoadResult>]> = [['serve', served(serves[i])], ['bare', bareRun(bares[i])]];
      if (BEFORE) runs.splice(1, 0, ['before', served(befores[i])]);
      if (LOGGED) runs.splice(1, 0, ['logged', loggedRun(loggeds[i])]);
      // Each group in another order each round: the machine's drift falls on all alike.
      const results: Record<string, LoadResult> = {};
      for (const [name, run] of (round + i) % 2 === 0 ? runs : runs.reverse()) results[name] = await run();
      pairs.push({ process: i, serve: results.serve, before: results.before, logged: results.logged, bare: results.bare });
    }
    const bare = await bareRun(bares[round % PROCESSES])();
    inProcess.push({ result: await inProcessRun(), bare });
  }
  await Promise.all(bares.map((bare) => bare.close()));
  // Closed (SIGTERM) before their logs are read: a buffered log is flushed when the process stops.
  for (const serve of [...serves, ...befores, ...loggeds]) await serve.close();
  let accessLines = 0;
  for (const file of logFiles) accessLines += (await fs.readFile(file, 'utf8')).split('\n').filter((line) => line.includes('"msg":"request completed"')).length;
  await fs.rm(logDir, { recursive: true, force: true });
  const rate = (results: LoadResult[]) => median(results.map((r) => r.requestsPerSecond)).toFixed(0);
  const ratio = (a: LoadResult, b: LoadResult) => a.requestsPerSecond / b.requestsPerSecond;
  const errors = (results: LoadResult[]) => results.reduce((n, r) => n + r.errors + r.non2xx, 0);

  const contentUrl = `${server.url}/v1/spaces/${spaceId}/content`;
  await load(contentUrl, { token: server.token, connections: 1, seconds: 2 });
  const revision = await load(contentUrl, { token: server.token, connections: 1, seconds: SECONDS });

  console.log(`machine: ${machine()}`);
  console.log(`space: ${PAGES} pages; page body ${body.length} bytes; /content body ${Math.round(revision.bytesPerRequest / 1024)} KiB`);
  console.log(`${ROUNDS} rounds of ${SECONDS} s each, ${PROCESSES} processes of each server, alternating; medians`);
  const serve = pairs.map((p) => p.serve);
  console.log(`GET page, quire serve (dist/, own process): ${rate(serve)} req/s  p50 ${median(serve.map((r) => r.p50))} ms  errors ${errors(serve)}`);
  console.log(`GET page, this process's server (tsx):     ${rate(inProcess.map((r) => r.result))} req/s  errors ${errors(inProcess.map((r) => r.result))}`);
  console.log(`bare Fastify, own process:                  ${rate(pairs.map((p) => p.bare))} req/s`);
  console.log(`ratio, quire serve to bare Fastify: ${median(pairs.map((p) => ratio(p.serve, p.bare))).toFixed(2)} (target >= 0.70)`);
  for (let i = 0; i < PROCESSES; i++) {
    const own = pairs.filter((p) => p.process === i).map((p) => ratio(p.serve, p.bare));
    console.log(`  process ${i + 1}: median ${median(own).toFixed(2)} (rounds ${own.map((r) => r.toFixed(2)).join(' ')})`);
  }
  const cpu = (results: LoadResult[]) => median(results.map((r) => cpuPerRequest.get(r) ?? NaN));
  const cpuLine = [`quire serve ${cpu(serve).toFixed(1)} µs`, ...(BEFORE ? [`${BEFORE} ${cpu(pairs.map((p) => p.before!)).toFixed(1)} µs`] : [])];
  console.log(`CPU per request (medians): ${cpuLine.join(', ')}, bare Fastify ${cpu(pairs.map((p) => p.bare)).toFixed(1)} µs; bare / quire serve ${(cpu(pairs.map((p) => p.bare)) / cpu(serve)).toFixed(2)}`);
  if (LOGGED) {
    const logged = pairs.map((p) => p.logged!);
    const loggedRatios = pairs.map((p) => ratio(p.logged!, p.bare));
    console.log(`GET page, quire serve at info (an access line per request, JSON to a file): ${rate(logged)} req/s  p50 ${median(logged.map((r) => r.p50))} ms  errors ${errors(logged)}`);
    console.log(`ratio, quire serve at info to bare Fastify: ${median(loggedRatios).toFixed(2)} (target >= 0.90); at warn: ${median(pairs.map((p) => ratio(p.serve, p.bare))).toFixed(2)}`);
    for (let i = 0; i < PROCESSES; i++) {
      const own = pairs.filter((p) => p.process === i).map((p) => ratio(p.logged!, p.bare));
      console.log(`  process ${i + 1}: median ${median(own).toFixed(2)} (rounds ${own.map((r) => r.toFixed(2)).join(' ')})`);
    }
    // Each info run beside the warn run of its round: the log's own cost, with the machine's drift of that round on both.
    console.log(`ratio, quire serve at info to the same at warn: ${median(pairs.map((p) => ratio(p.logged!, p.serve))).toFixed(2)}`);
    console.log(`CPU per request at info: ${cpu(logged).toFixed(1)} µs (at warn ${cpu(serve).toFixed(1)} µs)`);
    const answered = loggedRequests.reduce((n, r) => n + r.requests, 0);
    console.log(`access lines written: ${accessLines} for ${answered} requests answered (autocannon's count; a request in flight at a run's end is answered, not counted)`);
  }
  if (BEFORE) {
    const before = pairs.map((p) => ratio(p.before!, p.bare));
    console.log(`ratio, quire serve of ${BEFORE} to bare Fastify: ${median(before).toFixed(2)} (${rate(pairs.map((p) => p.before!))} req/s)`);
  }
  const inProcessRatios = inProcess.map((r) => ratio(r.result, r.bare));
  console.log(`ratio, this process's server to bare Fastify: ${median(inProcessRatios).toFixed(2)} (rounds ${inProcessRatios.map((r) => r.toFixed(2)).join(' ')})`);
  console.log(`GET /content, 1 connection: p50 ${revision.p50} ms  p99 ${revision.p99} ms  (target p50 < 10 ms)  errors ${revision.errors + revision.non2xx}`);
} finally {
  await server.close();
}
