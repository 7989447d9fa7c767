/**
 * Git Sync over the API against a real git host on loopback (git http-backend behind HTTP Basic auth): a space
 * connected to a branch, run by `POST .../git/sync/run`, the same commits on both sides after every run (`git log` of
 * the host's branch and of the space's main give the same oids), both sides' new commits brought over, a merge when
 * both moved, a true conflict changing neither side, the first run importing or exporting as asked, and the token
 * never shown. On both databases.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startGitHttpServer, type GitHttpServer } from '../helpers/git-http-server.js';
import { Checkout, isolatedGitEnv, spaceRemote } from '../helpers/git.js';
import { waitFor } from '../helpers/wait.js';

const exec = promisify(execFile);
const TOKEN = 'glpat-git-sync-api-test-0123456789';

describe.each(DATABASE_KINDS)('Git Sync (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let api: string;
  let hostRoot: string;
  let host: GitHttpServer;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    t = await startTestApp(kind, { fetchAllow: ['127.0.0.1'] });
    org = await t.organization();
    api = await t.listen();
    env = await isolatedGitEnv();
    hostRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-sync-host-'));
    host = await startGitHttpServer(hostRoot, { auth: { username: 'docs-bot', password: TOKEN } });
  });
  afterAll(async () => {
    await host?.close();
    await t?.close();
  });

  const admin = () => org.admin.token;
  const hostLog = async (name: string) => (await exec('git', ['--git-dir', path.join(hostRoot, `${name}.git`), 'log', '--format=%H', 'main'], { env })).stdout.trim().split('\n');
  /** main's log as a clone of the space gives it. */
  async function spaceLog(spaceId: string): Promise<string[]> {
    const clone = await Checkout.clone(spaceRemote(api, admin(), spaceId), env);
    try {
      return (await clone.git('log', '--format=%H', 'HEAD')).trim().split('\n');
    } finally {
      await clone.dispose();
    }
  }
  async function newSpace(title: string): Promise<string> {
    const res = await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: admin(), body: { title } });
    return res.body.id;
  }
  /** A repository on the host, and a user's clone of it with `pages` pages pushed. */
  async function hostRepository(name: string, pages: string[]): Promise<Checkout> {
    await exec('git', ['init', '--bare', '--quiet', '--initial-branch=main', path.join(hostRoot, `${name}.git`)], { env });
    const user = await Checkout.clone(path.join(hostRoot, `${name}.git`), env);
    if (pages.length > 0) {
      await user.write('README.md', '# Handbook\n');
      for (const page of pages) await user.write(`${page}.md`, `# ${page}\n\nWritten on the host.\n`);
      await user.write('SUMMARY.md', `# Summary\n\n* [Handbook](README.md)\n${pages.map((page) => `* [${page}](${page}.md)\n`).join('')}`);
      await user.commit('Pages on the host');
      await user.push('HEAD:refs/heads/main');
    }
    return user;
  }
  const connect = (spaceId: string, body: Record<string, unknown>, token = admin()) =>
    t.request('PUT', `/v1/spaces/${spaceId}/git/sync`, { token, body: { auth: { username: 'docs-bot', token: TOKEN }, ...body }, unchecked: true });
  const run = async (spaceId: string) => {
    const res = await t.request('POST', `/v1/spaces/${spaceId}/git/sync/run`, { token: admin() });
    expect(res.status).toBe(200);
    return res.body;
  };

  it('imports the host\'s history, then carries each side\'s commits to the other as they are, and merges when both moved', async () => {
    const user = await hostRepository('handbook', ['install', 'usage']);
    const spaceId = await newSpace('Handbook');
    const connected = await connect(spaceId, { url: `${host.url}/handbook.git`, firstSync: 'import' });
    expect(connected.status).toBe(200);
    expect(connected.body).toMatchObject({ repoName: 'handbook', integration: 'quire', url: `${host.url}/handbook`, ref: 'refs/heads/main', status: 'syncing', webhook: false });
    expect(JSON.stringify(connected.body)).not.toContain(TOKEN);

    // First run: the host's history becomes the space's.
    const first = await run(spaceId);
    expect(first).toMatchObject({ status: 'synced', remoteCommit: (await hostLog('handbook'))[0], localCommit: (await hostLog('handbook'))[0] });
    expect(await spaceLog(spaceId)).toEqual(await hostLog('handbook'));
    // The space shows its connection (the reference's `gitSync`), in its own read and in the organization's list.
    expect((await t.request('GET', `/v1/spaces/${spaceId}`, { token: admin() })).body.gitSync).toMatchObject({ repoName: 'handbook', integration: 'quire', status: 'synced' });
    const listed = await t.request('GET', `/v1/orgs/${org.id}/spaces`, { token: admin(), query: { limit: 1000 } });
    expect(listed.body.items.find((space: any) => space.id === spaceId).gitSync).toMatchObject({ status: 'synced' });
    expect(listed.body.items.filter((space: any) => space.gitSync).map((space: any) => space.id)).toContain(spaceId);
    const pages = await t.request('GET', `/v1/spaces/${spaceId}/content/pages`, { token: admin() });
    expect(pages.body.pages.map((p: any) => p.title)).toEqual(['Handbook', 'install', 'usage']);

    // A push to Quire reaches the host as the same commit.
    const writer = await Checkout.clone(spaceRemote(api, admin(), spaceId), env);
    await writer.write('usage.md', '# usage\n\nEdited in Quire.\n');
    const ours = await writer.commitAndPush('Edit usage in Quire');
    expect(await run(spaceId)).toMatchObject({ status: 'synced', localCommit: ours });
    expect(await hostLog('handbook')).toEqual(await spaceLog(spaceId));
    expect((await hostLog('handbook'))[0]).toBe(ours);

    // Without asking: a push to Quire queues a run, and the host gets the commit.
    await writer.write('install.md', '# install\n\nEdited in Quire, synced by the job.\n');
    const byJob = await writer.commitAndPush('Edit install in Quire');
    await waitFor(async () => (await hostLog('handbook'))[0] === byJob, { what: 'the git-sync job to push the new commit to the host', timeoutMs: 30_000 });
    expect(await hostLog('handbook')).toEqual(await spaceLog(spaceId));

    // A push to the host reaches the space as the same commit.
    await user.git('pull', '--quiet', '--ff-only', 'origin', 'main');
    await user.write('install.md', '# install\n\nEdited on the host.\n');
    const theirs = await user.commitAndPush('Edit install on the host');
    expect(await run(spaceId)).toMatchObject({ status: 'synced', localCommit: theirs });
    expect(await spaceLog(spaceId)).toEqual(await hostLog('handbook'));

    // Both move (different files; the host first, so that the job of Quire's push finds it): one merge commit, on
    // both sides, with both parents.
    await writer.git('pull', '--quiet', '--ff-only', 'origin', 'main');
    await user.write('install.md', '# install\n\nEdited on the host again.\n');
    const theirSecond = await user.commitAndPush('Host edit');
    await writer.write('usage.md', '# usage\n\nEdited in Quire again.\n');
    const ourSecond = await writer.commitAndPush('Quire edit');
    const merged = await run(spaceId);
    expect(merged.status).toBe('synced');
    expect(await spaceLog(spaceId)).toEqual(await hostLog('handbook'));
    const parents = (await exec('git', ['--git-dir', path.join(hostRoot, 'handbook.git'), 'log', '-1', '--format=%P', 'main'], { env })).stdout.trim().split(' ');
    expect(parents.sort()).toEqual([ourSecond, theirSecond].sort());
    const usage = await t.request('GET', `/v1/spaces/${spaceId}/content/path/usage`, { token: admin(), query: { format: 'markdown' } });
    const install = await t.request('GET', `/v1/spaces/${spaceId}/content/path/install`, { token: admin(), query: { format: 'markdown' } });
    expect(JSON.stringify(usage.body)).toContain('Edited in Quire again.');
    expect(JSON.stringify(install.body)).toContain('Edited on the host again.');

    // The same lines on both sides: neither side moves, and the state names the file.
    await writer.git('pull', '--quiet', '--ff-only', 'origin', 'main');
    await user.git('pull', '--quiet', '--ff-only', 'origin', 'main');
    await user.write('usage.md', '# usage\n\nThe host says that.\n');
    const conflictTheirs = await user.commitAndPush('Host line');
    await writer.write('usage.md', '# usage\n\nQuire says this.\n');
    const conflictOurs = await writer.commitAndPush('Quire line');
    const conflict = await run(spaceId);
    expect(conflict).toMatchObject({ status: 'conflict', error: expect.stringContaining('usage.md') });
    expect((await spaceLog(spaceId))[0]).toBe(conflictOurs);
    expect((await hostLog('handbook'))[0]).toBe(conflictTheirs);
    expect((await t.request('GET', `/v1/spaces/${spaceId}/git/sync`, { token: admin() })).body).toMatchObject({ status: 'conflict' });
    await writer.dispose();
    await user.dispose();
  }, 120_000);

  it('exports the space\'s history to an absent branch, and refuses to export over the host\'s own commits', async () => {
    await hostRepository('exported', []);
    const spaceId = await newSpace('Exported');
    expect((await connect(spaceId, { url: `${host.url}/exported.git`, firstSync: 'export' })).status).toBe(200);
    expect(await run(spaceId)).toMatchObject({ status: 'synced' });
    expect(await hostLog('exported')).toEqual(await spaceLog(spaceId));

    await hostRepository('occupied', ['theirs']);
    const other = await newSpace('Occupied');
    expect((await connect(other, { url: `${host.url}/occupied.git`, firstSync: 'export' })).status).toBe(200);
    const before = await hostLog('occupied');
    expect(await run(other)).toMatchObject({ status: 'error', error: expect.stringContaining('firstSync "import"') });
    expect(await hostLog('occupied')).toEqual(before);
  });

  it('says when the host refuses the token, never showing it, and changes nothing', async () => {
    await hostRepository('guarded', ['page']);
    const spaceId = await newSpace('Guarded');
    const before = await spaceLog(spaceId);
    const wrong = 'glpat-not-the-token-000';
    expect((await connect(spaceId, { url: `${host.url}/guarded.git`, firstSync: 'import', auth: { username: 'docs-bot', token: wrong } })).status).toBe(200);
    const state = await run(spaceId);
    expect(state).toMatchObject({ status: 'error', error: expect.stringContaining('refused the credentials') });
    expect(JSON.stringify(state)).not.toContain(wrong);
    expect(await spaceLog(spaceId)).toEqual(before);
  });

  it('refuses bad connections with a 4xx naming the field, lets only admins connect, and disconnects leaving both sides', async () => {
    const spaceId = await newSpace('Checked');
    const url = `${host.url}/handbook.git`;
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ url, firstSync: 'both' }, 400, 'firstSync'],
      [{ url: 'https://docs-bot:secret@example.com/docs.git', firstSync: 'import' }, 400, 'url'],
      [{ url: 'file:///etc/passwd', firstSync: 'import' }, 400, 'url'],
      // An SSH remote takes a deploy key, not a token (test/http/git-sync-ssh.test.ts).
      [{ url: 'git@github.com:acme/docs.git', firstSync: 'import' }, 400, 'auth\\.sshPrivateKey'],
      [{ url, firstSync: 'import', ref: 'refs/tags/v1' }, 400, 'ref'],
      [{ url, firstSync: 'import', projectDirectory: '../outside' }, 400, 'projectDirectory'],
      [{ url, firstSync: 'import', auth: { token: '' } }, 400, 'auth'],
    ];
    for (const [body, status, field] of cases) {
      const res = await t.request('PUT', `/v1/spaces/${spaceId}/git/sync`, { token: admin(), body, unchecked: true });
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.error.message, JSON.stringify(body)).toMatch(new RegExp(`^${field}`));
    }
    const editor = await t.member(org.id, 'edit');
    expect((await connect(spaceId, { url, firstSync: 'import' }, editor.token)).status).toBe(403);
    expect((await t.request('GET', `/v1/spaces/${spaceId}/git/sync`, { token: admin(), unchecked: true })).status).toBe(404);

    expect((await connect(spaceId, { url, firstSync: 'import' })).status).toBe(200);
    expect((await t.request('GET', `/v1/spaces/${spaceId}/git/sync`, { token: editor.token })).body).toMatchObject({ status: 'syncing' });
    expect((await t.request('DELETE', `/v1/spaces/${spaceId}/git/sync`, { token: editor.token, unchecked: true })).status).toBe(403);
    expect((await t.request('DELETE', `/v1/spaces/${spaceId}/git/sync`, { token: admin(), unchecked: true })).status).toBe(204);
    expect((await t.request('POST', `/v1/spaces/${spaceId}/git/sync/run`, { token: admin(), unchecked: true })).status).toBe(404);
  });
});
