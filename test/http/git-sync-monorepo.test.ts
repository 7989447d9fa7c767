/**
 * Git Sync for the spaces of a monorepo (several spaces connected to one repository, each with its project
 * directory), against a real git host on loopback: their runs share one fetch of the host through a local mirror
 * (the host serves one upload-pack fetch however many spaces follow the branch), the poll reads the repository once
 * for all of them and fetches nothing while it is unchanged, and spaces that reach the host with other credentials
 * never read through each other's. On both databases.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollGitSync } from '../../src/domain/git-sync/poll.js';
import { SYNC_REMOTE_REF } from '../../src/domain/git-sync/run.js';
import { mirrorKey } from '../../src/domain/git-sync/mirrors.js';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { HOST_TOKEN, HOST_USER, startGitSyncScene, type GitSyncScene } from '../helpers/git-sync.js';

const exec = promisify(execFile);

describe.each(DATABASE_KINDS)('Git Sync: the spaces of a monorepo share one fetch (%s)', (kind) => {
  let scene: GitSyncScene;
  beforeAll(async () => {
    scene = await startGitSyncScene(kind);
  });
  afterAll(async () => scene?.close());

  const ctx = () => scene.t.container.ctx;
  const projects = ['api', 'guides', 'admin'];
  const spaces: string[] = [];
  let user: Checkout;
  /** What the host was asked for since `from` (an index into its requests), in repository `name`. */
  const requestsSince = (from: number, name: string) => scene.host.requests.slice(from).filter((request) => request.includes(`/${name}.git/`));
  const fetchesSince = (from: number, name: string) => scene.host.fetches.slice(from).filter((request) => request.startsWith(`/${name}.git/`));
  const titles = async (spaceId: string) => (await scene.t.request('GET', `/v1/spaces/${spaceId}/content/pages`, { token: scene.admin() })).body.pages.map((page: any) => page.title);
  const spaceRef = async (spaceId: string, ref: string) =>
    (await exec('git', ['--git-dir', ctx().git.repositoryPath(spaceId), 'rev-parse', '--verify', '--quiet', ref], { env: scene.env }).catch(() => ({ stdout: '' }))).stdout.trim();
  /** The mirrors in the data dir (their folders). */
  const mirrors = async () => {
    const root = ctx().git.mirrorsRoot;
    const found: string[] = [];
    for (const prefix of await fs.readdir(root).catch(() => [])) for (const name of await fs.readdir(path.join(root, prefix))) found.push(path.join(root, prefix, name));
    return found;
  };

  it('shows each space only its directory, and fetches the host once for the three runs that follow a push', async () => {
    await scene.hostRepository('mono', []);
    user = await Checkout.clone(`${scene.hostRoot}/mono.git`, scene.env);
    for (const project of projects) {
      await user.write(`${project}/README.md`, `# ${project}\n`);
      await user.write(`${project}/start.md`, `# Start with ${project}\n\nOnly in ${project}/.\n`);
      await user.write(`${project}/SUMMARY.md`, `# Summary\n\n* [${project}](README.md)\n* [Start with ${project}](start.md)\n`);
    }
    await user.commit('Three projects');
    await user.push('HEAD:refs/heads/main');

    const connected = scene.host.fetches.length;
    for (const project of projects) {
      const spaceId = await scene.newSpace(`Mono ${project}`);
      expect((await scene.connect(spaceId, { url: `${scene.host.url}/mono.git`, firstSync: 'import', projectDirectory: `${project}/` })).status).toBe(200);
      expect(await scene.run(spaceId)).toMatchObject({ status: 'synced', projectDirectory: `${project}/` });
      spaces.push(spaceId);
    }
    await ctx().jobs.idle();
    // Three first imports, one fetch of the host: the second and third found the mirror holding the branch.
    expect(fetchesSince(connected, 'mono')).toEqual(['/mono.git/git-upload-pack']);
    for (const [i, project] of projects.entries()) expect(await titles(spaces[i])).toEqual([project, `Start with ${project}`]);
    expect(await mirrors()).toHaveLength(1);

    // A push to the host, then a run for each space at once (as three webhooks would start them): one fetch.
    await user.write('guides/start.md', '# Start with guides\n\nChanged on the host.\n');
    const theirs = await user.commitAndPush('Change the guides on the host');
    const before = scene.host.fetches.length;
    const states = await Promise.all(spaces.map((spaceId) => scene.run(spaceId)));
    for (const state of states) expect(state).toMatchObject({ status: 'synced', remoteCommit: theirs, localCommit: theirs });
    expect(fetchesSince(before, 'mono')).toEqual(['/mono.git/git-upload-pack']);
    for (const spaceId of spaces) {
      expect(await scene.spaceLog(spaceId)).toEqual(await scene.hostLog('mono'));
      expect(await spaceRef(spaceId, SYNC_REMOTE_REF)).toBe(theirs);
    }
    const guides = await scene.t.request('GET', `/v1/spaces/${spaces[1]}/content/path/start`, { token: scene.admin(), query: { format: 'markdown' } });
    expect(JSON.stringify(guides.body)).toContain('Changed on the host.');
    for (const [i, project] of projects.entries()) expect(await titles(spaces[i])).toEqual([project, `Start with ${project}`]);

    // Each space still pushes its own main (by compare-and-swap on what it fetched): a change made in one reaches the
    // host, and the others take it from there.
    const writer = await Checkout.clone(spaceRemote(scene.api, scene.admin(), spaces[0]), scene.env);
    await writer.write('api/start.md', '# Start with api\n\nChanged in Quire.\n');
    const ours = await writer.commitAndPush('Change the API in Quire');
    await ctx().jobs.idle();
    expect((await scene.hostLog('mono'))[0]).toBe(ours);
    for (const spaceId of spaces.slice(1)) expect(await scene.run(spaceId)).toMatchObject({ status: 'synced', localCommit: ours });
    for (const spaceId of spaces) expect(await scene.spaceLog(spaceId)).toEqual(await scene.hostLog('mono'));
    await user.git('pull', '--quiet', '--ff-only', 'origin', 'main');
    await writer.dispose();
  }, 120_000);

  it('polls the three with one ref read and no fetch while the host is unchanged', async () => {
    await ctx().jobs.idle();
    const from = scene.host.requests.length;
    const fetched = scene.host.fetches.length;
    for (let cycle = 1; cycle <= 2; cycle++) {
      const polled = await pollGitSync(ctx());
      expect(polled.queued.filter((id) => spaces.includes(id))).toEqual([]);
      // One read of the repository per cycle (its ref advertisement), however many spaces follow it; no upload-pack.
      expect(requestsSince(from, 'mono')).toEqual(Array.from({ length: cycle }, () => 'GET /mono.git/info/refs'));
    }
    expect(fetchesSince(fetched, 'mono')).toEqual([]);

    // The host moves: the next cycle queues the three, and their runs fetch it once.
    await user.write('api/start.md', '# Start with api\n\nChanged on the host, found by the poll.\n');
    const theirs = await user.commitAndPush('Change the API on the host');
    const cycle = await pollGitSync(ctx());
    expect(cycle.queued).toEqual(expect.arrayContaining(spaces));
    await ctx().jobs.idle();
    for (const spaceId of spaces) expect((await scene.spaceLog(spaceId))[0]).toBe(theirs);
    expect(fetchesSince(fetched, 'mono')).toEqual(['/mono.git/git-upload-pack']);
    await user.dispose();
  }, 120_000);

  it('never lets a space read the host through the credentials of another space on the same repository', async () => {
    await scene.hostRepository('shared', ['intro']);
    const trusted = await scene.newSpace('Trusted');
    expect((await scene.connect(trusted, { url: `${scene.host.url}/shared.git`, firstSync: 'import' })).status).toBe(200);
    expect(await scene.run(trusted)).toMatchObject({ status: 'synced' });
    await ctx().jobs.idle();
    const held = await mirrors();

    // Another space names the same repository and branch with a token the host refuses: the mirror the first filled
    // is not its own, so its run asks the host, which refuses it; nothing of the repository reaches the space.
    const wrong = 'glpat-not-the-token-000';
    const outsider = await scene.newSpace('Outsider');
    const before = await scene.spaceLog(outsider);
    expect((await scene.connect(outsider, { url: `${scene.host.url}/shared.git`, firstSync: 'import', auth: { username: HOST_USER, token: wrong } })).status).toBe(200);
    expect(await scene.run(outsider)).toMatchObject({ status: 'error', error: expect.stringContaining('refused the credentials') });
    expect(await scene.spaceLog(outsider)).toEqual(before);
    expect(await spaceRef(outsider, SYNC_REMOTE_REF)).toBe('');
    // Its mirror is one of its own, left empty.
    const now = await mirrors();
    expect(now).toEqual(expect.arrayContaining(held));
    const added = now.filter((mirror) => !held.includes(mirror));
    expect(added).toHaveLength(1);
    expect((await exec('git', ['--git-dir', added[0], 'for-each-ref'], { env: scene.env })).stdout).toBe('');

    // The poll reads the repository once per set of credentials: the outsider's read is refused, the trusted one's is
    // not, and the outsider learns nothing from the trusted read.
    await ctx().jobs.idle();
    const from = scene.host.requests.length;
    const polled = await pollGitSync(ctx());
    expect(requestsSince(from, 'shared')).toEqual(['GET /shared.git/info/refs', 'GET /shared.git/info/refs']);
    expect(polled.queued).not.toContain(trusted);

    // No mirror holds the token, in its config or anywhere, nor the URL as a remote.
    for (const mirror of await mirrors()) {
      const config = await fs.readFile(path.join(mirror, 'config'), 'utf8');
      expect(config).not.toContain('remote');
      for (const secret of [HOST_TOKEN, wrong, Buffer.from(`${HOST_USER}:${HOST_TOKEN}`).toString('base64')]) expect(config).not.toContain(secret);
      expect(path.basename(mirror)).toMatch(/^[0-9a-f]{64}\.git$/);
    }
  }, 120_000);

  it('removes a mirror once no connection reads through it: the last space of a monorepo disconnected, or a connection replaced', async () => {
    const exists = (dir: string) => fs.stat(dir).then(() => true, () => false);
    const rowOf = async (spaceId: string) => (await ctx().db.selectFrom('git_sync_connections').selectAll().where('space_id', '=', spaceId).executeTakeFirst())!;
    const shared = ctx().git.mirrorPath(mirrorKey(ctx(), await rowOf(spaces[0]))!);
    expect(await exists(shared)).toBe(true);
    for (const spaceId of spaces.slice(0, 2)) expect((await scene.t.request('DELETE', `/v1/spaces/${spaceId}/git/sync`, { token: scene.admin() })).status).toBe(204);
    // One space still reads through it.
    expect(await exists(shared)).toBe(true);
    expect((await scene.t.request('DELETE', `/v1/spaces/${spaces[2]}/git/sync`, { token: scene.admin() })).status).toBe(204);
    expect(await exists(shared)).toBe(false);

    // A connection made again with other credentials leaves its former mirror behind it, removed.
    const spaceId = await scene.newSpace('Reconnected');
    expect((await scene.connect(spaceId, { url: `${scene.host.url}/mono.git`, firstSync: 'import', auth: { username: HOST_USER, token: 'glpat-wrong-first-000' } })).status).toBe(200);
    expect(await scene.run(spaceId)).toMatchObject({ status: 'error' });
    const former = ctx().git.mirrorPath(mirrorKey(ctx(), await rowOf(spaceId))!);
    expect(await exists(former)).toBe(true);
    expect((await scene.connect(spaceId, { url: `${scene.host.url}/mono.git`, firstSync: 'import', projectDirectory: 'api/' })).status).toBe(200);
    expect(await exists(former)).toBe(false);
    expect(await scene.run(spaceId)).toMatchObject({ status: 'synced' });
  }, 120_000);
});
