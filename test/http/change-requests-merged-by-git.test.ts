/**
 * A change request whose branch reaches main some other way than the API's merge is marked merged, as Gitea does for
 * pull requests merged by hand: a user merges `origin/change-requests/N` into main and pushes it over HTTP, or a Git
 * Sync run brings a host's main where it was merged. Only reachability counts (cherry-picked copies leave it open), a
 * change request with no commits of its own stays open, a closed one stays closed, and the catch-up at start marks
 * what a process killed after moving main left unmarked. On both databases, through a real server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { EventStreamClient } from '../helpers/event-stream.js';
import { startGitSyncScene, type GitSyncScene } from '../helpers/git-sync.js';
import { catchUpWithRepositories } from '../../src/domain/content/git-access.js';
import { markChangeRequestsMergedIntoMain } from '../../src/domain/change-requests/merged-into-main.js';

describe.each(DATABASE_KINDS)('change requests merged into main with git (%s)', (kind) => {
  let t: TestApp;
  let base: string;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  const streams: EventStreamClient[] = [];
  const checkouts: Checkout[] = [];

  beforeAll(async () => {
    t = await startTestApp(kind);
    base = await t.listen();
    org = await t.organization();
  });
  afterAll(async () => {
    for (const stream of streams) stream.close();
    for (const checkout of checkouts) await checkout.dispose();
    await t?.close();
  });

  const api = (method: string, url: string, body?: unknown, query?: Record<string, string | number>) => t.request(method, url, { token: org.admin.token, body, query });
  const newSpace = async (title: string): Promise<string> => (await api('POST', `/v1/orgs/${org.id}/spaces`, { title })).body.id;
  const openCr = async (spaceId: string, subject: string) => (await api('POST', `/v1/spaces/${spaceId}/change-requests`, { subject })).body;
  const getCr = async (spaceId: string, number: number) => (await api('GET', `/v1/spaces/${spaceId}/change-requests/${number}`)).body;
  const listed = async (spaceId: string, status: string): Promise<number[]> =>
    (await api('GET', `/v1/spaces/${spaceId}/change-requests`, undefined, { status })).body.items.map((cr: any) => cr.number);
  const clone = async (url: string) => {
    const checkout = await Checkout.clone(url);
    checkouts.push(checkout);
    return checkout;
  };
  /** A user's clone of the space over HTTP. */
  const userClone = (spaceId: string) => clone(spaceRemote(base, org.admin.token, spaceId));
  /** Writes a page on the change request's branch and pushes it over HTTP; its new head. */
  const writeOnBranch = async (checkout: Checkout, number: number, file: string): Promise<string> => {
    await checkout.git('fetch', '--quiet', 'origin');
    await checkout.git('checkout', '--quiet', '-B', `cr-${number}`, `origin/change-requests/${number}`);
    await checkout.write(file, `# ${file}\n\nWritten on change request ${number}.\n`);
    const head = await checkout.commit(`Write ${file}`);
    await checkout.push(`HEAD:refs/heads/change-requests/${number}`);
    return head;
  };
  /** Checks out main as the server has it. */
  const onMain = async (checkout: Checkout) => {
    await checkout.git('fetch', '--quiet', 'origin');
    await checkout.git('checkout', '--quiet', '-B', 'main', 'origin/main');
  };
  const head = async (checkout: Checkout) => (await checkout.git('rev-parse', 'HEAD')).trim();

  it('marks a change request merged when a user merges its branch locally and pushes main: revisionMerged is the pushed main, live', async () => {
    const spaceId = await newSpace('Merged by hand');
    const cr = await openCr(spaceId, 'A new page');
    const opened = await EventStreamClient.open(`${base}/v1/spaces/${spaceId}/change-requests/${cr.id}/events`, org.admin.token);
    expect(opened.status).toBe(200);
    streams.push(opened.client!);
    const user = await userClone(spaceId);
    await writeOnBranch(user, cr.number, 'proposal.md');

    await onMain(user);
    await user.git('merge', '--quiet', '--no-ff', '-m', 'Merge the proposal', `origin/change-requests/${cr.number}`);
    const pushed = await head(user);
    await user.push('HEAD:refs/heads/main');

    const read = await getCr(spaceId, cr.number);
    expect(read).toMatchObject({ status: 'merged', revisionMerged: pushed, outdated: false });
    expect(read.updatedAt > cr.updatedAt).toBe(true);
    expect(await listed(spaceId, 'merged')).toEqual([cr.number]);
    expect(await listed(spaceId, 'open')).toEqual([]);
    const event = await opened.client!.next('the merge', (e) => e.event === 'change-request' && e.data.action === 'merged');
    expect(event.data).toEqual({ changeRequest: cr.id, action: 'merged' });
    // Once merged, the API refuses to merge it again, as after its own merge.
    expect((await api('POST', `/v1/spaces/${spaceId}/change-requests/${cr.number}/merge`)).status).toBe(409);
  });

  it('marks a draft merged too, when main is fast-forwarded to its branch', async () => {
    const spaceId = await newSpace('Fast-forwarded');
    const cr = await openCr(spaceId, 'Drafted');
    await api('PATCH', `/v1/spaces/${spaceId}/change-requests/${cr.number}`, { status: 'draft' });
    const user = await userClone(spaceId);
    const branchHead = await writeOnBranch(user, cr.number, 'draft.md');
    await user.push(`${branchHead}:refs/heads/main`);
    expect(await getCr(spaceId, cr.number)).toMatchObject({ status: 'merged', revisionMerged: branchHead });
    expect(await listed(spaceId, 'draft')).toEqual([]);
  });

  it('leaves open a change request with no commits of its own while main moves, and one merely behind main', async () => {
    const spaceId = await newSpace('Untouched');
    const fresh = await openCr(spaceId, 'Nothing yet');
    const user = await userClone(spaceId);
    await onMain(user);
    await user.write('moved.md', '# Moved\n');
    await user.commitAndPush('Main moves');
    // Opened at the new main, then main moves again: its head is an older commit of main.
    const behind = await openCr(spaceId, 'Behind main');
    // Opened there too, its branch then forced back behind where it was opened: main contains it, it brings nothing.
    const reset = await openCr(spaceId, 'Reset behind its base');
    await user.push('--force', `HEAD~1:refs/heads/change-requests/${reset.number}`);
    await user.write('again.md', '# Again\n');
    await user.commitAndPush('Main moves again');
    expect(await getCr(spaceId, fresh.number)).toMatchObject({ status: 'open', outdated: true });
    expect((await getCr(spaceId, fresh.number)).revisionMerged).toBeUndefined();
    expect(await getCr(spaceId, behind.number)).toMatchObject({ status: 'open', outdated: true });
    expect(await getCr(spaceId, reset.number)).toMatchObject({ status: 'open', revision: (await user.git('rev-parse', 'HEAD~2')).trim() });
    expect(await listed(spaceId, 'open')).toEqual([reset.number, behind.number, fresh.number]);
  });

  it('leaves a closed change request closed when main takes its commits', async () => {
    const spaceId = await newSpace('Closed');
    const cr = await openCr(spaceId, 'Abandoned');
    const user = await userClone(spaceId);
    await writeOnBranch(user, cr.number, 'abandoned.md');
    await api('PATCH', `/v1/spaces/${spaceId}/change-requests/${cr.number}`, { status: 'archived' });
    await onMain(user);
    await user.git('merge', '--quiet', '--no-ff', '-m', 'Take it anyway', `origin/change-requests/${cr.number}`);
    await user.push('HEAD:refs/heads/main');
    const read = await getCr(spaceId, cr.number);
    expect(read.status).toBe('archived');
    expect(read.revisionMerged).toBeUndefined();
  });

  it('leaves open a change request whose commits were cherry-picked into main (other commits, same changes)', async () => {
    const spaceId = await newSpace('Cherry-picked');
    const cr = await openCr(spaceId, 'Picked');
    const user = await userClone(spaceId);
    const branchHead = await writeOnBranch(user, cr.number, 'picked.md');
    await onMain(user);
    await user.write('other.md', '# Other\n');
    await user.commit('Main moved first');
    await user.git('cherry-pick', branchHead);
    expect(await head(user)).not.toBe(branchHead);
    await user.push('HEAD:refs/heads/main');
    expect(await getCr(spaceId, cr.number)).toMatchObject({ status: 'open', revision: branchHead, outdated: true });
  });

  it('marks at start what a process killed after recording main left unmarked; of two marking at once, one writes', async () => {
    const spaceId = await newSpace('Caught up');
    const [first, second, closed] = [await openCr(spaceId, 'First'), await openCr(spaceId, 'Second'), await openCr(spaceId, 'Closed meanwhile')];
    // Straight into the repository, bypassing the server: main moves and nothing is marked.
    const direct = await clone(t.container.git.repositoryPath(spaceId));
    for (const cr of [first, second, closed]) await writeOnBranch(direct, cr.number, `page-${cr.number}.md`);
    await onMain(direct);
    for (const cr of [first, second, closed]) await direct.git('merge', '--quiet', '--no-ff', '-m', `Merge ${cr.number}`, `origin/change-requests/${cr.number}`);
    await direct.push('HEAD:refs/heads/main');
    const main = await head(direct);
    // The process recorded main, then died before marking.
    await t.container.ctx.db.updateTable('spaces').set({ revision: main }).where('id', '=', spaceId).execute();
    t.container.ctx.cache.invalidate();
    expect(await listed(spaceId, 'open')).toEqual([closed.number, second.number, first.number]);

    await api('PATCH', `/v1/spaces/${spaceId}/change-requests/${closed.number}`, { status: 'archived' });
    const { recorded } = await catchUpWithRepositories(t.container.ctx);
    expect(recorded).not.toContain(spaceId);
    expect(await getCr(spaceId, first.number)).toMatchObject({ status: 'merged', revisionMerged: main });
    expect(await getCr(spaceId, second.number)).toMatchObject({ status: 'merged', revisionMerged: main });
    expect((await getCr(spaceId, closed.number)).status).toBe('archived');

    // Two at once (as two processes after one move of main): each change request is written by one of them.
    await t.container.ctx.db.updateTable('change_requests').set({ status: 'open', revision_merged: null }).where('id', 'in', [first.id, second.id]).execute();
    const [a, b] = await Promise.all([markChangeRequestsMergedIntoMain(t.container.ctx, spaceId), markChangeRequestsMergedIntoMain(t.container.ctx, spaceId)]);
    expect([...a, ...b].map((cr) => cr.number).sort()).toEqual([first.number, second.number].sort());
    expect(await listed(spaceId, 'merged')).toEqual([second.number, first.number]);
  });
});

describe.each(DATABASE_KINDS)('change requests merged on a Git Sync host (%s)', (kind) => {
  let scene: GitSyncScene;
  beforeAll(async () => {
    scene = await startGitSyncScene(kind);
  });
  afterAll(async () => scene?.close());

  it('marks a change request merged when a run brings the host main where its branch was merged', async () => {
    const hostUser = await scene.hostRepository('merged-there', ['intro']);
    const spaceId = await scene.newSpace('Synced');
    expect((await scene.connect(spaceId, { url: `${scene.host.url}/merged-there.git`, firstSync: 'import' })).status).toBe(200);
    expect(await scene.run(spaceId)).toMatchObject({ status: 'synced' });
    const cr = (await scene.t.request('POST', `/v1/spaces/${spaceId}/change-requests`, { token: scene.admin(), body: { subject: 'Reviewed on the host' } })).body;
    const writer = await Checkout.clone(spaceRemote(scene.api, scene.admin(), spaceId), scene.env);
    await writer.git('checkout', '--quiet', '-b', 'work', `origin/change-requests/${cr.number}`);
    await writer.write('intro.md', '# intro\n\nRewritten in a change request.\n');
    await writer.commit('Rewrite the intro');
    await writer.push(`HEAD:refs/heads/change-requests/${cr.number}`);

    // On the host, the branch is merged into main (as a pull request would be) and pushed there, not to Quire.
    await hostUser.git('fetch', '--quiet', spaceRemote(scene.api, scene.admin(), spaceId), `refs/heads/change-requests/${cr.number}:quire-cr`);
    await hostUser.git('pull', '--quiet', '--ff-only', 'origin', 'main');
    await hostUser.git('merge', '--quiet', '--no-ff', '-m', 'Merge pull request: the intro', 'quire-cr');
    const hostMain = (await hostUser.git('rev-parse', 'HEAD')).trim();
    await hostUser.push('HEAD:refs/heads/main');
    const before = await scene.t.request('GET', `/v1/spaces/${spaceId}/change-requests/${cr.number}`, { token: scene.admin() });
    expect(before.body.status).toBe('open');

    expect(await scene.run(spaceId)).toMatchObject({ status: 'synced', localCommit: hostMain });
    const after = await scene.t.request('GET', `/v1/spaces/${spaceId}/change-requests/${cr.number}`, { token: scene.admin() });
    expect(after.body).toMatchObject({ status: 'merged', revisionMerged: hostMain });
    await writer.dispose();
    await hostUser.dispose();
  }, 60_000);
});
