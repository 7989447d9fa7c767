/**
 * What the README starts stops with one SIGTERM, exiting 0, and leaves no process behind: `npm start` (npm
 * runs the server through a shell) and `quire sync` run as an installed command (`npm link` puts a link to
 * dist/src/main.js on the PATH; the test makes the same link in a folder of its own). Under `npx`, whose shell does not
 * pass the signal on, quire notices that npm is gone and stops too.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtMain, freePort, runCommand, runQuire, spawnWatched, type QuireProcess } from '../helpers/cli.js';


/** Whether any process of the process group `pgid` is still running. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Command lines of the running processes that name `dir`: the git processes a server started run each in a process
 * group of their own (src/store/git/launcher.ts), so its group alone does not show them.
 */
function processesNaming(dir: string): string[] {
  return execFileSync('ps', ['-eo', 'pid,args']).toString().split('\n').filter((line) => line.includes(dir));
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return condition();
}

describe('stopping what the README starts', () => {
  let dir: string;
  const started: QuireProcess[] = [];

  beforeAll(async () => {
    // `npm start` runs the build `npm install` made: it must be the build of this source.
    const main = builtMain();
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-stopping-'));
    await fs.mkdir(path.join(dir, 'bin'));
    await fs.symlink(main, path.join(dir, 'bin', 'quire'));
  });
  afterAll(async () => {
    for (const p of started) if (p.child.pid && groupAlive(p.child.pid)) process.kill(-p.child.pid, 'SIGKILL');
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it('npm start and quire sync: one SIGTERM each, exit 0, nothing left running', async () => {
    const port = await freePort();
    const env = { QUIRE_DATA_DIR: path.join(dir, 'data'), PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: undefined, REDIS_URL: undefined, QUIRE_LOG_FORMAT: 'json' };
    // As a person starts it: `npm start` in the checkout (its own process group, to see what is left of it).
    const server = spawnWatched('npm', ['start'], { env, detached: true });
    started.push(server);
    await server.waitForOutput(/jobs in this process/, 60_000);

    const boot = await runQuire(['admin', 'bootstrap', '--email', 'stop@example.com', '--org', 'Stop'], env);
    expect(boot.code, boot.stderr).toBe(0);
    const { token, organization } = JSON.parse(boot.stdout) as { token: string; organization: { id: string } };
    const url = `http://127.0.0.1:${port}`;
    const created = await fetch(`${url}/v1/orgs/${organization.id}/spaces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Handbook' }),
    });
    const space = (await created.json()) as { id: string };

    // `quire sync` as the README runs it: the installed command, QUIRE_URL and QUIRE_TOKEN in the environment.
    const sync = spawnWatched('quire', ['sync', space.id, path.join(dir, 'docs')], {
      env: { ...env, PATH: `${path.join(dir, 'bin')}:${process.env.PATH}`, QUIRE_URL: url, QUIRE_TOKEN: token },
      cwd: dir,
      detached: true,
    });
    started.push(sync);
    await sync.waitForOutput(/watching /, 30_000);

    for (const p of [sync, server]) p.child.kill('SIGTERM');
    expect(await sync.exited, sync.output()).toBe(0);
    expect(await server.exited, server.output()).toBe(0);
    expect(sync.output()).toMatch(/SIGTERM: finishing the sync in flight[\s\S]*stopped/);
    expect(sync.output()).not.toMatch(/sync step failed/);
    expect(await waitUntil(() => !groupAlive(server.child.pid!) && !groupAlive(sync.child.pid!), 5000), 'a process of npm start or quire sync is left').toBe(true);
    expect(await waitUntil(() => processesNaming(env.QUIRE_DATA_DIR).length === 0, 5000), processesNaming(env.QUIRE_DATA_DIR).join('\n')).toBe(true);
  }, 120_000);

  it('under npx, quire stops when npm is stopped, though npm does not pass the signal on', async () => {
    const port = await freePort();
    const env = { QUIRE_DATA_DIR: path.join(dir, 'npx-data'), PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: undefined, REDIS_URL: undefined, QUIRE_LOG_FORMAT: 'json' };
    // npx's first run of a checkout installs it into npx's cache, which takes a minute on a slow machine: done first,
    // so that the wait below is for the server's start alone.
    expect((await runCommand('npx', ['quire', '--version'], { env })).code).toBe(0);
    const server = spawnWatched('npx', ['quire', 'serve'], { env, detached: true });
    started.push(server);
    await server.waitForOutput(/jobs in this process/, 60_000);
    server.child.kill('SIGTERM');
    await server.exited;
    expect(await waitUntil(() => !groupAlive(server.child.pid!), 5000), `quire serve outlived npx:\n${server.output()}`).toBe(true);
  }, 360_000);
});
