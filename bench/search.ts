/**
 * Issue 5 performance line (run by hand: `npx tsx bench/search.ts`): full-text search over 10,000 pages, target
 * p50 < 20 ms.
 *
 * 10 spaces of 1,000 generated pages each (title, 4 headed sections, about 250 words drawn from a 3,000-word
 * vocabulary with Zipf frequencies, so a few words are on every page and most on a few), pushed through git and
 * indexed by indexSearch (src/domain/search/search.ts), the function the index-search job runs. Then queries over
 * HTTP, one at a time: the organization search (all 10,000 pages) and a space search (1,000 pages). Query words are
 * drawn with the same Zipf frequencies (common words are searched often too): one word, two words, and a prefix.
 */
import { performance } from 'node:perf_hooks';
import { machine, spaceWithPages, startBenchServer } from './lib.js';
import { indexSearch } from '../src/domain/search/search.js';

const SPACES = Number(process.env.SPACES ?? 10);
const PAGES = Number(process.env.PAGES ?? 1000);
const QUERIES = Number(process.env.QUERIES ?? 300);
const TARGET_MS = 20;

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

const server = await startBenchServer();
try {
  const { ctx } = server.container;
  const spaceIds: string[] = [];
  let bytes = 0;
  for (let s = 0; s < SPACES; s++) {
    const { spaceId, checkout } = await spaceWithPages(server, PAGES, {
      title: `Space ${s}`,
      body: () => {
        const text = page();
        bytes += text.length;
        return text;
      },
    });
    await checkout.dispose();
    spaceIds.push(spaceId);
  }
  const indexTimes: number[] = [];
  for (const spaceId of spaceIds) {
    const start = performance.now();
    await indexSearch(ctx, spaceId);
    indexTimes.push(performance.now() - start);
  }
  const postings = await ctx.db.selectFrom('search_postings').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();

  const queries: string[] = [];
  for (let q = 0; q < QUERIES; q++) {
    const kind = q % 5;
    if (kind < 2) queries.push(word());
    else if (kind < 4) queries.push(`${word()} ${word()}`);
    else queries.push(word().slice(0, 3 + Math.floor(random() * 3)));
  }
  const auth = { authorization: `Bearer ${server.token}` };
  async function time(url: (query: string) => string): Promise<{ times: number[]; results: number }> {
    const times: number[] = [];
    let results = 0;
    for (const query of queries.slice(0, 20)) await (await fetch(url(query), { headers: auth })).arrayBuffer();
    for (const query of queries) {
      const start = performance.now();
      const res = await fetch(url(query), { headers: auth });
      const body = (await res.json()) as { items: unknown[] };
      times.push(performance.now() - start);
      if (res.status !== 200) throw new Error(`search answered ${res.status}: ${JSON.stringify(body)}`);
      results += body.items.length;
    }
    return { times, results };
  }
  const org = await time((query) => `${server.url}/v1/orgs/${server.organizationId}/search?query=${encodeURIComponent(query)}`);
  const one = await time((query) => `${server.url}/v1/spaces/${spaceIds[0]}/search?query=${encodeURIComponent(query)}`);
  const commonest = vocabulary[0];
  const worst: number[] = [];
  for (let i = 0; i < 20; i++) {
    const start = performance.now();
    await (await fetch(`${server.url}/v1/orgs/${server.organizationId}/search?query=${commonest}`, { headers: auth })).arrayBuffer();
    worst.push(performance.now() - start);
  }

  console.log(`machine: ${machine()}`);
  console.log(`index: ${SPACES} spaces x ${PAGES} pages = ${SPACES * PAGES} pages, ${(bytes / SPACES / PAGES).toFixed(0)} bytes per page, ${postings.n} postings`);
  console.log(`indexSearch per space of ${PAGES} pages: median ${median(indexTimes).toFixed(0)} ms`);
  console.log(`organization search (${SPACES * PAGES} pages), ${QUERIES} queries: p50 ${median(org.times).toFixed(1)} ms, p95 ${percentile(org.times, 0.95).toFixed(1)} ms, max ${Math.max(...org.times).toFixed(1)} ms; ${(org.results / QUERIES).toFixed(1)} spaces per answer`);
  console.log(`ratio p50 to target ${TARGET_MS} ms: ${(median(org.times) / TARGET_MS).toFixed(2)}`);
  console.log(`space search (${PAGES} pages): p50 ${median(one.times).toFixed(1)} ms, p95 ${percentile(one.times, 0.95).toFixed(1)} ms; ${(one.results / QUERIES).toFixed(1)} pages per answer (first page of 50)`);
  console.log(`the commonest word (on almost every page), organization search: p50 ${median(worst).toFixed(1)} ms`);
  if (process.env.SLOWEST) {
    const slow = queries.map((q, i) => [org.times[i], q] as const).sort((a, b) => b[0] - a[0]).slice(0, Number(process.env.SLOWEST));
    for (const [ms, q] of slow) console.log(`  slow: ${ms.toFixed(1)} ms  "${q}"`);
  }
} finally {
  await server.close();
}
