/**
 * Issue 16 item 1: a one-page push to a 1,000-page space through Quire (git over HTTP, its pre-receive checks, the
 * revision recorded before the push returns) against the same commit pushed to a bare smart-HTTP server (git's own
 * `git http-backend` behind node:http, no checks) in the same run. Alternating order, medians. Target: ratio <= 1.5.
 * Repeat: `PAGES=1000 ROUNDS=11 npx tsx bench/push-ratio.ts`; with `QUIET=1` each round first waits until the
 * previous push's indexing is done (otherwise it still runs, on the CPU pool and the event loop, during the next).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { machine, pageFile, spaceWithPages, startBenchServer } from './lib.js';
import { median } from './stats.js';
import { Checkout } from '../test/helpers/git.js';
import { startGitHttpServer } from '../test/helpers/git-http-server.js';

const exec = promisify(execFile);
const PAGES = Number(process.env.PAGES ?? 1000);
const ROUNDS = Number(process.env.ROUNDS ?? 11);

const server = await startBenchServer();
const bareRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-bare-http-'));
try {
  const { spaceId, checkout: direct } = await spaceWithPages(server, PAGES);
  await direct.dispose();
  server.container.ctx.cache.invalidate();
  // The bare server's repository starts as a copy of the space's, so both receive the same commits.
  await exec('git', ['clone', '--quiet', '--bare', server.container.git.repositoryPath(spaceId), path.join(bareRoot, 'space.git')]);
  await exec('git', ['--git-dir', path.join(bareRoot, 'space.git'), 'config', 'http.receivepack', 'true']);
  const bare = await startGitHttpServer(bareRoot);
  const checkout = await Checkout.clone(`${server.url.replace('://', `://bench:${server.token}@`)}/git/${spaceId}.git`);
  await checkout.git('remote', 'add', 'bare', `${bare.url}/space.git`);
  await checkout.git('fetch', '--quiet', 'bare');

  const timedPush = async (remote: string): Promise<number> => {
    const started = performance.now();
    await checkout.git('push', '--quiet', remote, 'HEAD:refs/heads/main');
    return performance.now() - started;
  };
  const quire: number[] = [];
  const baseline: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (process.env.QUIET) await server.container.ctx.jobs.idle();
    await checkout.write(pageFile(round % PAGES), `# Edited page ${round}\n\nEdited in round ${round}.\n`);
    await checkout.commit(`Edit ${round}`);
    // Alternate which goes first: the second push of a round finds the objects warm in the page cache.
    if (round % 2 === 0) {
      quire.push(await timedPush('origin'));
      baseline.push(await timedPush('bare'));
    } else {
      baseline.push(await timedPush('bare'));
      quire.push(await timedPush('origin'));
    }
  }
  await bare.close();
  await checkout.dispose();
  console.log(`machine: ${machine()}`);
  console.log(`space: ${PAGES} pages; ${ROUNDS} rounds, each pushing one changed page to both, alternating order; medians`);
  console.log(`bare smart-HTTP push (git http-backend, no checks): ${median(baseline).toFixed(0)} ms`);
  console.log(`push through Quire (checks, revision recorded):     ${median(quire).toFixed(0)} ms`);
  console.log(`ratio: ${(median(quire) / median(baseline)).toFixed(2)} (target <= 1.5)`);
} finally {
  await server.close();
  await fs.rm(bareRoot, { recursive: true, force: true });
}
