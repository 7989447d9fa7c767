/**
 * Concurrent pushes performance line (run by hand: `npx tsx bench/concurrent-pushes.ts`): WRITERS real git clients,
 * each with its own clone of one space, each committing COMMITS new pages one by one and pushing each with
 * fetch-rebase-retry, against the real server over HTTP. Prints the wall time, landed pushes per second, attempts
 * (and how many the server refused with the fetch-first marker), and the ratio against a baseline measured in the
 * same run: one writer pushing WRITERS x COMMITS commits one by one into another space (no contention). Rounds
 * alternate baseline and concurrent runs; medians are reported. Target: 8 x 40 in under 60 s on the 2-core machine.
 * WRITERS, COMMITS and ROUNDS change the sizes.
 *
 * The server is `quire serve` in its own process, as the README starts it, and the git clients are spawned by this
 * small process: a client forked from a process that also hosts the server pays for copying the server's memory
 * map on every fork, which is not what a team's laptops pay.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { machine } from './lib.js';
import { isolatedGitEnv } from '../test/helpers/git.js';
import { runQuire, startServer } from '../test/helpers/cli.js';
import { PUSH_REFUSED_MARKER } from '../src/content/push-messages.js';
import { median } from './stats.js';

const exec = promisify(execFile);
const WRITERS = Number(process.env.WRITERS ?? 8);
const COMMITS = Number(process.env.COMMITS ?? 40);
const ROUNDS = Number(process.env.ROUNDS ?? 3);


const work = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-bench-pushes-'));
const env = await isolatedGitEnv();
const git = (args: string[], cwd?: string) => exec('git', ['-c', 'credential.helper=', ...args], { cwd, env, maxBuffer: 64 * 1024 * 1024 });

const dataDir = path.join(work, 'data');
const serverEnv = { QUIRE_DATA_DIR: dataDir, QUIRE_LOG_LEVEL: 'warn', ...(process.env.SERVER_NODE_OPTIONS ? { NODE_OPTIONS: process.env.SERVER_NODE_OPTIONS } : {}) };
const bootstrap = await runQuire(['admin', 'bootstrap', '--init', '--email', 'bench@example.com', '--org', 'Bench'], serverEnv);
if (bootstrap.code !== 0) throw new Error(`quire admin bootstrap failed: ${bootstrap.stderr}`);
const { token, organization } = JSON.parse(bootstrap.stdout) as { token: string; organization: { id: string } };
const server = await startServer(serverEnv);
const auth = { authorization: `Bearer ${token}` };

async function newSpace(title: string): Promise<string> {
  const created = await fetch(`${server.url}/v1/orgs/${organization.id}/spaces`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ title }),
  });
  return ((await created.json()) as { id: string }).id;
}

interface Tally {
  attempts: number;
  refusedWithMarker: number;
  refusedByClient: number;
  other: string[];
}

/** One writer: commits `commits` pages one by one, each pushed with fetch-rebase-retry. */
async function writer(dir: string, name: string, commits: number, tally: Tally): Promise<void> {
  for (let i = 0; i < commits; i++) {
    await fs.writeFile(path.join(dir, `${name}-${i}.md`), `# ${name} ${i}\n\nWritten by ${name}.\n`);
    await git(['add', '--all'], dir);
    await git(['commit', '--quiet', '-m', `${name} ${i}`], dir);
    for (;;) {
      tally.attempts += 1;
      const pushed = await git(['push', '--quiet', 'origin', 'HEAD:main'], dir).then(
        () => undefined,
        (error: { stderr?: string }) => error.stderr ?? String(error),
      );
      if (pushed === undefined) break;
      if (pushed.includes(`${PUSH_REFUSED_MARKER} stale`)) tally.refusedWithMarker += 1;
      else if (/\(fetch first\)|\(non-fast-forward\)/.test(pushed) && !pushed.includes('cannot lock ref')) tally.refusedByClient += 1;
      else tally.other.push(pushed);
      if (tally.other.length > 0) throw new Error(`a push failed otherwise: ${pushed}`);
      await git(['pull', '--quiet', '--rebase', 'origin', 'main'], dir);
    }
  }
}

async function round(writers: number, commits: number, label: string): Promise<{ seconds: number; tally: Tally }> {
  const spaceId = await newSpace(label);
  const remote = `${server.url.replace('://', `://bench:${token}@`)}/git/${spaceId}.git`;
  const dirs: string[] = [];
  for (let w = 0; w < writers; w++) {
    const dir = path.join(work, `${label}-${w}`);
    await git(['clone', '--quiet', remote, dir]);
    dirs.push(dir);
  }
  const tally: Tally = { attempts: 0, refusedWithMarker: 0, refusedByClient: 0, other: [] };
  const start = performance.now();
  await Promise.all(dirs.map((dir, w) => writer(dir, `w${w}`, commits, tally)));
  const seconds = (performance.now() - start) / 1000;
  const files = (await git(['ls-remote', remote, 'refs/heads/main']).then(({ stdout }) => git(['-C', dirs[0], 'fetch', '--quiet', 'origin', stdout.slice(0, 40)])).then(() => git(['-C', dirs[0], 'ls-tree', '--name-only', 'FETCH_HEAD']))).stdout;
  const landed = files.split('\n').filter((name) => /^w\d+-\d+\.md$/.test(name)).length;
  if (landed !== writers * commits) throw new Error(`${label}: ${landed} of ${writers * commits} commits landed`);
  return { seconds, tally };
}

const rows: Record<string, number[]> = { baseline: [], concurrent: [], attempts: [], marker: [], client: [] };
try {
  console.log(machine());
  for (let r = 0; r < ROUNDS; r++) {
    const baseline = await round(1, WRITERS * COMMITS, `baseline-${r}`);
    rows.baseline.push(baseline.seconds);
    const concurrent = await round(WRITERS, COMMITS, `concurrent-${r}`);
    rows.concurrent.push(concurrent.seconds);
    rows.attempts.push(concurrent.tally.attempts);
    rows.marker.push(concurrent.tally.refusedWithMarker);
    rows.client.push(concurrent.tally.refusedByClient);
    console.log(
      `round ${r + 1}: baseline ${baseline.seconds.toFixed(1)} s; ${WRITERS} x ${COMMITS}: ${concurrent.seconds.toFixed(1)} s, ` +
        `${concurrent.tally.attempts} attempts (${concurrent.tally.refusedWithMarker} refused by the server with the marker, ` +
        `${concurrent.tally.refusedByClient} by the client itself)`,
    );
  }
  const pushes = WRITERS * COMMITS;
  const concurrent = median(rows.concurrent);
  const baseline = median(rows.baseline);
  console.log(`medians over ${ROUNDS} rounds:`);
  console.log(`one writer, ${pushes} commits one by one: ${baseline.toFixed(1)} s, ${(pushes / baseline).toFixed(2)} pushes/s`);
  console.log(
    `${WRITERS} writers x ${COMMITS} commits: ${concurrent.toFixed(1)} s (target < 60 s), ${(pushes / concurrent).toFixed(2)} landed pushes/s, ` +
      `${median(rows.attempts)} attempts, ${median(rows.marker)} refused with the marker, ${median(rows.client)} rejected by the client, 0 other failures`,
  );
  console.log(`ratio (baseline time / concurrent time): ${(baseline / concurrent).toFixed(2)}`);
} finally {
  await server.stop();
  await fs.rm(work, { recursive: true, force: true });
}
