/**
 * How long `quire --help` takes to start (issue 16, target < 300 ms), against `node -e 0` (Node's own start) in the
 * same run: alternating rounds, medians. Runs the build (`dist/`, as `npm install` makes it and `quire` on the PATH
 * runs it). Repeat: `ROUNDS=15 npx tsx bench/cli-start.ts` (after `npm run build`).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { machine } from './lib.js';
import { median } from './stats.js';

const exec = promisify(execFile);
const ROUNDS = Number(process.env.ROUNDS ?? 15);
const main = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/src/main.js');

async function timed(args: string[]): Promise<number> {
  const started = performance.now();
  await exec(process.execPath, args);
  return performance.now() - started;
}

const help: number[] = [];
const adminHelp: number[] = [];
const bare: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  bare.push(await timed(['-e', '0']));
  help.push(await timed([main, '--help']));
  adminHelp.push(await timed([main, 'admin', '--help']));
}
console.log(`machine: ${machine()}`);
console.log(`medians of ${ROUNDS} alternating rounds`);
console.log(`node -e 0 (baseline):  ${median(bare).toFixed(0)} ms`);
console.log(`quire --help:          ${median(help).toFixed(0)} ms (target < 300 ms)`);
console.log(`quire admin --help:    ${median(adminHelp).toFixed(0)} ms`);
console.log(`ratio quire --help / node -e 0: ${(median(help) / median(bare)).toFixed(2)}`);
