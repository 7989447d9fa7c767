/**
 * Crawling a real published site (run by hand after `npm run build`: `REPO=<git dir> npx tsx bench/site-crawl.ts`):
 * a public GitBook Git Sync repository (REPO, a bare mirror or a clone, missing blobs filled as the conformance harness does; by default the one of /work/.mirror/* with
 * the most markdown files) pushed into a new space, published as a public site and served by `quire serve` (the
 * build) in its own process. The site's pages (every document page of the space's tree) are fetched CONCURRENCY at a
 * time, as a crawler does (taking the bytes as they come, see wireAnswer):
 * - cold: the first reading of each page (a new space each round: nothing rendered yet; its search and link indexes
 *   made, as a site's are a moment after its push);
 * - warm: the same pages read again, WARM_PASSES times over;
 * beside, in the same run and alternating, the same pages' bytes, as they went over the wire (compressed alike: the
 * crawler decodes both), answered from memory by a bare Fastify server in its own process (bench/bare-fastify.ts in
 * its many-bodies form). Pages/s, medians of ROUNDS rounds, and the ratios.
 * Targets: cold >= 50 pages/s, warm >= 1,000 pages/s. `PROFILE=<dir>` writes the server's CPU profiles.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { performance } from 'node:perf_hooks';
import PQueue from 'p-queue';
import { request } from 'undici';
import { baselineServer, indexesHold, machine, startBenchServer, startQuireServe } from './lib.js';
import { median } from './stats.js';
import { openSource } from '../scripts/conformance/source.js';

const exec = promisify(execFile);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 8);
/** Times the warm crawl goes through the pages in a round: one pass of a few hundred pages is over in a fraction of a second. */
const WARM_PASSES = Number(process.env.WARM_PASSES ?? 5);

const repeated = (urls: readonly string[], times: number): string[] => Array.from({ length: times }, () => urls).flat();

interface TreePage {
  type: string;
  path: string;
  hidden?: boolean;
  pages?: TreePage[];
}

async function markdownFiles(gitDir: string): Promise<number> {
  const { stdout } = await exec('git', ['--git-dir', gitDir, 'ls-tree', '-r', '--name-only', 'HEAD'], { maxBuffer: 64 * 1024 * 1024 });
  return stdout.split('\n').filter((name) => /\.md$/i.test(name)).length;
}

async function defaultRepository(): Promise<string> {
  const root = '/work/.mirror';
  const candidates = (await fs.readdir(root).catch(() => [])).map((name) => path.join(root, name, 'repo'));
  let best: { dir: string; files: number } | undefined;
  for (const dir of candidates) {
    const files = await markdownFiles(dir).catch(() => -1);
    if (files > (best?.files ?? -1)) best = { dir, files };
  }
  if (!best) throw new Error('bench: no REPO given and no repository under /work/.mirror');
  return best.dir;
}

/** What a crawler asks pages in: the codings browsers take (a page from 14 KB comes compressed). */
const ACCEPT_ENCODING = 'gzip, br';

/**
 * GET `url`: its status, Content-Encoding and body as they went over the wire. Not decoded: a browser decodes in a
 * process of its own, and here the decoding (Brotli, in the crawler's one process) would be what limits the rate
 * rather than the server measured.
 */
async function wireAnswer(url: string): Promise<{ status: number; coding: string | undefined; body: Buffer }> {
  const response = await request(url, { headers: { 'accept-encoding': ACCEPT_ENCODING } });
  const coding = response.headers['content-encoding'];
  return { status: response.statusCode, coding: typeof coding === 'string' ? coding : undefined, body: Buffer.from(await response.body.arrayBuffer()) };
}

/** Fetches every URL, CONCURRENCY at a time; pages/s. Any answer but 200 stops the bench. */
async function crawl(urls: readonly string[]): Promise<number> {
  const queue = new PQueue({ concurrency: CONCURRENCY });
  const started = performance.now();
  await Promise.all(
    urls.map((url) =>
      queue.add(async () => {
        const { status } = await wireAnswer(url);
        if (status !== 200) throw new Error(`GET ${url}: ${status}`);
      }),
    ),
  );
  return urls.length / ((performance.now() - started) / 1000);
}

const repository = process.env.REPO ?? (await defaultRepository());
// A mirror may lack its largest blobs: small placeholders stand in for them (as in the conformance harness).
const source = await openSource(repository, process.env, { fillMissing: true });
const server = await startBenchServer();
const nodeArgs = process.env.PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.PROFILE)}`] : [];
const serve = await startQuireServe(server.container.config.dataDir, {}, { nodeArgs });
const auth = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
const api = async <T>(method: string, url: string, body?: unknown): Promise<T> => {
  const response = await fetch(`${serve.url}${url}`, { method, headers: auth, ...(body ? { body: JSON.stringify(body) } : {}) });
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
};

/** A new space holding the repository's HEAD, published as a public site: the URLs of its pages. */
async function publishedSite(round: number): Promise<string[]> {
  const space = await api<{ id: string }>('POST', `/v1/orgs/${server.organizationId}/spaces`, { title: `Crawl ${round}` });
  const remote = `${serve.url.replace('://', `://bench:${server.token}@`)}/git/${space.id}.git`;
  await exec('git', ['--git-dir', source.gitDir, 'push', '--quiet', remote, `+${source.head}:refs/heads/main`], { maxBuffer: 64 * 1024 * 1024 });
  const content = await api<{ pages: TreePage[] }>('GET', `/v1/spaces/${space.id}/content`);
  // The push's indexing done first: the crawl measures reading the site, not the push's background work beside it.
  await indexesHold(server, space.id, (await api<{ revision: string }>('GET', `/v1/spaces/${space.id}`)).revision);
  const site = await api<{ urls: { published: string } }>('POST', `/v1/orgs/${server.organizationId}/sites`, { title: `Crawl ${round}`, visibility: 'public', spaces: [space.id] });
  const base = `${serve.url}${new URL(site.urls.published).pathname}`;
  const urls: string[] = [];
  const walk = (pages: TreePage[]) => {
    for (const page of pages) {
      if (page.type === 'document' && !page.hidden) urls.push(`${base}/${page.path}`);
      walk(page.pages ?? []);
    }
  };
  walk(content.pages);
  // The site's home reads the revision and its tree (as a running site has): the pages themselves stay cold.
  await fetch(base).then((response) => response.arrayBuffer());
  return urls;
}

try {
  const cold: number[] = [];
  const warm: number[] = [];
  const bareCold: number[] = [];
  const bareWarm: number[] = [];
  let pages = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const urls = await publishedSite(round);
    pages = urls.length;
    cold.push(await crawl(urls));
    // The baseline: the same pages' bytes as they went (compressed the same way, which the crawler decodes alike),
    // answered from memory by a bare server of its own process.
    const answers = (await Promise.all(urls.map(wireAnswer))).map(({ coding, body }) => (coding ? `${coding} ${body.toString('base64')}` : body.toString('base64')));
    const bare = await baselineServer('bench/bare-fastify.ts', { files: { bodies: `${answers.join('\n')}\n` }, args: ['text/html; charset=utf-8', 'many'] });
    try {
      const bareUrls = urls.map((_, i) => `${bare.url}/page/${i}`);
      bareCold.push(await crawl(bareUrls));
      // Warm rounds alternate, Quire first in even rounds.
      for (const [first, second] of round % 2 === 0 ? [[urls, bareUrls]] : [[bareUrls, urls]]) {
        const a = await crawl(repeated(first, WARM_PASSES));
        const b = await crawl(repeated(second, WARM_PASSES));
        (first === urls ? warm : bareWarm).push(a);
        (first === urls ? bareWarm : warm).push(b);
      }
    } finally {
      await bare.close();
    }
    process.stdout.write(`round ${round + 1}: ${pages} pages; cold ${cold[round].toFixed(0)}/s, warm ${warm[round].toFixed(0)}/s; bare ${bareCold[round].toFixed(0)}/s, ${bareWarm[round].toFixed(0)}/s\n`);
  }
  console.log(`machine: ${machine()}`);
  console.log(`site: ${path.basename(path.dirname(repository))} (${pages} pages), ${CONCURRENCY} requests at a time; medians of ${ROUNDS} rounds`);
  console.log(`cold pages: ${median(cold).toFixed(0)}/s (target >= 50/s); bare server, same bytes: ${median(bareCold).toFixed(0)}/s; ratio ${(median(cold) / median(bareCold)).toFixed(2)}`);
  console.log(`warm pages: ${median(warm).toFixed(0)}/s (target >= 1000/s); bare server, same bytes: ${median(bareWarm).toFixed(0)}/s; ratio ${(median(warm) / median(bareWarm)).toFixed(2)}`);
} finally {
  await serve.close();
  await server.close();
  await source.dispose();
}
