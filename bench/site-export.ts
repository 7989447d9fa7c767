/**
 * Site export performance line (run by hand: `npx tsx bench/site-export.ts`): `exportSite` (what `quire site export`
 * runs) of a 1,000-page public site, pages never rendered before, into an empty folder; baseline in the same run:
 * copying the exported folder (`fs.cp`, the file writes alone). Rounds alternate, medians reported; each export
 * round uses a new space (so nothing is rendered yet). Target: under 10 s. PAGES and ROUNDS change the sizes.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { machine, spaceWithPages, startBenchServer } from './lib.js';
import { exportSite } from '../src/http/routes/published/export.js';
import { createSite } from '../src/domain/sites/sites.js';

const PAGES = Number(process.env.PAGES ?? 1000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const server = await startBenchServer();
const work = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-bench-export-'));
try {
  const body = (i: number) => `# Page ${i}\n\n{% hint style="info" %}\nSee [the next page](page-${i + 1}.md).\n{% endhint %}\n\n## Install\n\n\`\`\`bash\nnpm install quire\n\`\`\`\n\n${'Text with **bold** and `code`. '.repeat(20)}\n`;
  const user = await server.container.ctx.db.selectFrom('users').selectAll().executeTakeFirstOrThrow();
  const exports: number[] = [];
  const copies: number[] = [];
  let result = { pages: 0, files: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    const { spaceId, checkout } = await spaceWithPages(server, PAGES, { body, title: `Export ${round}` });
    await checkout.dispose();
    const site = await createSite(server.container.ctx, { user }, server.organizationId, { title: `Docs ${round}`, visibility: 'public', spaces: [spaceId] });
    const dir = path.join(work, `export-${round}`);
    const started = performance.now();
    result = await exportSite(server.container.ctx, site.site.id, dir);
    exports.push(performance.now() - started);
    const copyStarted = performance.now();
    await fs.cp(dir, path.join(work, `copy-${round}`), { recursive: true });
    copies.push(performance.now() - copyStarted);
    process.stdout.write(`round ${round + 1}: export ${(exports[round] / 1000).toFixed(2)} s, copy ${(copies[round] / 1000).toFixed(2)} s\n`);
  }
  console.log(`machine: ${machine()}`);
  console.log(`site: ${result.pages} pages, ${result.files} files; medians of ${ROUNDS} rounds`);
  console.log(`export (render and write):   ${(median(exports) / 1000).toFixed(2)} s (target < 10 s)`);
  console.log(`copy of the exported folder: ${(median(copies) / 1000).toFixed(2)} s`);
  console.log(`ratio: ${(median(exports) / median(copies)).toFixed(1)}`);
} finally {
  await server.close();
  await fs.rm(work, { recursive: true, force: true });
}
