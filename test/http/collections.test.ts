import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { siblingsOf } from '../../src/store/sql/spaces.js';
import { nextMillisecond } from '../helpers/wait.js';

describe.each(DATABASE_KINDS)('collections (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let reader: TestUser;
  let creator: TestUser;
  let stranger: TestUser;

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.organization('Acme');
    reader = await t.member(org.id, 'read');
    creator = await t.member(org.id, 'create');
    stranger = await t.user();
  });
  afterAll(async () => t?.close());

  async function newCollection(body: Record<string, unknown> = {}, token = org.admin.token, organizationId = org.id) {
    const res = await t.request('POST', `/v1/orgs/${organizationId}/collections`, { token, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    // Lists go by (createdAt, id) with millisecond timestamps: the next collection must be visibly younger for the
    // tests that expect creation order (a tie would be ordered by the random id).
    await nextMillisecond();
    return res.body as { id: string; title: string; parent?: string; organization: string };
  }

  async function newSpace(body: Record<string, unknown> = {}, token = org.admin.token, organizationId = org.id) {
    const res = await t.request('POST', `/v1/orgs/${organizationId}/spaces`, { token, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string; title: string; parent?: string };
  }

  async function get(id: string, token = org.admin.token) {
    return t.request('GET', `/v1/collections/${id}`, { token });
  }

  /** The order of the collections and spaces under a parent, as `kind:id`. */
  async function order(parent: string | null, organizationId = org.id): Promise<string[]> {
    return (await siblingsOf(t.container.ctx.db, organizationId, parent)).map((s) => `${s.kind}:${s.id}`);
  }

  async function expectBadRequest(method: string, url: string, body: unknown, message: RegExp, token = org.admin.token) {
    const res = await t.request(method, url, { token, body });
    expect(res.status, JSON.stringify(body)).toBe(400);
    expect(res.body.error.message, JSON.stringify(body)).toMatch(message);
  }

  async function expectMalformedJson(method: string, url: string) {
    const res = await t.request(method, url, { token: org.admin.token, rawBody: '{"title": ' });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^body: is not valid JSON/);
  }

  describe('POST /v1/orgs/:organizationId/collections (createCollection)', () => {
    it('creates a top-level collection and answers 201 with its Location', async () => {
      const res = await t.request('POST', `/v1/orgs/${org.id}/collections`, { token: org.admin.token, body: { title: 'Guides' } });
      expect(res.status).toBe(201);
      expect(res.headers.location).toBe(`http://quire.test/v1/collections/${res.body.id}`);
      expect(res.body).toMatchObject({
        object: 'collection',
        title: 'Guides',
        organization: org.id,
        defaultLevel: null,
        urls: { location: res.headers.location, app: `http://quire.test/app/c/${res.body.id}` },
        permissions: { view: true, admin: true, viewInviteLinks: true, create: true },
      });
      expect(res.body.parent).toBeUndefined();
      expect(res.body.description).toBeUndefined();
      const again = await get(res.body.id);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(res.body);
      // It goes after its existing siblings.
      expect((await order(null)).at(-1)).toBe(`collection:${res.body.id}`);
    });

    it('creates an "Untitled" collection without a body, with an empty JSON body or with null', async () => {
      const none = await t.request('POST', `/v1/orgs/${org.id}/collections`, { token: org.admin.token });
      expect(none.status).toBe(201);
      expect(none.body.title).toBe('Untitled');
      const empty = await t.request('POST', `/v1/orgs/${org.id}/collections`, {
        token: org.admin.token,
        rawBody: '',
        headers: { 'content-type': 'application/json' },
      });
      expect(empty.status).toBe(201);
      expect(empty.body.title).toBe('Untitled');
      const nullBody = await t.request('POST', `/v1/orgs/${org.id}/collections`, { token: org.admin.token, rawBody: 'null' });
      expect(nullBody.status).toBe(201);
      expect((await get(nullBody.body.id)).body.title).toBe('Untitled');
    });

    it('creates a collection inside another one', async () => {
      const parent = await newCollection({ title: 'Parent' });
      const child = await newCollection({ title: 'Child', parent: parent.id });
      expect(child.parent).toBe(parent.id);
      expect((await get(child.id)).body.parent).toBe(parent.id);
      expect(await order(parent.id)).toEqual([`collection:${child.id}`]);
    });

    it('lets a member with the create role create, and reports their permissions', async () => {
      const res = await t.request('POST', `/v1/orgs/${org.id}/collections`, { token: creator.token, body: { title: 'Mine' } });
      expect(res.status).toBe(201);
      expect(res.body.permissions).toEqual({ view: true, admin: false, viewInviteLinks: false, create: true });
    });

    it('refuses bad input naming the field', async () => {
      const other = await t.organization('Elsewhere');
      const foreign = await newCollection({ title: 'Foreign' }, other.admin.token, other.id);
      const url = `/v1/orgs/${org.id}/collections`;
      const cases: Array<[unknown, RegExp]> = [
        [{ title: 'x'.repeat(51) }, /^title: must be at most 50 characters$/],
        [{ title: 42 }, /^title: must be string/],
        [{ parent: 7 }, /^parent: must be string/],
        [{ parent: '' }, /^parent: must be at least 1 character/],
        [{ parent: 'nope' }, /^parent: no collection "nope"/],
        [{ parent: foreign.id }, /^parent: no collection/],
        [[{ title: 'x' }], /^body: must be object/],
        ['Guides', /^body: must be object/],
      ];
      for (const [body, message] of cases) await expectBadRequest('POST', url, body, message);
      await expectMalformedJson('POST', url);
      expect((await t.request('GET', `/v1/orgs/${org.id}/collections`, { token: org.admin.token, query: { limit: 1000 } })).body.items.map((c: any) => c.title)).not.toContain('x');
    });

    it('is 403 for a read member, 404 for non-members and unknown organizations, 401 without a token', async () => {
      const parent = await newCollection({ title: 'Closed' });
      const top = await t.request('POST', `/v1/orgs/${org.id}/collections`, { token: reader.token, body: { title: 'No' } });
      expect(top.status).toBe(403);
      expect(top.body.error.message).toMatch(/createContent/);
      expect((await t.request('POST', `/v1/orgs/${org.id}/collections`, { token: reader.token, body: { parent: parent.id } })).status).toBe(403);
      expect((await t.request('POST', `/v1/orgs/${org.id}/collections`, { token: stranger.token, body: { title: 'No' } })).status).toBe(404);
      expect((await t.request('POST', '/v1/orgs/unknown-org/collections', { token: org.admin.token, body: { title: 'No' } })).status).toBe(404);
      expect((await t.request('POST', `/v1/orgs/${org.id}/collections`, { body: { title: 'No' } })).status).toBe(401);
      expect(await order(parent.id)).toEqual([]);
    });
  });

  describe('GET /v1/collections/:collectionId (getCollectionById)', () => {
    it('returns the collection with the permissions of the caller', async () => {
      const c = await newCollection({ title: 'Handbook' });
      const asReader = await get(c.id, reader.token);
      expect(asReader.status).toBe(200);
      expect(asReader.body).toMatchObject({ id: c.id, title: 'Handbook', permissions: { view: true, admin: false, viewInviteLinks: false, create: false } });
      expect((await get(c.id, creator.token)).body.permissions).toEqual({ view: true, admin: false, viewInviteLinks: false, create: true });
    });

    it('answers 404 to non-members, guests without a grant and for unknown ids; 401 without a token', async () => {
      const c = await newCollection({ title: 'Hidden' });
      const guest = await t.member(org.id, null);
      for (const token of [stranger.token, guest.token]) {
        const res = await get(c.id, token);
        expect(res.status).toBe(404);
        expect(res.body.error.message).toMatch(/^collectionId: /);
      }
      expect((await get('unknown-collection')).status).toBe(404);
      expect((await t.request('GET', `/v1/collections/${c.id}`)).status).toBe(401);
    });
  });

  describe('PATCH /v1/collections/:collectionId (updateCollectionById)', () => {
    it('updates title, description and default level, and clears the default level with null', async () => {
      const c = await newCollection({ title: 'Before' });
      const res = await t.request('PATCH', `/v1/collections/${c.id}`, {
        token: org.admin.token,
        body: { title: 'After', description: 'd'.repeat(100), defaultLevel: 'edit' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ title: 'After', description: 'd'.repeat(100), defaultLevel: 'edit' });
      const reread = await get(c.id);
      expect(reread.body).toMatchObject({ title: 'After', description: 'd'.repeat(100), defaultLevel: 'edit' });
      const cleared = await t.request('PATCH', `/v1/collections/${c.id}`, { token: org.admin.token, body: { defaultLevel: null } });
      expect(cleared.body.defaultLevel).toBeNull();
      expect((await get(c.id)).body).toMatchObject({ title: 'After', defaultLevel: null });
    });

    it('refuses bad input naming the field', async () => {
      const c = await newCollection({ title: 'Strict' });
      const url = `/v1/collections/${c.id}`;
      const cases: Array<[unknown, RegExp]> = [
        [{ title: 'x'.repeat(51) }, /^title: must be at most 50 characters$/],
        [{ title: null }, /^title: must be string/],
        [{ description: 'x'.repeat(101) }, /^description: must be at most 100 characters$/],
        [{ description: 3 }, /^description: must be string/],
        [{ defaultLevel: 'owner' }, /^defaultLevel: must be one of: admin, create, review, edit, comment, read, null$/],
        [{ defaultLevel: 'inherit' }, /^defaultLevel: must be one of/],
        [{}, /^body: must have at least 1 member\(s\)$/],
        [[], /^body: must be object/],
      ];
      for (const [body, message] of cases) await expectBadRequest('PATCH', url, body, message);
      await expectMalformedJson('PATCH', url);
      const none = await t.request('PATCH', url, { token: org.admin.token });
      expect(none.status).toBe(400);
      expect(none.body.error.message).toMatch(/^body: must be object/);
      expect((await get(c.id)).body).toMatchObject({ title: 'Strict', defaultLevel: null });
    });

    it('is 403 below admin, 404 for non-members and unknown ids, 401 without a token', async () => {
      const c = await newCollection({ title: 'Guarded' });
      for (const user of [reader, creator]) {
        const res = await t.request('PATCH', `/v1/collections/${c.id}`, { token: user.token, body: { title: 'Taken' } });
        expect(res.status).toBe(403);
      }
      expect((await t.request('PATCH', `/v1/collections/${c.id}`, { token: stranger.token, body: { title: 'Taken' } })).status).toBe(404);
      expect((await t.request('PATCH', '/v1/collections/unknown', { token: org.admin.token, body: { title: 'Taken' } })).status).toBe(404);
      expect((await t.request('PATCH', `/v1/collections/${c.id}`, { body: { title: 'Taken' } })).status).toBe(401);
      expect((await get(c.id)).body.title).toBe('Guarded');
    });

    it('lets a member whose grant on the collection is admin update it', async () => {
      const c = await newCollection({ title: 'Delegated' });
      const member = await t.member(org.id, 'read');
      await t.grant(org.id, { collection: c.id }, { user: member.user.id }, 'admin');
      const res = await t.request('PATCH', `/v1/collections/${c.id}`, { token: member.token, body: { title: 'Delegated!' } });
      expect(res.status).toBe(200);
      expect(res.body.permissions.admin).toBe(true);
      expect((await get(c.id)).body.title).toBe('Delegated!');
    });
  });

  describe('DELETE /v1/collections/:collectionId (deleteCollectionById)', () => {
    it('deletes the collection and nested collections (205), and deletes the spaces inside restorably', async () => {
      const top = await newCollection({ title: 'Doomed' });
      const nested = await newCollection({ title: 'Doomed child', parent: top.id });
      const deep = await newCollection({ title: 'Doomed grandchild', parent: nested.id });
      const s1 = await newSpace({ title: 'In top', parent: top.id });
      const s2 = await newSpace({ title: 'In deep', parent: deep.id });
      const res = await t.request('DELETE', `/v1/collections/${top.id}`, { token: org.admin.token });
      expect(res.status).toBe(205);
      expect(res.body).toBeUndefined();
      for (const id of [top.id, nested.id, deep.id]) expect((await get(id)).status).toBe(404);
      for (const s of [s1, s2]) {
        expect((await t.request('GET', `/v1/spaces/${s.id}`, { token: org.admin.token })).status).toBe(404);
        const restored = await t.request('POST', `/v1/spaces/${s.id}/restore`, { token: org.admin.token });
        expect(restored.status).toBe(200);
        // The collection is gone, so the space comes back at the top level.
        expect(restored.body.parent).toBeUndefined();
        expect(restored.body.deletedAt).toBeUndefined();
      }
      const again = await t.request('DELETE', `/v1/collections/${top.id}`, { token: org.admin.token });
      expect(again.status).toBe(404);
    });

    it('is 403 below admin, 404 for non-members and unknown ids, 401 without a token', async () => {
      const c = await newCollection({ title: 'Kept' });
      expect((await t.request('DELETE', `/v1/collections/${c.id}`, { token: creator.token })).status).toBe(403);
      expect((await t.request('DELETE', `/v1/collections/${c.id}`, { token: reader.token })).status).toBe(403);
      expect((await t.request('DELETE', `/v1/collections/${c.id}`, { token: stranger.token })).status).toBe(404);
      expect((await t.request('DELETE', '/v1/collections/unknown', { token: org.admin.token })).status).toBe(404);
      expect((await t.request('DELETE', `/v1/collections/${c.id}`)).status).toBe(401);
      expect((await get(c.id)).status).toBe(200);
    });
  });

  describe('GET /v1/collections/:collectionId/spaces (listSpacesInCollectionById)', () => {
    it('lists the live spaces directly in the collection, in their order, page by page', async () => {
      const c = await newCollection({ title: 'Shelf' });
      const inner = await newCollection({ title: 'Inner', parent: c.id });
      const spaces = [];
      for (let i = 0; i < 5; i++) spaces.push(await newSpace({ title: `Book ${i}`, parent: c.id }));
      await newSpace({ title: 'Nested deeper', parent: inner.id });
      await newSpace({ title: 'Top level' });
      expect((await t.request('DELETE', `/v1/spaces/${spaces[4].id}`, { token: org.admin.token })).status).toBe(205);
      // Move the last live one first: the list follows the collection's order, not creation.
      await t.request('POST', `/v1/spaces/${spaces[3].id}/move`, { token: org.admin.token, body: { position: { before: { type: 'space', space: spaces[0].id } } } });
      const expected = [spaces[3], spaces[0], spaces[1], spaces[2]].map((s) => s.id);

      const all = await t.request('GET', `/v1/collections/${c.id}/spaces`, { token: reader.token });
      expect(all.status).toBe(200);
      expect(all.body.items.map((s: any) => s.id)).toEqual(expected);
      expect(all.body.count).toBe(4);
      expect(all.body.next).toBeUndefined();
      expect(all.body.items[0]).toMatchObject({ object: 'space', parent: c.id, permissions: { view: true, edit: false } });

      const first = await t.request('GET', `/v1/collections/${c.id}/spaces`, { token: reader.token, query: { limit: 3 } });
      expect(first.body.count).toBe(3);
      expect(first.body.next.page).toEqual(expect.any(String));
      const second = await t.request('GET', `/v1/collections/${c.id}/spaces`, { token: reader.token, query: { limit: 3, page: first.body.next.page } });
      expect(second.body.items.map((s: any) => s.id)).toEqual([expected[3]]);
      expect(second.body.next).toBeUndefined();
    });

    it('refuses a bad limit or page, and answers 404 to non-members and for unknown ids, 401 without a token', async () => {
      const c = await newCollection({ title: 'Listed' });
      for (const limit of ['-1', '1001', 'many']) {
        const res = await t.request('GET', `/v1/collections/${c.id}/spaces`, { token: org.admin.token, query: { limit } });
        expect(res.status).toBe(400);
        expect(res.body.error.message).toMatch(/^limit: /);
      }
      const otherList = (await t.request('GET', `/v1/orgs/${org.id}/collections`, { token: org.admin.token, query: { limit: 0 } })).body.next.page;
      const foreignPage = await t.request('GET', `/v1/collections/${c.id}/spaces`, { token: org.admin.token, query: { page: otherList } });
      expect(foreignPage.status).toBe(400);
      expect(foreignPage.body.error.message).toMatch(/^page: /);
      expect((await t.request('GET', `/v1/collections/${c.id}/spaces`, { token: stranger.token })).status).toBe(404);
      expect((await t.request('GET', '/v1/collections/unknown/spaces', { token: org.admin.token })).status).toBe(404);
      expect((await t.request('GET', `/v1/collections/${c.id}/spaces`)).status).toBe(401);
    });
  });

  describe('POST /v1/collections/:collectionId/move (moveCollection)', () => {
    it('moves a collection into another one, among its siblings, and back to the top level', async () => {
      const a = await newCollection({ title: 'A' });
      const b = await newCollection({ title: 'B' });
      const s = await newSpace({ title: 'Space in B', parent: b.id });
      const sub = await newCollection({ title: 'Sub in B', parent: b.id });

      const into = await t.request('POST', `/v1/collections/${a.id}/move`, { token: org.admin.token, body: { parent: b.id } });
      expect(into.status).toBe(200);
      expect(into.body).toMatchObject({ id: a.id, parent: b.id });
      expect((await get(a.id)).body.parent).toBe(b.id);
      expect(await order(b.id)).toEqual([`space:${s.id}`, `collection:${sub.id}`, `collection:${a.id}`]);

      const before = await t.request('POST', `/v1/collections/${a.id}/move`, {
        token: org.admin.token,
        body: { position: { before: { type: 'space', space: s.id } } },
      });
      expect(before.status).toBe(200);
      expect(await order(b.id)).toEqual([`collection:${a.id}`, `space:${s.id}`, `collection:${sub.id}`]);

      const after = await t.request('POST', `/v1/collections/${a.id}/move`, {
        token: org.admin.token,
        body: { position: { after: { type: 'space', space: s.id } } },
      });
      expect(after.status).toBe(200);
      expect(await order(b.id)).toEqual([`space:${s.id}`, `collection:${a.id}`, `collection:${sub.id}`]);

      const out = await t.request('POST', `/v1/collections/${a.id}/move`, {
        token: org.admin.token,
        body: { parent: null, position: { before: { type: 'collection', collection: b.id } } },
      });
      expect(out.status).toBe(200);
      expect(out.body.parent).toBeUndefined();
      const top = await order(null);
      expect(top.indexOf(`collection:${a.id}`)).toBe(top.indexOf(`collection:${b.id}`) - 1);
      expect(await order(b.id)).toEqual([`space:${s.id}`, `collection:${sub.id}`]);
    });

    it('keeps its content when it moves', async () => {
      const a = await newCollection({ title: 'Mover' });
      const inner = await newCollection({ title: 'Inner', parent: a.id });
      const target = await newCollection({ title: 'Target' });
      await t.request('POST', `/v1/collections/${a.id}/move`, { token: org.admin.token, body: { parent: target.id } });
      expect((await get(inner.id)).body.parent).toBe(a.id);
    });

    it('answers 409 when the move would change nothing', async () => {
      const parent = await newCollection({ title: 'Still' });
      const first = await newCollection({ title: 'First', parent: parent.id });
      const second = await newCollection({ title: 'Second', parent: parent.id });
      const bodies = [
        { parent: parent.id },
        { position: { after: { type: 'collection', collection: first.id } } },
        { parent: parent.id, position: { after: { type: 'collection', collection: first.id } } },
      ];
      for (const body of bodies) {
        const res = await t.request('POST', `/v1/collections/${second.id}/move`, { token: org.admin.token, body });
        expect(res.status, JSON.stringify(body)).toBe(409);
        expect(res.body.error.code).toBe(409);
      }
      const res = await t.request('POST', `/v1/collections/${first.id}/move`, { token: org.admin.token, body: { position: { before: { type: 'collection', collection: second.id } } } });
      expect(res.status).toBe(409);
      expect(await order(parent.id)).toEqual([`collection:${first.id}`, `collection:${second.id}`]);
    });

    it('refuses to move a collection into itself or into a collection it contains', async () => {
      const a = await newCollection({ title: 'Outer' });
      const b = await newCollection({ title: 'Middle', parent: a.id });
      const c = await newCollection({ title: 'Inner', parent: b.id });
      for (const target of [a.id, b.id, c.id]) {
        await expectBadRequest('POST', `/v1/collections/${a.id}/move`, { parent: target }, /^parent: a collection cannot move into itself/);
      }
      expect((await get(a.id)).body.parent).toBeUndefined();
    });

    it('refuses bad input naming the field', async () => {
      const parent = await newCollection({ title: 'Bad moves' });
      const c = await newCollection({ title: 'Moved', parent: parent.id });
      const elsewhere = await newCollection({ title: 'Elsewhere' });
      const stray = await newSpace({ title: 'Stray', parent: elsewhere.id });
      const url = `/v1/collections/${c.id}/move`;
      const cases: Array<[unknown, RegExp]> = [
        [{}, /^body: must have at least 1 member\(s\)$/],
        [{ parent: 5 }, /^parent: must be string/],
        [{ parent: '' }, /^parent: must be at least 1 character/],
        [{ parent: 'unknown' }, /^parent: no collection "unknown"/],
        [{ position: 'first' }, /^position: must be object/],
        [{ position: { before: { type: 'page', space: stray.id } } }, /^position.before.type: must be one of: space, collection$/],
        [{ position: { after: { space: stray.id } } }, /^position.after.type: is required$/],
        [{ position: { before: { type: 'space', space: 3 } } }, /^position.before.space: must be string/],
        [{ position: { before: { type: 'space', collection: elsewhere.id } } }, /^position.before.space: is required/],
        [{ position: { before: { type: 'space', space: stray.id } } }, /^position.before: space ".+" is not in the target location$/],
        [{ position: { after: { type: 'collection', collection: elsewhere.id } } }, /^position.after: collection ".+" is not in the target location$/],
        [{ position: { after: { type: 'collection', collection: 'unknown' } } }, /^position.after: /],
        [{ parent: elsewhere.id, position: { after: { type: 'collection', collection: c.id } } }, /^position.after: /],
      ];
      for (const [body, message] of cases) await expectBadRequest('POST', url, body, message);
      await expectMalformedJson('POST', url);
      expect((await get(c.id)).body.parent).toBe(parent.id);
    });

    it('is 403 below admin or without create at the destination, 404 for non-members and unknown ids, 401 without a token', async () => {
      const c = await newCollection({ title: 'Fixed' });
      const dest = await newCollection({ title: 'Destination' });
      for (const user of [reader, creator]) {
        expect((await t.request('POST', `/v1/collections/${c.id}/move`, { token: user.token, body: { parent: dest.id } })).status).toBe(403);
      }
      // Admin of the collection through a grant, but only a reader of the destination.
      const delegate = await t.member(org.id, 'read');
      await t.grant(org.id, { collection: c.id }, { user: delegate.user.id }, 'admin');
      const denied = await t.request('POST', `/v1/collections/${c.id}/move`, { token: delegate.token, body: { parent: dest.id } });
      expect(denied.status).toBe(403);
      expect(denied.body.error.message).toMatch(/"create"/);
      expect((await t.request('POST', `/v1/collections/${c.id}/move`, { token: stranger.token, body: { parent: dest.id } })).status).toBe(404);
      expect((await t.request('POST', '/v1/collections/unknown/move', { token: org.admin.token, body: { parent: dest.id } })).status).toBe(404);
      expect((await t.request('POST', `/v1/collections/${c.id}/move`, { body: { parent: dest.id } })).status).toBe(401);
      expect((await get(c.id)).body.parent).toBeUndefined();
    });
  });

  describe('POST /v1/collections/:collectionId/transfer (transferCollection)', () => {
    it('moves the collection and everything in it to the top level of another organization; grants stay behind', async () => {
      const target = await t.organization('Target');
      // The source admin is also admin of the target.
      const { addMember } = await import('../../src/domain/members/members.js');
      await addMember(t.container.ctx, target.id, org.admin.user.id, 'admin');
      const parent = await newCollection({ title: 'Source parent' });
      const c = await newCollection({ title: 'Travelling', parent: parent.id });
      const inner = await newCollection({ title: 'Travelling inner', parent: c.id });
      const s1 = await newSpace({ title: 'Space in travelling', parent: c.id });
      const s2 = await newSpace({ title: 'Space in inner', parent: inner.id });
      const guest = await t.member(org.id, null);
      await t.grant(org.id, { collection: c.id }, { user: guest.user.id }, 'read');
      await t.grant(org.id, { space: s2.id }, { user: guest.user.id }, 'edit');
      expect((await get(c.id, guest.token)).status).toBe(200);

      const res = await t.request('POST', `/v1/collections/${c.id}/transfer`, { token: org.admin.token, body: { organization: target.id } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: c.id, organization: target.id, permissions: { admin: true } });
      expect(res.body.parent).toBeUndefined();

      expect((await get(inner.id)).body).toMatchObject({ organization: target.id, parent: c.id });
      for (const s of [s1, s2]) {
        const space = await t.request('GET', `/v1/spaces/${s.id}`, { token: org.admin.token });
        expect(space.body.organization).toBe(target.id);
      }
      expect(await order(null, target.id)).toContain(`collection:${c.id}`);
      expect(await order(parent.id)).toEqual([]);
      const grants = await t.container.ctx.db
        .selectFrom('content_grants')
        .select('id')
        .where((eb) => eb.or([eb('collection_id', 'in', [c.id, inner.id]), eb('space_id', 'in', [s1.id, s2.id])]))
        .execute();
      expect(grants).toEqual([]);
      expect((await get(c.id, guest.token)).status).toBe(404);
      const sourceList = await t.request('GET', `/v1/orgs/${org.id}/collections`, { token: org.admin.token, query: { limit: 1000 } });
      expect(sourceList.body.items.map((x: any) => x.id)).not.toContain(c.id);
      const targetList = await t.request('GET', `/v1/orgs/${target.id}/collections`, { token: target.admin.token });
      expect(targetList.body.items.map((x: any) => x.id)).toEqual([c.id, inner.id]);
    });

    it('answers 409 for the same organization, 404 for an unknown or invisible one, 403 when not admin there', async () => {
      const c = await newCollection({ title: 'Stay' });
      const same = await t.request('POST', `/v1/collections/${c.id}/transfer`, { token: org.admin.token, body: { organization: org.id } });
      expect(same.status).toBe(409);
      expect(same.body.error.message).toMatch(/^organization: /);
      const unknown = await t.request('POST', `/v1/collections/${c.id}/transfer`, { token: org.admin.token, body: { organization: 'unknown-org' } });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.message).toMatch(/^organization: /);
      const foreign = await t.organization('Not mine');
      expect((await t.request('POST', `/v1/collections/${c.id}/transfer`, { token: org.admin.token, body: { organization: foreign.id } })).status).toBe(404);
      const { addMember } = await import('../../src/domain/members/members.js');
      await addMember(t.container.ctx, foreign.id, org.admin.user.id, 'create');
      const weak = await t.request('POST', `/v1/collections/${c.id}/transfer`, { token: org.admin.token, body: { organization: foreign.id } });
      expect(weak.status).toBe(403);
      expect((await get(c.id)).body.organization).toBe(org.id);
    });

    it('refuses bad input naming the field', async () => {
      const c = await newCollection({ title: 'Bad transfer' });
      const url = `/v1/collections/${c.id}/transfer`;
      const cases: Array<[unknown, RegExp]> = [
        [{}, /^organization: is required$/],
        [{ organization: 12 }, /^organization: must be string/],
        [{ organization: '' }, /^organization: must be at least 1 character/],
        [null, /^body: must be object/],
      ];
      for (const [body, message] of cases) await expectBadRequest('POST', url, body, message);
      await expectMalformedJson('POST', url);
    });

    it('is 403 below admin, 404 for non-members and unknown ids, 401 without a token', async () => {
      const target = await t.organization('Receiver');
      const c = await newCollection({ title: 'Owned' });
      expect((await t.request('POST', `/v1/collections/${c.id}/transfer`, { token: creator.token, body: { organization: target.id } })).status).toBe(403);
      expect((await t.request('POST', `/v1/collections/${c.id}/transfer`, { token: stranger.token, body: { organization: target.id } })).status).toBe(404);
      expect((await t.request('POST', '/v1/collections/unknown/transfer', { token: org.admin.token, body: { organization: target.id } })).status).toBe(404);
      expect((await t.request('POST', `/v1/collections/${c.id}/transfer`, { body: { organization: target.id } })).status).toBe(401);
      expect((await get(c.id)).body.organization).toBe(org.id);
    });
  });

  describe('GET /v1/orgs/:organizationId/collections (listCollectionsInOrganizationById)', () => {
    it('lists nested collections by default and only top-level ones with nested=false, page by page', async () => {
      const o = await t.organization('Lists');
      const top1 = await newCollection({ title: 'Top 1' }, o.admin.token, o.id);
      const child = await newCollection({ title: 'Child', parent: top1.id }, o.admin.token, o.id);
      const top2 = await newCollection({ title: 'Top 2' }, o.admin.token, o.id);
      const grandchild = await newCollection({ title: 'Grandchild', parent: child.id }, o.admin.token, o.id);
      const top3 = await newCollection({ title: 'Top 3' }, o.admin.token, o.id);
      const url = `/v1/orgs/${o.id}/collections`;

      const all = await t.request('GET', url, { token: o.admin.token });
      expect(all.status).toBe(200);
      expect(all.body.items.map((c: any) => c.id)).toEqual([top1.id, child.id, top2.id, grandchild.id, top3.id]);
      expect(all.body.count).toBe(5);
      expect(all.body.next).toBeUndefined();
      expect((await t.request('GET', url, { token: o.admin.token, query: { nested: true } })).body.count).toBe(5);

      const topOnly = await t.request('GET', url, { token: o.admin.token, query: { nested: false } });
      expect(topOnly.body.items.map((c: any) => c.id)).toEqual([top1.id, top2.id, top3.id]);

      const first = await t.request('GET', url, { token: o.admin.token, query: { limit: 2 } });
      expect(first.body.items.map((c: any) => c.id)).toEqual([top1.id, child.id]);
      const second = await t.request('GET', url, { token: o.admin.token, query: { limit: 2, page: first.body.next.page } });
      expect(second.body.items.map((c: any) => c.id)).toEqual([top2.id, grandchild.id]);
      const third = await t.request('GET', url, { token: o.admin.token, query: { limit: 2, page: second.body.next.page } });
      expect(third.body.items.map((c: any) => c.id)).toEqual([top3.id]);
      expect(third.body.next).toBeUndefined();

      // A token of the nested list is not valid for the top-level list.
      const mixed = await t.request('GET', url, { token: o.admin.token, query: { nested: false, page: first.body.next.page } });
      expect(mixed.status).toBe(400);
      expect(mixed.body.error.message).toMatch(/^page: /);
    });

    it('lists only the collections the caller can see', async () => {
      const o = await t.organization('Visibility');
      const open = await newCollection({ title: 'Granted' }, o.admin.token, o.id);
      const inside = await newCollection({ title: 'Inside granted' }, o.admin.token, o.id);
      await t.request('POST', `/v1/collections/${inside.id}/move`, { token: o.admin.token, body: { parent: open.id } });
      await newCollection({ title: 'Closed' }, o.admin.token, o.id);
      const guest = await t.member(o.id, null);
      expect((await t.request('GET', `/v1/orgs/${o.id}/collections`, { token: guest.token })).body.items).toEqual([]);
      await t.grant(o.id, { collection: open.id }, { user: guest.user.id }, 'read');
      const seen = await t.request('GET', `/v1/orgs/${o.id}/collections`, { token: guest.token });
      expect(seen.body.items.map((c: any) => c.title)).toEqual(['Granted', 'Inside granted']);
      expect(seen.body.items[0].permissions).toEqual({ view: true, admin: false, viewInviteLinks: false, create: false });
      const memberView = await t.request('GET', `/v1/orgs/${o.id}/collections`, { token: (await t.member(o.id, 'read')).token });
      expect(memberView.body.count).toBe(3);
    });

    it('refuses bad query values, answers 404 to non-members and for unknown organizations, 401 without a token', async () => {
      const url = `/v1/orgs/${org.id}/collections`;
      const nested = await t.request('GET', url, { token: org.admin.token, query: { nested: 'sometimes' } });
      expect(nested.status).toBe(400);
      expect(nested.body.error.message).toBe('nested: must be boolean');
      const limit = await t.request('GET', url, { token: org.admin.token, query: { limit: 1001 } });
      expect(limit.body.error.message).toMatch(/^limit: /);
      const page = await t.request('GET', url, { token: org.admin.token, query: { page: 'garbage' } });
      expect(page.body.error.message).toMatch(/^page: /);
      expect((await t.request('GET', url, { token: stranger.token })).status).toBe(404);
      expect((await t.request('GET', '/v1/orgs/unknown/collections', { token: org.admin.token })).status).toBe(404);
      expect((await t.request('GET', url)).status).toBe(401);
    });
  });

  describe('permissions through collections', () => {
    it('a default level on a collection raises members (not guests) on everything below it', async () => {
      const c = await newCollection({ title: 'Open to edit' });
      const sub = await newCollection({ title: 'Sub', parent: c.id });
      const member = await t.member(org.id, 'read');
      const guest = await t.member(org.id, null);
      expect((await t.request('POST', `/v1/orgs/${org.id}/collections`, { token: member.token, body: { parent: sub.id } })).status).toBe(403);
      await t.request('PATCH', `/v1/collections/${c.id}`, { token: org.admin.token, body: { defaultLevel: 'create' } });
      expect((await get(sub.id, member.token)).body.permissions.create).toBe(true);
      const created = await t.request('POST', `/v1/orgs/${org.id}/collections`, { token: member.token, body: { title: 'By reader', parent: sub.id } });
      expect(created.status).toBe(201);
      const space = await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: member.token, body: { title: 'By reader', parent: sub.id } });
      expect(space.status).toBe(201);
      // Guests get nothing from default levels.
      expect((await get(sub.id, guest.token)).status).toBe(404);
    });

    it('a grant to a team on a collection reaches its members, guests included', async () => {
      const c = await newCollection({ title: 'Team area' });
      const s = await newSpace({ title: 'Team space', parent: c.id });
      const guest = await t.member(org.id, null);
      const teamId = await t.team(org.id, [guest]);
      expect((await get(c.id, guest.token)).status).toBe(404);
      expect((await t.request('GET', `/v1/spaces/${s.id}`, { token: guest.token })).status).toBe(404);
      await t.grant(org.id, { collection: c.id }, { team: teamId }, 'edit');
      expect((await get(c.id, guest.token)).body.permissions).toEqual({ view: true, admin: false, viewInviteLinks: false, create: false });
      const listed = await t.request('GET', `/v1/collections/${c.id}/spaces`, { token: guest.token });
      expect(listed.body.items.map((x: any) => x.id)).toEqual([s.id]);
      expect(listed.body.items[0].permissions.edit).toBe(true);
      const patched = await t.request('PATCH', `/v1/spaces/${s.id}`, { token: guest.token, body: { title: 'Edited by team' } });
      expect(patched.status).toBe(200);
      expect((await t.request('PATCH', `/v1/collections/${c.id}`, { token: guest.token, body: { title: 'No' } })).status).toBe(403);
    });
  });
});
