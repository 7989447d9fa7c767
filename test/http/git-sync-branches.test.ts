/**
 * Git Sync with `branches: true`, against a real git host on loopback: the host's `docs/*` branches open and update
 * change requests holding the very same commits, change requests made in Quire appear on the host as
 * `quire/cr-<number>`, both moved are merged, a true conflict moves neither, and merging either side ends both. On
 * both databases, and on BullMQ.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollGitSync } from '../../src/domain/git-sync/poll.js';
import { findGitSyncConnection } from '../../src/store/sql/git-sync.js';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { startGitSyncScene, type GitSyncScene } from '../helpers/git-sync.js';
import { waitFor } from '../helpers/wait.js';

const exec = promisify(execFile);

describe.each(DATABASE_KINDS)('Git Sync of branches and change requests (%s)', (kind) => {
  let scene: GitSyncScene;
  let spaceId: string;
  let host: Checkout;
  let writer: Checkout;
  beforeAll(async () => {
    scene = await startGitSyncScene(kind);
  });
  afterAll(async () => {
    await host?.dispose();
    await writer?.dispose();
    await scene?.close();
  });

  const ctx = () => scene.t.container.ctx;
  const api = (method: string, url: string, body?: unknown, query?: Record<string, string>) => scene.t.request(method, url, { token: scene.admin(), body, query, unchecked: true });
  /** The host's branch `name` (its commit), or '' when it has none. */
  const hostBranch = async (name: string) =>
    (await exec('git', ['--git-dir', path.join(scene.hostRoot, 'branches.git'), 'rev-parse', '--verify', '--quiet', `refs/heads/${name}`], { env: scene.env }).catch(() => ({ stdout: '' }))).stdout.trim();
  const changeRequest = async (idOrNumber: string | number) => (await api('GET', `/v1/spaces/${spaceId}/change-requests/${idOrNumber}`)).body;
  const branchState = async (name: string) => (await api('GET', `/v1/spaces/${spaceId}/git/sync`)).body.branches.find((branch: any) => branch.branch === name);
  /** Commits `file` on the host's branch `name` (made from `from`, default the branch itself) and pushes it there. */
  const onHostBranch = async (name: string, file: string, text: string, from = `origin/${name}`): Promise<string> => {
    await host.git('fetch', '--quiet', 'origin');
    await host.git('checkout', '--quiet', '-B', name, from);
    await host.write(file, text);
    const commit = await host.commit(`${file} on ${name}`);
    await host.push(`HEAD:refs/heads/${name}`);
    return commit;
  };
  /** Commits `file` on the change request's branch in Quire, pushed over HTTP as any git client would. */
  const onChangeRequest = async (number: number, file: string, text: string): Promise<string> => {
    await writer.git('fetch', '--quiet', 'origin');
    await writer.git('checkout', '--quiet', '-B', `cr-${number}`, `origin/change-requests/${number}`);
    await writer.write(file, text);
    const commit = await writer.commit(`${file} in change request ${number}`);
    await writer.push(`HEAD:refs/heads/change-requests/${number}`);
    return commit;
  };
  const spaceBranch = async (number: number) => (await writer.git('ls-remote', 'origin', `refs/heads/change-requests/${number}`)).split('\t')[0];

  it('refuses a pattern without branches, and one in Quire\'s own namespace, naming the field', async () => {
    const other = await scene.newSpace('Refused');
    await scene.hostRepository('refused', ['intro']);
    const url = `${scene.host.url}/refused.git`;
    const without = await scene.connect(other, { url, firstSync: 'import', branchPattern: 'docs/*' });
    expect(without.status).toBe(400);
    expect((without.body as any).error.message).toMatch(/^branchPattern:/);
    for (const branchPattern of ['quire/*', '../x', 'docs//x', 'docs/ x']) {
      const res = await scene.connect(other, { url, firstSync: 'import', branches: true, branchPattern });
      expect(res.status, branchPattern).toBe(400);
      expect((res.body as any).error.message).toMatch(/branchPattern/);
    }
  });

  it('opens a change request for a docs/* branch of the host, holding the same commits, and follows its pushes', async () => {
    host = await scene.hostRepository('branches', ['intro', 'guide']);
    spaceId = await scene.newSpace('Branches');
    const connected = await scene.connect(spaceId, { url: `${scene.host.url}/branches.git`, firstSync: 'import', branches: true });
    expect(connected.status).toBe(200);
    expect(connected.body).toMatchObject({ branchPattern: 'docs/*', branches: [] });
    expect(await scene.run(spaceId)).toMatchObject({ status: 'synced', branches: [] });
    writer = await Checkout.clone(spaceRemote(scene.api, scene.admin(), spaceId), scene.env);

    // A branch the pattern does not match, and one with nothing to review (main's own commit), open nothing.
    await host.push('HEAD:refs/heads/feature/elsewhere');
    await host.push('HEAD:refs/heads/docs/nothing-new');
    const first = await onHostBranch('docs/intro', 'intro.md', '# intro\n\nRewritten on a branch of the host.\n', 'origin/main');
    const state = await scene.run(spaceId);
    expect(state.branches.map((branch: any) => branch.branch).sort()).toEqual(['docs/intro', 'docs/nothing-new']);
    const intro = state.branches.find((branch: any) => branch.branch === 'docs/intro');
    expect(intro).toMatchObject({ origin: 'host', commit: first, changeRequest: expect.any(String) });
    expect(state.branches.find((branch: any) => branch.branch === 'docs/nothing-new').changeRequest).toBeUndefined();
    const cr = await changeRequest(intro.changeRequest);
    expect(cr).toMatchObject({ status: 'open', subject: expect.stringContaining('docs/intro') });
    expect(await spaceBranch(cr.number)).toBe(first);
    const open = (await api('GET', `/v1/spaces/${spaceId}/change-requests`)).body.items;
    expect(open.map((item: any) => item.number)).toEqual([cr.number]);

    // The host pushes again: the change request follows, the same commit.
    const second = await onHostBranch('docs/intro', 'intro.md', '# intro\n\nRewritten twice on the host.\n');
    await scene.run(spaceId);
    expect(await spaceBranch(cr.number)).toBe(second);
    expect(await branchState('docs/intro')).toMatchObject({ commit: second });
  }, 120_000);

  it('sends a push to the change request to the host branch, and merges when both moved', async () => {
    const cr = await changeRequest((await branchState('docs/intro')).changeRequest);
    // Pushed in Quire: the push queues the run that brings the host's branch along.
    const ours = await onChangeRequest(cr.number, 'guide.md', '# guide\n\nWritten in Quire, in the change request.\n');
    await ctx().jobs.idle();
    expect(await hostBranch('docs/intro')).toBe(ours);

    // Both sides move (different files): one merge, on both sides.
    const theirs = await onHostBranch('docs/intro', 'new-on-host.md', '# New on the host\n');
    const mine = await onChangeRequest(cr.number, 'new-in-quire.md', '# New in Quire\n');
    await ctx().jobs.idle();
    await scene.run(spaceId);
    const merged = await hostBranch('docs/intro');
    expect(await spaceBranch(cr.number)).toBe(merged);
    const parents = (await host.git('fetch', '--quiet', 'origin').then(() => host.git('log', '-1', '--format=%P', merged))).trim().split(' ');
    expect(parents.sort()).toEqual([mine, theirs].sort());
    expect(await branchState('docs/intro')).toMatchObject({ commit: merged });
    expect((await branchState('docs/intro')).error).toBeUndefined();
  }, 120_000);

  it('moves neither side on a true conflict, and says so in the branch\'s state', async () => {
    const cr = await changeRequest((await branchState('docs/intro')).changeRequest);
    const theirs = await onHostBranch('docs/intro', 'intro.md', '# intro\n\nThe host says one thing.\n');
    const mine = await onChangeRequest(cr.number, 'intro.md', '# intro\n\nQuire says another.\n');
    await ctx().jobs.idle();
    await scene.run(spaceId);
    expect(await hostBranch('docs/intro')).toBe(theirs);
    expect(await spaceBranch(cr.number)).toBe(mine);
    expect((await branchState('docs/intro')).error).toMatch(/same lines of intro\.md/);
    // Resolved on the host (it takes Quire's commit and settles the lines): the change request follows, the error goes.
    await host.git('fetch', '--quiet', spaceRemote(scene.api, scene.admin(), spaceId), `refs/heads/change-requests/${cr.number}:from-quire`);
    await host.git('checkout', '--quiet', '-B', 'docs/intro', 'origin/docs/intro');
    await host.git('merge', '--quiet', '-X', 'theirs', '-m', 'Take Quire\'s intro', 'from-quire');
    const resolved = (await host.git('rev-parse', 'HEAD')).trim();
    await host.push('HEAD:refs/heads/docs/intro');
    await scene.run(spaceId);
    expect(await spaceBranch(cr.number)).toBe(resolved);
    expect((await branchState('docs/intro')).error).toBeUndefined();
  }, 120_000);

  it('shows a change request made in Quire on the host as quire/cr-<number>, takes the host\'s pushes to it, and deletes it there once merged in Quire', async () => {
    const cr = (await api('POST', `/v1/spaces/${spaceId}/change-requests`, { subject: 'Made in Quire' })).body;
    await ctx().jobs.idle();
    // Nothing of its own yet: no branch on the host.
    await scene.run(spaceId);
    expect(await hostBranch(`quire/cr-${cr.number}`)).toBe('');
    const ours = await onChangeRequest(cr.number, 'made-in-quire.md', '# Made in Quire\n');
    await ctx().jobs.idle();
    expect(await hostBranch(`quire/cr-${cr.number}`)).toBe(ours);
    expect(await branchState(`quire/cr-${cr.number}`)).toMatchObject({ origin: 'quire', changeRequest: cr.id, commit: ours });

    // A reviewer on the host pushes a fix to it: the change request takes it.
    const fix = await onHostBranch(`quire/cr-${cr.number}`, 'made-in-quire.md', '# Made in Quire\n\nFixed on the host.\n');
    await scene.run(spaceId);
    expect(await spaceBranch(cr.number)).toBe(fix);

    // Merged in Quire: main goes to the host, the host's branch of it goes away.
    const merge = await api('POST', `/v1/spaces/${spaceId}/change-requests/${cr.number}/merge`);
    expect(merge.status).toBe(200);
    await ctx().jobs.idle();
    expect(await scene.hostLog('branches')).toEqual(await scene.spaceLog(spaceId));
    expect(await hostBranch(`quire/cr-${cr.number}`)).toBe('');
  }, 120_000);

  it('marks the change request merged when the host merges its branch into main (a pull request), and leaves the host\'s branch to the host', async () => {
    const intro = await branchState('docs/intro');
    await host.git('fetch', '--quiet', 'origin');
    await host.git('checkout', '--quiet', '-B', 'main', 'origin/main');
    await host.git('merge', '--quiet', '--no-ff', '-m', 'Merge pull request: docs/intro', 'origin/docs/intro');
    await host.push('HEAD:refs/heads/main');
    const state = await scene.run(spaceId);
    expect(state.status).toBe('synced');
    expect(await scene.hostLog('branches')).toEqual(await scene.spaceLog(spaceId));
    const cr = await changeRequest(intro.changeRequest);
    expect(cr).toMatchObject({ status: 'merged', revisionMerged: state.localCommit });
    expect(await hostBranch('docs/intro')).toBe(intro.commit);
    // Nothing new on it: no change request is opened again.
    await scene.run(spaceId);
    expect((await api('GET', `/v1/spaces/${spaceId}/change-requests`)).body.items).toEqual([]);
  }, 120_000);

  it('closes the change request of a host branch deleted there, and finds new branches by polling without fetching what did not move', async () => {
    const gone = await onHostBranch('docs/gone', 'gone.md', '# Gone soon\n', 'origin/main');
    await scene.run(spaceId);
    const cr = await changeRequest((await branchState('docs/gone')).changeRequest);
    expect(cr.status).toBe('open');
    expect(await spaceBranch(cr.number)).toBe(gone);
    await host.push(':refs/heads/docs/gone');
    await scene.run(spaceId);
    expect((await changeRequest(cr.number)).status).toBe('archived');

    // An unchanged host: the poll queues nothing. A new docs/* branch: the poll queues the space, and the run opens it.
    await ctx().jobs.idle();
    expect((await pollGitSync(ctx())).queued).not.toContain(spaceId);
    const fetched = scene.host.fetches.length;
    expect((await pollGitSync(ctx())).queued).not.toContain(spaceId);
    expect(scene.host.fetches.length).toBe(fetched);
    const found = await onHostBranch('docs/found', 'found.md', '# Found by the poll\n', 'origin/main');
    expect((await pollGitSync(ctx())).queued).toContain(spaceId);
    await ctx().jobs.idle();
    const opened = await changeRequest((await branchState('docs/found')).changeRequest);
    expect(await spaceBranch(opened.number)).toBe(found);
  }, 120_000);

  it('links again, not doubles, the change request of a run stopped between opening it and storing its link (kill -9)', async () => {
    const head = await onHostBranch('docs/crashed', 'crashed.md', '# Opened before the crash\n', 'origin/main');
    await scene.run(spaceId);
    const opened = (await branchState('docs/crashed')).changeRequest;
    // What a process killed after opening the change request leaves: the change request, and no link to it.
    await ctx().db.deleteFrom('git_sync_branches').where('space_id', '=', spaceId).where('remote_ref', '=', 'refs/heads/docs/crashed').execute();
    const open = async () => (await api('GET', `/v1/spaces/${spaceId}/change-requests`)).body.items.map((item: any) => item.id);
    const before = await open();
    await scene.run(spaceId);
    expect(await open()).toEqual(before);
    expect(await branchState('docs/crashed')).toMatchObject({ changeRequest: opened, commit: head });
  }, 120_000);
});

describe('Git Sync of branches on BullMQ: a change request\'s push and a host branch, carried by jobs on Redis (sqlite)', () => {
  let scene: GitSyncScene;
  beforeAll(async () => {
    scene = await startGitSyncScene('sqlite', {}, { queue: 'bullmq' });
  });
  afterAll(async () => scene?.close());

  it('shows a change request\'s push on the host, and opens a change request for a host branch found by the poll', async () => {
    const host = await scene.hostRepository('queued-branches', ['intro']);
    const spaceId = await scene.newSpace('Queued branches');
    expect((await scene.connect(spaceId, { url: `${scene.host.url}/queued-branches.git`, firstSync: 'import', branches: true })).status).toBe(200);
    await waitFor(async () => (await findGitSyncConnection(scene.t.container.ctx.db, spaceId))?.status === 'synced', { what: 'the first run, queued on BullMQ', timeoutMs: 30_000 });
    const hostBranch = async (name: string) =>
      (await exec('git', ['--git-dir', path.join(scene.hostRoot, 'queued-branches.git'), 'rev-parse', '--verify', '--quiet', `refs/heads/${name}`], { env: scene.env }).catch(() => ({ stdout: '' }))).stdout.trim();

    const cr = (await scene.t.request('POST', `/v1/spaces/${spaceId}/change-requests`, { token: scene.admin(), body: { subject: 'Queued' } })).body;
    const writer = await Checkout.clone(spaceRemote(scene.api, scene.admin(), spaceId), scene.env);
    await writer.git('checkout', '--quiet', '-B', 'work', `origin/change-requests/${cr.number}`);
    await writer.write('queued.md', '# Queued\n');
    const ours = await writer.commit('A page in a change request');
    await writer.push(`HEAD:refs/heads/change-requests/${cr.number}`);
    await waitFor(async () => (await hostBranch(`quire/cr-${cr.number}`)) === ours, { what: 'the change request\'s job to reach the host', timeoutMs: 30_000 });

    await host.git('checkout', '--quiet', '-B', 'docs/polled');
    await host.write('polled.md', '# Polled\n');
    const theirs = await host.commit('A branch of the host');
    await host.push('HEAD:refs/heads/docs/polled');
    await scene.t.container.ctx.jobs.enqueue({ name: 'poll-git-sync', payload: {} });
    const opened = await waitFor(
      async () => (await scene.t.request('GET', `/v1/spaces/${spaceId}/git/sync`, { token: scene.admin() })).body.branches.find((branch: any) => branch.branch === 'docs/polled')?.changeRequest,
      { what: 'the poll\'s job, then the run that opens the change request', timeoutMs: 30_000 },
    );
    const read = (await scene.t.request('GET', `/v1/spaces/${spaceId}/change-requests/${opened}`, { token: scene.admin() })).body;
    expect(read.revision).toBe(theirs);
    await writer.dispose();
    await host.dispose();
  }, 120_000);
});
