/**
 * Merge performance line (run by hand: `npx tsx bench/merge.ts`): merging a change request that touches 10
 * pages of a 1,000-page space, through POST .../merge; target p50 < 50 ms. Printed beside it: the bare git cost of
 * the same kind of merge (`git merge-tree --write-tree`, `commit-tree`, `update-ref`) on a copy of the repository.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { machine, pageBody, spaceWithPages, startBenchServer } from './lib.js';
import { median } from './stats.js';

const exec = promisify(execFile);
const PAGES = Number(process.env.PAGES ?? 1000);
const ROUNDS = Number(process.env.ROUNDS ?? 20);

const server = await startBenchServer();
try {
  const { spaceId, checkout } = await spaceWithPages(server, PAGES);
  const auth = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
  const gitDir = server.container.git.repositoryPath(spaceId);
  const bare = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'quire-bench-bare-')), 'copy.git');

  // Change requests, each editing 10 pages of its own, pushed to their branches.
  const numbers: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const cr = (await (await fetch(`${server.url}/v1/spaces/${spaceId}/change-requests`, { method: 'POST', headers: auth, body: JSON.stringify({ subject: `Round ${round}` }) })).json()) as { number: number };
    await checkout.git('fetch', '--quiet', 'origin', `+refs/heads/change-requests/${cr.number}:refs/remotes/origin/cr-${cr.number}`);
    await checkout.git('checkout', '--quiet', '-B', `cr-${cr.number}`, `origin/cr-${cr.number}`);
    for (let i = 0; i < 10; i++) {
      const n = round * 10 + i;
      await checkout.write(`section-${Math.floor(n / 50)}/page-${n}.md`, `${pageBody(n)}\nEdited in round ${round}.\n`);
    }
    await checkout.commit(`round ${round}`);
    await checkout.push(`HEAD:refs/heads/change-requests/${cr.number}`);
    numbers.push(cr.number);
  }
  await exec('git', ['clone', '--quiet', '--bare', '--mirror', gitDir, bare]);

  const ours: number[] = [];
  for (const number of numbers) {
    const start = performance.now();
    const res = (await (await fetch(`${server.url}/v1/spaces/${spaceId}/change-requests/${number}/merge`, { method: 'POST', headers: auth })).json()) as { result: string };
    ours.push(performance.now() - start);
    if (res.result !== 'merge') throw new Error(`merge ${number}: ${JSON.stringify(res)}`);
  }

  // The same merges with bare git plumbing on the copy.
  const baseline: number[] = [];
  const git = (...args: string[]) => exec('git', ['--git-dir', bare, ...args]);
  for (const number of numbers) {
    const start = performance.now();
    const main = (await git('rev-parse', 'refs/heads/main')).stdout.trim();
    const branch = (await git('rev-parse', `refs/heads/change-requests/${number}`)).stdout.trim();
    const tree = (await git('merge-tree', '--write-tree', main, branch)).stdout.trim().split('\n')[0];
    const commit = (await git('commit-tree', tree, '-p', main, '-p', branch, '-m', 'merge')).stdout.trim();
    await git('update-ref', 'refs/heads/main', commit, main);
    baseline.push(performance.now() - start);
  }
  await checkout.dispose();
  await fs.rm(path.dirname(bare), { recursive: true, force: true });

  console.log(`machine: ${machine()}`);
  console.log(`space: ${PAGES} pages; ${ROUNDS} change requests, each changing 10 pages, merged one after the other`);
  console.log(`POST .../merge: p50 ${median(ours).toFixed(1)} ms, max ${Math.max(...ours).toFixed(1)} ms (target p50 < 50 ms)`);
  console.log(`bare git merge-tree + commit-tree + update-ref: p50 ${median(baseline).toFixed(1)} ms`);
  console.log(`ratio: ${(median(ours) / median(baseline)).toFixed(1)}x the bare git cost`);
} finally {
  await server.close();
}
