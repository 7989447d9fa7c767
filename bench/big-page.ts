/**
 * Big page performance line (run by hand: `npx tsx bench/big-page.ts`): one big page must not hold the API.
 *
 * For each size (`SIZES`, MB, default `1,5`): a space with a one-line page of that size (words, links, emphasis) is
 * pushed over HTTP with a real git client; `GET /v1/orgs` is timed every 50 ms from the push until search finds a
 * word of the page's first part (the index-search job is done). Baseline, in the same run: the same samples while
 * a page of 2 KB is pushed and indexed. Then the parse time of the page alone (parsePage, search rows, links; search
 * and links read its first 1 MB), on this thread. `NO_PARSE=1` leaves that out.
 */
import { execFile } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { machine, startBenchServer, type BenchServer } from './lib.js';
import { Checkout, spaceRemote } from '../test/helpers/git.js';
import { parsePage } from '../src/content/page.js';
import { extractLinks } from '../src/content/links.js';
import { indexedPart } from '../src/content/bounded-markdown.js';
import { pageRows } from '../src/content/search-ranking.js';

const SIZES = (process.env.SIZES ?? '1,5').split(',').map(Number);
const WORDS = ['lorem', 'ipsum', 'dolor', 'sit', 'amet', 'consectetur', 'adipiscing', 'elit', '[sed](other.md)', 'do', 'eiusmod', '*tempor*'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function oneLine(bytes: number): string {
  const parts = ['zebrafirstpart'];
  let size = parts[0].length;
  for (let i = 0; size < bytes; i++) {
    parts.push(WORDS[i % WORDS.length]);
    size += WORDS[i % WORDS.length].length + 1;
  }
  return `# Big page\n\n${parts.join(' ')}\n`;
}

function parseTime(text: string): number {
  const started = performance.now();
  const page = parsePage(text, { gitPath: 'big.md' }).page;
  pageRows({ id: 'p', title: page.title, path: 'big', blobOid: '', markdown: page.markdown });
  extractLinks(indexedPart(page.markdown).text);
  return performance.now() - started;
}

async function pushAndSample(server: BenchServer, label: string, text: string): Promise<void> {
  const headers = { authorization: `Bearer ${server.token}` };
  const created = await fetch(`${server.url}/v1/orgs/${server.organizationId}/spaces`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ title: label }),
  });
  const spaceId = ((await created.json()) as { id: string }).id;
  const checkout = await Checkout.clone(spaceRemote(server.url, server.token, spaceId));
  await checkout.write('big.md', text);
  await checkout.write('other.md', '# Other\n\nNothing here.\n');
  await checkout.git('add', '--all');
  await checkout.git('commit', '--quiet', '-m', label);
  const latencies: number[] = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const started = performance.now();
      await (await fetch(`${server.url}/v1/orgs`, { headers })).arrayBuffer();
      latencies.push(performance.now() - started);
      await sleep(50);
    }
  })();
  const started = performance.now();
  await promisify(execFile)('git', ['push', '--quiet', 'origin', 'HEAD:refs/heads/main'], { cwd: checkout.dir, env: checkout.env });
  const pushed = performance.now() - started;
  for (;;) {
    const res = await fetch(`${server.url}/v1/spaces/${spaceId}/search?query=zebrafirstpart`, { headers });
    if (((await res.json()) as { items: unknown[] }).items.length > 0) break;
    await sleep(100);
  }
  const indexed = performance.now() - started;
  sampling = false;
  await sampler;
  await checkout.dispose();
  latencies.sort((a, b) => a - b);
  const p50 = latencies[Math.floor(latencies.length / 2)];
  process.stdout.write(
    `${label.padEnd(22)} push ${pushed.toFixed(0).padStart(6)} ms, searchable after ${indexed.toFixed(0).padStart(6)} ms; ` +
      `GET /v1/orgs x${latencies.length}: p50 ${p50.toFixed(0)} ms, worst ${latencies[latencies.length - 1].toFixed(0)} ms (target < 200)\n`,
  );
}

const server = await startBenchServer();
try {
  process.stdout.write(`machine: ${machine()}; CPU pool threads: ${server.container.config.cpuThreads}\n`);
  const small = `# Big page\n\nzebrafirstpart ${WORDS.join(' ').repeat(20)}\n`;
  await pushAndSample(server, 'baseline: 2 KB page', small);
  for (const size of SIZES) await pushAndSample(server, `${size} MB one-line page`, oneLine(size * 1024 * 1024));
  // Last: parsing on this thread leaves garbage that the server's event loop would collect during the samples.
  for (const size of process.env.NO_PARSE ? [] : SIZES) {
    const text = oneLine(size * 1024 * 1024);
    process.stdout.write(`parse of a ${size} MB one-line page (page, search rows, links; one thread): ${parseTime(text).toFixed(0)} ms\n`);
  }
} finally {
  await server.close();
}
