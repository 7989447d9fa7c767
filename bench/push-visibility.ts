/**
 * Performance line for pushes (run by hand: `npx tsx bench/push-visibility.ts`): after `git push` of a
 * commit changing one page of a 1,000-page space returns, how long until GET /content/page shows the change.
 * Target: under 1 s. The push itself goes through the real git client, git over HTTP and the pre-receive checks.
 */
import { performance } from 'node:perf_hooks';
import { machine, spaceWithPages, startBenchServer } from './lib.js';
import { Checkout } from '../test/helpers/git.js';

const PAGES = Number(process.env.PAGES ?? 1000);
const ROUNDS = Number(process.env.ROUNDS ?? 10);

const server = await startBenchServer();
try {
  const { spaceId, checkout: direct } = await spaceWithPages(server, PAGES);
  await direct.dispose();
  server.container.ctx.cache.invalidate();
  const auth = { authorization: `Bearer ${server.token}` };
  const remote = `${server.url.replace('://', `://bench:${server.token}@`)}/git/${spaceId}.git`;
  const checkout = await Checkout.clone(remote);
  const pages = (await (await fetch(`${server.url}/v1/spaces/${spaceId}/content/pages`, { headers: auth })).json()) as { pages: Array<{ id: string; git: { path: string } }> };
  const target = pages.pages[Math.floor(pages.pages.length / 2)];

  const pushes: number[] = [];
  const visible: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const marker = `edit-${round}-${Date.now()}`;
    await checkout.write(target.git.path, `# Edited page\n\n${marker}\n`);
    await checkout.commit(marker);
    const start = performance.now();
    await checkout.push();
    const pushed = performance.now();
    for (;;) {
      const page = (await (await fetch(`${server.url}/v1/spaces/${spaceId}/content/page/${target.id}`, { headers: auth })).json()) as { markdown: string };
      if (page.markdown.includes(marker)) break;
      if (performance.now() - pushed > 10_000) throw new Error('the change never showed');
    }
    pushes.push(pushed - start);
    visible.push(performance.now() - pushed);
  }
  await checkout.dispose();
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`machine: ${machine()}`);
  console.log(`space: ${PAGES} pages; ${ROUNDS} pushes each changing one page`);
  console.log(`git push (client, HTTP, checks): median ${median(pushes).toFixed(0)} ms, max ${Math.max(...pushes).toFixed(0)} ms`);
  console.log(`visible through the API after push returned: median ${median(visible).toFixed(0)} ms, max ${Math.max(...visible).toFixed(0)} ms (target < 1000 ms)`);
} finally {
  await server.close();
}
