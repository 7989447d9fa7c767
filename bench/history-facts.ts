/**
 * History facts performance line (run by hand: `npx tsx bench/history-facts.ts`): what the history facts of a one-page
 * push cost a 10,000-page space. For each push: computing and keeping them (the push's revision waits for them),
 * storing them (a moment later, on the same event loop) and the bytes stored. Quire stores them as the change from the
 * facts they were computed from; the baseline stores them whole, as it did before (`changesPerWhole: 0`). Each runs in
 * a space of its own holding the same commits, in alternating order, pushed straight into the repositories (no job
 * runs). Then the newest facts read by a process with none in memory (Quire: the changes back to a whole copy). PAGES
 * and ROUNDS change the sizes.
 */
import { performance } from 'node:perf_hooks';
import { machine, pageFile, spaceWithPages, startBenchServer } from './lib.js';
import { median } from './stats.js';
import { HistoryFacts } from '../src/domain/content/history.js';
import { createSpace } from '../src/domain/content/spaces.js';

const PAGES = Number(process.env.PAGES ?? 10_000);
const ROUNDS = Number(process.env.ROUNDS ?? 15);

const sizeOf = (bytes: number) => (bytes < 10 * 1024 ? `${bytes} bytes` : `${Math.round(bytes / 1024)} KiB`);

const server = await startBenchServer();
const ctx = server.container.ctx;
const deps = { db: ctx.db, git: server.container.git, reader: ctx.reader };
try {
  const { spaceId: changesSpace, checkout } = await spaceWithPages(server, PAGES, { body: (i) => `# Page ${i}\n\nText of page ${i}.\n` });
  const user = await ctx.db.selectFrom('users').selectAll().executeTakeFirstOrThrow();
  const wholeSpace = (await createSpace(ctx, { user }, server.organizationId, { title: 'Whole facts' })).space.id;
  const pushBoth = async () => {
    for (const spaceId of [changesSpace, wholeSpace]) {
      const repository = server.container.git.repositoryPath(spaceId);
      await checkout.git('push', '--quiet', '--force', '--receive-pack=git -c core.hooksPath=/dev/null receive-pack', repository, 'HEAD:refs/heads/main');
    }
    return (await checkout.git('rev-parse', 'HEAD')).trim();
  };
  const variants = [
    { name: 'stored as changes (Quire)', spaceId: changesSpace, history: new HistoryFacts(deps), keep: [] as number[], store: [] as number[], bytes: [] as number[] },
    { name: 'stored whole (baseline)', spaceId: wholeSpace, history: new HistoryFacts(deps, { changesPerWhole: 0 }), keep: [] as number[], store: [] as number[], bytes: [] as number[] },
  ];
  let tip = await pushBoth();
  for (const variant of variants) {
    await variant.history.factsOf(variant.spaceId, tip);
    await variant.history.saveNow();
  }
  const storedBytes = async (spaceId: string, oid: string) => {
    const row = await ctx.db.selectFrom('revision_facts').select('facts').where('space_id', '=', spaceId).where('commit_oid', '=', oid).executeTakeFirstOrThrow();
    return Buffer.byteLength(row.facts);
  };
  for (let round = 0; round < ROUNDS; round++) {
    await checkout.write(pageFile(round % PAGES), `# Page ${round}\n\nEdited in round ${round}.\n`);
    await checkout.commit(`round ${round}`);
    tip = await pushBoth();
    for (const variant of round % 2 === 0 ? variants : [...variants].reverse()) {
      let start = performance.now();
      await variant.history.factsOf(variant.spaceId, tip);
      variant.keep.push(performance.now() - start);
      start = performance.now();
      await variant.history.saveNow();
      variant.store.push(performance.now() - start);
      variant.bytes.push(await storedBytes(variant.spaceId, tip));
    }
  }
  console.log(`history facts of a one-page push, ${PAGES} pages, ${ROUNDS} pushes, medians; ${machine()}`);
  for (const v of variants) {
    console.log(`  ${v.name}: computed and kept ${median(v.keep).toFixed(1)} ms, stored ${median(v.store).toFixed(1)} ms, ${sizeOf(median(v.bytes))} a push`);
  }
  const [changes, whole] = variants;
  const both = (v: (typeof variants)[number]) => median(v.keep) + median(v.store);
  console.log(`  ratio of computing and storing, changes to whole: ${(both(changes) / both(whole)).toFixed(2)}`);
  // The newest facts read by a process with none in memory.
  const coldReads = { changes: [] as number[], whole: [] as number[] };
  for (let round = 0; round < 5; round++) {
    for (const [name, spaceId] of [['changes', changesSpace], ['whole', wholeSpace]] as const) {
      const cold = new HistoryFacts(deps);
      const start = performance.now();
      await cold.factsOf(spaceId, tip);
      coldReads[name].push(performance.now() - start);
    }
  }
  console.log(`  read by a process with none in memory: ${median(coldReads.changes).toFixed(1)} ms (${ROUNDS} changes back to a whole copy), whole ${median(coldReads.whole).toFixed(1)} ms`);
  await checkout.dispose();
} finally {
  await server.close();
}
