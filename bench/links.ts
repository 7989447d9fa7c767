/**
 * Link index performance line (run by hand: `npx tsx bench/links.ts`): indexing the links of a 1,000-page space,
 * target < 3 s. Each page is about 1.5 KB of prose with 8 links: pages in other folders (one of them broken), an
 * image, an external URL, a reference-style link, a literal autolink and an anchor.
 *
 * Timed: indexLinks (src/domain/content/link-index.ts) on a revision never read before: reading and parsing the
 * revision from git (1,000 pages), parsing every body with remark, resolving, writing the rows in one transaction. Each
 * round pushes a commit that rewrites every page (so no parsed page is reused) and indexes it; printed beside it,
 * the parts (revision parse; link extraction and store).
 *
 * The incremental link index: target < 200 ms at 10,000 pages (`PAGES=10000`): the re-index after a
 * push that changes one page (ROUNDS pushes, a different page each, median). The revision of the push is parsed
 * first and timed apart (the push's checks and the other indexing jobs read it too; parsing is not the link
 * index's); then indexLinks, which starts from the revision before. Also printed: the same with the parse
 * included, a page moved to another folder (links to it break) and a page added early in the table of contents
 * (every later page moves). `DATABASE_URL` runs it on that (empty) PostgreSQL database instead of SQLite.
 */
import { performance } from 'node:perf_hooks';
import { machine, pageFile, spaceWithPages, startBenchServer } from './lib.js';
import { indexLinks } from '../src/domain/content/link-index.js';
import { loadRevision } from '../src/domain/content/revisions.js';
import { tinyPng } from '../test/helpers/content.js';
import { median } from './stats.js';

const PAGES = Number(process.env.PAGES ?? 1000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const TARGET_MS = 3000;
const ONE_PAGE_TARGET_MS = 200;

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

const server = await startBenchServer(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : {});
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
  // Pushes that change one page: only that page is parsed again, only its rows are written.
  const timeIndex = async (commit: string): Promise<{ parse: number; index: number }> => {
    let start = performance.now();
    await loadRevision(ctx, spaceId, commit, { final: true });
    const parse = performance.now() - start;
    start = performance.now();
    await indexLinks(ctx, spaceId, commit);
    return { parse, index: performance.now() - start };
  };
  await checkout.write(pageFile(7), `${body(7, 99)}\nOne more [link](../README.md).\n`);
  const start = performance.now();
  await indexLinks(ctx, spaceId, await checkout.commitAndPush('one page, never read'));
  const withParse = performance.now() - start;
  const onePage: Array<{ parse: number; index: number }> = [];
  for (let round = 0; round < ROUNDS; round++) {
    const i = (11 + round * 37) % PAGES;
    await checkout.write(pageFile(i), `${body(i, 100 + round)}\nOne more [link](../README.md).\n`);
    onePage.push(await timeIndex(await checkout.commitAndPush(`one page, round ${round}`)));
  }
  // A page moved to another folder: every page linking to it is redone (its links now break).
  await checkout.git('mv', pageFile(PAGES - 3), 'section-moved.md');
  const summary = (await checkout.read('SUMMARY.md')).replace(`(${pageFile(PAGES - 3)})`, '(section-moved.md)');
  await checkout.write('SUMMARY.md', summary);
  const moved = await timeIndex(await checkout.commitAndPush('one page moved'));
  // A page added second in the table of contents: every later page moves by one place.
  await checkout.write('inserted.md', '# Inserted\n\n[Home](README.md)\n');
  await checkout.write('SUMMARY.md', summary.replace('* [Home](README.md)\n', '* [Home](README.md)\n* [Inserted](inserted.md)\n'));
  const inserted = await timeIndex(await checkout.commitAndPush('one page added early'));

  const cold = median(totals);
  const onePageIndex = median(onePage.map((t) => t.index));
  console.log(`machine: ${machine()}`);
  console.log(`space: ${PAGES} pages, ${rows} link rows per revision (8 links per page, one broken)`);
  console.log(`indexLinks, revision never read: ${totals.map((t) => `${t.toFixed(0)} ms`).join(', ')}; median ${cold.toFixed(0)} ms (target < ${TARGET_MS} ms at 1,000 pages)`);
  console.log(`ratio to target: ${(cold / TARGET_MS).toFixed(2)}`);
  console.log(
    `  of which revision parse (git reads, ${PAGES} pages): median ${median(parses).toFixed(0)} ms; link extraction + store: median ${median(extractions).toFixed(0)} ms`,
  );
  console.log(
    `links re-index after a push changing one page (revision parsed before): ${onePage.map((t) => `${t.index.toFixed(0)} ms`).join(', ')}; median ${onePageIndex.toFixed(0)} ms (target < ${ONE_PAGE_TARGET_MS} ms at 10,000 pages; ratio ${(onePageIndex / ONE_PAGE_TARGET_MS).toFixed(2)})`,
  );
  console.log(`  parse of those revisions (apart): median ${median(onePage.map((t) => t.parse)).toFixed(0)} ms; indexLinks with the parse, revision never read: ${withParse.toFixed(0)} ms`);
  console.log(`links re-index after a page moved to another folder: ${moved.index.toFixed(0)} ms (parse apart: ${moved.parse.toFixed(0)} ms)`);
  console.log(`links re-index after a page added second in the table of contents: ${inserted.index.toFixed(0)} ms (parse apart: ${inserted.parse.toFixed(0)} ms)`);
} finally {
  await server.close();
}
