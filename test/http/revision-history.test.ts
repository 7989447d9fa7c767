import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';

const exec = promisify(execFile);

/**
 * The history of a space (listSpaceRevisions, a Quire extension) and the reference's reads of an old revision
 * (listPagesInRevisionById, getPageInRevisionById, getPageInRevisionByPath), over real pushes and a merge through the
 * API. The history, newest first as git log walks it (commit dates in minutes after `start`):
 *
 *   c5 rename guide.md -> manual.md           (main)
 *   M  merge of change request #1             (Quire, parents c4 and cr2)
 *   cr2 edit extra.md      (+6)               (branch)
 *   c4 edit other.md       (+5)               (main)
 *   cr1 add extra.md       (+4)               (branch)
 *   c3 edit guide.md       (+3)
 *   c2 edit other.md       (+2)
 *   c1 add guide.md and other.md (+1)
 *   c0 the space's first commit (Quire)
 *
 * The branch's commits are interleaved with main's by date: a page token holding only the next commit would lose c4
 * (the walk restarted at cr2 never reaches it).
 */
describe.each(DATABASE_KINDS)('revision history (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let base: string;
  let spaceId: string;
  let checkout: Checkout;
  const start = Math.floor(Date.now() / 1000);
  const c: Record<string, string> = {};
  let changeRequest: { id: string; number: number };

  const get = (url: string, query?: Record<string, string | number>, token = org.admin.token) => t.request('GET', url, { token, query });
  const history = (query?: Record<string, string | number>, token?: string) => get(`/v1/spaces/${spaceId}/revisions`, query, token);
  /** Commits (and pushes) the checkout's work `minutes` after the start, as its author and committer date. */
  const commitAt = async (minutes: number, message: string, push?: string) => {
    const date = `${start + minutes * 60} +0000`;
    Object.assign(checkout.env, { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date });
    const oid = await checkout.commit(message);
    if (push) await checkout.push(push);
    return oid;
  };
  /** Every item of the listing, page after page of `limit`; checks each page's size and the last page's end. */
  const everything = async (query: Record<string, string | number>) => {
    const items: any[] = [];
    let page: string | undefined;
    for (let pages = 0; pages < 50; pages++) {
      const res = await history({ ...query, ...(page ? { page } : {}) });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.count).toBe(res.body.items.length);
      items.push(...res.body.items);
      page = res.body.next?.page;
      if (!page) return items;
      expect(res.body.items).toHaveLength(Number(query.limit));
    }
    throw new Error('the listing did not end');
  };
  const gitLog = async (...args: string[]) =>
    (await exec('git', ['--git-dir', t.container.git.repositoryPath(spaceId), 'log', '--format=%H', ...args])).stdout.trim().split('\n');

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.organization();
    base = await t.listen();
    spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'History' } })).body.id;
    checkout = await Checkout.clone(spaceRemote(base, org.admin.token, spaceId));
    c.c0 = (await checkout.git('rev-parse', 'HEAD')).trim();

    await checkout.write('guide.md', '# Guide\n\nFirst words.\n');
    await checkout.write('other.md', '# Other\n\nOne.\n');
    c.c1 = await commitAt(1, 'Add the guide\n\nA longer description.\n\nWith two paragraphs.', 'HEAD:refs/heads/main');
    await checkout.write('other.md', '# Other\n\nTwo.\n');
    c.c2 = await commitAt(2, 'Edit other', 'HEAD:refs/heads/main');
    await checkout.write('guide.md', '# Guide\n\nSecond words.\n');
    c.c3 = await commitAt(3, 'Edit the guide', 'HEAD:refs/heads/main');

    changeRequest = (await t.request('POST', `/v1/spaces/${spaceId}/change-requests`, { token: org.admin.token, body: { subject: 'Extra' } })).body;
    const branch = `change-requests/${changeRequest.number}`;
    await checkout.git('fetch', '--quiet', 'origin');
    await checkout.git('checkout', '--quiet', '-b', branch, `origin/${branch}`);
    await checkout.write('extra.md', '# Extra\n\nProposed.\n');
    c.cr1 = await commitAt(4, 'Propose extra', `HEAD:refs/heads/${branch}`);
    await checkout.git('checkout', '--quiet', 'main');
    await checkout.write('other.md', '# Other\n\nThree.\n');
    c.c4 = await commitAt(5, 'Edit other again', 'HEAD:refs/heads/main');
    await checkout.git('checkout', '--quiet', branch);
    await checkout.write('extra.md', '# Extra\n\nProposed, reworded.\n');
    c.cr2 = await commitAt(6, 'Reword extra', `HEAD:refs/heads/${branch}`);
    const merged = await t.request('POST', `/v1/spaces/${spaceId}/change-requests/${changeRequest.number}/merge`, { token: org.admin.token });
    expect(merged.body.result).toBe('merge');
    c.merge = merged.body.revision;

    await checkout.git('checkout', '--quiet', 'main');
    await checkout.git('pull', '--quiet', '--ff-only', 'origin', 'main');
    await checkout.git('mv', 'guide.md', 'manual.md');
    c.c5 = await commitAt(7, 'Rename the guide', 'HEAD:refs/heads/main');
  });
  afterAll(async () => {
    await checkout?.dispose();
    await t?.close();
  });

  it("lists main's history newest first as git log walks it, each commit with its message, author, parents and URLs", async () => {
    const res = await history();
    expect(res.status).toBe(200);
    const order = ['c5', 'merge', 'cr2', 'c4', 'cr1', 'c3', 'c2', 'c1', 'c0'].map((name) => c[name]);
    expect(res.body.items.map((item: any) => item.id)).toEqual(order);
    expect(res.body.items.map((item: any) => item.id)).toEqual(await gitLog(c.c5));
    expect(res.body).toMatchObject({ count: 9 });
    expect(res.body.next).toBeUndefined();

    const byId = new Map(res.body.items.map((item: any) => [item.id, item]));
    expect(byId.get(c.c1)).toEqual({
      object: 'revision-summary',
      id: c.c1,
      message: 'Add the guide',
      description: 'A longer description.\n\nWith two paragraphs.',
      author: { name: 'Test Author', email: 'author@example.com' },
      createdAt: new Date((start + 60) * 1000).toISOString(),
      parents: [c.c0],
      merge: false,
      urls: {
        location: `http://quire.test/v1/spaces/${spaceId}/revisions/${c.c1}`,
        app: `http://quire.test/app/s/${spaceId}/~/revisions/${c.c1}`,
      },
    });
    expect(byId.get(c.c2)).not.toHaveProperty('description');
    expect(byId.get(c.merge)).toMatchObject({
      message: 'Merge change request #1: Extra',
      author: { name: 'Admin', email: org.admin.user.email },
      parents: [c.c4, c.cr2],
      merge: true,
      changeRequest: { id: changeRequest.id, number: 1 },
    });
    // Only Quire's merge of a change request names one.
    for (const name of ['c5', 'cr2', 'c4', 'c0']) expect(byId.get(c[name])).not.toHaveProperty('changeRequest');
  });

  it('pages through with `page` to the end: the same commits, none twice, none left out', async () => {
    const all = (await history({ limit: 100 })).body.items.map((item: any) => item.id);
    for (const limit of [1, 2, 4, 8]) {
      expect((await everything({ limit })).map((item) => item.id)).toEqual(all);
    }
    const first = await history({ limit: 9 });
    expect(first.body.next).toBeUndefined();
    expect((await history({ limit: 8 })).body.next).toBeDefined();
  });

  it("with pageId, lists the commits that changed the page's file, back through its rename", async () => {
    const pages = (await get(`/v1/spaces/${spaceId}/content/pages`)).body.pages;
    const other = pages.find((page: any) => page.title === 'Other');
    const manual = pages.find((page: any) => page.title === 'Guide');
    expect(manual.path).toBe('manual');
    const otherHistory = await history({ pageId: other.id });
    expect(otherHistory.body.items.map((item: any) => item.id)).toEqual([c.c4, c.c2, c.c1]);
    expect(otherHistory.body.items.map((item: any) => item.id)).toEqual(await gitLog(c.c5, '--', 'other.md'));
    // The page's id is kept across the rename (history facts), and so is its history.
    const before = (await get(`/v1/spaces/${spaceId}/revisions/${c.c3}/pages`)).body.pages.find((page: any) => page.title === 'Guide');
    expect(before).toMatchObject({ id: manual.id, path: 'guide' });
    expect((await history({ pageId: manual.id })).body.items.map((item: any) => item.id)).toEqual([c.c5, c.c3, c.c1]);
    for (const limit of [1, 2]) {
      expect((await everything({ pageId: manual.id, limit })).map((item) => item.id)).toEqual([c.c5, c.c3, c.c1]);
    }
    // A page token is for its own listing.
    const token = (await history({ pageId: manual.id, limit: 1 })).body.next.page;
    const elsewhere = await history({ page: token, limit: 1 });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error.message).toMatch(/^page: /);
  });

  it("reads an old revision's pages, and a page by id and by path, as they were", async () => {
    const atC3 = await get(`/v1/spaces/${spaceId}/revisions/${c.c3}/pages`);
    expect(atC3.status).toBe(200);
    expect(atC3.body.pages.map((page: any) => page.title).sort()).toEqual(['Guide', 'History', 'Other']);
    const guide = atC3.body.pages.find((page: any) => page.title === 'Guide');

    const byId = await get(`/v1/spaces/${spaceId}/revisions/${c.c3}/page/${guide.id}`);
    expect(byId.status).toBe(200);
    expect(byId.body).toMatchObject({ id: guide.id, path: 'guide', markdown: 'Second words.\n', git: { path: 'guide.md' } });
    const first = await get(`/v1/spaces/${spaceId}/revisions/${c.c1}/page/${guide.id}`);
    expect(first.body.markdown).toBe('First words.\n');
    const asDocument = await get(`/v1/spaces/${spaceId}/revisions/${c.c1}/page/${guide.id}`, { format: 'document', metadata: 'false' });
    expect(asDocument.body.document).toBeDefined();
    expect(asDocument.body).not.toHaveProperty('git');

    const byPath = await get(`/v1/spaces/${spaceId}/revisions/${c.c1}/path/guide`);
    expect(byPath.status).toBe(200);
    expect(byPath.body).toMatchObject({ id: guide.id, markdown: 'First words.\n' });
    // Main has the page under its new path only; the old revision under its old one only.
    expect((await get(`/v1/spaces/${spaceId}/content/path/guide`)).status).toBe(404);
    expect((await get(`/v1/spaces/${spaceId}/revisions/${c.c5}/path/manual`)).body.id).toBe(guide.id);
    const notYet = await get(`/v1/spaces/${spaceId}/revisions/${c.c1}/path/manual`);
    expect(notYet.status).toBe(404);
    expect(notYet.body.error.message).toMatch(/^pagePath: /);
    // Before the change request was merged, its page was not on main.
    const extra = (await get(`/v1/spaces/${spaceId}/revisions/${c.merge}/pages`)).body.pages.find((page: any) => page.title === 'Extra');
    expect(extra).toBeDefined();
    const missing = await get(`/v1/spaces/${spaceId}/revisions/${c.c4}/page/${extra.id}`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toMatch(/^pageId: /);
  });

  it('refuses bad input naming the field', async () => {
    const cases: Array<[Record<string, string | number>, number, RegExp]> = [
      [{ limit: 0 }, 400, /^limit: /],
      [{ limit: 101 }, 400, /^limit: /],
      [{ limit: 'abc' }, 400, /^limit: /],
      [{ limit: 1.5 }, 400, /^limit: /],
      [{ pageId: 'no-such-page' }, 404, /^pageId: /],
      [{ page: 'garbage' }, 400, /^page: /],
    ];
    const token = (await history({ limit: 2 })).body.next.page as string;
    const [payload, signature] = token.split('.');
    // A token whose position was edited (skip 0 instead of 2) keeps its signature: refused.
    const edited = Buffer.from(JSON.stringify([c.c5, 0, null])).toString('base64url');
    expect(Buffer.from(payload, 'base64url').toString()).not.toBe(Buffer.from(edited, 'base64url').toString());
    cases.push([{ page: `${edited}.${signature}` }, 400, /^page: /]);
    cases.push([{ page: `${payload}.${signature.slice(0, -2)}xx` }, 400, /^page: /]);
    for (const [query, status, message] of cases) {
      const res = await history(query);
      expect(res.status, JSON.stringify(query)).toBe(status);
      expect(res.body.error.message).toMatch(message);
    }
    for (const revision of ['0'.repeat(40), 'f'.repeat(40), 'main', c.c3.slice(0, 7), `${c.c3}0`]) {
      for (const url of [`revisions/${revision}/pages`, `revisions/${revision}/page/any`, `revisions/${revision}/path/guide`]) {
        const res = await get(`/v1/spaces/${spaceId}/${url}`);
        expect(res.status, url).toBe(404);
        expect(res.body.error.message).toMatch(/^revisionId: /);
      }
    }
  });

  it('is 404 to whoever cannot read the space, 401 without a token', async () => {
    const stranger = (await t.organization('Elsewhere')).admin;
    const reader = await t.member(org.id, 'read');
    const guideId = (await get(`/v1/spaces/${spaceId}/revisions/${c.c3}/pages`)).body.pages.find((page: any) => page.title === 'Guide').id;
    const urls = [
      `/v1/spaces/${spaceId}/revisions`,
      `/v1/spaces/${spaceId}/revisions/${c.c3}/pages`,
      `/v1/spaces/${spaceId}/revisions/${c.c3}/page/${guideId}`,
      `/v1/spaces/${spaceId}/revisions/${c.c3}/path/guide`,
    ];
    for (const url of urls) {
      expect((await get(url, undefined, reader.token)).status, url).toBe(200);
      const refused = await get(url, undefined, stranger.token);
      expect(refused.status, url).toBe(404);
      expect(refused.body.error.message).toMatch(/^spaceId: /);
      expect((await t.request('GET', url)).status).toBe(401);
    }
    expect((await get(`/v1/spaces/no-such-space/revisions`)).status).toBe(404);
  });

  it('answers an empty list for a space without commits', async () => {
    const empty = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Empty' } })).body.id;
    await exec('git', ['--git-dir', t.container.git.repositoryPath(empty), 'update-ref', '-d', 'refs/heads/main']);
    // The ref read when the space was made is forgotten with the read cache, at this process's next write.
    await t.request('PATCH', `/v1/spaces/${empty}`, { token: org.admin.token, body: { title: 'Still empty' } });
    const res = await get(`/v1/spaces/${empty}/revisions`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ items: [], count: 0 });
    const page = await get(`/v1/spaces/${empty}/revisions`, { pageId: 'anything' });
    expect(page.status).toBe(404);
  });

  it('refuses pageId of a page without a file of its own (a group)', async () => {
    const grouped = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Grouped' } })).body.id;
    const work = await Checkout.clone(spaceRemote(base, org.admin.token, grouped));
    await work.write('SUMMARY.md', '# Table of contents\n\n* [Home](README.md)\n\n## Reference\n\n* [API](api.md)\n');
    await work.write('api.md', '# API\n');
    await work.commit('Group the reference');
    await work.push();
    const pages = (await get(`/v1/spaces/${grouped}/content/pages`)).body.pages;
    const group = pages.find((page: any) => page.type === 'group');
    const api = group.pages[0];
    const refused = await get(`/v1/spaces/${grouped}/revisions`, { pageId: group.id });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/^pageId: /);
    expect((await get(`/v1/spaces/${grouped}/revisions`, { pageId: api.id })).body.items.map((item: any) => item.message)).toEqual(['Group the reference']);
    await work.dispose();
  });

  it('shows a space with a project directory the commits that change that folder', async () => {
    const mono = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Mono' } })).body.id;
    const work = await Checkout.clone(spaceRemote(base, org.admin.token, mono));
    await work.write('docs/README.md', '# Docs\n');
    const inside = await work.commit('Docs');
    await work.write('src/code.txt', 'code\n');
    await work.commit('Code');
    await work.push();
    await t.container.ctx.db.updateTable('spaces').set({ project_directory: 'docs/' }).where('id', '=', mono).execute();
    const res = await get(`/v1/spaces/${mono}/revisions`);
    expect(res.body.items.map((item: any) => item.id)).toEqual([inside]);
    await work.dispose();
  });

  it('keeps a listing on the history it started from while main moves on', async () => {
    const first = await history({ limit: 3 });
    await checkout.write('other.md', '# Other\n\nFour.\n');
    const c6 = await commitAt(8, 'Edit other once more', 'HEAD:refs/heads/main');
    const rest = await everything({ limit: 3, page: first.body.next.page });
    expect([...first.body.items, ...rest].map((item: any) => item.id)).toEqual(await gitLog(c.c5));
    const now = await history({ limit: 1 });
    expect(now.body.items[0].id).toBe(c6);
  });
});
