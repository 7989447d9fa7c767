/**
 * One big first push: a commit of FOLDERS x PER_FOLDER small pages (100 x 100 by default), each linking to the
 * readme, listed in a SUMMARY.md, pushed with a real `git push` over HTTP into a space that holds only its first
 * commit, through `quire serve` (the build, `npm run build` first, its own process), beside the same commit pushed
 * to a copy of the space's repository behind git's own `git http-backend` (the transport of bench/push-ratio.ts's
 * baseline, no checks). Alternating order, a new space each round, medians. Meanwhile `GET /v1/orgs` is asked every
 * 20 ms, one at a time, from the push until the push's indexing is done, beside the same while idle.
 * Target: the push within 5x the baseline; a probe answer never more than 100 ms slower than idle.
 *
 * `ROUNDS=3 npx tsx bench/big-push.ts`; `FOLDERS`, `PER_FOLDER` change the size; `PROFILE=<dir>` writes CPU
 * profiles of `quire serve` there (one per thread, when it stops); `SERVE_LOG_LEVEL=info SERVE_STDOUT=1` shows its
 * log.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { checkoutWithBareRemote, machine, startBenchServer, startQuireServe } from './lib.js';
import { median } from './stats.js';
import { isolatedGitEnv } from '../test/helpers/git.js';

const exec = promisify(execFile);
const FOLDERS = Number(process.env.FOLDERS ?? 100);
const PER_FOLDER = Number(process.env.PER_FOLDER ?? 100);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const PROBE_EVERY_MS = 20;

/** The commit's tree, written once in a repository of its own: pages, the readme they link to, SUMMARY.md. */
async function buildTree(): Promise<{ dir: string; tree: string }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-big-push-'));
  const env = await isolatedGitEnv();
  await exec('git', ['init', '--quiet', dir], { env });
  const summary = ['# Summary', '', '* [Home](README.md)'];
  for (let folder = 0; folder < FOLDERS; folder++) {
    await fs.mkdir(path.join(dir, `part-${folder}`));
    summary.push('', `## Part ${folder}`, '');
    const writes: Promise<void>[] = [];
    for (let i = 0; i < PER_FOLDER; i++) {
      const file = `part-${folder}/page-${i}.md`;
      writes.push(fs.writeFile(path.join(dir, file), `# Page ${folder}-${i}\n\nWord${folder}x${i}. Back to [the readme](../README.md).\n`));
      summary.push(`* [Page ${folder}-${i}](${file})`);
    }
    await Promise.all(writes);
  }
  await fs.writeFile(path.join(dir, 'README.md'), '# Big push\n\nThe readme every page links to.\n');
  await fs.writeFile(path.join(dir, 'SUMMARY.md'), `${summary.join('\n')}\n`);
  await exec('git', ['add', '--all'], { cwd: dir, env });
  await exec('git', ['commit', '--quiet', '-m', 'The tree'], { cwd: dir, env });
  const tree = (await exec('git', ['rev-parse', 'HEAD^{tree}'], { cwd: dir, env })).stdout.trim();
  return { dir, tree };
}

interface Probe {
  stop(): Promise<number[]>;
}

/** `GET /v1/orgs` one at a time, every PROBE_EVERY_MS, until stopped: the answers' times in ms. */
function probe(url: string, token: string): Probe {
  const times: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const started = performance.now();
      const res = await fetch(`${url}/v1/orgs`, { headers: { authorization: `Bearer ${token}` } });
      await res.arrayBuffer();
      if (!res.ok) throw new Error(`GET /v1/orgs answered ${res.status}`);
      times.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, PROBE_EVERY_MS));
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
      return times;
    },
  };
}

const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))];

const server = await startBenchServer();
const { dir: source, tree } = await buildTree();
const nodeArgs = process.env.PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.PROFILE)}`, '--cpu-prof-interval=200'] : [];
const serve = await startQuireServe(server.container.config.dataDir, {}, { nodeArgs });
const served = { ...server, url: serve.url };
const auth = { authorization: `Bearer ${server.token}`, 'content-type': 'application/json' };
try {
  const quire: number[] = [];
  const baseline: number[] = [];
  const indexed: number[] = [];
  const busy: number[] = [];
  const idle: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const created = await fetch(`${serve.url}/v1/orgs/${server.organizationId}/spaces`, { method: 'POST', headers: auth, body: JSON.stringify({ title: `Big ${round}` }) });
    if (created.status !== 201) throw new Error(`creating a space answered ${created.status}`);
    const spaceId = ((await created.json()) as { id: string }).id;
    const { checkout, close } = await checkoutWithBareRemote(served, spaceId);
    // The same commit for both: the tree built once, on top of the space's first commit.
    await checkout.git('fetch', '--quiet', source, 'HEAD');
    const commit = (await checkout.git('commit-tree', tree, '-p', 'HEAD', '-m', `${FOLDERS * PER_FOLDER} pages`)).trim();
    const timedPush = async (remote: string): Promise<number> => {
      const started = performance.now();
      await checkout.git('push', '--quiet', remote, `${commit}:refs/heads/main`);
      return performance.now() - started;
    };
    const idleProbe = probe(serve.url, server.token);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    idle.push(...(await idleProbe.stop()));

    const throughQuire = async () => {
      const busyProbe = probe(serve.url, server.token);
      const started = performance.now();
      quire.push(await timedPush('origin'));
      // Until the push's indexing is done: the search index holds the last page.
      for (;;) {
        const found = await fetch(`${serve.url}/v1/spaces/${spaceId}/search?query=Word${FOLDERS - 1}x${PER_FOLDER - 1}`, { headers: auth });
        if (found.ok && (await found.text()).includes(`Page ${FOLDERS - 1}-${PER_FOLDER - 1}`)) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      indexed.push(performance.now() - started);
      busy.push(...(await busyProbe.stop()));
    };
    if (round % 2 === 0) {
      await throughQuire();
      baseline.push(await timedPush('bare'));
    } else {
      baseline.push(await timedPush('bare'));
      await throughQuire();
    }
    const space = (await (await fetch(`${serve.url}/v1/spaces/${spaceId}`, { headers: auth })).json()) as { revision: string };
    if (space.revision !== commit) throw new Error(`the space's revision is ${space.revision}, not the pushed ${commit}`);
    await close();
    console.log(`round ${round + 1}: quire ${quire.at(-1)!.toFixed(0)} ms, bare ${baseline.at(-1)!.toFixed(0)} ms, indexed ${indexed.at(-1)!.toFixed(0)} ms`);
  }
  const ratio = median(quire) / median(baseline);
  const slower = quantile(busy, 1) - median(idle);
  console.log(`machine: ${machine()}`);
  console.log(`commit: ${FOLDERS} folders x ${PER_FOLDER} pages, each linking to the readme, SUMMARY.md listing them; a first push into a new space; ${ROUNDS} rounds, alternating order; medians`);
  console.log(`bare smart-HTTP push (git http-backend, no checks): ${median(baseline).toFixed(0)} ms`);
  console.log(`push through Quire (checks, revision recorded):     ${median(quire).toFixed(0)} ms`);
  console.log(`ratio: ${ratio.toFixed(2)} (target <= 5)`);
  console.log(`until searchable (from the push's start):          ${median(indexed).toFixed(0)} ms`);
  console.log(
    `GET /v1/orgs idle: p50 ${median(idle).toFixed(1)} ms, max ${quantile(idle, 1).toFixed(1)} ms (${idle.length}); ` +
      `during push and indexing: p50 ${median(busy).toFixed(1)} ms, p99 ${quantile(busy, 0.99).toFixed(1)} ms, max ${quantile(busy, 1).toFixed(1)} ms (${busy.length})`,
  );
  console.log(`worst answer slower than idle p50 by ${slower.toFixed(0)} ms (target < 100 ms)`);
} finally {
  await serve.close();
  await server.close();
  await fs.rm(source, { recursive: true, force: true });
}
