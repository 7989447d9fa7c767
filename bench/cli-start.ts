/**
 * How long `quire --help` takes to start (target < 300 ms), against `node -e 0` (Node's own start) in the
 * same run: alternating rounds, medians. Runs the build (`dist/`, as `npm install` makes it and `quire` on the PATH
 * runs it). Repeat: `ROUNDS=15 npx tsx bench/cli-start.ts` (after `npm run build`).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { machine } from './lib.js';
import { median } from './stats.js';

const exec = promisify(execFile);
const ROUNDS = Number(process.env.ROUNDS ?? 15);
const main = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../dist/src/main.js');

async function timed(args: string[], env: Record<string, string> = {}): Promise<number> {
  const started = performance.now();
  await exec(process.execPath, args, { env: { ...process.env, ...env } });
  return performance.now() - started;
}

// A store for an admin command that opens it (SQLite in a temp data dir) and does its work: `admin purge`.
const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-cli-start-'));
const store = { QUIRE_DATA_DIR: dataDir, QUIRE_LOG_LEVEL: 'silent' };
await exec(process.execPath, [main, 'admin', 'bootstrap', '--init', '--email', 'admin@example.com'], { env: { ...process.env, ...store } });

const help: number[] = [];
const adminHelp: number[] = [];
const purge: number[] = [];
const bare: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  bare.push(await timed(['-e', '0']));
  help.push(await timed([main, '--help']));
  adminHelp.push(await timed([main, 'admin', '--help']));
  purge.push(await timed([main, 'admin', 'purge'], store));
}
console.log(`machine: ${machine()}`);
console.log(`medians of ${ROUNDS} alternating rounds`);
console.log(`node -e 0 (baseline):  ${median(bare).toFixed(0)} ms`);
console.log(`quire --help:          ${median(help).toFixed(0)} ms (target < 300 ms)`);
console.log(`quire admin --help:    ${median(adminHelp).toFixed(0)} ms`);
console.log(`quire admin purge:     ${median(purge).toFixed(0)} ms (opens the store, migrations checked, the purge done; target < 300 ms)`);
console.log(`ratio quire --help / node -e 0: ${(median(help) / median(bare)).toFixed(2)}`);
await fs.rm(dataDir, { recursive: true, force: true });
