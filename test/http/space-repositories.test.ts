import fs from 'node:fs/promises';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout } from '../helpers/git.js';
import { purgeDeletedSpaces } from '../../src/domain/content/spaces.js';

const exec = promisify(execFile);

describe.each(DATABASE_KINDS)("a space's repository through duplicate, delete, restore and purge (%s)", (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.organization();
  });
  afterAll(async () => t?.close());

  async function spaceWithHistory(title: string): Promise<string> {
    const id = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title } })).body.id;
    const checkout = await Checkout.clone(t.container.git.repositoryPath(id));
    await checkout.write('guide.md', '# Guide\n\nFirst.\n');
    await checkout.commitAndPush('first');
    await checkout.write('guide.md', '# Guide\n\nSecond.\n');
    await checkout.commitAndPush('second');
    await checkout.dispose();
    t.container.ctx.cache.invalidate();
    return id;
  }

  const log = async (spaceId: string) =>
    (await exec('git', ['--git-dir', t.container.git.repositoryPath(spaceId), 'log', '--format=%H %s', 'main'])).stdout.trim().split('\n');

  it('duplicates a space with its history into an independent repository (duplicateSpace)', async () => {
    const original = await spaceWithHistory('Original');
    const res = await t.request('POST', `/v1/spaces/${original}/duplicate`, { token: org.admin.token });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(res.body.urls.location);
    const copy = res.body;
    expect(copy.id).not.toBe(original);
    expect(copy.title).toBe('Original (copy)');
    expect(await log(copy.id)).toEqual(await log(original));
    expect(copy.revision).toBe((await log(original))[0].split(' ')[0]);
    const pages = (await t.request('GET', `/v1/spaces/${copy.id}/content/pages`, { token: org.admin.token })).body.pages;
    expect(pages.map((p: any) => p.title)).toContain('Guide');

    // The copy moves on alone.
    const checkout = await Checkout.clone(t.container.git.repositoryPath(copy.id));
    await checkout.write('only-in-copy.md', '# Copy only\n');
    await checkout.commitAndPush('copy only');
    await checkout.dispose();
    expect((await log(copy.id)).length).toBe((await log(original)).length + 1);
    const listed = (await t.request('GET', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token })).body.items.map((s: any) => s.id);
    expect(listed).toEqual(expect.arrayContaining([original, copy.id]));
  });

  it("copies only main's history: a blob that exists only on an unmerged change request cannot be read through the copy", async () => {
    const original = await spaceWithHistory('With a draft');
    const changeRequest = (await t.request('POST', `/v1/spaces/${original}/change-requests`, { token: org.admin.token, body: { subject: 'Draft' } })).body;
    const checkout = await Checkout.clone(t.container.git.repositoryPath(original));
    await checkout.write('draft.md', '# Draft\n\nNot for the copy.\n');
    await checkout.commit('draft');
    await checkout.push(`HEAD:refs/heads/change-requests/${changeRequest.number}`);
    const draftBlob = (await checkout.git('rev-parse', 'HEAD:draft.md')).trim();
    await checkout.dispose();
    const download = (spaceId: string) => t.request('GET', `/v1/spaces/${spaceId}/files/${draftBlob}/draft.md`, { token: org.admin.token });
    expect((await download(original)).status).toBe(200);

    const copy = (await t.request('POST', `/v1/spaces/${original}/duplicate`, { token: org.admin.token })).body;
    const leaked = await download(copy.id);
    expect(leaked.status).toBe(404);
    expect(leaked.body.error.code).toBeDefined();
    await expect(exec('git', ['--git-dir', t.container.git.repositoryPath(copy.id), 'cat-file', '-e', draftBlob])).rejects.toThrow();
    expect(await log(copy.id)).toEqual(await log(original));
  });

  it('keeps a long title within 50 characters and refuses callers who may not create or see', async () => {
    const original = await spaceWithHistory('x'.repeat(50));
    const copy = await t.request('POST', `/v1/spaces/${original}/duplicate`, { token: org.admin.token });
    expect(copy.body.title).toHaveLength(50);
    const reader = await t.member(org.id, 'read');
    expect((await t.request('POST', `/v1/spaces/${original}/duplicate`, { token: reader.token })).status).toBe(403);
    const stranger = await t.user();
    expect((await t.request('POST', `/v1/spaces/${original}/duplicate`, { token: stranger.token })).status).toBe(404);
    // A guest of a space inside a collection they cannot see: a refusal (403), not a 400 about a parent they never
    // sent (found by the authorization matrix).
    const collection = (await t.request('POST', `/v1/orgs/${org.id}/collections`, { token: org.admin.token, body: { title: 'Private' } })).body.id;
    const inside = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Inside', parent: collection } })).body.id;
    const guest = await t.member(org.id, null);
    await t.grant(org.id, { space: inside }, { user: guest.user.id }, 'read');
    expect((await t.request('GET', `/v1/spaces/${inside}`, { token: guest.token })).status).toBe(200);
    const refused = await t.request('POST', `/v1/spaces/${inside}/duplicate`, { token: guest.token });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).not.toMatch(/^parent: /);
    expect((await t.request('POST', `/v1/spaces/${original}/duplicate`)).status).toBe(401);
    expect((await t.request('POST', '/v1/spaces/unknown/duplicate', { token: org.admin.token })).status).toBe(404);
    await t.request('DELETE', `/v1/spaces/${original}`, { token: org.admin.token });
    expect((await t.request('POST', `/v1/spaces/${original}/duplicate`, { token: org.admin.token })).status).toBe(404);
  });

  it('keeps the repository of a deleted space, so a restore brings the content back', async () => {
    const id = await spaceWithHistory('Restorable');
    const before = await log(id);
    expect((await t.request('DELETE', `/v1/spaces/${id}`, { token: org.admin.token })).status).toBe(205);
    expect((await t.request('GET', `/v1/spaces/${id}/content`, { token: org.admin.token })).status).toBe(404);
    expect((await t.request('POST', `/v1/spaces/${id}/restore`, { token: org.admin.token })).status).toBe(200);
    expect(await log(id)).toEqual(before);
    const content = await t.request('GET', `/v1/spaces/${id}/content`, { token: org.admin.token });
    expect(content.body.id).toBe(before[0].split(' ')[0]);
  });

  it('purges spaces deleted more than 7 days ago, rows and repositories, and keeps younger ones', async () => {
    const old = await spaceWithHistory('Old');
    const recent = await spaceWithHistory('Recent');
    for (const id of [old, recent]) await t.request('DELETE', `/v1/spaces/${id}`, { token: org.admin.token });
    const eightDaysAgo = new Date(Date.now() - 8 * 24 * 3600 * 1000).toISOString();
    await t.container.ctx.db.updateTable('spaces').set({ deleted_at: eightDaysAgo }).where('id', '=', old).execute();

    const purged = await purgeDeletedSpaces(t.container.ctx);
    expect(purged).toEqual([old]);
    await expect(fs.access(t.container.git.repositoryPath(old))).rejects.toThrow();
    await fs.access(t.container.git.repositoryPath(recent));
    expect((await t.request('POST', `/v1/spaces/${old}/restore`, { token: org.admin.token })).status).toBe(404);
    expect((await t.request('POST', `/v1/spaces/${recent}/restore`, { token: org.admin.token })).status).toBe(200);
    // Running it again finds nothing more to do.
    expect(await purgeDeletedSpaces(t.container.ctx)).toEqual([]);
  });
});
