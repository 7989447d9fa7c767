/**
 * Speed at real scale (run by hand; figures in bench/README.md):
 *
 * `npx tsx bench/scale.ts` (SCALE=space, PAGES=10000): one space of 10,000 pages in folders of 50.
 *   - GET /content and GET one page, warm, one connection, from `quire serve` (the build, `npm run build` first, its
 *     own process, once the push's jobs are done): p50 (targets < 30 ms for /content), /content plain (with its floor:
 *     bare Fastify in its own process sending the same bytes) and asking gzip or br (sent compressed, as kept with the
 *     revision; each beside bare Fastify sending as many bytes);
 *   - ROUNDS one-page pushes through the real git client over HTTP, alternating with the same push to a bare
 *     smart-HTTP server (git http-backend, no checks); for each: the push, when the API shows the change (target
 *     < 1 s), and when the link index and the search index hold the new revision (targets < 200 ms each),
 *     measured from the moment the push returned.
 *
 * `SCALE=org npx tsx bench/scale.ts` (SPACES=100, PAGES=1000): an organization of 100 spaces of 1,000 pages.
 *   - organization search over all of them by `quire serve` (the build, `npm run build` first, its own process),
 *     200 queries one at a time over HTTP: p50 (target < 30 ms), in rounds alternating with the baseline, the same
 *     server keeping no ranking (QUIRE_SEARCH_RANKINGS_MB=0); a query's first search in a round and its later ones
 *     apart (each server starts with nothing kept, and searches WARM_QUERIES first, which no timed query asks); then
 *     LATER_QUERIES queries asked by none of the 200, each a first search by a server that has run a while;
 *   - the ranking alone, as a query's first search does it, in this process: every space's best 10 pages from the
 *     term lists (what organization searches do) against the engine's one query (rankPages, what they did before),
 *     the benchmark's distinct queries in alternating rounds;
 *   - what a search costs others: a small request (GET /v1/orgs/{id}) sent again and again while another client
 *     searches (nothing kept: every search ranks every space), p50 and p95, in alternating rounds with the baseline,
 *     the same request with no search beside it;
 *   - RSS of `quire serve` (the build, `npm run build` first, in its own process on the same data dir) after
 *     GET /content and one page of every space (target < 400 MB), median of three rounds alternating with the
 *     baseline, the same with V8's own heap growth (QUIRE_HEAP_GROWTH_PERCENT=0); and of the benchmark's own process,
 *     whose server has read them too (under tsx; with NODE_OPTIONS=--expose-gc, after a full collection).
 *   `ORG_SEARCH=0`: the spaces are not indexed for search nor searched (the RSS figure alone, minutes sooner).
 *   `BEFORE=<dist of an earlier build>`: that build's `quire serve` searches too, a third server in each round (a
 *   query's first searches compared).
 */
import { performance } from 'node:perf_hooks';
import { brotliCompressSync, constants as zlibConstants, gzipSync } from 'node:zlib';
import { bareFastify, checkoutWithBareRemote, load, machine, type LoadResult, pageFile, spaceWithPages, startBenchServer, startCpuProfile, startQuireServe, type BenchServer } from './lib.js';
import { median } from './stats.js';
import { catchUpWithRepositories } from '../src/domain/content/git-access.js';
import { DOCS_PER_SPACE, rankPages, searchStates, type EngineQuery } from '../src/store/sql/search.js';
import { termDocs, termLists } from '../src/store/sql/search-terms.js';
import { RankingBase, SpaceRanker } from '../src/domain/search/term-ranking.js';
import { engineQuery } from '../src/domain/search/search-queries.js';
import { indexSearch } from '../src/domain/search/search-indexing.js';
import { queryTerms } from '../src/content/search-text.js';
import { SpaceRankings } from '../src/domain/search/rankings.js';
import { linkIndexVersion } from '../src/store/sql/links.js';

const SCALE = process.env.SCALE ?? 'space';
const ROUNDS = Number(process.env.ROUNDS ?? 7);
/** BEFORE=<dist directory of an earlier build>: its organization search is measured too, in the same rounds. */
const BEFORE = process.env.BEFORE;
/** `ORG_SEARCH=0`: the organization is written but not indexed for search, and not searched (the RSS figure alone). */
const ORG_SEARCH = process.env.ORG_SEARCH !== '0';

/** Queries of words every page holds and no timed query asks (see `organization`): the searches' warm-up. */
const WARM_QUERIES = ['paragraph', 'topic', 'people', 'usage', 'jump', 'next page', 'far one', 'para', 'peop', 'paragraph topic'];
/** Queries timed after the 200 of the organization search, each asked once (see `organization`). */
const LATER_QUERIES = 60;
const WORDS = 'install configure deploy search index cluster replica token webhook schema migrate backup restore audit quota region gateway sandbox'.split(' ');

/** A page of about 1.5 KB with a few links to other pages (so the link index has work) and varied words. */
function page(i: number, pages: number): string {
  const other = (n: number) => `../${pageFile((i + n) % pages)}`;
  let text = `# Page ${i}\n\nSee [the next page](${other(1)}) and [a far one](${other(97)}#usage).\n\n`;
  for (let p = 0; text.length < 1400; p++) {
    text += `${WORDS[(i + p) % WORDS.length]} and ${WORDS[(i * 7 + p) % WORDS.length]}: paragraph ${p} about topic ${i}, with words people search for.\n\n`;
  }
  return `${text}## Usage\n\nJump to [usage](#usage).\n`;
}

async function waitFor(check: () => Promise<boolean>, limitMs = 60_000): Promise<number> {
  const started = performance.now();
  while (!(await check())) {
    if (performance.now() - started > limitMs) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return performance.now() - started;
}

/** `PROFILE=<file>`: a CPU profile of this process (the server's side) over the push rounds but the first, for Chrome's DevTools. */
async function startProfile(): Promise<{ stop(): Promise<void> } | undefined> {
  const file = process.env.PROFILE;
  if (!file) return undefined;
  const profiler = await startCpuProfile();
  return {
    async stop() {
      await profiler.stop(file);
      console.log(`CPU profile of the push rounds: ${file}`);
    },
  };
}

const p50 = (values: number[]) => `${median(values).toFixed(0)} ms`;

async function bigSpace(server: BenchServer): Promise<void> {
  const PAGES = Number(process.env.PAGES ?? 10_000);
  const ctx = server.container.ctx;
  let started = performance.now();
  const { spaceId, checkout: direct } = await spaceWithPages(server, PAGES, { body: (i) => page(i, PAGES) });
  await direct.dispose();
  ctx.cache.invalidate();
  const auth = { authorization: `Bearer ${server.token}` };
  const contentUrl = `${server.url}/v1/spaces/${spaceId}/content`;
  const first = await fetch(contentUrl, { headers: auth });
  await first.arrayBuffer();
  console.log(`space: ${PAGES} pages written and first read in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  started = performance.now();
  await indexSearch(ctx, spaceId);
  console.log(`search index from scratch: ${(performance.now() - started).toFixed(0)} ms`);

  // The reads are `quire serve`'s (the build, its own process, as the bare baseline runs in its own), once the push's
  // jobs are done: this process also runs the benchmark and the jobs, and its heap holds what it wrote.
  await ctx.jobs.idle();
  const serve = await startQuireServe(server.container.config.dataDir);
  const servedUrl = `${serve.url}/v1/spaces/${spaceId}/content`;
  await (await fetch(servedUrl, { headers: auth })).arrayBuffer();
  const pages = (await (await fetch(`${contentUrl}/pages`, { headers: auth })).json()) as { pages: Array<{ id: string; git: { path: string } }> };
  const target = pages.pages[Math.floor(pages.pages.length / 2)];
  const pageUrl = `${contentUrl}/page/${target.id}`;
  const servedPageUrl = `${servedUrl}/page/${target.id}`;
  // The floor of a 20 MB answer on this machine: bare Fastify in its own process sending the same bytes (alternating
  // rounds, medians).
  const plainBytes = Buffer.from(await (await fetch(servedUrl, { headers: auth })).arrayBuffer());
  const bare = await bareFastify(plainBytes);
  // The floor of the answer asking gzip: bare Fastify sending as many bytes (zlib's default level, as Quire's).
  const bareGzip = await bareFastify(gzipSync(plainBytes));
  // And Brotli (as fetch and browsers ask), at the quality Quire keeps its answers in.
  const bareBrotli = await bareFastify(brotliCompressSync(plainBytes, { params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 5 } }));
  await load(servedUrl, { token: server.token, connections: 1, seconds: 2 });
  await load(`${bare.url}/page`, { connections: 1, seconds: 2 });
  const content: LoadResult[] = [];
  const bareContent: LoadResult[] = [];
  const gzipped: LoadResult[] = [];
  const bareGzipped: LoadResult[] = [];
  const brotlied: LoadResult[] = [];
  const bareBrotlied: LoadResult[] = [];
  // Asking for gzip as fetch, browsers and `curl --compressed` do: the same answer compressed (once per revision).
  const gzip = { 'accept-encoding': 'gzip' };
  await load(servedUrl, { token: server.token, connections: 1, seconds: 2, headers: gzip });
  const br = { 'accept-encoding': 'br' };
  await load(servedUrl, { token: server.token, connections: 1, seconds: 2, headers: br });
  for (let round = 0; round < 4; round++) {
    const runs = [
      () => load(servedUrl, { token: server.token, connections: 1, seconds: 3 }).then((r) => content.push(r)),
      () => load(`${bare.url}/page`, { connections: 1, seconds: 3 }).then((r) => bareContent.push(r)),
      () => load(servedUrl, { token: server.token, connections: 1, seconds: 3, headers: gzip }).then((r) => gzipped.push(r)),
      () => load(`${bareGzip.url}/page`, { connections: 1, seconds: 3 }).then((r) => bareGzipped.push(r)),
      () => load(servedUrl, { token: server.token, connections: 1, seconds: 3, headers: br }).then((r) => brotlied.push(r)),
      () => load(`${bareBrotli.url}/page`, { connections: 1, seconds: 3 }).then((r) => bareBrotlied.push(r)),
    ];
    for (const run of round % 2 === 0 ? runs : runs.reverse()) await run();
  }
  await bare.close();
  await bareGzip.close();
  await bareBrotli.close();
  await load(servedPageUrl, { token: server.token, connections: 1, seconds: 2 });
  const read = await load(servedPageUrl, { token: server.token, connections: 1, seconds: 5 });
  const of = (results: LoadResult[], figure: 'p50' | 'p99') => median(results.map((r) => r[figure]));
  console.log(
    `GET /content (${Math.round(content[0].bytesPerRequest / 1024)} KiB), 1 connection: p50 ${of(content, 'p50')} ms, p99 ${of(content, 'p99')} ms (target p50 < 30 ms); ` +
      `bare Fastify sending the same bytes: p50 ${of(bareContent, 'p50')} ms, p99 ${of(bareContent, 'p99')} ms`,
  );
  console.log(`GET /content asking gzip (${Math.round(gzipped[0].bytesPerRequest / 1024)} KiB sent), 1 connection: p50 ${of(gzipped, 'p50')} ms, p99 ${of(gzipped, 'p99')} ms (target p50 < 30 ms); bare Fastify sending as many bytes: p50 ${of(bareGzipped, 'p50')} ms`);
  console.log(`GET /content asking br (${Math.round(brotlied[0].bytesPerRequest / 1024)} KiB sent), 1 connection: p50 ${of(brotlied, 'p50')} ms, p99 ${of(brotlied, 'p99')} ms (target p50 < 30 ms); bare Fastify sending as many bytes: p50 ${of(bareBrotlied, 'p50')} ms`);
  console.log(`GET one page, 1 connection: p50 ${read.p50} ms, p99 ${read.p99} ms`);
  await serve.close();

  const { checkout, close } = await checkoutWithBareRemote(server, spaceId);
  const push = async (remote: string) => {
    const begun = performance.now();
    await checkout.git('push', '--quiet', remote, 'HEAD:refs/heads/main');
    return performance.now() - begun;
  };
  const pushes: number[] = [];
  const barePushes: number[] = [];
  const visible: number[] = [];
  const linked: number[] = [];
  const searchable: number[] = [];
  let profiler: Awaited<ReturnType<typeof startProfile>>;
  for (let round = 0; round < ROUNDS; round++) {
    // The first round indexes the space's links in full (nothing was indexed before): the profile starts after it.
    if (round === Math.min(1, ROUNDS - 1)) profiler = await startProfile();
    await ctx.jobs.idle();
    const marker = `edited${round}x${Date.now()}`;
    await checkout.write(target.git.path, `# Edited page\n\n${marker} and [the first page](../${pageFile(0)}).\n`);
    const commit = await checkout.commit(marker);
    if (round % 2 === 1) barePushes.push(await push('bare'));
    pushes.push(await push('origin'));
    const pushed = performance.now();
    const since = () => performance.now() - pushed;
    const shown = waitFor(async () => ((await (await fetch(pageUrl, { headers: auth })).json()) as { markdown: string }).markdown.includes(marker)).then(since);
    const links = waitFor(async () => (await linkIndexVersion(ctx.db, spaceId, commit)) !== undefined).then(since);
    const search = waitFor(async () => (await searchStates(ctx.db, [spaceId])).get(spaceId)?.commit_oid === commit).then(since);
    visible.push(await shown);
    linked.push(await links);
    searchable.push(await search);
    if (round % 2 === 0) barePushes.push(await push('bare'));
  }
  await profiler?.stop();
  await close();
  console.log(`${ROUNDS} one-page pushes, medians (from the moment the push returned):`);
  console.log(`  git push through Quire ${p50(pushes)} (bare smart-HTTP push of the same commit ${p50(barePushes)}, ratio ${(median(pushes) / median(barePushes)).toFixed(2)})`);
  console.log(`  visible through the API ${p50(visible)} (target < 1000 ms)`);
  console.log(`  link index holds it ${p50(linked)} (target < 200 ms); search index holds it ${p50(searchable)} (target < 200 ms)`);
}

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) * p)];

/**
 * A small request's latency (GET /v1/orgs/{id}) while another client searches (`searches`, URLs, one at a time, none
 * kept: every search ranks every space, as a first search does), against the same request with no search beside it
 * (the baseline), in alternating rounds. Organization searches rank from term lists on the event loop (a few
 * milliseconds of reading and scoring, ./src/domain/search/term-ranking.ts); this is what that costs others.
 */
async function searchBesideReads(server: BenchServer, searches: string[]): Promise<string> {
  const ctx = server.container.ctx;
  const kept = ctx.rankings;
  ctx.rankings = new SpaceRankings(0);
  const auth = { authorization: `Bearer ${server.token}` };
  const timed = async (url: string) => {
    const begun = performance.now();
    const answer = await fetch(url, { headers: auth });
    if (!answer.ok) throw new Error(`${url} answered ${answer.status}`);
    await answer.arrayBuffer();
    return performance.now() - begun;
  };
  const variants = [
    { name: 'while another client searches', searching: true, small: [] as number[], search: [] as number[] },
    { name: 'alone (baseline)', searching: false, small: [] as number[], search: [] as number[] },
  ];
  const PER_ROUND = 20;
  try {
    for (let round = 0; round < 6; round++) {
      const variant = variants[round % 2];
      let searching = true;
      const searcher = (async () => {
        for (let i = 0; i < PER_ROUND; i++) {
          if (variant.searching) variant.search.push(await timed(searches[(round * PER_ROUND + i) % searches.length]));
          else await new Promise((resolve) => setTimeout(resolve, 40));
        }
        searching = false;
      })();
      const reader = (async () => {
        while (searching) variant.small.push(await timed(`${server.url}/v1/orgs/${server.organizationId}`));
      })();
      await Promise.all([searcher, reader]);
    }
  } finally {
    ctx.rankings = kept;
  }
  const figures = variants.map(
    (v) =>
      `  ${v.name}: GET /v1/orgs/{id} p50 ${median(v.small).toFixed(1)} ms, p95 ${percentile(v.small, 0.95).toFixed(1)} ms (${v.small.length} answered)${v.search.length ? `; the searches p50 ${median(v.search).toFixed(1)} ms` : ''}`,
  );
  return `what a search costs others (3 rounds of ${PER_ROUND} searches, none kept, alternating with rounds of no search):\n${figures.join('\n')}\n  ratio of the small request's p95 to the baseline's: ${(percentile(variants[0].small, 0.95) / percentile(variants[1].small, 0.95)).toFixed(2)}`;
}

/**
 * The ranking alone of every space's best 10 pages for each query, as a first search does it (nothing kept), in this
 * process: from the term lists (what organization searches do: the lists and each space's live pages read, then
 * scored) against the engine's one query (rankPages, the baseline: what they did before), in
 * alternating rounds.
 */
async function rankingAlone(server: BenchServer, spaceIds: string[], queries: string[]): Promise<string> {
  const db = server.container.ctx.db;
  const states = await searchStates(db, spaceIds);
  const spaces = spaceIds.map((spaceId) => ({ spaceId, key: states.get(spaceId)!.key }));
  const fromLists = async (query: EngineQuery) => {
    const docs = await termDocs(db, spaceIds);
    const lists = await termLists(db, spaceIds, query);
    const ranker = new SpaceRanker();
    const found: number[] = [];
    for (const { spaceId, key } of spaces) for (const page of ranker.rank(new RankingBase(docs.get(spaceId)!), lists.get(spaceId)!, query, 10)) found.push(key * DOCS_PER_SPACE + page.n);
    return found.length;
  };
  const byEngine = async (query: EngineQuery) => (await rankPages(db, spaces, query, 10)).length;
  const variants = [
    { name: 'term lists', rank: fromLists, times: [] as number[] },
    { name: 'the engine (baseline)', rank: byEngine, times: [] as number[] },
  ];
  for (let round = 0; round < 3; round++) {
    for (const variant of variants) {
      for (const text of queries) {
        const begun = performance.now();
        const pages = await variant.rank(engineQuery(queryTerms(text)));
        variant.times.push(performance.now() - begun);
        if (pages === 0) throw new Error(`no page ranked for ${text}`);
      }
    }
  }
  const lines = variants.map((v) => `  ${v.name}: p50 ${median(v.times).toFixed(1)} ms, p95 ${percentile(v.times, 0.95).toFixed(1)} ms`);
  return `the ranking alone (${spaces.length} spaces' best 10 pages, ${queries.length} queries x 3 rounds, alternating, in this process):\n${lines.join('\n')}\n  ratio of p50s, term lists to the engine: ${(median(variants[0].times) / median(variants[1].times)).toFixed(3)}`;
}

async function organization(server: BenchServer): Promise<void> {
  const SPACES = Number(process.env.SPACES ?? 100);
  const PAGES = Number(process.env.PAGES ?? 1000);
  const ctx = server.container.ctx;
  const started = performance.now();
  const spaceIds: string[] = [];
  for (let s = 0; s < SPACES; s++) {
    const { spaceId, checkout } = await spaceWithPages(server, PAGES, { title: `Space ${s}`, body: (i) => page(i + s * PAGES, PAGES) });
    await checkout.dispose();
    if (ORG_SEARCH) await indexSearch(ctx, spaceId);
    spaceIds.push(spaceId);
    if ((s + 1) % 10 === 0) console.log(`  ${s + 1} spaces written${ORG_SEARCH ? ' and indexed' : ''} (${((performance.now() - started) / 1000).toFixed(0)} s)`);
  }
  // The spaces were written straight into their repositories: the pushes are recorded and the link (and search)
  // indexes made here, as a server does for pushes it receives, so that `quire serve` below starts on a settled
  // organization (else its start-up catch-up records 100 pushes and indexes 100,000 pages while it is measured).
  const settling = performance.now();
  await catchUpWithRepositories(ctx);
  await ctx.jobs.idle();
  console.log(`  pushes recorded and indexed in ${((performance.now() - settling) / 1000).toFixed(0)} s`);
  ctx.cache.invalidate();
  const auth = { authorization: `Bearer ${server.token}` };
  /** GET /content, the page list and one page of every space, from the server at `url`. */
  const readEverySpace = async (url: string) => {
    for (const spaceId of spaceIds) {
      await (await fetch(`${url}/v1/spaces/${spaceId}/content`, { headers: auth })).arrayBuffer();
      const pages = (await (await fetch(`${url}/v1/spaces/${spaceId}/content/pages`, { headers: auth })).json()) as { pages: Array<{ id: string }> };
      await (await fetch(`${url}/v1/spaces/${spaceId}/content/page/${pages.pages[1].id}`, { headers: auth })).arrayBuffer();
    }
  };
  const queries = Array.from({ length: 200 }, (_, i) => (i % 3 === 0 ? WORDS[i % WORDS.length] : i % 3 === 1 ? `${WORDS[i % WORDS.length]} ${WORDS[(i * 5) % WORDS.length]}` : WORDS[i % WORDS.length].slice(0, 4)));
  // Queries none of the above asks (two words of every page): each a first search, in a server that has answered the
  // 200 above, as in one that has run a while (its code compiled, its CPU thread started and warm).
  const later = WORDS.flatMap((a, i) => WORDS.map((b) => `${b} ${a}`).slice(0, i)).filter((q) => !queries.includes(q)).slice(0, LATER_QUERIES);
  const searchUrl = (base: string) => (q: string) => `${base}/v1/orgs/${server.organizationId}/search?query=${encodeURIComponent(q)}`;
  // The target's figure: the searches of `quire serve` (dist/, its own process, as users run it), in rounds
  // alternating with the baseline, the same server keeping no ranking (QUIRE_SEARCH_RANKINGS_MB=0: every search ranks
  // every space by the engine). Each server starts with nothing kept: a query's first search in a round is timed
  // apart from the searches of a query asked before.
  const rounds = ORG_SEARCH ? Math.min(ROUNDS, 3) : 0;
  const searched = { kept: [] as number[], first: [] as number[], again: [] as number[], baseline: [] as number[], before: [] as number[] };
  const laterFirst = { ours: [] as number[], baseline: [] as number[], before: [] as number[] };
  for (let round = 0; round < rounds; round++) {
    const variants: Array<keyof typeof laterFirst> = ['ours', 'baseline', ...(BEFORE ? (['before'] as const) : [])];
    for (const variant of variants) {
      const keeping = variant !== 'baseline';
      const serve = await startQuireServe(server.container.config.dataDir, keeping ? {} : { QUIRE_SEARCH_RANKINGS_MB: '0' }, variant === 'before' ? { build: BEFORE } : {});
      try {
        const url = searchUrl(serve.url);
        // What every search reads first (states, spaces, the statements): a word in no page. Then other queries,
        // none of the timed ones (words of every page): a query's first search below is timed in a process that has
        // searched before (its code compiled, the spaces' bases read), as in a server that has run a while.
        await (await fetch(url('zyzzyva'), { headers: auth })).arrayBuffer();
        for (const q of WARM_QUERIES) await (await fetch(url(q), { headers: auth })).arrayBuffer();
        const asked = new Set<string>();
        for (const q of queries) {
          const begun = performance.now();
          const answer = await fetch(url(q), { headers: auth });
          if (!answer.ok) throw new Error(`search answered ${answer.status}`);
          await answer.arrayBuffer();
          const ms = performance.now() - begun;
          if (variant === 'baseline') searched.baseline.push(ms);
          else if (variant === 'before') {
            if (!asked.has(q)) searched.before.push(ms);
            asked.add(q);
          } else {
            searched.kept.push(ms);
            (asked.has(q) ? searched.again : searched.first).push(ms);
            asked.add(q);
          }
        }
        for (const q of later) {
          const begun = performance.now();
          await (await fetch(url(q), { headers: auth })).arrayBuffer();
          laterFirst[variant].push(performance.now() - begun);
        }
      } finally {
        await serve.close();
      }
    }
  }
  const ranking = ORG_SEARCH ? await rankingAlone(server, spaceIds, [...new Set(queries)]) : undefined;
  const blocking = ORG_SEARCH ? await searchBesideReads(server, queries.map(searchUrl(server.url))) : undefined;
  await readEverySpace(server.url);
  const uncollected = process.memoryUsage().rss;
  global.gc?.();
  const { rss, heapUsed, external, arrayBuffers } = process.memoryUsage();
  console.log(`organization: ${SPACES} spaces x ${PAGES} pages`);
  if (ORG_SEARCH) {
    const figures = (values: number[]) => `p50 ${median(values).toFixed(1)} ms, p95 ${percentile(values, 0.95).toFixed(1)} ms`;
    console.log(`organization search by quire serve (dist/), ${queries.length} queries one at a time (${new Set(queries).size} different), ${rounds} rounds alternating with the baseline:`);
    console.log(`  ours: ${figures(searched.kept)} (target p50 < 30 ms)`);
    console.log(`    a query's first search in its round (${searched.first.length}, after ${WARM_QUERIES.length} other queries): ${figures(searched.first)}; asked before (${searched.again.length}): ${figures(searched.again)}`);
    console.log(`  baseline, no ranking kept (QUIRE_SEARCH_RANKINGS_MB=0): ${figures(searched.baseline)}`);
    console.log(`  ratio of p50s, ours to the baseline's: ${(median(searched.kept) / median(searched.baseline)).toFixed(3)}`);
    if (BEFORE) {
      console.log(`  ${BEFORE}'s build, a query's first search in its round: ${figures(searched.before)}; ratio of first searches' p50s, ours to it: ${(median(searched.first) / median(searched.before)).toFixed(3)}`);
    }
    console.log(`  then ${later.length} queries never asked before (each a first search) in each round, by the same servers:`);
    console.log(`    ours: ${figures(laterFirst.ours)}; baseline: ${figures(laterFirst.baseline)}${BEFORE ? `; ${BEFORE}: ${figures(laterFirst.before)}; ratio of p50s, ours to it: ${(median(laterFirst.ours) / median(laterFirst.before)).toFixed(3)}` : ''}`);
  }
  if (ranking) console.log(ranking);
  if (blocking) console.log(blocking);
  const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;
  console.log(`RSS of this process (the server in the benchmark, under tsx) after reading every space once: ${mb(rss)}; JS heap ${mb(heapUsed)}, external ${mb(external)} (buffers ${mb(arrayBuffers)})${global.gc ? `; before a full collection ${mb(uncollected)}` : ', not collected first (run with NODE_OPTIONS=--expose-gc)'}`);

  // The target's figure: `quire serve` as users run it (the build, its own process, no tsx), on the same data, with
  // its default heap growth (QUIRE_HEAP_GROWTH_PERCENT); the baseline, V8's own growth factor, in alternating rounds.
  const variants: Array<{ name: string; env: Record<string, string> }> = [
    { name: 'quire serve', env: {} },
    { name: 'quire serve with V8\'s own heap growth (QUIRE_HEAP_GROWTH_PERCENT=0)', env: { QUIRE_HEAP_GROWTH_PERCENT: '0' } },
  ];
  const resident = variants.map(() => [] as number[]);
  const reading = variants.map(() => [] as number[]);
  const launchers = variants.map(() => [] as number[]);
  for (let round = 0; round < Math.min(ROUNDS, 3); round++) {
    for (const [v, { env }] of variants.entries()) {
      const serve = await startQuireServe(server.container.config.dataDir, env);
      try {
        const begun = performance.now();
        await readEverySpace(serve.url);
        reading[v].push(performance.now() - begun);
        resident[v].push(await serve.rss());
        launchers[v].push(await serve.launcherRss());
      } finally {
        await serve.close();
      }
    }
  }
  for (const [v, { name }] of variants.entries()) {
    console.log(
      `RSS of ${name} (dist/, its own process) after reading every space once: median ${mb(median(resident[v]))} (rounds ${resident[v].map(mb).join(', ')}); reading took ${(median(reading[v]) / 1000).toFixed(1)} s${v === 0 ? ' (target < 400 MB)' : ''}${median(launchers[v]) > 0 ? `; its git launcher ${mb(median(launchers[v]))}` : ''}`,
    );
  }
  console.log(`ratio of RSS to the baseline's: ${(median(resident[0]) / median(resident[1])).toFixed(2)}; of reading time: ${(median(reading[0]) / median(reading[1])).toFixed(2)}`);
}

const server = await startBenchServer();
try {
  console.log(`machine: ${machine()}`);
  if (SCALE === 'org') await organization(server);
  else await bigSpace(server);
} finally {
  await server.close();
}
