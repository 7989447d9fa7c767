/**
 * Spawn performance line: what starting a git process costs the server's event loop, forked from the server itself
 * against started by the launcher (src/store/git/launcher.ts), while the process is small and once it holds `GROW_MB`
 * more (buffers, as a server holding spaces' content does). For each: the time the start call holds the thread (what
 * every other request waits), and the time until `git --version` has answered (what the caller waits). Alternating
 * rounds, medians. Run by hand: `ROUNDS=7 GROW_MB=600 npx tsx bench/spawn.ts`.
 */
import { performance } from 'node:perf_hooks';
import { ProcessLauncher, spawnDirect, type GitChild } from '../src/store/git/launcher.js';
import { machine } from './lib.js';
import { median } from './stats.js';

const ROUNDS = Number(process.env.ROUNDS ?? 7);
const PER_ROUND = 20;
const GROW_MB = Number(process.env.GROW_MB ?? 600);

function finished(child: GitChild): Promise<void> {
  return new Promise((resolve, reject) => {
    child.stdout.resume();
    child.stderr.resume();
    child.once('error', reject);
    child.once('close', () => resolve());
  });
}

async function measure(start: () => GitChild): Promise<{ held: number; answered: number }> {
  const held: number[] = [];
  const answered: number[] = [];
  for (let i = 0; i < PER_ROUND; i++) {
    const begun = performance.now();
    const child = start();
    held.push(performance.now() - begun);
    child.stdin.end();
    await finished(child);
    answered.push(performance.now() - begun);
  }
  return { held: median(held), answered: median(answered) };
}

const launcher = new ProcessLauncher(0);
const env = { ...process.env, GIT_CONFIG_NOSYSTEM: '1' };
const viaLauncher = () => launcher.spawn('git', ['--version'], { env });
const direct = () => spawnDirect('git', ['--version'], { env });
// The launcher starts once, before any round.
await measure(viaLauncher);

const kept: Buffer[] = [];
console.log(`machine: ${machine()}`);
for (const size of ['small', 'grown'] as const) {
  if (size === 'grown') for (let i = 0; i < GROW_MB / 50; i++) kept.push(Buffer.alloc(50 * 2 ** 20, 1));
  const rows = { direct: { held: [] as number[], answered: [] as number[] }, launcher: { held: [] as number[], answered: [] as number[] } };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (['direct', 'launcher'] as const) : (['launcher', 'direct'] as const);
    for (const how of order) {
      const result = await measure(how === 'direct' ? direct : viaLauncher);
      rows[how].held.push(result.held);
      rows[how].answered.push(result.answered);
    }
  }
  const rss = Math.round(process.memoryUsage().rss / 2 ** 20);
  console.log(`${size} process (RSS ${rss} MB), ${ROUNDS} rounds of ${PER_ROUND} starts of git --version, medians:`);
  for (const how of ['direct', 'launcher'] as const) {
    console.log(`  ${how.padEnd(8)}  event loop held ${median(rows[how].held).toFixed(2)} ms, answered after ${median(rows[how].answered).toFixed(2)} ms`);
  }
  console.log(`  ratio of the time held, launcher / direct: ${(median(rows.launcher.held) / median(rows.direct.held)).toFixed(2)}`);
}
launcher.close();
