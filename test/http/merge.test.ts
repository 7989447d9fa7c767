import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';

const exec = promisify(execFile);

describe.each(DATABASE_KINDS)('merging and updating change requests (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let base: string;

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.organization();
    base = await t.listen();
  });
  afterAll(async () => t?.close());

  const api = (method: string, url: string, token = org.admin.token, body?: unknown) => t.request(method, url, { token, body });
  const remote = (spaceId: string) => spaceRemote(base, org.admin.token, spaceId);
  const gitIn = async (spaceId: string, ...args: string[]) =>
    (await exec('git', ['--git-dir', t.container.git.repositoryPath(spaceId), ...args])).stdout.trim();

  async function space(files: Record<string, string>): Promise<{ spaceId: string; checkout: Checkout }> {
    const spaceId = (await api('POST', `/v1/orgs/${org.id}/spaces`, org.admin.token, { title: 'Merges' })).body.id;
    const checkout = await Checkout.clone(remote(spaceId));
    for (const [file, content] of Object.entries(files)) await checkout.write(file, content);
    await checkout.commit('base');
    await checkout.push();
    return { spaceId, checkout };
  }

  /** Opens a change request and pushes `files` to its branch from a fresh clone. */
  async function changeRequest(spaceId: string, files: Record<string, string>): Promise<number> {
    const number = (await api('POST', `/v1/spaces/${spaceId}/change-requests`, org.admin.token, { subject: 'Change' })).body.number as number;
    const checkout = await Checkout.clone(remote(spaceId));
    await checkout.git('checkout', '--quiet', '-b', `change-requests/${number}`, `origin/change-requests/${number}`);
    for (const [file, content] of Object.entries(files)) await checkout.write(file, content);
    await checkout.commit(`change ${number}`);
    await checkout.push(`HEAD:refs/heads/change-requests/${number}`);
    await checkout.dispose();
    return number;
  }

  it('merges two change requests one after the other with real merge commits (mergeChangeRequest)', async () => {
    const { spaceId, checkout } = await space({ 'README.md': '# Home\n', 'guide.md': '# Guide\n\nLine one.\n\nLine two.\n' });
    const a = await changeRequest(spaceId, { 'a.md': '# A\n' });
    const b = await changeRequest(spaceId, { 'b.md': '# B\n' });

    const first = await api('POST', `/v1/spaces/${spaceId}/change-requests/${a}/merge`);
    expect(first.status).toBe(200);
    expect(first.body.result).toBe('merge');
    expect(await gitIn(spaceId, 'rev-parse', 'main')).toBe(first.body.revision);
    const second = await api('POST', `/v1/spaces/${spaceId}/change-requests/${b}/merge`);
    expect(second.body.result).toBe('merge');
    const parents = (await gitIn(spaceId, 'rev-list', '--parents', '-n', '1', 'main')).split(' ');
    expect(parents).toHaveLength(3);
    expect(parents[1]).toBe(first.body.revision);
    expect(await gitIn(spaceId, 'ls-tree', '--name-only', 'main')).toEqual(expect.stringContaining('a.md'));
    expect(await gitIn(spaceId, 'ls-tree', '--name-only', 'main')).toEqual(expect.stringContaining('b.md'));

    const merged = (await api('GET', `/v1/spaces/${spaceId}/change-requests/${a}`)).body;
    expect(merged).toMatchObject({ status: 'merged', revisionMerged: first.body.revision });
    expect((await api('GET', `/v1/spaces/${spaceId}`)).body.revision).toBe(second.body.revision);
    const pages = (await api('GET', `/v1/spaces/${spaceId}/content/pages`)).body.pages.map((p: any) => p.title);
    expect(pages).toEqual(expect.arrayContaining(['A', 'B']));
    // Merging again, or a merged one's update, is a conflict with its state.
    expect((await api('POST', `/v1/spaces/${spaceId}/change-requests/${a}/merge`)).status).toBe(409);
    expect((await api('POST', `/v1/spaces/${spaceId}/change-requests/${a}/update`)).status).toBe(409);
    await checkout.dispose();
  });

  it('merges by structure: new SUMMARY.md items from both sides, different front matter keys of one page', async () => {
    const guide = (description: string, icon: string) => `---\ndescription: ${description}\nicon: ${icon}\n---\n\n# Guide\n\nBody.\n`;
    const summary = '# Table of contents\n\n* [Home](README.md)\n* [Guide](guide.md)\n';
    const { spaceId, checkout } = await space({ 'README.md': '# Home\n', 'SUMMARY.md': summary, 'guide.md': guide('Old words', 'book') });
    const a = await changeRequest(spaceId, { 'a.md': '# A\n', 'SUMMARY.md': `${summary}* [A](a.md)\n`, 'guide.md': guide('New words', 'book') });
    const b = await changeRequest(spaceId, { 'b.md': '# B\n', 'SUMMARY.md': `${summary}* [B](b.md)\n`, 'guide.md': guide('Old words', 'rocket') });
    expect((await api('POST', `/v1/spaces/${spaceId}/change-requests/${a}/merge`)).body.result).toBe('merge');
    const second = await api('POST', `/v1/spaces/${spaceId}/change-requests/${b}/merge`);
    expect(second.body).toMatchObject({ result: 'merge' });
    expect((await gitIn(spaceId, 'rev-list', '--parents', '-n', '1', 'main')).split(' ')).toHaveLength(3);
    expect(await gitIn(spaceId, 'show', 'main:SUMMARY.md')).toBe(`${summary}* [A](a.md)\n* [B](b.md)`.trim());
    const pages = (await api('GET', `/v1/spaces/${spaceId}/content/pages`)).body.pages;
    expect(pages.map((p: any) => p.title)).toEqual(['Home', 'Guide', 'A', 'B']);
    expect(pages[1]).toMatchObject({ description: 'New words', icon: 'rocket', markdown: 'Body.\n' });
    await checkout.dispose();
  });

  it('answers conflicts naming the file and moves nothing; after the author merges main in a checkout, it merges', async () => {
    const { spaceId, checkout } = await space({ 'guide.md': '# Guide\n\nThe same line.\n' });
    const first = await changeRequest(spaceId, { 'guide.md': '# Guide\n\nThe first version.\n' });
    const second = await changeRequest(spaceId, { 'guide.md': '# Guide\n\nThe second version.\n' });
    expect((await api('POST', `/v1/spaces/${spaceId}/change-requests/${first}/merge`)).body.result).toBe('merge');
    const main = await gitIn(spaceId, 'rev-parse', 'main');

    const conflict = await api('POST', `/v1/spaces/${spaceId}/change-requests/${second}/merge`);
    expect(conflict.status).toBe(200);
    expect(conflict.body).toEqual({ revision: main, result: 'conflicts', conflicts: [{ path: 'guide.md' }] });
    expect(await gitIn(spaceId, 'rev-parse', 'main')).toBe(main);
    expect((await api('GET', `/v1/spaces/${spaceId}/change-requests/${second}`)).body).toMatchObject({ status: 'open', outdated: true });
    const update = await api('POST', `/v1/spaces/${spaceId}/change-requests/${second}/update`);
    expect(update.body.result).toBe('conflicts');

    // The author resolves in a checkout, as in any git project.
    const author = await Checkout.clone(remote(spaceId));
    await author.git('checkout', '--quiet', '-b', `change-requests/${second}`, `origin/change-requests/${second}`);
    await author.git('merge', '--quiet', 'origin/main').catch(() => undefined);
    await author.write('guide.md', '# Guide\n\nBoth versions, reconciled.\n');
    await author.commit('resolve');
    await author.push(`HEAD:refs/heads/change-requests/${second}`);
    await author.dispose();
    const merged = await api('POST', `/v1/spaces/${spaceId}/change-requests/${second}/merge`);
    expect(merged.body.result).toBe('merge');
    expect(await gitIn(spaceId, 'show', 'main:guide.md')).toBe('# Guide\n\nBoth versions, reconciled.');
    await checkout.dispose();
  });

  it('updates a change request from main (updateChangeRequest): merged in, revisionMergedAncestor recorded, no longer outdated', async () => {
    const { spaceId, checkout } = await space({ 'guide.md': '# Guide\n' });
    const number = await changeRequest(spaceId, { 'proposal.md': '# Proposal\n' });
    await checkout.write('news.md', '# News\n');
    await checkout.commit('main moves');
    await checkout.push();
    const main = await gitIn(spaceId, 'rev-parse', 'main');
    expect((await api('GET', `/v1/spaces/${spaceId}/change-requests/${number}`)).body.outdated).toBe(true);
    const updated = await api('POST', `/v1/spaces/${spaceId}/change-requests/${number}/update`);
    expect(updated.status).toBe(200);
    expect(updated.body.result).toBe('update');
    expect(await gitIn(spaceId, 'rev-parse', `change-requests/${number}`)).toBe(updated.body.revision);
    expect(await gitIn(spaceId, 'rev-parse', 'main')).toBe(main);
    const cr = (await api('GET', `/v1/spaces/${spaceId}/change-requests/${number}`)).body;
    expect(cr).toMatchObject({ revision: updated.body.revision, revisionMergedAncestor: main, outdated: false });
    await checkout.dispose();
  });

  it('keeps every commit when merges and a push to main happen at once; git fsck is clean', async () => {
    const { spaceId, checkout } = await space({ 'README.md': '# Home\n' });
    const numbers = [await changeRequest(spaceId, { 'x.md': '# X\n' }), await changeRequest(spaceId, { 'y.md': '# Y\n' })];
    await checkout.write('z.md', '# Z\n');
    const pushed = await checkout.commit('direct');
    const results = await Promise.all([
      ...numbers.map((n) => api('POST', `/v1/spaces/${spaceId}/change-requests/${n}/merge`)),
      checkout.push().then(
        () => 'pushed',
        () => 'rejected',
      ),
    ]);
    if (results[2] === 'rejected') {
      // The push lost the race: like any git client, merge and push again.
      await checkout.git('pull', '--quiet', '--no-rebase', '--no-edit', 'origin', 'main');
      await checkout.push();
    }
    for (const result of results.slice(0, 2)) expect((result as any).body.result).toBe('merge');
    const files = await gitIn(spaceId, 'ls-tree', '--name-only', 'main');
    for (const file of ['x.md', 'y.md', 'z.md']) expect(files).toContain(file);
    await gitIn(spaceId, 'merge-base', '--is-ancestor', pushed, 'main');
    await gitIn(spaceId, 'fsck', '--full', '--strict');
    await checkout.dispose();
  });

  it('needs the merge permission (review) to merge and edit to update; 404 for strangers; 401 without a token', async () => {
    const { spaceId, checkout } = await space({ 'README.md': '# Home\n' });
    const number = await changeRequest(spaceId, { 'x.md': '# X\n' });
    const editor = await t.member(org.id, 'edit');
    const reviewer = await t.member(org.id, 'review');
    const reader = await t.member(org.id, 'read');
    expect((await api('POST', `/v1/spaces/${spaceId}/change-requests/${number}/merge`, editor.token)).status).toBe(403);
    expect((await api('POST', `/v1/spaces/${spaceId}/change-requests/${number}/update`, reader.token)).status).toBe(403);
    const stranger = await t.user();
    expect((await api('POST', `/v1/spaces/${spaceId}/change-requests/${number}/merge`, stranger.token)).status).toBe(404);
    expect((await t.request('POST', `/v1/spaces/${spaceId}/change-requests/${number}/merge`)).status).toBe(401);
    expect((await api('POST', `/v1/spaces/${spaceId}/change-requests/999/merge`)).status).toBe(404);
    await api('PATCH', `/v1/spaces/${spaceId}/change-requests/${number}`, org.admin.token, { status: 'archived' });
    expect((await api('POST', `/v1/spaces/${spaceId}/change-requests/${number}/merge`, reviewer.token)).status).toBe(409);
    await api('PATCH', `/v1/spaces/${spaceId}/change-requests/${number}`, org.admin.token, { status: 'open' });
    expect((await api('POST', `/v1/spaces/${spaceId}/change-requests/${number}/merge`, reviewer.token)).body.result).toBe('merge');
    await checkout.dispose();
  });
});
