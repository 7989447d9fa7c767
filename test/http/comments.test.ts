import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { Checkout } from '../helpers/git.js';
import { nextMillisecond } from '../helpers/wait.js';

/** A JSON document of one paragraph, the shape format=document produces. */
function paragraphs(...texts: string[]) {
  return {
    object: 'document',
    data: { schemaVersion: 1 },
    nodes: texts.map((text) => ({
      object: 'block',
      type: 'paragraph',
      data: {},
      nodes: [{ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] }],
    })),
  };
}

describe.each(DATABASE_KINDS)('space comments (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let admin: TestUser;
  let author: TestUser;
  let other: TestUser;
  let reader: TestUser;
  let stranger: TestUser;

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.organization('Acme');
    admin = org.admin;
    author = await t.member(org.id, 'comment');
    other = await t.member(org.id, 'comment');
    reader = await t.member(org.id, 'read');
    stranger = await t.user();
  });
  afterAll(async () => t?.close());

  /** A new space with pages Guide and FAQ pushed straight into its repository; returns its id and page ids. */
  async function newSpace(): Promise<{ id: string; guide: string; faq: string }> {
    const res = await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: admin.token, body: { title: 'Handbook' } });
    expect(res.status).toBe(201);
    const id = res.body.id as string;
    const checkout = await Checkout.clone(t.container.git.repositoryPath(id));
    await checkout.write('guide.md', '---\nemoji: "📘"\n---\n\n# Guide\n\nHow to.\n');
    await checkout.write('faq.md', '# FAQ\n\nQuestions.\n');
    await checkout.commitAndPush('Guide and FAQ');
    await checkout.dispose();
    t.container.ctx.cache.invalidate();
    const pages = (await t.request('GET', `/v1/spaces/${id}/content/pages`, { token: admin.token })).body.pages as any[];
    return { id, guide: pages.find((p) => p.title === 'Guide').id, faq: pages.find((p) => p.title === 'FAQ').id };
  }

  function head(spaceId: string): string {
    return execFileSync('git', ['--git-dir', t.container.git.repositoryPath(spaceId), 'rev-parse', 'refs/heads/main'], { encoding: 'utf8' }).trim();
  }

  async function post(spaceId: string, body: Record<string, unknown>, token = author.token) {
    const res = await t.request('POST', `/v1/spaces/${spaceId}/comments`, { token, body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  }

  const get = (spaceId: string, commentId: string, token = admin.token, query: Record<string, string> = {}) =>
    t.request('GET', `/v1/spaces/${spaceId}/comments/${commentId}`, { token, query });
  const put = (spaceId: string, commentId: string, body: unknown, token = author.token) =>
    t.request('PUT', `/v1/spaces/${spaceId}/comments/${commentId}`, { token, body });
  const list = (spaceId: string, query: Record<string, string | number | string[]> = {}, token = admin.token) =>
    t.request('GET', `/v1/spaces/${spaceId}/comments`, { token, query });
  const ids = (res: { body: { items: Array<{ id: string }> } }) => res.body.items.map((c) => c.id);
  const spaceCounter = async (spaceId: string) => (await t.request('GET', `/v1/spaces/${spaceId}`, { token: admin.token })).body.comments as number;

  async function expectBadRequest(method: string, url: string, options: { body?: unknown; query?: Record<string, string | number>; rawBody?: string }, message: RegExp) {
    const res = await t.request(method, url, { token: admin.token, ...options });
    expect(res.status, JSON.stringify(options)).toBe(400);
    expect(res.body.error.message, JSON.stringify(options)).toMatch(message);
  }

  describe('POST /v1/spaces/:spaceId/comments (postCommentInSpace)', () => {
    it('posts a markdown comment on a page and a node of the current revision, and reads it back', async () => {
      const space = await newSpace();
      const comment = await post(space.id, { page: space.guide, node: 'node-1', body: { markdown: 'Is this **right**?' } });
      expect(comment).toMatchObject({
        object: 'comment',
        status: 'open',
        postedBy: { object: 'user', id: author.user.id },
        replies: 0,
        reactions: [],
        body: { markdown: 'Is this **right**?' },
        target: {
          space: space.id,
          revision: head(space.id),
          node: { id: 'node-1' },
          page: { id: space.guide, title: 'Guide', path: 'guide', emoji: '📘', outdated: false },
        },
        urls: { location: `http://quire.test/v1/spaces/${space.id}/comments/${comment.id}` },
        permissions: { view: true, edit: true, reply: true, react: true, delete: true },
      });
      expect(comment.resolvedAt).toBeUndefined();
      expect(comment.editedAt).toBeUndefined();
      expect(Date.parse(comment.postedAt)).toBeGreaterThan(Date.now() - 60_000);
      const again = await get(space.id, comment.id);
      expect(again.status).toBe(200);
      // The admin reads it with their own permissions: not the author, but an admin of the space.
      expect(again.body).toEqual({ ...comment, permissions: { view: true, edit: true, reply: true, react: true, delete: true } });
      const asOther = await get(space.id, comment.id, other.token);
      expect(asOther.body.permissions).toEqual({ view: true, edit: false, reply: true, react: true, delete: false });
      const asReader = await get(space.id, comment.id, reader.token);
      expect(asReader.body.permissions).toEqual({ view: true, edit: false, reply: false, react: false, delete: false });
    });

    it('posts a comment without a target, with a document body or an empty body, and shows bodies in either format', async () => {
      const space = await newSpace();
      const plain = await post(space.id, { body: { markdown: 'First line\n\nSecond line' } });
      expect(plain.target).toEqual({ space: space.id, revision: head(space.id) });
      const asDocument = await get(space.id, plain.id, admin.token, { format: 'document' });
      expect(asDocument.body.body).toEqual({ document: paragraphs('First line', 'Second line') });

      const document = paragraphs('From a', 'document');
      const posted = await post(space.id, { body: { document } });
      expect(posted.body).toEqual({ markdown: 'From a\n\ndocument' });
      expect((await get(space.id, posted.id, admin.token, { format: 'document' })).body.body).toEqual({ document });
      expect((await get(space.id, posted.id, admin.token, { format: 'markdown' })).body.body).toEqual({ markdown: 'From a\n\ndocument' });

      // A document with marks, a link and a hint reads as GitBook-flavoured markdown, and back as the same document.
      const rich = (await get(space.id, plain.id, admin.token, { format: 'document' })).body.body.document;
      rich.nodes = [
        { object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Bold', marks: [{ object: 'mark', type: 'bold' }] }, { object: 'leaf', text: ' and ', marks: [] }] }, { object: 'inline', type: 'link', data: { ref: { kind: 'url', url: 'https://example.com/' } }, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'a link', marks: [] }] }] }] },
        { object: 'block', type: 'hint', data: { style: 'warning' }, nodes: [{ object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Careful.', marks: [] }] }] }] },
      ];
      const richPosted = await post(space.id, { body: { document: rich } });
      expect(richPosted.body).toEqual({ markdown: '**Bold** and [a link](https://example.com/)\n\n{% hint style="warning" %}\nCareful.\n{% endhint %}' });

      const empty = await post(space.id, { body: {} });
      expect(empty.body).toEqual({ markdown: '' });
    });

    it('refuses bad input with 400 naming the field', async () => {
      const space = await newSpace();
      const url = `/v1/spaces/${space.id}/comments`;
      for (const [body, message] of [
        [{}, /^body: is required/],
        [{ body: { markdown: 5 } }, /^body\.markdown: must be string/],
        [{ body: { markdown: '' } }, /^body\.markdown: must not be blank/],
        [{ body: { markdown: ' \n\t' } }, /^body\.markdown: must not be blank/],
        [{ body: 'text' }, /^body: /],
        [{ body: { markdown: 'a', document: paragraphs('a') } }, /^body: must match exactly one schema/],
        [{ body: { document: { object: 'page', data: {}, nodes: [] } } }, /^body/],
        [{ body: { markdown: 'a' }, page: 5 }, /^page: must be string/],
        [{ body: { markdown: 'a' }, node: false }, /^node: must be string/],
        [{ body: { markdown: 'a' }, page: 'no-such-page' }, /^page: no page "no-such-page"/],
        [[], /^body: must be object/],
      ] as Array<[unknown, RegExp]>) {
        await expectBadRequest('POST', url, { body }, message);
      }
      await expectBadRequest('POST', url, { rawBody: '{"body": ' }, /^body: is not valid JSON/);
      const none = await t.request('POST', url, { token: admin.token });
      expect(none.status).toBe(400);
      expect((await list(space.id)).body.items).toEqual([]);
    });

    it('answers 401 without a token, 403 to a read member, 404 to a non-member and for an unknown space', async () => {
      const space = await newSpace();
      const body = { body: { markdown: 'hi' } };
      expect((await t.request('POST', `/v1/spaces/${space.id}/comments`, { body })).status).toBe(401);
      const denied = await t.request('POST', `/v1/spaces/${space.id}/comments`, { token: reader.token, body });
      expect(denied.status).toBe(403);
      expect(denied.body.error.message).toMatch(/"comment" permission/);
      expect((await t.request('POST', `/v1/spaces/${space.id}/comments`, { token: stranger.token, body })).status).toBe(404);
      expect((await t.request('POST', `/v1/spaces/no-such-space/comments`, { token: admin.token, body })).status).toBe(404);
      expect((await list(space.id)).body.items).toEqual([]);
    });

    it('marks the page target outdated once the page is gone from the current revision', async () => {
      const space = await newSpace();
      const comment = await post(space.id, { page: space.faq, body: { markdown: 'Stale?' } });
      const checkout = await Checkout.clone(t.container.git.repositoryPath(space.id));
      await checkout.remove('faq.md');
      await checkout.commitAndPush('Remove the FAQ');
      await checkout.dispose();
      t.container.ctx.cache.invalidate();
      const res = await get(space.id, comment.id);
      expect(res.body.target.revision).toBe(comment.target.revision);
      expect(res.body.target.revision).not.toBe(head(space.id));
      expect(res.body.target.page).toEqual({ id: space.faq, title: 'FAQ', path: 'faq', outdated: true });
      // Posting on the removed page is refused.
      await expectBadRequest('POST', `/v1/spaces/${space.id}/comments`, { body: { page: space.faq, body: { markdown: 'x' } } }, /^page: /);
    });
  });

  describe('GET /v1/spaces/:spaceId/comments/:commentId (getCommentInSpace)', () => {
    it('answers 404 for an unknown comment, a non-member or a comment of another space, and 400 for a bad format', async () => {
      const space = await newSpace();
      const elsewhere = await newSpace();
      const comment = await post(space.id, { body: { markdown: 'hi' } });
      expect((await get(space.id, 'no-such-comment')).status).toBe(404);
      expect((await get(elsewhere.id, comment.id)).status).toBe(404);
      expect((await get(space.id, comment.id, stranger.token)).status).toBe(404);
      expect((await t.request('GET', `/v1/spaces/${space.id}/comments/${comment.id}`)).status).toBe(401);
      await expectBadRequest('GET', `/v1/spaces/${space.id}/comments/${comment.id}`, { query: { format: 'html' } }, /^format: must be one of: markdown, document/);
    });
  });

  describe('GET /v1/spaces/:spaceId/comments (listCommentsInSpace)', () => {
    let space: { id: string; guide: string; faq: string };
    let first: any;
    let second: any;
    let third: any;

    beforeAll(async () => {
      space = await newSpace();
      first = await post(space.id, { page: space.guide, body: { markdown: 'one' } }, author.token);
      await nextMillisecond();
      second = await post(space.id, { body: { markdown: 'two' } }, admin.token);
      await nextMillisecond();
      third = await post(space.id, { page: space.guide, body: { markdown: 'three' } }, other.token);
      expect((await put(space.id, second.id, { resolved: true }, admin.token)).status).toBe(200);
    });

    it('lists newest first by default, oldest first with order=asc', async () => {
      const res = await list(space.id);
      expect(res.status).toBe(200);
      expect(ids(res)).toEqual([third.id, second.id, first.id]);
      expect(res.body.count).toBe(3);
      expect(res.body.next).toBeUndefined();
      expect(ids(await list(space.id, { order: 'desc' }))).toEqual([third.id, second.id, first.id]);
      expect(ids(await list(space.id, { order: 'asc' }))).toEqual([first.id, second.id, third.id]);
    });

    it('filters by status, target page and authors', async () => {
      expect(ids(await list(space.id, { status: 'all' }))).toEqual([third.id, second.id, first.id]);
      expect(ids(await list(space.id, { status: 'open' }))).toEqual([third.id, first.id]);
      const resolved = await list(space.id, { status: 'resolved' });
      expect(ids(resolved)).toEqual([second.id]);
      expect(resolved.body.items[0]).toMatchObject({ status: 'resolved', resolvedBy: { id: admin.user.id } });
      expect(ids(await list(space.id, { targetPage: space.guide }))).toEqual([third.id, first.id]);
      expect(ids(await list(space.id, { targetPage: space.faq }))).toEqual([]);
      expect(ids(await list(space.id, { authors: author.user.id }))).toEqual([first.id]);
      expect(ids(await list(space.id, { authors: [author.user.id, admin.user.id] }))).toEqual([second.id, first.id]);
      expect(ids(await list(space.id, { authors: [reader.user.id] }))).toEqual([]);
      expect(ids(await list(space.id, { status: 'open', targetPage: space.guide, authors: other.user.id, order: 'asc' }))).toEqual([third.id]);
    });

    it('pages with limit and next, keeping the filters', async () => {
      const page1 = await list(space.id, { limit: 2, order: 'asc' });
      expect(ids(page1)).toEqual([first.id, second.id]);
      expect(page1.body.next.page).toEqual(expect.any(String));
      const page2 = await list(space.id, { limit: 2, order: 'asc', page: page1.body.next.page });
      expect(ids(page2)).toEqual([third.id]);
      expect(page2.body.next).toBeUndefined();
      // A token of one list is refused by a list with other filters.
      await expectBadRequest('GET', `/v1/spaces/${space.id}/comments`, { query: { limit: 2, order: 'desc', page: page1.body.next.page } }, /^page: /);
      const zero = await list(space.id, { limit: 0 });
      expect(zero.body.items).toEqual([]);
      expect(zero.body.next).toBeDefined();
    });

    it('shows bodies as documents with format=document, and lets readers list', async () => {
      const res = await list(space.id, { format: 'document', order: 'asc' });
      expect(res.body.items.map((c: any) => c.body)).toEqual([
        { document: paragraphs('one') },
        { document: paragraphs('two') },
        { document: paragraphs('three') },
      ]);
      const asReader = await list(space.id, {}, reader.token);
      expect(asReader.status).toBe(200);
      expect(asReader.body.items.every((c: any) => c.permissions.reply === false && c.permissions.edit === false)).toBe(true);
    });

    it('refuses bad query values and callers who cannot see the space', async () => {
      const url = `/v1/spaces/${space.id}/comments`;
      await expectBadRequest('GET', url, { query: { status: 'closed' } }, /^status: must be one of: all, open, resolved/);
      await expectBadRequest('GET', url, { query: { order: 'up' } }, /^order: must be one of: asc, desc/);
      await expectBadRequest('GET', url, { query: { format: 'html' } }, /^format: must be one of/);
      await expectBadRequest('GET', url, { query: { limit: 'many' } }, /^limit: /);
      await expectBadRequest('GET', url, { query: { limit: 1001 } }, /^limit: /);
      await expectBadRequest('GET', url, { query: { page: 'forged' } }, /^page: /);
      expect((await t.request('GET', url)).status).toBe(401);
      expect((await list(space.id, {}, stranger.token)).status).toBe(404);
      expect((await list('no-such-space')).status).toBe(404);
    });
  });

  describe('PUT /v1/spaces/:spaceId/comments/:commentId (updateCommentInSpace)', () => {
    it('resolves and reopens (any member who may comment); resolvedAt and resolvedBy come and go', async () => {
      const space = await newSpace();
      const comment = await post(space.id, { body: { markdown: 'fix me' } });
      const resolved = await put(space.id, comment.id, { resolved: true }, other.token);
      expect(resolved.status).toBe(200);
      expect(resolved.body).toMatchObject({ status: 'resolved', resolvedBy: { id: other.user.id } });
      expect(Date.parse(resolved.body.resolvedAt)).toBeGreaterThan(Date.now() - 60_000);
      expect((await get(space.id, comment.id)).body).toMatchObject({ status: 'resolved', resolvedAt: resolved.body.resolvedAt, resolvedBy: { id: other.user.id } });
      // Resolving again keeps who resolved it and when.
      const again = await put(space.id, comment.id, { resolved: true }, author.token);
      expect(again.body).toMatchObject({ resolvedAt: resolved.body.resolvedAt, resolvedBy: { id: other.user.id } });
      expect(again.body.editedAt).toBeUndefined();

      const reopened = await put(space.id, comment.id, { resolved: false }, author.token);
      expect(reopened.status).toBe(200);
      expect(reopened.body.status).toBe('open');
      const read = (await get(space.id, comment.id)).body;
      expect(read.status).toBe('open');
      expect(read.resolvedAt).toBeUndefined();
      expect(read.resolvedBy).toBeUndefined();

      const denied = await put(space.id, comment.id, { resolved: true }, reader.token);
      expect(denied.status).toBe(403);
      expect((await get(space.id, comment.id)).body.status).toBe('open');
    });

    it('edits the body (author or admin only) and records editedAt', async () => {
      const space = await newSpace();
      const comment = await post(space.id, { body: { markdown: 'draft' } });
      const edited = await put(space.id, comment.id, { body: { markdown: 'final' } });
      expect(edited.status).toBe(200);
      expect(edited.body.body).toEqual({ markdown: 'final' });
      expect(Date.parse(edited.body.editedAt)).toBeGreaterThanOrEqual(Date.parse(comment.postedAt));
      expect((await get(space.id, comment.id)).body.body).toEqual({ markdown: 'final' });

      const denied = await put(space.id, comment.id, { body: { markdown: 'mine now' } }, other.token);
      expect(denied.status).toBe(403);
      expect(denied.body.error.message).toMatch(/author/);
      expect((await put(space.id, comment.id, { body: { markdown: 'no' } }, reader.token)).status).toBe(403);
      expect((await get(space.id, comment.id)).body.body).toEqual({ markdown: 'final' });

      const byAdmin = await put(space.id, comment.id, { body: { document: paragraphs('moderated') } }, admin.token);
      expect(byAdmin.status).toBe(200);
      expect((await get(space.id, comment.id)).body.body).toEqual({ markdown: 'moderated' });
      // An empty markdown body is refused, as on create, and leaves the comment as it was.
      for (const markdown of ['', '   ']) {
        const blank = await put(space.id, comment.id, { body: { markdown } }, admin.token);
        expect(blank.status).toBe(400);
        expect(blank.body.error.message).toMatch(/^body\.markdown: must not be blank/);
      }
      expect((await get(space.id, comment.id)).body.body).toEqual({ markdown: 'moderated' });
      // An empty update changes nothing.
      const unchanged = await put(space.id, comment.id, {}, author.token);
      expect(unchanged.status).toBe(200);
      expect(unchanged.body.body).toEqual({ markdown: 'moderated' });
    });

    it('adds reactions once per user and emoji, removes only the caller\'s, and counts them', async () => {
      const space = await newSpace();
      const comment = await post(space.id, { body: { markdown: 'react' } });
      const first = await put(space.id, comment.id, { addedReactions: ['👍', '🎉'] }, author.token);
      expect(first.status).toBe(200);
      const reactedBy = (id: string) => [{ user: expect.objectContaining({ id }), reactedAt: expect.any(String) }];
      expect(first.body.reactions).toEqual(
        expect.arrayContaining([
          { emoji: '👍', count: 1, users: reactedBy(author.user.id) },
          { emoji: '🎉', count: 1, users: reactedBy(author.user.id) },
        ]),
      );
      expect(first.body.reactions).toHaveLength(2);
      // Idempotent: the same reaction again changes nothing.
      const twice = await put(space.id, comment.id, { addedReactions: ['👍', '👍'] }, author.token);
      expect(twice.body.reactions.find((r: any) => r.emoji === '👍').count).toBe(1);

      await put(space.id, comment.id, { addedReactions: ['👍'] }, other.token);
      const both = (await get(space.id, comment.id)).body.reactions.find((r: any) => r.emoji === '👍');
      expect(both.count).toBe(2);
      expect(both.users.map((u: any) => u.user.id).sort()).toEqual([author.user.id, other.user.id].sort());

      const removed = await put(space.id, comment.id, { removedReactions: ['👍', '🚀'] }, author.token);
      expect(removed.status).toBe(200);
      const thumbs = (await get(space.id, comment.id)).body.reactions.find((r: any) => r.emoji === '👍');
      expect(thumbs.count).toBe(1);
      expect(thumbs.users.map((u: any) => u.user.id)).toEqual([other.user.id]);
      await put(space.id, comment.id, { removedReactions: ['🎉'] }, author.token);
      expect((await get(space.id, comment.id)).body.reactions.map((r: any) => r.emoji)).toEqual(['👍']);

      expect((await put(space.id, comment.id, { addedReactions: ['👀'] }, reader.token)).status).toBe(403);
      expect((await get(space.id, comment.id)).body.reactions.map((r: any) => r.emoji)).toEqual(['👍']);
    });

    it('refuses bad input, unknown comments and callers who cannot see the space', async () => {
      const space = await newSpace();
      const comment = await post(space.id, { body: { markdown: 'x' } });
      const url = `/v1/spaces/${space.id}/comments/${comment.id}`;
      for (const [body, message] of [
        [{ resolved: 'yes' }, /^resolved: must be boolean/],
        [{ addedReactions: '👍' }, /^addedReactions: must be array/],
        [{ removedReactions: [1] }, /^removedReactions\[0\]: must be string/],
        [{ addedReactions: [''] }, /^addedReactions\[0\]: must be at least 1 character/],
        [{ body: { markdown: 'a', document: paragraphs('a') } }, /^body: must match exactly one schema/],
        [{ body: { markdown: 1 } }, /^body\.markdown: must be string/],
      ] as Array<[unknown, RegExp]>) {
        await expectBadRequest('PUT', url, { body }, message);
      }
      await expectBadRequest('PUT', url, { rawBody: '{"resolved": tru' }, /^body: is not valid JSON/);
      expect((await t.request('PUT', url, { token: admin.token })).status).toBe(400);
      expect((await put(space.id, 'no-such-comment', { resolved: true })).status).toBe(404);
      expect((await put(space.id, comment.id, { resolved: true }, stranger.token)).status).toBe(404);
      expect((await t.request('PUT', url, { body: { resolved: true } })).status).toBe(401);
      expect((await get(space.id, comment.id)).body.status).toBe('open');
    });
  });

  describe('DELETE /v1/spaces/:spaceId/comments/:commentId (deleteCommentInSpace)', () => {
    it('lets the author and admins delete (205), answers 204 when there is no such comment, 403 to others', async () => {
      const space = await newSpace();
      const mine = await post(space.id, { body: { markdown: 'mine' } });
      const theirs = await post(space.id, { body: { markdown: 'theirs' } }, other.token);
      const url = (id: string) => `/v1/spaces/${space.id}/comments/${id}`;

      const denied = await t.request('DELETE', url(mine.id), { token: other.token });
      expect(denied.status).toBe(403);
      expect((await t.request('DELETE', url(mine.id), { token: reader.token })).status).toBe(403);
      expect((await t.request('DELETE', url(mine.id), { token: stranger.token })).status).toBe(404);
      expect((await t.request('DELETE', url(mine.id))).status).toBe(401);
      expect((await get(space.id, mine.id)).status).toBe(200);

      const deleted = await t.request('DELETE', url(mine.id), { token: author.token });
      expect(deleted.status).toBe(205);
      expect(deleted.body).toBeUndefined();
      expect((await get(space.id, mine.id)).status).toBe(404);
      expect((await t.request('DELETE', url(mine.id), { token: author.token })).status).toBe(204);

      expect((await t.request('DELETE', url(theirs.id), { token: admin.token })).status).toBe(205);
      expect((await list(space.id)).body.items).toEqual([]);
      expect((await t.request('DELETE', `/v1/spaces/no-such-space/comments/${theirs.id}`, { token: admin.token })).status).toBe(404);
    });

    it('deletes the replies with the comment', async () => {
      const space = await newSpace();
      const comment = await post(space.id, { body: { markdown: 'thread' } });
      const reply = await t.request('POST', `/v1/spaces/${space.id}/comments/${comment.id}/replies`, { token: other.token, body: { body: { markdown: 'r' } } });
      expect(reply.status).toBe(200);
      expect((await t.request('DELETE', `/v1/spaces/${space.id}/comments/${comment.id}`, { token: author.token })).status).toBe(205);
      const rows = await t.container.ctx.db.selectFrom('comment_replies').selectAll().where('comment_id', '=', comment.id).execute();
      expect(rows).toEqual([]);
    });
  });

  describe('replies (and listCommentRepliesInSpace)', () => {
    let space: { id: string; guide: string; faq: string };
    let comment: any;
    const repliesUrl = () => `/v1/spaces/${space.id}/comments/${comment.id}/replies`;

    beforeAll(async () => {
      space = await newSpace();
      comment = await post(space.id, { body: { markdown: 'question' } });
    });

    async function postReply(body: unknown, token = other.token) {
      const res = await t.request('POST', repliesUrl(), { token, body: { body } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body;
    }

    it('posts a reply, counts it on the comment, and reads it back in both formats', async () => {
      const before = (await get(space.id, comment.id)).body.replies;
      const reply = await postReply({ markdown: 'answer' });
      expect(reply).toMatchObject({
        object: 'comment-reply',
        postedBy: { id: other.user.id },
        reactions: [],
        body: { markdown: 'answer' },
        urls: { location: `http://quire.test/v1/spaces/${space.id}/comments/${comment.id}/replies/${reply.id}` },
        permissions: { view: true, edit: true, reply: true, react: true, delete: true },
      });
      expect(reply.editedAt).toBeUndefined();
      expect((await get(space.id, comment.id)).body.replies).toBe(before + 1);
      const read = await t.request('GET', `${repliesUrl()}/${reply.id}`, { token: admin.token });
      expect(read.status).toBe(200);
      expect(read.body).toEqual(reply);
      const asDocument = await t.request('GET', `${repliesUrl()}/${reply.id}`, { token: admin.token, query: { format: 'document' } });
      expect(asDocument.body.body).toEqual({ document: paragraphs('answer') });
      const asAuthorOfComment = await t.request('GET', `${repliesUrl()}/${reply.id}`, { token: author.token });
      expect(asAuthorOfComment.body.permissions).toEqual({ view: true, edit: false, reply: true, react: true, delete: false });
      const documentReply = await postReply({ document: paragraphs('doc reply') });
      expect(documentReply.body).toEqual({ markdown: 'doc reply' });
    });

    it('refuses bad replies, readers, non-members and unknown comments or replies', async () => {
      for (const [body, message] of [
        [{}, /^body: is required/],
        [{ body: { markdown: 'a', document: paragraphs('a') } }, /^body: must match exactly one schema/],
        [{ body: { markdown: [] } }, /^body\.markdown: must be string/],
      ] as Array<[unknown, RegExp]>) {
        await expectBadRequest('POST', repliesUrl(), { body }, message);
      }
      await expectBadRequest('POST', repliesUrl(), { rawBody: '{' }, /^body: is not valid JSON/);
      expect((await t.request('POST', repliesUrl(), { token: reader.token, body: { body: { markdown: 'x' } } })).status).toBe(403);
      expect((await t.request('POST', repliesUrl(), { token: stranger.token, body: { body: { markdown: 'x' } } })).status).toBe(404);
      expect((await t.request('POST', repliesUrl(), { body: { body: { markdown: 'x' } } })).status).toBe(401);
      expect(
        (await t.request('POST', `/v1/spaces/${space.id}/comments/no-such-comment/replies`, { token: admin.token, body: { body: { markdown: 'x' } } })).status,
      ).toBe(404);
      expect((await t.request('GET', `${repliesUrl()}/no-such-reply`, { token: admin.token })).status).toBe(404);
      expect((await t.request('GET', `/v1/spaces/${space.id}/comments/no-such-comment/replies/x`, { token: admin.token })).status).toBe(404);
      await expectBadRequest('GET', `${repliesUrl()}/x`, { query: { format: 'pdf' } }, /^format: /);
    });

    it('lists replies oldest first, paged', async () => {
      const fresh = await post(space.id, { body: { markdown: 'list me' } });
      const url = `/v1/spaces/${space.id}/comments/${fresh.id}/replies`;
      const posted: string[] = [];
      for (const text of ['a', 'b', 'c']) {
        const res = await t.request('POST', url, { token: author.token, body: { body: { markdown: text } } });
        posted.push(res.body.id);
        await nextMillisecond();
      }
      const all = await t.request('GET', url, { token: reader.token });
      expect(all.status).toBe(200);
      expect(ids(all)).toEqual(posted);
      expect(all.body.items.map((r: any) => r.body.markdown)).toEqual(['a', 'b', 'c']);
      const page1 = await t.request('GET', url, { token: admin.token, query: { limit: 2, format: 'document' } });
      expect(ids(page1)).toEqual(posted.slice(0, 2));
      expect(page1.body.items[0].body).toEqual({ document: paragraphs('a') });
      const page2 = await t.request('GET', url, { token: admin.token, query: { limit: 2, format: 'document', page: page1.body.next.page } });
      expect(ids(page2)).toEqual(posted.slice(2));
      expect(page2.body.next).toBeUndefined();
      await expectBadRequest('GET', url, { query: { limit: -1 } }, /^limit: /);
      await expectBadRequest('GET', url, { query: { format: 'text' } }, /^format: /);
      expect((await t.request('GET', url, { token: stranger.token })).status).toBe(404);
      expect((await t.request('GET', `/v1/spaces/${space.id}/comments/no-such-comment/replies`, { token: admin.token })).status).toBe(404);
    });

    it('edits a reply (author or admin), and adds and removes reactions on it', async () => {
      const reply = await postReply({ markdown: 'v1' });
      const url = `${repliesUrl()}/${reply.id}`;
      const edited = await t.request('PUT', url, { token: other.token, body: { body: { markdown: 'v2' } } });
      expect(edited.status).toBe(200);
      expect(edited.body.body).toEqual({ markdown: 'v2' });
      expect(edited.body.editedAt).toEqual(expect.any(String));
      expect((await t.request('GET', url, { token: admin.token })).body.body).toEqual({ markdown: 'v2' });

      expect((await t.request('PUT', url, { token: author.token, body: { body: { markdown: 'hijack' } } })).status).toBe(403);
      expect((await t.request('PUT', url, { token: reader.token, body: { body: { markdown: 'hijack' } } })).status).toBe(403);
      expect((await t.request('PUT', url, { token: admin.token, body: { body: { markdown: 'v3' } } })).status).toBe(200);
      expect((await t.request('GET', url, { token: admin.token })).body.body).toEqual({ markdown: 'v3' });

      await t.request('PUT', url, { token: author.token, body: { addedReactions: ['❤️'] } });
      await t.request('PUT', url, { token: author.token, body: { addedReactions: ['❤️'] } });
      const liked = await t.request('PUT', url, { token: admin.token, body: { addedReactions: ['❤️'] } });
      expect(liked.body.reactions).toEqual([
        {
          emoji: '❤️',
          count: 2,
          users: [
            { user: expect.objectContaining({ id: author.user.id }), reactedAt: expect.any(String) },
            { user: expect.objectContaining({ id: admin.user.id }), reactedAt: expect.any(String) },
          ],
        },
      ]);
      const unliked = await t.request('PUT', url, { token: author.token, body: { removedReactions: ['❤️'] } });
      expect(unliked.body.reactions).toEqual([{ emoji: '❤️', count: 1, users: [{ user: expect.objectContaining({ id: admin.user.id }), reactedAt: expect.any(String) }] }]);
      expect((await t.request('PUT', url, { token: reader.token, body: { addedReactions: ['❤️'] } })).status).toBe(403);
      // Reactions on the reply are not the comment's.
      expect((await get(space.id, comment.id)).body.reactions).toEqual([]);

      await expectBadRequest('PUT', url, { body: { addedReactions: [5] } }, /^addedReactions\[0\]: must be string/);
      await expectBadRequest('PUT', url, { body: { body: { markdown: 'a', document: paragraphs('a') } } }, /^body: must match exactly one schema/);
      await expectBadRequest('PUT', url, { rawBody: 'nope' }, /^body: is not valid JSON/);
      expect((await t.request('PUT', `${repliesUrl()}/no-such-reply`, { token: admin.token, body: {} })).status).toBe(404);
      expect((await t.request('PUT', url, { token: stranger.token, body: {} })).status).toBe(404);
    });

    it('deletes a reply (author or admin): 205, then 204; 404 for an unknown comment', async () => {
      const reply = await postReply({ markdown: 'bye' });
      const another = await postReply({ markdown: 'moderate me' });
      const url = (id: string) => `${repliesUrl()}/${id}`;
      const count = async () => (await get(space.id, comment.id)).body.replies as number;
      const before = await count();
      expect((await t.request('DELETE', url(reply.id), { token: author.token })).status).toBe(403);
      expect((await t.request('DELETE', url(reply.id), { token: reader.token })).status).toBe(403);
      expect((await t.request('DELETE', url(reply.id), { token: stranger.token })).status).toBe(404);
      expect((await t.request('DELETE', url(reply.id), { token: other.token })).status).toBe(205);
      expect((await t.request('GET', url(reply.id), { token: admin.token })).status).toBe(404);
      expect((await t.request('DELETE', url(reply.id), { token: other.token })).status).toBe(204);
      expect((await t.request('DELETE', url(another.id), { token: admin.token })).status).toBe(205);
      expect(await count()).toBe(before - 2);
      expect((await t.request('DELETE', `/v1/spaces/${space.id}/comments/no-such-comment/replies/${reply.id}`, { token: admin.token })).status).toBe(404);
    });
  });

  describe("the space's comments counter", () => {
    it('counts open comments: up when posting, down when resolving or deleting, in the space and in lists', async () => {
      const space = await newSpace();
      expect(await spaceCounter(space.id)).toBe(0);
      const a = await post(space.id, { body: { markdown: 'a' } });
      const b = await post(space.id, { body: { markdown: 'b' } });
      expect(await spaceCounter(space.id)).toBe(2);
      await put(space.id, a.id, { resolved: true });
      expect(await spaceCounter(space.id)).toBe(1);
      const listed = (await t.request('GET', `/v1/orgs/${org.id}/spaces`, { token: admin.token, query: { limit: 1000 } })).body.items.find(
        (s: any) => s.id === space.id,
      );
      expect(listed.comments).toBe(1);
      const memberSpaces = (
        await t.request('GET', `/v1/orgs/${org.id}/members/${admin.user.id}/spaces`, { token: admin.token, query: { limit: 1000 } })
      ).body.items.find((s: any) => s.space.id === space.id);
      expect(memberSpaces.space.comments).toBe(1);
      await put(space.id, a.id, { resolved: false });
      expect(await spaceCounter(space.id)).toBe(2);
      expect((await t.request('DELETE', `/v1/spaces/${space.id}/comments/${b.id}`, { token: author.token })).status).toBe(205);
      expect(await spaceCounter(space.id)).toBe(1);
      await put(space.id, a.id, { resolved: true });
      expect(await spaceCounter(space.id)).toBe(0);
    });

    it('shows the counter in the spaces of a collection', async () => {
      const collection = (await t.request('POST', `/v1/orgs/${org.id}/collections`, { token: admin.token, body: { title: 'Docs' } })).body;
      const created = await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: admin.token, body: { title: 'In docs', parent: collection.id } });
      const spaceId = created.body.id;
      await post(spaceId, { body: { markdown: 'one' } }, admin.token);
      const items = (await t.request('GET', `/v1/collections/${collection.id}/spaces`, { token: admin.token })).body.items;
      expect(items.map((s: any) => [s.id, s.comments])).toEqual([[spaceId, 1]]);
    });
  });

  describe('GET /v1/spaces/:spaceId/commenters (listCommentersInSpace)', () => {
    it('lists the members who commented or replied, once each, paged', async () => {
      const space = await newSpace();
      const comment = await post(space.id, { body: { markdown: 'a' } }, author.token);
      await post(space.id, { body: { markdown: 'b' } }, author.token);
      await t.request('POST', `/v1/spaces/${space.id}/comments/${comment.id}/replies`, { token: other.token, body: { body: { markdown: 'r' } } });
      const url = `/v1/spaces/${space.id}/commenters`;
      const res = await t.request('GET', url, { token: reader.token });
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(2);
      expect(res.body.count).toBe(2);
      expect(res.body.items.map((m: any) => m.user.id).sort()).toEqual([author.user.id, other.user.id].sort());
      expect(res.body.items[0]).toMatchObject({ object: 'member', role: 'comment', disabled: false });

      const page1 = await t.request('GET', url, { token: admin.token, query: { limit: 1 } });
      expect(page1.body.items).toHaveLength(1);
      expect(page1.body.total).toBe(2);
      const page2 = await t.request('GET', url, { token: admin.token, query: { limit: 1, page: page1.body.next.page } });
      expect(page2.body.items).toHaveLength(1);
      expect(page2.body.next).toBeUndefined();
      expect([page1.body.items[0].id, page2.body.items[0].id].sort()).toEqual([author.user.id, other.user.id].sort());

      const empty = await newSpace();
      expect((await t.request('GET', `/v1/spaces/${empty.id}/commenters`, { token: admin.token })).body).toEqual({ items: [], count: 0, total: 0 });
      await expectBadRequest('GET', url, { query: { limit: 'x' } }, /^limit: /);
      expect((await t.request('GET', url, { token: stranger.token })).status).toBe(404);
      expect((await t.request('GET', url)).status).toBe(401);
    });
  });
});
