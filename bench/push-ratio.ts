/**
 * Push ratio performance line: a one-page push to a 1,000-page space through Quire (git over HTTP, its pre-receive
 * checks, the revision recorded before the push returns) against the same commit pushed to a bare smart-HTTP server
 * (git's own `git http-backend` behind node:http, no checks) in the same run. Alternating order, medians. Target: ratio
 * <= 1.2. Repeat: `PAGES=1000 ROUNDS=11 npx tsx bench/push-ratio.ts`; with `QUIET=1` each round first waits until the
 * previous push's indexing is done (otherwise it still runs, on the CPU pool and the event loop, during the next).
 */
import { performance } from 'node:perf_hooks';
import { checkoutWithBareRemote, machine, pageFile, spaceWithPages, startBenchServer } from './lib.js';
import { median, msWithRounds } from './stats.js';

const PAGES = Number(process.env.PAGES ?? 1000);
const ROUNDS = Number(process.env.ROUNDS ?? 11);

const server = await startBenchServer();
try {
  const { spaceId, checkout: direct } = await spaceWithPages(server, PAGES);
  await direct.dispose();
  server.container.ctx.cache.invalidate();
  // The bare server's repository starts as a copy of the space's, so both receive the same commits.
  const { checkout, close } = await checkoutWithBareRemote(server, spaceId);

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
  await close();
  console.log(`machine: ${machine()}`);
  console.log(`space: ${PAGES} pages; ${ROUNDS} rounds, each pushing one changed page to both, alternating order; medians`);
  console.log(`bare smart-HTTP push (git http-backend, no checks): ${msWithRounds(baseline)}`);
  console.log(`push through Quire (checks, revision recorded):     ${msWithRounds(quire)}`);
  console.log(`ratio: ${(median(quire) / median(baseline)).toFixed(2)} (target <= 1.2)`);
} finally {
  await server.close();
}
