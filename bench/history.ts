/**
 * History performance line (run by hand: `npx tsx bench/history.ts`): a 4,000-commit, 250-page history with merges
 * and renames pushed into a new space through git over HTTP. Targets: push accepted in under 10 s, first content read
 * after it under 2 s, reads after that at the usual speed, history facts of one new commit under 50 ms.
 * Baseline in the same run: the same push into a plain bare repository on disk (git's local transport, no checks).
 * COMMITS, PAGES and ROUNDS change the sizes.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { machine, startBenchServer } from './lib.js';
import { isolatedGitEnv } from '../test/helpers/git.js';
import { fastImport, longHistoryStream } from '../test/helpers/histories.js';
import { median } from './stats.js';

const exec = promisify(execFile);
const COMMITS = Number(process.env.COMMITS ?? 4000);
const PAGES = Number(process.env.PAGES ?? 250);
const ROUNDS = Number(process.env.ROUNDS ?? 3);

const ms = (value: number) => `${value.toFixed(0)} ms`;

const work = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-bench-history-'));
const env = await isolatedGitEnv();
const git = (args: string[], cwd?: string) => exec('git', args, { cwd, env, maxBuffer: 256 * 1024 * 1024 });
const source = path.join(work, 'source.git');
await git(['init', '--quiet', '--bare', source]);
await fastImport(source, longHistoryStream({ commits: COMMITS, pages: PAGES, mergeEvery: 10 }));
await git(['--git-dir', source, 'update-ref', '-d', 'refs/heads/fixture-side-branch']).catch(() => undefined);
const tip = (await git(['--git-dir', source, 'rev-parse', 'refs/heads/main'])).stdout.trim();
const merges = (await git(['--git-dir', source, 'rev-list', '--merges', '--count', tip])).stdout.trim();

const server = await startBenchServer();
const auth = { authorization: `Bearer ${server.token}` };
const rows: Record<string, number[]> = { baseline: [], push: [], firstRead: [], finalFacts: [], warmRead: [], oneCommitFacts: [] };
try {
  for (let round = 0; round < ROUNDS; round++) {
    // Baseline: the same push to a bare repository on disk.
    const plain = path.join(work, `plain-${round}.git`);
    await git(['init', '--quiet', '--bare', plain]);
    let start = performance.now();
    await git(['--git-dir', source, 'push', '--quiet', plain, `${tip}:refs/heads/main`]);
    rows.baseline.push(performance.now() - start);

    const created = await fetch(`${server.url}/v1/orgs/${server.organizationId}/spaces`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ title: `History ${round}` }),
    });
    const spaceId = ((await created.json()) as { id: string }).id;
    const remote = `${server.url.replace('://', `://bench:${server.token}@`)}/git/${spaceId}.git`;
    start = performance.now();
    await git(['--git-dir', source, 'push', '--quiet', '--force', remote, `${tip}:refs/heads/main`]);
    const pushed = performance.now();
    rows.push.push(pushed - start);

    start = performance.now();
    const content = await fetch(`${server.url}/v1/spaces/${spaceId}/content`, { headers: auth });
    if (content.status !== 200) throw new Error(`GET content answered ${content.status}: ${await content.text()}`);
    const revision = (await content.json()) as { id: string; pages: Array<{ id: string }> };
    rows.firstRead.push(performance.now() - start);
    if (revision.id !== tip) throw new Error(`the space shows ${revision.id}, not the pushed ${tip}`);

    await server.container.ctx.history.prepare(spaceId, tip);
    rows.finalFacts.push(performance.now() - pushed);

    const page = revision.pages[1].id;
    const reads: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t = performance.now();
      const r = await fetch(`${server.url}/v1/spaces/${spaceId}/content/page/${page}`, { headers: auth });
      await r.arrayBuffer();
      reads.push(performance.now() - t);
    }
    rows.warmRead.push(median(reads.slice(5)));

    // One more commit on top of the long history, written straight into the repository: its facts alone.
    const gitDir = server.container.git.repositoryPath(spaceId);
    const now = Math.floor(Date.now() / 1000);
    await fastImport(
      gitDir,
      `commit refs/heads/main\nauthor W <w@example.com> ${now} +0000\ncommitter W <w@example.com> ${now} +0000\ndata 4\nedit\nfrom ${tip}\nM 100644 inline guide/page-1.md\ndata 9\n# Edited\n\n`,
    );
    const next = (await git(['--git-dir', gitDir, 'rev-parse', 'refs/heads/main'])).stdout.trim();
    start = performance.now();
    await server.container.ctx.history.factsOf(spaceId, next);
    rows.oneCommitFacts.push(performance.now() - start);
  }
  console.log(`history: ${COMMITS} commits (${merges} merges), ${PAGES} pages, ${ROUNDS} rounds, medians; ${machine()}`);
  console.log(`  push through Quire (git over HTTP, checks)   ${ms(median(rows.push))}   target < 10 s`);
  console.log(`  same push to a bare repository on disk      ${ms(median(rows.baseline))}   ratio ${(median(rows.push) / median(rows.baseline)).toFixed(1)}`);
  console.log(`  first GET /content after the push            ${ms(median(rows.firstRead))}   target < 2 s`);
  console.log(`  final history facts ready after the push     ${ms(median(rows.finalFacts))}   (background)`);
  console.log(`  warm page read                               ${median(rows.warmRead).toFixed(1)} ms`);
  console.log(`  facts of one new commit                      ${median(rows.oneCommitFacts).toFixed(1)} ms   target < 50 ms`);
} finally {
  await server.close();
  await fs.rm(work, { recursive: true, force: true });
}
