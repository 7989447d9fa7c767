/**
 * A Git Sync scene for tests: a test app listening on loopback, a real git host beside it (git http-backend behind
 * HTTP Basic auth, test/helpers/git-http-server.ts) with bare repositories made on demand, and the reads every
 * Git Sync test compares: `git log` of the host's branch and of the space's main (as a clone of the space gives it).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect } from 'vitest';
import type { Config } from '../../config/index.js';
import { startTestApp, type TestApp, type TestAppOptions } from './app.js';
import type { DatabaseKind } from './databases.js';
import { startGitHttpServer, type GitHttpServer } from './git-http-server.js';
import { Checkout, isolatedGitEnv, spaceRemote } from './git.js';

const exec = promisify(execFile);

/** The only credentials the scene's host takes. */
export const HOST_USER = 'docs-bot';
export const HOST_TOKEN = 'glpat-git-sync-api-test-0123456789';

export interface GitSyncScene {
  t: TestApp;
  org: Awaited<ReturnType<TestApp['organization']>>;
  /** The API's base URL on loopback (for git clients). */
  api: string;
  env: NodeJS.ProcessEnv;
  hostRoot: string;
  host: GitHttpServer;
  admin(): string;
  /** The host's `git log` of `ref` (default main) in repository `name`: newest first. */
  hostLog(name: string, ref?: string): Promise<string[]>;
  /** The space's main, newest first, as a clone gives it. */
  spaceLog(spaceId: string): Promise<string[]>;
  newSpace(title: string): Promise<string>;
  /** A repository on the host, and a user's clone of it with a page per name pushed (none: an empty repository). */
  hostRepository(name: string, pages: string[]): Promise<Checkout>;
  /** PUT .../git/sync with the host's credentials unless `body` says otherwise (unchecked: answers may be errors). */
  connect(spaceId: string, body: Record<string, unknown>, token?: string): ReturnType<TestApp['request']>;
  /** POST .../git/sync/run, expected to answer 200: the state. */
  run(spaceId: string): Promise<any>;
  /** Stops the host (its clients dropped) and starts it again on the same port. */
  hostDown(): Promise<void>;
  hostUp(): Promise<void>;
  close(): Promise<void>;
}

/** The `git log` of `ref` in the bare repository `gitDir`: oids, newest first. */
export async function logOf(gitDir: string, ref: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  return (await exec('git', ['--git-dir', gitDir, 'log', '--format=%H', ref], { env })).stdout.trim().split('\n');
}

/** The space's main, newest first, as a clone of it gives it. */
export async function spaceLogOf(api: string, token: string, spaceId: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const clone = await Checkout.clone(spaceRemote(api, token, spaceId), env);
  try {
    return (await clone.git('log', '--format=%H', 'HEAD')).trim().split('\n');
  } finally {
    await clone.dispose();
  }
}

/** A bare repository at `gitDir`, and a user's clone of it with a page per name pushed (none: an empty repository). */
export async function hostRepositoryAt(gitDir: string, pages: string[], env: NodeJS.ProcessEnv): Promise<Checkout> {
  await exec('git', ['init', '--bare', '--quiet', '--initial-branch=main', gitDir], { env });
  const user = await Checkout.clone(gitDir, env);
  if (pages.length > 0) {
    await user.write('README.md', '# Handbook\n');
    for (const page of pages) await user.write(`${page}.md`, `# ${page}\n\nWritten on the host.\n`);
    await user.write('SUMMARY.md', `# Summary\n\n* [Handbook](README.md)\n${pages.map((page) => `* [${page}](${page}.md)\n`).join('')}`);
    await user.commit('Pages on the host');
    await user.push('HEAD:refs/heads/main');
  }
  return user;
}

export async function startGitSyncScene(kind: DatabaseKind, overrides: Partial<Config> = {}, options: TestAppOptions = {}): Promise<GitSyncScene> {
  const t = await startTestApp(kind, { fetchAllow: ['127.0.0.1'], ...overrides }, options);
  const org = await t.organization();
  const api = await t.listen();
  const env = await isolatedGitEnv();
  const hostRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-sync-host-'));
  const auth = { username: HOST_USER, password: HOST_TOKEN };
  let host = await startGitHttpServer(hostRoot, { auth });
  const port = Number(new URL(host.url).port);
  const admin = () => org.admin.token;

  const scene: GitSyncScene = {
    t,
    org,
    api,
    env,
    hostRoot,
    get host() {
      return host;
    },
    admin,
    hostLog(name, ref = 'main') {
      return logOf(path.join(hostRoot, `${name}.git`), ref, env);
    },
    spaceLog(spaceId) {
      return spaceLogOf(api, admin(), spaceId, env);
    },
    async newSpace(title) {
      const res = await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: admin(), body: { title } });
      return res.body.id;
    },
    hostRepository(name, pages) {
      return hostRepositoryAt(path.join(hostRoot, `${name}.git`), pages, env);
    },
    connect(spaceId, body, token = admin()) {
      return t.request('PUT', `/v1/spaces/${spaceId}/git/sync`, { token, body: { auth: { username: HOST_USER, token: HOST_TOKEN }, ...body }, unchecked: true });
    },
    async run(spaceId) {
      const res = await t.request('POST', `/v1/spaces/${spaceId}/git/sync/run`, { token: admin() });
      expect(res.status).toBe(200);
      return res.body;
    },
    async hostDown() {
      await host.close();
    },
    async hostUp() {
      host = await startGitHttpServer(hostRoot, { auth, port });
    },
    async close() {
      await host.close();
      await t.close();
    },
  };
  return scene;
}
