/**
 * Issue 5 performance line (run by hand: `npx tsx bench/links.ts`): indexing the links of a 1,000-page space,
 * target < 3 s. Each page is about 1.5 KB of prose with 8 links: pages in other folders (one of them broken), an
 * image, an external URL, a reference-style link, a literal autolink and an anchor.
 *
 * Timed: indexLinks (src/domain/content/links.ts) on a revision never read before: reading and parsing the revision
 * from git (1,000 pages), parsing every body with remark, resolving, writing the rows in one transaction. Each
 * round pushes a commit that rewrites every page (so no parsed page is reused) and indexes it; printed beside it,
 * the parts (revision parse; link extraction and store), and a re-index after a push that changes one page.
 */
import { performance } from 'node:perf_hooks';
import { machine, pageFile, spaceWithPages, startBenchServer } from './lib.js';
import { indexLinks } from '../src/domain/content/links.js';
import { loadRevision } from '../src/domain/content/revisions.js';
import { tinyPng } from '../test/helpers/content.js';
import { median } from './stats.js';

const PAGES = Number(process.env.PAGES ?? 1000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const TARGET_MS = 3000;

/** About 1.5 KB of markdown with 8 links; `round` makes every round's blobs new. */
function body(i: number, round: number): string {
  const other = (n: number) => `../${pageFile((i + n) % PAGES)}`;
  const paragraph = `Paragraph about topic ${i}: install, configure and run the service; see the reference for options. `;
  let text = `# Page ${i}\n\nRound ${round}. Read [the next page](${other(1)}) and [a far page](${other(97)}#usage), `;
  text += `not [a missing one](../section-x/missing-${i}.md). ![Diagram](../.gitbook/assets/diagram-${i % 20}.png)\n\n`;
  text += `Upstream docs: [Example](https://example.com/docs/${i}), see also [the API][api] and https://status.example.com/${i}.\n\n`;
  while (text.length < 1300) text += `${paragraph}\n\n`;
  text += `## Usage\n\nJump to [usage](#usage).\n\n[api]: ${other(500)}\n`;
  return text;
}

const server = await startBenchServer();
try {
  const { ctx } = server.container;
  const assets = Object.fromEntries(Array.from({ length: 20 }, (_, n) => [`.gitbook/assets/diagram-${n}.png`, tinyPng(4 + n, 3)]));
  const { spaceId, checkout } = await spaceWithPages(server, PAGES, { body: (i) => body(i, 0), files: assets });
  const commits = [(await checkout.git('rev-parse', 'HEAD')).trim()];

  const totals: number[] = [];
  const parses: number[] = [];
  const extractions: number[] = [];
  let rows = 0;
  for (let round = 0; round < ROUNDS; round++) {
    if (round > 0) {
      for (let i = 0; i < PAGES; i++) await checkout.write(pageFile(i), body(i, round));
      commits.push(await checkout.commitAndPush(`round ${round}`));
    }
    const commit = commits[round];
    const start = performance.now();
    rows = await indexLinks(ctx, spaceId, commit);
    totals.push(performance.now() - start);
  }
  // Parts: a fresh commit, parsed first, then indexed.
  for (let round = ROUNDS; round < ROUNDS + 2; round++) {
    for (let i = 0; i < PAGES; i++) await checkout.write(pageFile(i), body(i, round));
    const commit = await checkout.commitAndPush(`round ${round}`);
    let start = performance.now();
    await loadRevision(ctx, spaceId, commit);
    parses.push(performance.now() - start);
    start = performance.now();
    await indexLinks(ctx, spaceId, commit);
    extractions.push(performance.now() - start);
  }
  // A push that changes one page: only that page is parsed again.
  await checkout.write(pageFile(7), `${body(7, 99)}\nOne more [link](../README.md).\n`);
  const small = await checkout.commitAndPush('one page');
  const start = performance.now();
  await indexLinks(ctx, spaceId, small);
  const incremental = performance.now() - start;

  const cold = median(totals);
  console.log(`machine: ${machine()}`);
  console.log(`space: ${PAGES} pages, ${rows} link rows per revision (8 links per page, one broken)`);
  console.log(`indexLinks, revision never read: ${totals.map((t) => `${t.toFixed(0)} ms`).join(', ')}; median ${cold.toFixed(0)} ms (target < ${TARGET_MS} ms)`);
  console.log(`ratio to target: ${(cold / TARGET_MS).toFixed(2)}`);
  console.log(`  of which revision parse (git reads, 1,000 pages): median ${median(parses).toFixed(0)} ms; link extraction + store: median ${median(extractions).toFixed(0)} ms`);
  console.log(`indexLinks after a push changing one page: ${incremental.toFixed(0)} ms`);
} finally {
  await server.close();
}
