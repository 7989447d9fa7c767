/**
 * Git Sync over the API against a real git host on loopback (git http-backend behind HTTP Basic auth): a space
 * connected to a branch, run by `POST .../git/sync/run`, the same commits on both sides after every run (`git log` of
 * the host's branch and of the space's main give the same oids), both sides' new commits brought over, a merge when
 * both moved, a true conflict changing neither side, the first run importing or exporting as asked, and the token
 * never shown. On both databases.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { HOST_TOKEN as TOKEN, startGitSyncScene, type GitSyncScene } from '../helpers/git-sync.js';
import { waitFor } from '../helpers/wait.js';

const exec = promisify(execFile);

describe.each(DATABASE_KINDS)('Git Sync (%s)', (kind) => {
  let scene: GitSyncScene;
  beforeAll(async () => {
    scene = await startGitSyncScene(kind);
  });
  afterAll(async () => scene?.close());

  const t = () => scene.t;
  const admin = () => scene.admin();
  const hostLog = (name: string) => scene.hostLog(name);
  const spaceLog = (spaceId: string) => scene.spaceLog(spaceId);
  const newSpace = (title: string) => scene.newSpace(title);
  const hostRepository = (name: string, pages: string[]) => scene.hostRepository(name, pages);
  const connect = (spaceId: string, body: Record<string, unknown>, token?: string) => scene.connect(spaceId, body, token);
  const run = (spaceId: string) => scene.run(spaceId);

  it('imports the host\'s history, then carries each side\'s commits to the other as they are, and merges when both moved', async () => {
    const user = await hostRepository('handbook', ['install', 'usage']);
    const spaceId = await newSpace('Handbook');
    const connected = await connect(spaceId, { url: `${scene.host.url}/handbook.git`, firstSync: 'import' });
    expect(connected.status).toBe(200);
    expect(connected.body).toMatchObject({ repoName: 'handbook', integration: 'quire', url: `${scene.host.url}/handbook`, ref: 'refs/heads/main', status: 'syncing', webhook: false });
    expect(JSON.stringify(connected.body)).not.toContain(TOKEN);

    // First run: the host's history becomes the space's.
    const first = await run(spaceId);
    expect(first).toMatchObject({ status: 'synced', remoteCommit: (await hostLog('handbook'))[0], localCommit: (await hostLog('handbook'))[0] });
    expect(await spaceLog(spaceId)).toEqual(await hostLog('handbook'));
    // The space shows its connection (the reference's `gitSync`), in its own read and in the organization's list.
    expect((await t().request('GET', `/v1/spaces/${spaceId}`, { token: admin() })).body.gitSync).toMatchObject({ repoName: 'handbook', integration: 'quire', status: 'synced' });
    const listed = await t().request('GET', `/v1/orgs/${scene.org.id}/spaces`, { token: admin(), query: { limit: 1000 } });
    expect(listed.body.items.find((space: any) => space.id === spaceId).gitSync).toMatchObject({ status: 'synced' });
    expect(listed.body.items.filter((space: any) => space.gitSync).map((space: any) => space.id)).toContain(spaceId);
    const pages = await t().request('GET', `/v1/spaces/${spaceId}/content/pages`, { token: admin() });
    expect(pages.body.pages.map((p: any) => p.title)).toEqual(['Handbook', 'install', 'usage']);

    // A push to Quire reaches the host as the same commit.
    const writer = await Checkout.clone(spaceRemote(scene.api, admin(), spaceId), scene.env);
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
    const parents = (await exec('git', ['--git-dir', path.join(scene.hostRoot, 'handbook.git'), 'log', '-1', '--format=%P', 'main'], { env: scene.env })).stdout.trim().split(' ');
    expect(parents.sort()).toEqual([ourSecond, theirSecond].sort());
    const usage = await t().request('GET', `/v1/spaces/${spaceId}/content/path/usage`, { token: admin(), query: { format: 'markdown' } });
    const install = await t().request('GET', `/v1/spaces/${spaceId}/content/path/install`, { token: admin(), query: { format: 'markdown' } });
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
    expect((await t().request('GET', `/v1/spaces/${spaceId}/git/sync`, { token: admin() })).body).toMatchObject({ status: 'conflict', changeRequest: conflict.changeRequest });

    // The host's commit is parked in a change request, as it is; people resolve it there and merge it.
    const parked = await t().request('GET', `/v1/spaces/${spaceId}/change-requests/${conflict.changeRequest}`, { token: admin() });
    expect(parked.body).toMatchObject({ status: 'open', subject: expect.stringContaining('Git Sync') });
    expect(conflict.error).toContain(`change request #${parked.body.number}`);
    const branch = `change-requests/${parked.body.number}`;
    await writer.git('fetch', '--quiet', 'origin', `${branch}:parked`);
    expect((await writer.git('rev-parse', 'parked')).trim()).toBe(conflictTheirs);
    // Another run while it is open parks nothing new.
    expect(await run(spaceId)).toMatchObject({ status: 'conflict', changeRequest: conflict.changeRequest });
    await writer.git('checkout', '--quiet', 'parked');
    await writer.git('merge', '--quiet', '--no-edit', 'origin/main').catch(() => undefined);
    await writer.write('usage.md', '# usage\n\nThe host and Quire agree.\n');
    await writer.git('add', 'usage.md');
    await writer.git('commit', '--quiet', '--no-edit');
    await writer.push(`HEAD:refs/heads/${branch}`);
    const mergedCr = await t().request('POST', `/v1/spaces/${spaceId}/change-requests/${conflict.changeRequest}/merge`, { token: admin() });
    expect(mergedCr.body).toMatchObject({ result: 'merge' });
    // The merge reaches the host (its job), and the connection is in step again with no change request named.
    await t().container.ctx.jobs.idle();
    const resumed = await run(spaceId);
    expect(resumed).toMatchObject({ status: 'synced' });
    expect(resumed.changeRequest).toBeUndefined();
    expect(await hostLog('handbook')).toEqual(await spaceLog(spaceId));
    expect(await hostLog('handbook')).toEqual(expect.arrayContaining([conflictTheirs, conflictOurs]));
    await writer.dispose();
    await user.dispose();
  }, 120_000);

  it('follows a force-push on the host, keeping the space\'s former main under a ref, and stops when the branch is deleted', async () => {
    const user = await hostRepository('rewritten', ['guide']);
    const spaceId = await newSpace('Rewritten');
    expect((await connect(spaceId, { url: `${scene.host.url}/rewritten.git`, firstSync: 'import' })).status).toBe(200);
    const first = await run(spaceId);
    expect(first.notice).toContain('refs/quire/sync/replaced/');
    const base = (await hostLog('rewritten'))[0];
    const writer = await Checkout.clone(spaceRemote(scene.api, admin(), spaceId), scene.env);
    await writer.write('guide.md', '# guide\n\nWritten in Quire, then dropped by a force-push on the host.\n');
    const ours = await writer.commitAndPush('Quire edit the host will drop');
    await t().container.ctx.jobs.idle();
    expect(await run(spaceId)).toMatchObject({ status: 'synced', localCommit: ours });

    // The host rewrites its branch: back to the first commit, another commit on it, pushed with --force.
    await user.git('fetch', '--quiet', 'origin');
    await user.git('reset', '--quiet', '--hard', base);
    await user.write('guide.md', '# guide\n\nRewritten on the host.\n');
    const rewritten = await user.commit('Rewritten history');
    await user.push('--force', 'HEAD:refs/heads/main');
    const followed = await run(spaceId);
    expect(followed).toMatchObject({ status: 'synced', localCommit: rewritten, notice: expect.stringContaining('force-pushed') });
    expect(await spaceLog(spaceId)).toEqual(await hostLog('rewritten'));
    expect(await spaceLog(spaceId)).not.toContain(ours);
    const kept = /refs\/quire\/sync\/replaced\/\S+/.exec(followed.notice)![0];
    expect(await t().container.ctx.reader.resolveRef(spaceId, kept)).toBe(ours);
    // The notice stays while nothing moves, and goes with the next commits.
    expect((await run(spaceId)).notice).toBe(followed.notice);
    await user.write('guide.md', '# guide\n\nRewritten, then edited on the host.\n');
    await user.commitAndPush('After the rewrite');
    expect((await run(spaceId)).notice).toBeUndefined();

    // The branch deleted on the host: an error, nothing changed in the space.
    const before = await spaceLog(spaceId);
    // (As the host's admin: git refuses to delete a repository's current branch by a push.)
    await exec('git', ['--git-dir', path.join(scene.hostRoot, 'rewritten.git'), 'update-ref', '-d', 'refs/heads/main'], { env: scene.env });
    expect(await run(spaceId)).toMatchObject({ status: 'error', error: expect.stringContaining('deleted on the host') });
    expect(await spaceLog(spaceId)).toEqual(before);
    await writer.dispose();
    await user.dispose();
  }, 120_000);

  it('exports the space\'s history to an absent branch, and refuses to export over the host\'s own commits', async () => {
    await hostRepository('exported', []);
    const spaceId = await newSpace('Exported');
    expect((await connect(spaceId, { url: `${scene.host.url}/exported.git`, firstSync: 'export' })).status).toBe(200);
    expect(await run(spaceId)).toMatchObject({ status: 'synced' });
    expect(await hostLog('exported')).toEqual(await spaceLog(spaceId));

    await hostRepository('occupied', ['theirs']);
    const other = await newSpace('Occupied');
    expect((await connect(other, { url: `${scene.host.url}/occupied.git`, firstSync: 'export' })).status).toBe(200);
    const before = await hostLog('occupied');
    expect(await run(other)).toMatchObject({ status: 'error', error: expect.stringContaining('firstSync "import"') });
    expect(await hostLog('occupied')).toEqual(before);
  });

  it('exports the space once (exportToGitRepository) as the same commits, forward only unless forced, credentials from the URL kept nowhere', async () => {
    await hostRepository('once', []);
    const spaceId = await newSpace('Exported once');
    const withCredentials = `${scene.host.url.replace('://', `://docs-bot:${TOKEN}@`)}/once.git`;
    const exportTo = (body: Record<string, unknown>, token = admin()) =>
      t().request('POST', `/v1/spaces/${spaceId}/git/export`, { token, body: { url: withCredentials, ref: 'refs/heads/main', commitMessage: 'Export', ...body }, unchecked: true });
    expect((await exportTo({})).status).toBe(204);
    expect(await hostLog('once')).toEqual(await spaceLog(spaceId));
    // Nothing kept: not in the space's repository's config, not in a connection.
    const config = await exec('git', ['--git-dir', t().container.git.repositoryPath(spaceId), 'config', '--list'], { env: scene.env });
    expect(config.stdout).not.toContain(TOKEN);
    expect((await t().request('GET', `/v1/spaces/${spaceId}/git/sync`, { token: admin(), unchecked: true })).status).toBe(404);

    // New commits in the space go forward; the host's own commits need force.
    const writer = await Checkout.clone(spaceRemote(scene.api, admin(), spaceId), scene.env);
    await writer.write('README.md', '# Exported once\n\nA second revision.\n');
    await writer.commitAndPush('Second revision');
    expect((await exportTo({})).status).toBe(204);
    expect(await hostLog('once')).toEqual(await spaceLog(spaceId));
    const user = await Checkout.clone(path.join(scene.hostRoot, 'once.git'), scene.env);
    await user.write('HOST.md', '# Host\n');
    await user.commitAndPush('A commit only the host has');
    // The host holds all the space has: nothing to push.
    expect((await exportTo({})).status).toBe(204);
    expect((await hostLog('once'))[1]).toBe((await spaceLog(spaceId))[0]);
    await writer.write('README.md', '# Exported once\n\nA third revision.\n');
    await writer.commitAndPush('Third revision');
    const refused = await exportTo({});
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toMatch(/^force: /);
    expect((await exportTo({ force: true })).status).toBe(204);
    expect(await hostLog('once')).toEqual(await spaceLog(spaceId));

    // Refused: bad credentials (never shown), a reader, a URL that is not https or an allowed http host.
    const wrong = await exportTo({ url: `${scene.host.url.replace('://', '://docs-bot:not-the-token@')}/once.git` });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.message).toMatch(/^url: .*refused the credentials/);
    expect(JSON.stringify(wrong.body)).not.toContain('not-the-token');
    const reader = await t().member(scene.org.id, 'read');
    expect((await exportTo({}, reader.token)).status).toBe(403);
    expect((await exportTo({ url: 'file:///tmp/once.git' })).body.error.message).toMatch(/^url: /);
    expect((await exportTo({ ref: 'refs/tags/v1' })).body.error.message).toMatch(/^ref: /);
    await writer.dispose();
    await user.dispose();
  });

  it('reports a push the host refuses (branch protection, its pre-receive hook), drops nothing, and carries everything once allowed', async () => {
    await hostRepository('protected', ['rules']);
    const spaceId = await newSpace('Protected');
    expect((await connect(spaceId, { url: `${scene.host.url}/protected.git`, firstSync: 'import' })).status).toBe(200);
    expect(await run(spaceId)).toMatchObject({ status: 'synced' });
    await t().container.ctx.jobs.idle();
    const hook = path.join(scene.hostRoot, 'protected.git', 'hooks', 'pre-receive');
    await fs.writeFile(hook, '#!/bin/sh\necho "GH006: Protected branch update failed for refs/heads/main."\nexit 1\n', { mode: 0o755 });
    const writer = await Checkout.clone(spaceRemote(scene.api, admin(), spaceId), scene.env);
    await writer.write('rules.md', '# rules\n\nFirst edit in Quire.\n');
    const first = await writer.commitAndPush('First edit');
    await writer.write('rules.md', '# rules\n\nSecond edit in Quire.\n');
    const second = await writer.commitAndPush('Second edit');
    await t().container.ctx.jobs.idle();
    const refused = await run(spaceId);
    expect(refused).toMatchObject({ status: 'error', error: expect.stringContaining('GH006: Protected branch update failed') });
    expect(await hostLog('protected')).not.toContain(first);
    expect((await spaceLog(spaceId)).slice(0, 2)).toEqual([second, first]);
    await fs.rm(hook);
    expect(await run(spaceId)).toMatchObject({ status: 'synced', localCommit: second });
    expect(await hostLog('protected')).toEqual(await spaceLog(spaceId));
    await writer.dispose();
  });

  it('says when the host refuses the token, never showing it, and changes nothing', async () => {
    await hostRepository('guarded', ['page']);
    const spaceId = await newSpace('Guarded');
    const before = await spaceLog(spaceId);
    const wrong = 'glpat-not-the-token-000';
    expect((await connect(spaceId, { url: `${scene.host.url}/guarded.git`, firstSync: 'import', auth: { username: 'docs-bot', token: wrong } })).status).toBe(200);
    const state = await run(spaceId);
    expect(state).toMatchObject({ status: 'error', error: expect.stringContaining('refused the credentials') });
    expect(JSON.stringify(state)).not.toContain(wrong);
    expect(await spaceLog(spaceId)).toEqual(before);
  });

  it('refuses bad connections with a 4xx naming the field, lets only admins connect, and disconnects leaving both sides', async () => {
    const spaceId = await newSpace('Checked');
    const url = `${scene.host.url}/handbook.git`;
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
      const res = await t().request('PUT', `/v1/spaces/${spaceId}/git/sync`, { token: admin(), body, unchecked: true });
      expect(res.status, JSON.stringify(body)).toBe(status);
      expect(res.body.error.message, JSON.stringify(body)).toMatch(new RegExp(`^${field}`));
    }
    const editor = await t().member(scene.org.id, 'edit');
    expect((await connect(spaceId, { url, firstSync: 'import' }, editor.token)).status).toBe(403);
    expect((await t().request('GET', `/v1/spaces/${spaceId}/git/sync`, { token: admin(), unchecked: true })).status).toBe(404);

    expect((await connect(spaceId, { url, firstSync: 'import' })).status).toBe(200);
    expect((await t().request('GET', `/v1/spaces/${spaceId}/git/sync`, { token: editor.token })).body).toMatchObject({ status: 'syncing' });
    expect((await t().request('DELETE', `/v1/spaces/${spaceId}/git/sync`, { token: editor.token, unchecked: true })).status).toBe(403);
    expect((await t().request('DELETE', `/v1/spaces/${spaceId}/git/sync`, { token: admin(), unchecked: true })).status).toBe(204);
    expect((await t().request('POST', `/v1/spaces/${spaceId}/git/sync/run`, { token: admin(), unchecked: true })).status).toBe(404);
  });
});
