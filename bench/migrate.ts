/**
 * Migration performance line (run by hand: `npx tsx bench/migrate.ts`): `quire migrate` of SPACES spaces of PAGES
 * pages each (a history of two commits, COMMENTS comments per space) from one `quire serve` to a fresh data dir, as
 * a user runs it (its own process). Baseline measured in the same run: `git clone --mirror` of the same
 * repositories over HTTP from the same server, one after the other (the transfer itself, nothing else). A third
 * figure: the same migration when the source serves no git (a proxy answers 404 under /git/), so content comes
 * through the API's pages and files. Rounds alternate the three; medians are reported. Target: 20 x 200 in under
 * 60 s on the 2-core machine. SPACES, PAGES, COMMENTS and ROUNDS change the sizes.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { machine, pageBody, pageFile } from './lib.js';
import { Checkout, isolatedGitEnv, spaceRemote } from '../test/helpers/git.js';
import { runQuire, startServer } from '../test/helpers/cli.js';
import { NO_GIT, startFaultyProxy } from '../test/helpers/faulty-proxy.js';
import { median } from './stats.js';

const exec = promisify(execFile);
const SPACES = Number(process.env.SPACES ?? 20);
const PAGES = Number(process.env.PAGES ?? 200);
const COMMENTS = Number(process.env.COMMENTS ?? 5);
const ROUNDS = Number(process.env.ROUNDS ?? 3);

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const work = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-bench-migrate-'));
const gitEnv = await isolatedGitEnv();
const common = { QUIRE_LOG_LEVEL: 'warn', DATABASE_URL: '', REDIS_URL: '', QUIRE_FETCH_ALLOW: '127.0.0.1' };
// The source without git: content must come through the API. It is the source's public URL, so that the download
// URLs of files the source hands out lead through it (a token goes only to its own origin).
let sourceUrl = '';
const noGit = await startFaultyProxy(() => sourceUrl, NO_GIT);
const noGitUrl = noGit.url;

const sourceEnv = { ...common, QUIRE_DATA_DIR: path.join(work, 'source'), QUIRE_PUBLIC_URL: noGitUrl };
const boot = await runQuire(['admin', 'bootstrap', '--init', '--email', 'bench@example.com', '--org', 'Bench'], sourceEnv);
if (boot.code !== 0) throw new Error(`bootstrap failed: ${boot.stderr}`);
const { token, organization } = JSON.parse(boot.stdout) as { token: string; organization: { id: string } };
const source = await startServer(sourceEnv);
sourceUrl = source.url;

const api = async (method: string, url: string, body?: unknown) => {
  const response = await fetch(`${source.url}${url}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  return response.json();
};

process.stdout.write(`populating the source: ${SPACES} spaces x ${PAGES} pages\n`);
const spaceIds: string[] = [];
for (let s = 0; s < SPACES; s++) {
  const space = await api('POST', `/v1/orgs/${organization.id}/spaces`, { title: `Space ${s}` });
  const checkout = await Checkout.clone(spaceRemote(source.url, token, space.id), gitEnv);
  const summary = ['# Summary', ''];
  for (let i = 0; i < PAGES; i++) {
    await checkout.write(pageFile(i), pageBody(i));
    summary.push(`* [Page ${i}](${pageFile(i)})`);
  }
  await checkout.write('SUMMARY.md', `${summary.join('\n')}\n`);
  await checkout.commitAndPush('Pages');
  await checkout.write(pageFile(0), `${pageBody(0)}\nEdited.\n`);
  await checkout.commitAndPush('Edit');
  await checkout.dispose();
  for (let c = 0; c < COMMENTS; c++) await api('POST', `/v1/spaces/${space.id}/comments`, { body: { markdown: `Comment ${c}` } });
  spaceIds.push(space.id);
}

async function migrateOnce(from: string, round: number, kind: string): Promise<number> {
  const env = { ...common, QUIRE_DATA_DIR: path.join(work, `target-${kind}-${round}`) };
  const targetBoot = await runQuire(['admin', 'bootstrap', '--init', '--email', 'bench@example.com', '--org', 'Target'], env);
  if (targetBoot.code !== 0) throw new Error(`target bootstrap failed: ${targetBoot.stderr}`);
  const started = performance.now();
  // The source's token in the environment, as `quire migrate` takes it (never on the command line, where `ps` shows it).
  const run = await runQuire(['migrate', '--from', from], { ...env, QUIRE_MIGRATE_TOKEN: token });
  const elapsed = performance.now() - started;
  if (run.code !== 0) throw new Error(`quire migrate failed: ${run.stderr}`);
  const report = JSON.parse(run.stdout) as { copied: Record<string, number>; skipped: unknown[] };
  if (report.copied.spaces !== SPACES || report.skipped.length > 0) throw new Error(`incomplete migration: ${run.stdout}`);
  return elapsed;
}

async function mirrorOnce(round: number): Promise<number> {
  const dir = path.join(work, `mirror-${round}`);
  await fs.mkdir(dir);
  const started = performance.now();
  for (const id of spaceIds) await exec('git', ['-c', 'credential.helper=', 'clone', '--quiet', '--mirror', spaceRemote(source.url, token, id), path.join(dir, id)], { env: gitEnv });
  return performance.now() - started;
}

const figures = { mirror: [] as number[], git: [] as number[], api: [] as number[] };
for (let round = 0; round < ROUNDS; round++) {
  figures.mirror.push(await mirrorOnce(round));
  figures.git.push(await migrateOnce(source.url, round, 'git'));
  figures.api.push(await migrateOnce(noGitUrl, round, 'api'));
  process.stdout.write(`round ${round + 1}: git clone --mirror ${seconds(figures.mirror[round])}, migrate through git ${seconds(figures.git[round])}, through the API ${seconds(figures.api[round])}\n`);
}

const [mirror, viaGit, viaApi] = [median(figures.mirror), median(figures.git), median(figures.api)];
process.stdout.write(
  [
    `machine: ${machine()}`,
    `${SPACES} spaces x ${PAGES} pages, ${COMMENTS} comments each; medians of ${ROUNDS} alternating rounds`,
    `baseline  git clone --mirror of every repository: ${seconds(mirror)}`,
    `quire migrate, content through git:               ${seconds(viaGit)} (ratio to baseline ${(viaGit / mirror).toFixed(2)}; target < 60 s)`,
    `quire migrate, content through the API:           ${seconds(viaApi)} (ratio to baseline ${(viaApi / mirror).toFixed(2)})`,
    '',
  ].join('\n'),
);

await source.stop();
await noGit.close();
await fs.rm(work, { recursive: true, force: true });
