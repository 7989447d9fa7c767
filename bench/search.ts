/**
 * Search performance line (run by hand: `npx tsx bench/search.ts`): full-text search on the databases'
 * engines over 100,000 pages, target organization search p50 < 30 ms.
 *
 * SPACES spaces (default 100) of PAGES generated pages each (default 1,000; title, 4 headed sections, about 250
 * words drawn from a 3,000-word vocabulary with Zipf frequencies, so a few words are on every page and most on a
 * few), pushed through git and indexed by the `index-search` jobs the pushes queue (indexSearch,
 * src/domain/search/search.ts). Then:
 * - the time indexSearch takes to index one space from scratch (its rows removed first), median of a few spaces;
 * - the time it takes to re-index a space after a one-page push (the page's rows only; target < 200 ms at 10,000
 *   pages: `SPACES=1 PAGES=10000`);
 * - queries over HTTP, one at a time, to `quire serve` (the build: `npm run build` first) in its own process on the
 *   same data: the organization search (every page), and a space search. Query words are drawn with the same Zipf
 *   frequencies (common words are searched often too): one word, two words, and a prefix. The organization search
 *   runs ROUNDS rounds (default 3) of QUERIES queries (default 200), each round's queries its own (first askings),
 *   alternating with its baseline: bench/bare-answers.ts, a bare Fastify in its own process sending the answers of
 *   Quire's round just before, serialized and compressed per request as Quire sends them, with no search behind them
 *   (what delivering answers of that size costs on the machine); medians of the rounds' p50, and their ratio.
 *   `ORG_LIMIT=<n>` asks n spaces per answer (the API's `limit`; its default is 50);
 * - the size of the database.
 * SQLite in a temp data dir by default; `DATABASE_URL=postgres://user@host/db` runs it on a new database made on that
 * server (and dropped after). `DATA=<dir>`: the loaded organization is kept there (and its PostgreSQL database), and
 * a later run with the same DATA searches it again without loading (the indexing figures are the loading run's).
 * `PROFILE=<dir>`: CPU profiles of `quire serve` there; `NODE_ARGS`: more options for its node (`--trace-gc`, say);
 * `BUILD=<dir>`: another build's dist directory serves instead of dist.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { sql } from 'kysely';
import { bareAnswers, machine, spaceWithPages, startBenchServer, startQuireServe } from './lib.js';
import { indexSearch } from '../src/domain/search/search-indexing.js';

const SPACES = Number(process.env.SPACES ?? 100);
const PAGES = Number(process.env.PAGES ?? 1000);
const QUERIES = Number(process.env.QUERIES ?? 200);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const ORG_LIMIT = process.env.ORG_LIMIT;
const TARGET_MS = 30;
const REINDEX_TARGET_MS = 200;

// A seeded generator, so every run searches the same pages with the same queries.
let seed = 42;
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

const SYLLABLES = 'ka lo mi ne ru ta vo shi pe da gu ri zen bal cor dex fin gar hol jun kip lum mor nix pol quar sil tor vex wil'.split(' ');
const vocabulary: string[] = [];
const seen = new Set<string>();
while (vocabulary.length < 3000) {
  const n = 2 + Math.floor(random() * 3);
  let word = '';
  for (let i = 0; i < n; i++) word += SYLLABLES[Math.floor(random() * SYLLABLES.length)];
  if (!seen.has(word)) {
    seen.add(word);
    vocabulary.push(word);
  }
}
// Zipf (s = 1): the word of rank r has weight 1 / r.
const cumulative: number[] = [];
let total = 0;
for (let r = 1; r <= vocabulary.length; r++) cumulative.push((total += 1 / r));
function word(): string {
  const x = random() * total;
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return vocabulary[lo];
}
const words = (n: number) => Array.from({ length: n }, word).join(' ');
const capital = (s: string) => s[0].toUpperCase() + s.slice(1);

function page(): string {
  let text = `# ${capital(words(3))}\n\n${capital(words(30))}.\n`;
  for (let s = 0; s < 4; s++) text += `\n## ${capital(words(2))}\n\n${capital(words(25))}. ${capital(words(25))}.\n`;
  return text;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

/** A new PostgreSQL database on the server of DATABASE_URL, and how to drop it. */
async function postgresDatabase(url: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `quire_bench_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return {
    url: parsed.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/** What a run that loads the organization leaves for the searches (and for a later run with the same DATA). */
interface Loaded {
  dataDir: string;
  databaseUrl?: string;
  token: string;
  organizationId: string;
  spaceIds: string[];
  pagesIndexed: number;
  bytesPerPage: number;
  indexTimes: number[];
  reindexTimes: number[];
}

/** Pushes and indexes the organization's spaces through an in-process server, and times indexSearch on it. */
async function loadOrganization(dataDir: string, databaseUrl: string | undefined): Promise<Loaded> {
  const server = await startBenchServer({ dataDir, ...(databaseUrl ? { databaseUrl } : {}) });
  try {
    const { ctx } = server.container;
    const spaceIds: string[] = [];
    let bytes = 0;
    let first: Awaited<ReturnType<typeof spaceWithPages>>['checkout'] | undefined;
    const loadStart = performance.now();
    for (let s = 0; s < SPACES; s++) {
      const { spaceId, checkout } = await spaceWithPages(server, PAGES, {
        title: `Space ${s}`,
        body: () => {
          const text = page();
          bytes += text.length;
          return text;
        },
      });
      if (s === 0) first = checkout;
      else await checkout.dispose();
      spaceIds.push(spaceId);
      // The pushes' jobs (search and links) index each space; one space at a time keeps memory flat.
      await ctx.jobs.idle();
      if ((s + 1) % 10 === 0) process.stderr.write(`${s + 1} spaces pushed and indexed, ${((performance.now() - loadStart) / 1000).toFixed(0)} s\n`);
    }
    for (const spaceId of spaceIds) await indexSearch(ctx, spaceId);

    // Indexing from scratch: a few spaces' rows removed, indexed again.
    const indexTimes: number[] = [];
    for (const spaceId of spaceIds.slice(-Math.min(5, spaceIds.length))) {
      await ctx.db.transaction().execute(async (trx) => {
        await trx.deleteFrom('search_pages').where('space_id', '=', spaceId).execute();
        await trx.deleteFrom('search_spaces').where('space_id', '=', spaceId).execute();
      });
      const start = performance.now();
      await indexSearch(ctx, spaceId);
      indexTimes.push(performance.now() - start);
    }

    // Re-indexing after a one-page push: the push's job does it; then the same work is timed alone (the page's rows
    // marked stale, the space's revision unknown), so nothing else runs meanwhile.
    const reindexTimes: number[] = [];
    for (let i = 0; i < 5; i++) {
      await first!.write('section-0/page-1.md', page());
      await first!.commitAndPush(`one page, ${i}`);
      await ctx.jobs.idle();
      await indexSearch(ctx, spaceIds[0]);
      const { page_id } = await ctx.db
        .selectFrom('search_pages as p')
        .innerJoin('search_results as r', 'r.doc', 'p.doc')
        .select('p.page_id')
        .where('p.space_id', '=', spaceIds[0])
        .where('r.path', '=', 'section-0/page-1')
        .executeTakeFirstOrThrow();
      await ctx.db.updateTable('search_pages').set({ signature: 'stale' }).where('space_id', '=', spaceIds[0]).where('page_id', '=', page_id).execute();
      await ctx.db.updateTable('search_spaces').set({ commit_oid: '0'.repeat(40) }).where('space_id', '=', spaceIds[0]).execute();
      const start = performance.now();
      const outcome = await indexSearch(ctx, spaceIds[0]);
      reindexTimes.push(performance.now() - start);
      if (outcome !== 'indexed') throw new Error(`re-index: ${outcome}`);
    }
    await first!.dispose();
    // PostgreSQL plans from its statistics, which autovacuum gathers a minute or so after a bulk load; a server with
    // autovacuum off (as on some benchmark machines) has none for the new tables, and picks sequential scans for the
    // lookups of a search's pages (1,000 page numbers: 24 ms instead of 2). Gathered here, as autovacuum would.
    if (databaseUrl) await sql`analyze`.execute(ctx.db);
    const pagesIndexed = await ctx.db.selectFrom('search_pages').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    return {
      dataDir,
      databaseUrl,
      token: server.token,
      organizationId: server.organizationId,
      spaceIds,
      pagesIndexed: Number(pagesIndexed.n),
      bytesPerPage: bytes / SPACES / PAGES,
      indexTimes,
      reindexTimes,
    };
  } finally {
    await server.close();
  }
}

const DATA = process.env.DATA ? path.resolve(process.env.DATA) : undefined;
const savedFile = DATA && path.join(DATA, 'bench-search.json');
const saved = savedFile ? ((await fs.readFile(savedFile, 'utf8').then(JSON.parse, () => undefined)) as Loaded | undefined) : undefined;
const postgres = saved || !process.env.DATABASE_URL?.startsWith('postgres') ? undefined : await postgresDatabase(process.env.DATABASE_URL);
const dataDir = DATA ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'quire-bench-search-')));
let serve: Awaited<ReturnType<typeof startQuireServe>> | undefined;
try {
  const loaded = saved ?? (await loadOrganization(dataDir, postgres?.url));
  if (savedFile && !saved) await fs.writeFile(savedFile, JSON.stringify(loaded));
  const { token, organizationId, spaceIds, databaseUrl } = loaded;
  // PROFILE=<dir>: CPU profiles of `quire serve` (one per thread, written as it stops), for Chrome's DevTools.
  // NODE_ARGS: more of node's options for it (space-separated; `--trace-gc`, say).
  const nodeArgs = [...(process.env.PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.PROFILE)}`] : []), ...(process.env.NODE_ARGS?.split(' ').filter(Boolean) ?? [])];
  // BUILD=<dir>: another build's dist directory serves (an earlier commit's, on a copy of DATA its own migrations left).
  serve = await startQuireServe(dataDir, databaseUrl ? { DATABASE_URL: databaseUrl } : {}, { nodeArgs, ...(process.env.BUILD ? { build: process.env.BUILD } : {}) });

  /** `n` queries drawn with the vocabulary's frequencies: one word, two words, and a prefix. */
  const drawQueries = (n: number) =>
    Array.from({ length: n }, (_, q) => {
      const kind = q % 5;
      return kind < 2 ? word() : kind < 4 ? `${word()} ${word()}` : word().slice(0, 3 + Math.floor(random() * 3));
    });
  // Each round asks queries of its own: a query asked again is answered from its kept ranking, and these are first
  // askings (as most queries are). The warm-up's queries are others again.
  const warmUp = drawQueries(20);
  const rounds = Array.from({ length: ROUNDS }, () => drawQueries(QUERIES));
  const auth = { authorization: `Bearer ${token}` };
  /** Each query asked in turn (`url` of it and its index), timed to its answer parsed; `keep` gets the answers' texts. */
  async function time(url: (query: string, index: number) => string, queries: readonly string[], keep?: string[]): Promise<{ times: number[]; results: number; bytes: number }> {
    const times: number[] = [];
    let results = 0;
    let bytes = 0;
    for (const [index, query] of queries.entries()) {
      const start = performance.now();
      const res = await fetch(url(query, index), { headers: auth });
      const text = await res.text();
      const body = JSON.parse(text) as { items: unknown[] };
      times.push(performance.now() - start);
      if (res.status !== 200) throw new Error(`${url(query, index)} answered ${res.status}: ${text}`);
      results += body.items.length;
      bytes += text.length;
      keep?.push(text);
    }
    return { times, results, bytes };
  }
  // ORG_LIMIT: spaces per answer (the API's `limit`; by default its default, 50).
  const orgUrl = (query: string) => `${serve!.url}/v1/orgs/${organizationId}/search?query=${encodeURIComponent(query)}${ORG_LIMIT ? `&limit=${ORG_LIMIT}` : ''}`;
  await time(orgUrl, warmUp);
  // Quire's rounds alternate with the baseline's: bench/bare-answers.ts sending the answers of Quire's round just
  // before it (serialized and compressed per request as Quire does, by a bare Fastify: delivery without search).
  const org = { p50: [] as number[], p95: [] as number[], results: 0, bytes: 0, each: [] as Array<readonly [number, string]> };
  const baseline = { p50: [] as number[], p95: [] as number[] };
  for (const queries of rounds) {
    const answers: string[] = [];
    const round = await time(orgUrl, queries, answers);
    org.p50.push(median(round.times));
    org.p95.push(percentile(round.times, 0.95));
    org.results += round.results;
    org.bytes += round.bytes;
    round.times.forEach((ms, i) => org.each.push([ms, queries[i]]));
    const bare = await bareAnswers(answers);
    try {
      await time((_, index) => `${bare.url}/answers/${index}`, queries.slice(0, 20));
      const delivery = await time((_, index) => `${bare.url}/answers/${index}`, queries);
      baseline.p50.push(median(delivery.times));
      baseline.p95.push(percentile(delivery.times, 0.95));
    } finally {
      await bare.close();
    }
  }
  const one = await time((query) => `${serve!.url}/v1/spaces/${spaceIds[0]}/search?query=${encodeURIComponent(query)}`, rounds[0]);
  const commonest = vocabulary[0];
  const worst: number[] = [];
  for (let i = 0; i < 20; i++) {
    const start = performance.now();
    await (await fetch(`${serve.url}/v1/orgs/${organizationId}/search?query=${commonest}`, { headers: auth })).arrayBuffer();
    worst.push(performance.now() - start);
  }

  let size: number;
  if (databaseUrl) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    size = Number((await client.query('select pg_database_size(current_database()) as n')).rows[0].n);
    await client.end();
  } else {
    const files = (await fs.readdir(dataDir)).filter((file) => file.startsWith('quire.sqlite'));
    size = (await Promise.all(files.map(async (file) => (await fs.stat(path.join(dataDir, file))).size))).reduce((a, b) => a + b, 0);
  }
  const { indexTimes, reindexTimes } = loaded;
  console.log(`machine: ${machine()}; database: ${databaseUrl ? 'PostgreSQL' : 'SQLite'}${saved ? ` (searched again in ${DATA}; indexing figures from the run that loaded it)` : ''}`);
  console.log(`index: ${SPACES} spaces x ${PAGES} pages = ${SPACES * PAGES} pages (${loaded.pagesIndexed} indexed), ${loaded.bytesPerPage.toFixed(0)} bytes per page; database ${(size / 2 ** 20).toFixed(0)} MiB${databaseUrl ? '' : ' (file and WAL)'}`);
  console.log(`indexSearch of a space of ${PAGES} pages from scratch: median ${median(indexTimes).toFixed(0)} ms (${indexTimes.length} spaces)`);
  console.log(`re-index after a one-page push (${PAGES} pages): median ${median(reindexTimes).toFixed(0)} ms, max ${Math.max(...reindexTimes).toFixed(0)} ms (target < ${REINDEX_TARGET_MS} ms at 10,000 pages)`);
  const asked = ROUNDS * QUERIES;
  const rounded = (xs: number[]) => xs.map((x) => x.toFixed(1)).join(', ');
  console.log(`organization search (${SPACES * PAGES} pages), ${ROUNDS} rounds of ${QUERIES} first askings, alternating with the baseline; ${(org.results / asked).toFixed(1)} spaces and ${(org.bytes / asked / 1024).toFixed(0)} KB of JSON per answer:`);
  console.log(`  Quire: p50 ${median(org.p50).toFixed(1)} ms (rounds ${rounded(org.p50)}), p95 ${median(org.p95).toFixed(1)} ms`);
  console.log(`  baseline, the same answers sent by a bare Fastify (serialized and compressed per request, no search): p50 ${median(baseline.p50).toFixed(1)} ms (rounds ${rounded(baseline.p50)}), p95 ${median(baseline.p95).toFixed(1)} ms`);
  console.log(`  ratio p50 to the baseline: ${(median(org.p50) / median(baseline.p50)).toFixed(2)}; to the target ${TARGET_MS} ms: ${(median(org.p50) / TARGET_MS).toFixed(2)}`);
  console.log(`space search (${PAGES} pages): p50 ${median(one.times).toFixed(1)} ms, p95 ${percentile(one.times, 0.95).toFixed(1)} ms; ${(one.results / QUERIES).toFixed(1)} pages per answer (first page of 50)`);
  console.log(`the commonest word (on almost every page), organization search: p50 ${median(worst).toFixed(1)} ms`);
  if (process.env.SLOWEST) {
    const slow = [...org.each].sort((a, b) => b[0] - a[0]).slice(0, Number(process.env.SLOWEST));
    for (const [ms, q] of slow) console.log(`  slow: ${ms.toFixed(1)} ms  "${q}"`);
  }
} finally {
  await serve?.close();
  if (!DATA) {
    await fs.rm(dataDir, { recursive: true, force: true });
    await postgres?.drop();
  }
}
