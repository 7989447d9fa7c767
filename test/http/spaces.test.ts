import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { addMember } from '../../src/domain/members/members.js';

const DAY = 24 * 60 * 60 * 1000;

describe.each(DATABASE_KINDS)('spaces (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let reader: TestUser;
  let editor: TestUser;
  let creator: TestUser;
  let stranger: TestUser;

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.organization('Acme');
    reader = await t.member(org.id, 'read');
    editor = await t.member(org.id, 'edit');
    creator = await t.member(org.id, 'create');
    stranger = await t.user();
  });
  afterAll(async () => t?.close());

  async function newSpace(body: Record<string, unknown> = {}, token = org.admin.token, organizationId = org.id) {
    const res = await t.request('POST', `/v1/orgs/${organizationId}/spaces`, { token, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string; title: string; parent?: string; revision: string; organization: string };
  }

  async function newCollection(body: Record<string, unknown> = {}, token = org.admin.token, organizationId = org.id) {
    const res = await t.request('POST', `/v1/orgs/${organizationId}/collections`, { token, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as { id: string };
  }

  async function get(id: string, token = org.admin.token) {
    return t.request('GET', `/v1/spaces/${id}`, { token });
  }

  async function remove(id: string) {
    expect((await t.request('DELETE', `/v1/spaces/${id}`, { token: org.admin.token })).status).toBe(205);
  }

  async function spaceIdsOf(collectionId: string): Promise<string[]> {
    const res = await t.request('GET', `/v1/collections/${collectionId}/spaces`, { token: org.admin.token });
    return res.body.items.map((s: any) => s.id);
  }

  function git(spaceId: string, ...args: string[]): string {
    return execFileSync('git', ['--git-dir', t.container.git.repositoryPath(spaceId), ...args], { encoding: 'utf8' });
  }

  /** Every repository on disk, as `<id>.git`. */
  async function repositories(): Promise<string[]> {
    const root = t.container.git.root;
    const shards = await fs.readdir(root).catch(() => [] as string[]);
    const names: string[] = [];
    for (const shard of shards) names.push(...(await fs.readdir(path.join(root, shard))));
    return names.sort();
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

  describe('POST /v1/orgs/:organizationId/spaces (createSpace)', () => {
    it('creates a space with a repository whose main branch has one commit with README.md', async () => {
      const res = await t.request('POST', `/v1/orgs/${org.id}/spaces`, {
        token: org.admin.token,
        body: { title: 'Handbook', emoji: '📘', editMode: 'locked' },
      });
      expect(res.status).toBe(201);
      const space = res.body;
      expect(res.headers.location).toBe(`http://quire.test/v1/spaces/${space.id}`);
      expect(space).toMatchObject({
        object: 'space',
        title: 'Handbook',
        emoji: '📘',
        visibility: 'private',
        editMode: 'locked',
        organization: org.id,
        defaultLevel: null,
        comments: 0,
        changeRequests: 0,
        changeRequestsOpen: 0,
        changeRequestsDraft: 0,
        urls: { location: res.headers.location, app: `http://quire.test/app/s/${space.id}` },
        permissions: { view: true, access: true, admin: true, viewInviteLinks: true, edit: true, triggerGitSync: true, comment: true, merge: true, review: true },
      });
      expect(space.createdAt).toBe(space.updatedAt);
      expect(space.parent).toBeUndefined();
      expect(space.deletedAt).toBeUndefined();

      expect(git(space.id, 'rev-parse', 'main').trim()).toBe(space.revision);
      expect(space.revision).toMatch(/^[0-9a-f]{40}$/);
      expect(git(space.id, 'show', 'main:README.md')).toBe('# Handbook\n');
      expect(git(space.id, 'rev-list', '--count', 'main').trim()).toBe('1');
      expect(git(space.id, 'ls-tree', '--name-only', 'main').trim()).toBe('README.md');
      expect(git(space.id, 'rev-parse', '--is-bare-repository').trim()).toBe('true');

      const reread = await get(space.id);
      expect(reread.status).toBe(200);
      expect(reread.body).toEqual(space);
    });

    it('creates an "Untitled" space without a body, or with an empty JSON body', async () => {
      const none = await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token });
      expect(none.status).toBe(201);
      expect(none.body).toMatchObject({ title: 'Untitled', emoji: '', editMode: 'live', visibility: 'private' });
      expect(git(none.body.id, 'show', 'main:README.md')).toBe('# Untitled\n');
      const empty = await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, rawBody: '', headers: { 'content-type': 'application/json' } });
      expect(empty.status).toBe(201);
      expect((await get(empty.body.id)).body.title).toBe('Untitled');
    });

    it('creates a space in a collection, at the end of it', async () => {
      const c = await newCollection({ title: 'Shelf' });
      const first = await newSpace({ title: 'First', parent: c.id });
      const second = await newSpace({ title: 'Second', parent: c.id });
      expect(second.parent).toBe(c.id);
      expect((await get(second.id)).body.parent).toBe(c.id);
      expect(await spaceIdsOf(c.id)).toEqual([first.id, second.id]);
    });

    it('signs the first commit with the creator, even when git would refuse their display name', async () => {
      const odd = await t.user(undefined, '.');
      await addMember(t.container.ctx, org.id, odd.user.id, 'create');
      const space = await newSpace({ title: 'Odd' }, odd.token);
      expect(git(space.id, 'log', '-1', '--format=%an <%ae>|%cn').trim()).toBe(`${odd.user.email.split('@')[0]} <${odd.user.email}>|Quire`);
      const named = await newSpace({ title: 'Named' });
      expect(git(named.id, 'log', '-1', '--format=%an <%ae>').trim()).toBe(`Admin <${org.admin.user.email}>`);
    });

    it('removes the repository again when the row cannot be written', async () => {
      const db = t.container.ctx.db;
      if (kind === 'sqlite') {
        await sql`CREATE TRIGGER refuse_space BEFORE INSERT ON spaces WHEN NEW.title = 'refused' BEGIN SELECT RAISE(ABORT, 'refused by test'); END`.execute(db);
      } else {
        await sql`CREATE FUNCTION refuse_space() RETURNS trigger AS $$ BEGIN IF NEW.title = 'refused' THEN RAISE EXCEPTION 'refused by test'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`.execute(db);
        await sql`CREATE TRIGGER refuse_space BEFORE INSERT ON spaces FOR EACH ROW EXECUTE FUNCTION refuse_space()`.execute(db);
      }
      try {
        const before = await repositories();
        const res = await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'refused' } });
        expect(res.status).toBe(500);
        expect(res.body.error.message).not.toMatch(/refused by test/);
        expect(await repositories()).toEqual(before);
        const list = await t.request('GET', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, query: { limit: 1000 } });
        expect(list.body.items.map((s: any) => s.title)).not.toContain('refused');
        // Other spaces are still created, repository and all.
        const ok = await newSpace({ title: 'accepted' });
        expect(await repositories()).toEqual([...before, `${ok.id}.git`].sort());
      } finally {
        await sql`DROP TRIGGER refuse_space${sql.raw(kind === 'postgres' ? ' ON spaces' : '')}`.execute(db);
      }
    });

    it('refuses bad input naming the field', async () => {
      const url = `/v1/orgs/${org.id}/spaces`;
      const before = await repositories();
      const other = await t.organization('Other');
      const foreign = await newCollection({ title: 'Foreign' }, other.admin.token, other.id);
      const cases: Array<[unknown, RegExp]> = [
        [{ title: 'x'.repeat(51) }, /^title: must be at most 50 characters$/],
        [{ title: 1 }, /^title: must be string/],
        [{ emoji: 'e'.repeat(51) }, /^emoji: must be at most 50 characters$/],
        [{ emoji: false }, /^emoji: must be string/],
        [{ editMode: 'frozen' }, /^editMode: must be one of: live, locked$/],
        [{ parent: 5 }, /^parent: must be string/],
        [{ parent: 'unknown' }, /^parent: no collection "unknown"/],
        [{ parent: foreign.id }, /^parent: no collection/],
        [[], /^body: must be object/],
      ];
      for (const [body, message] of cases) await expectBadRequest('POST', url, body, message);
      await expectMalformedJson('POST', url);
      expect(await repositories()).toEqual(before);
    });

    it('is 403 for a read or edit member, 404 for non-members and unknown organizations, 401 without a token', async () => {
      const before = await repositories();
      const c = await newCollection({ title: 'Members only' });
      for (const user of [reader, editor]) {
        expect((await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: user.token, body: { title: 'No' } })).status).toBe(403);
        expect((await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: user.token, body: { title: 'No', parent: c.id } })).status).toBe(403);
      }
      const guest = await t.member(org.id, null);
      expect((await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: guest.token, body: { title: 'No' } })).status).toBe(403);
      expect((await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: stranger.token, body: { title: 'No' } })).status).toBe(404);
      expect((await t.request('POST', '/v1/orgs/unknown/spaces', { token: org.admin.token, body: { title: 'No' } })).status).toBe(404);
      expect((await t.request('POST', `/v1/orgs/${org.id}/spaces`, { body: { title: 'No' } })).status).toBe(401);
      expect(await repositories()).toEqual(before);
      expect((await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: creator.token, body: { title: 'Yes' } })).status).toBe(201);
    });
  });

  describe('GET /v1/orgs/:organizationId/spaces (listSpacesInOrganizationById)', () => {
    it('lists the live spaces, oldest first, page by page', async () => {
      const o = await t.organization('Library');
      const c = await newCollection({ title: 'Inside' }, o.admin.token, o.id);
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await newSpace({ title: `Space ${i}`, parent: i % 2 ? c.id : undefined }, o.admin.token, o.id)).id);
      const gone = await newSpace({ title: 'Gone' }, o.admin.token, o.id);
      await t.request('DELETE', `/v1/spaces/${gone.id}`, { token: o.admin.token });
      const url = `/v1/orgs/${o.id}/spaces`;

      const all = await t.request('GET', url, { token: o.admin.token });
      expect(all.status).toBe(200);
      expect(all.body.items.map((s: any) => s.id)).toEqual(ids);
      expect(all.body.count).toBe(5);
      expect(all.body.next).toBeUndefined();

      const first = await t.request('GET', url, { token: o.admin.token, query: { limit: 2 } });
      expect(first.body.items.map((s: any) => s.id)).toEqual(ids.slice(0, 2));
      // A space created between pages comes last, without shifting the pages.
      const late = await newSpace({ title: 'Late' }, o.admin.token, o.id);
      const second = await t.request('GET', url, { token: o.admin.token, query: { limit: 2, page: first.body.next.page } });
      const third = await t.request('GET', url, { token: o.admin.token, query: { limit: 2, page: second.body.next.page } });
      expect([...second.body.items, ...third.body.items].map((s: any) => s.id)).toEqual([...ids.slice(2), late.id]);
      expect(third.body.next).toBeUndefined();

      const zero = await t.request('GET', url, { token: o.admin.token, query: { limit: 0 } });
      expect(zero.body).toEqual({ items: [], count: 0, next: { page: expect.any(String) } });
    });

    it('lists only the spaces the caller can see', async () => {
      const o = await t.organization('Mixed');
      const c = await newCollection({ title: 'Team area' }, o.admin.token, o.id);
      const granted = await newSpace({ title: 'Granted' }, o.admin.token, o.id);
      const inCollection = await newSpace({ title: 'In team area', parent: c.id }, o.admin.token, o.id);
      const publicOne = await newSpace({ title: 'Public' }, o.admin.token, o.id);
      await newSpace({ title: 'Private' }, o.admin.token, o.id);
      await t.request('PATCH', `/v1/spaces/${publicOne.id}`, { token: o.admin.token, body: { visibility: 'public' } });
      const guest = await t.member(o.id, null);
      const url = `/v1/orgs/${o.id}/spaces`;
      expect((await t.request('GET', url, { token: guest.token })).body.items.map((s: any) => s.title)).toEqual(['Public']);
      await t.grant(o.id, { space: granted.id }, { user: guest.user.id }, 'comment');
      await t.grant(o.id, { collection: c.id }, { team: await t.team(o.id, [guest]) }, 'read');
      const seen = await t.request('GET', url, { token: guest.token });
      expect(seen.body.items.map((s: any) => s.id)).toEqual([granted.id, inCollection.id, publicOne.id]);
      expect(seen.body.items[0].permissions).toMatchObject({ view: true, comment: true, edit: false, admin: false });
      expect((await t.request('GET', url, { token: (await t.member(o.id, 'read')).token })).body.count).toBe(4);
    });

    it('refuses a bad limit or page, answers 404 to non-members and for unknown organizations, 401 without a token', async () => {
      const url = `/v1/orgs/${org.id}/spaces`;
      for (const limit of ['-1', '1001', 'x']) {
        const res = await t.request('GET', url, { token: org.admin.token, query: { limit } });
        expect(res.status).toBe(400);
        expect(res.body.error.message).toMatch(/^limit: /);
      }
      const page = await t.request('GET', url, { token: org.admin.token, query: { page: 'not-a-token' } });
      expect(page.status).toBe(400);
      expect(page.body.error.message).toMatch(/^page: /);
      expect((await t.request('GET', url, { token: stranger.token })).status).toBe(404);
      expect((await t.request('GET', '/v1/orgs/unknown/spaces', { token: org.admin.token })).status).toBe(404);
      expect((await t.request('GET', url)).status).toBe(401);
    });
  });

  describe('GET /v1/spaces/:spaceId (getSpaceById)', () => {
    it('returns the space with the permissions of the caller', async () => {
      const s = await newSpace({ title: 'Read me' });
      const asReader = await get(s.id, reader.token);
      expect(asReader.status).toBe(200);
      expect(asReader.body.permissions).toEqual({
        view: true,
        access: true,
        admin: false,
        viewInviteLinks: false,
        edit: false,
        triggerGitSync: false,
        comment: false,
        merge: false,
        review: false,
      });
      expect((await get(s.id, editor.token)).body.permissions).toMatchObject({ edit: true, comment: true, merge: false, admin: false });
      // shareKey is accepted (it only matters for published share-link sites).
      expect((await t.request('GET', `/v1/spaces/${s.id}`, { token: reader.token, query: { shareKey: 'abc' } })).status).toBe(200);
    });

    it('lets non-members read public and unlisted spaces, and nothing else', async () => {
      const s = await newSpace({ title: 'Open' });
      expect((await get(s.id, stranger.token)).status).toBe(404);
      for (const visibility of ['public', 'unlisted']) {
        await t.request('PATCH', `/v1/spaces/${s.id}`, { token: org.admin.token, body: { visibility } });
        const res = await get(s.id, stranger.token);
        expect(res.status).toBe(200);
        expect(res.body.visibility).toBe(visibility);
        expect(res.body.permissions).toMatchObject({ view: true, edit: false, comment: false, admin: false });
      }
      for (const visibility of ['share-link', 'visitor-auth', 'private']) {
        await t.request('PATCH', `/v1/spaces/${s.id}`, { token: org.admin.token, body: { visibility } });
        expect((await get(s.id, stranger.token)).status).toBe(404);
      }
    });

    it('answers 404 for unknown and deleted spaces, 401 without a token', async () => {
      const s = await newSpace({ title: 'Short-lived' });
      const unknown = await get('unknown-space');
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.message).toMatch(/^spaceId: /);
      await remove(s.id);
      expect((await get(s.id)).status).toBe(404);
      expect((await t.request('GET', `/v1/spaces/${s.id}`)).status).toBe(401);
    });
  });

  describe('PATCH /v1/spaces/:spaceId (updateSpaceById)', () => {
    it('lets an editor change the title and emoji, and clear the emoji with null', async () => {
      const s = await newSpace({ title: 'Draft', emoji: '📝' });
      const res = await t.request('PATCH', `/v1/spaces/${s.id}`, { token: editor.token, body: { title: 'Final', emoji: '✅' } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ title: 'Final', emoji: '✅' });
      expect((await get(s.id)).body).toMatchObject({ title: 'Final', emoji: '✅' });
      const cleared = await t.request('PATCH', `/v1/spaces/${s.id}`, { token: editor.token, body: { emoji: null } });
      expect(cleared.body.emoji).toBe('');
      expect((await get(s.id)).body).toMatchObject({ title: 'Final', emoji: '' });
    });

    it('lets an admin change the edit mode, default level and visibility', async () => {
      const s = await newSpace({ title: 'Governed' });
      const res = await t.request('PATCH', `/v1/spaces/${s.id}`, {
        token: org.admin.token,
        body: { editMode: 'locked', defaultLevel: 'comment', visibility: 'unlisted' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ editMode: 'locked', defaultLevel: 'comment', visibility: 'unlisted' });
      expect((await get(s.id)).body).toMatchObject({ editMode: 'locked', defaultLevel: 'comment', visibility: 'unlisted' });
      const reset = await t.request('PATCH', `/v1/spaces/${s.id}`, { token: org.admin.token, body: { defaultLevel: null, editMode: 'live' } });
      expect(reset.body).toMatchObject({ defaultLevel: null, editMode: 'live' });
    });

    it('accepts "in-collection" only for a space in a collection', async () => {
      const top = await newSpace({ title: 'Top' });
      const refused = await t.request('PATCH', `/v1/spaces/${top.id}`, { token: org.admin.token, body: { visibility: 'in-collection' } });
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toMatch(/^visibility: /);
      expect((await get(top.id)).body.visibility).toBe('private');
      const c = await newCollection({ title: 'Holder' });
      const inside = await newSpace({ title: 'Inside', parent: c.id });
      const ok = await t.request('PATCH', `/v1/spaces/${inside.id}`, { token: org.admin.token, body: { visibility: 'in-collection' } });
      expect(ok.status).toBe(200);
      expect((await get(inside.id)).body.visibility).toBe('in-collection');
    });

    it('refuses bad input naming the field', async () => {
      const s = await newSpace({ title: 'Strict' });
      const url = `/v1/spaces/${s.id}`;
      const cases: Array<[unknown, RegExp]> = [
        [{ title: 'x'.repeat(51) }, /^title: must be at most 50 characters$/],
        [{ title: 5 }, /^title: must be string/],
        [{ emoji: 'e'.repeat(51) }, /^emoji: must be at most 50 characters$/],
        [{ emoji: 1 }, /^emoji: must be string/],
        [{ editMode: 'frozen' }, /^editMode: must be one of: live, locked$/],
        [{ visibility: 'secret' }, /^visibility: must be one of: public, unlisted, share-link, visitor-auth, in-collection, private$/],
        [{ defaultLevel: 'owner' }, /^defaultLevel: must be one of: admin, create, review, edit, comment, read, null$/],
        [{}, /^body: must have at least 1 member\(s\)$/],
        ['title', /^body: must be object/],
      ];
      for (const [body, message] of cases) await expectBadRequest('PATCH', url, body, message);
      await expectMalformedJson('PATCH', url);
      expect((await get(s.id)).body).toMatchObject({ title: 'Strict', visibility: 'private', editMode: 'live' });
    });

    it('is 403 below edit, and below admin for edit mode, default level and visibility', async () => {
      const s = await newSpace({ title: 'Guarded' });
      const url = `/v1/spaces/${s.id}`;
      expect((await t.request('PATCH', url, { token: reader.token, body: { title: 'No' } })).status).toBe(403);
      for (const body of [{ editMode: 'locked' }, { defaultLevel: 'admin' }, { visibility: 'public' }, { title: 'Ok', visibility: 'public' }]) {
        const res = await t.request('PATCH', url, { token: creator.token, body });
        expect(res.status, JSON.stringify(body)).toBe(403);
        expect(res.body.error.message).toMatch(/"admin"/);
      }
      expect((await get(s.id)).body).toMatchObject({ title: 'Guarded', editMode: 'live', defaultLevel: null, visibility: 'private' });
    });

    it('is 403 for a non-member on a public space, 404 on a private, unknown or deleted one, 401 without a token', async () => {
      const open = await newSpace({ title: 'Public' });
      await t.request('PATCH', `/v1/spaces/${open.id}`, { token: org.admin.token, body: { visibility: 'public' } });
      expect((await t.request('PATCH', `/v1/spaces/${open.id}`, { token: stranger.token, body: { title: 'Defaced' } })).status).toBe(403);
      const closed = await newSpace({ title: 'Private' });
      expect((await t.request('PATCH', `/v1/spaces/${closed.id}`, { token: stranger.token, body: { title: 'Defaced' } })).status).toBe(404);
      expect((await t.request('PATCH', '/v1/spaces/unknown', { token: org.admin.token, body: { title: 'Defaced' } })).status).toBe(404);
      await remove(closed.id);
      expect((await t.request('PATCH', `/v1/spaces/${closed.id}`, { token: org.admin.token, body: { title: 'Defaced' } })).status).toBe(404);
      expect((await t.request('PATCH', `/v1/spaces/${open.id}`, { body: { title: 'Defaced' } })).status).toBe(401);
      expect((await get(open.id)).body.title).toBe('Public');
    });
  });

  describe('DELETE /v1/spaces/:spaceId (deleteSpaceById)', () => {
    it('deletes the space (205); it then answers 404 to everything but restore, and leaves the lists', async () => {
      const c = await newCollection({ title: 'Bin' });
      const s = await newSpace({ title: 'Deleted', parent: c.id });
      const other = await t.organization('Elsewhere');
      await addMember(t.container.ctx, other.id, org.admin.user.id, 'admin');
      const res = await t.request('DELETE', `/v1/spaces/${s.id}`, { token: org.admin.token });
      expect(res.status).toBe(205);
      expect(res.body).toBeUndefined();
      const token = org.admin.token;
      const answers = [
        await t.request('GET', `/v1/spaces/${s.id}`, { token }),
        await t.request('DELETE', `/v1/spaces/${s.id}`, { token }),
        await t.request('PATCH', `/v1/spaces/${s.id}`, { token, body: { title: 'x' } }),
        await t.request('POST', `/v1/spaces/${s.id}/move`, { token, body: { parent: null } }),
        await t.request('POST', `/v1/spaces/${s.id}/transfer`, { token, body: { organization: other.id } }),
      ];
      expect(answers.map((a) => a.status)).toEqual([404, 404, 404, 404, 404]);
      expect(await spaceIdsOf(c.id)).toEqual([]);
      const list = await t.request('GET', `/v1/orgs/${org.id}/spaces`, { token, query: { limit: 1000 } });
      expect(list.body.items.map((x: any) => x.id)).not.toContain(s.id);
      // The repository stays until the space is purged, so it can be restored.
      expect(git(s.id, 'rev-parse', 'main').trim()).toBe(s.revision);
    });

    it('is 403 below admin, 404 for non-members and unknown ids, 401 without a token', async () => {
      const s = await newSpace({ title: 'Kept' });
      for (const user of [reader, editor, creator]) expect((await t.request('DELETE', `/v1/spaces/${s.id}`, { token: user.token })).status).toBe(403);
      expect((await t.request('DELETE', `/v1/spaces/${s.id}`, { token: stranger.token })).status).toBe(404);
      expect((await t.request('DELETE', '/v1/spaces/unknown', { token: org.admin.token })).status).toBe(404);
      expect((await t.request('DELETE', `/v1/spaces/${s.id}`)).status).toBe(401);
      expect((await get(s.id)).status).toBe(200);
    });
  });

  describe('POST /v1/spaces/:spaceId/restore (restoreSpace)', () => {
    it('restores a deleted space at the end of its collection', async () => {
      const c = await newCollection({ title: 'Restore here' });
      const a = await newSpace({ title: 'A', parent: c.id });
      const b = await newSpace({ title: 'B', parent: c.id });
      await remove(a.id);
      const res = await t.request('POST', `/v1/spaces/${a.id}/restore`, { token: org.admin.token });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: a.id, title: 'A', parent: c.id, revision: a.revision });
      expect(res.body.deletedAt).toBeUndefined();
      expect((await get(a.id)).status).toBe(200);
      expect(await spaceIdsOf(c.id)).toEqual([b.id, a.id]);
    });

    it('brings an "in-collection" space whose collection was deleted back to the top level as private', async () => {
      const c = await newCollection({ title: 'Vanishing' });
      const s = await newSpace({ title: 'Survivor', parent: c.id });
      await t.request('PATCH', `/v1/spaces/${s.id}`, { token: org.admin.token, body: { visibility: 'in-collection' } });
      expect((await t.request('DELETE', `/v1/collections/${c.id}`, { token: org.admin.token })).status).toBe(205);
      const res = await t.request('POST', `/v1/spaces/${s.id}/restore`, { token: org.admin.token });
      expect(res.status).toBe(200);
      expect(res.body.parent).toBeUndefined();
      expect(res.body.visibility).toBe('private');
      expect((await get(s.id)).body.visibility).toBe('private');
    });

    it('answers 409 when the space is not deleted', async () => {
      const s = await newSpace({ title: 'Alive' });
      const res = await t.request('POST', `/v1/spaces/${s.id}/restore`, { token: org.admin.token });
      expect(res.status).toBe(409);
      expect(res.body.error.message).toMatch(/^spaceId: the space is not deleted/);
    });

    it('refuses after the 7 days of retention', async () => {
      const s = await newSpace({ title: 'Too late' });
      await remove(s.id);
      const db = t.container.ctx.db;
      await db.updateTable('spaces').set({ deleted_at: new Date(Date.now() - 8 * DAY).toISOString() }).where('id', '=', s.id).execute();
      const res = await t.request('POST', `/v1/spaces/${s.id}/restore`, { token: org.admin.token });
      expect(res.status).toBe(404);
      expect(res.body.error.message).toMatch(/^spaceId: .*deleted more than 7 days ago/);
      expect((await get(s.id)).status).toBe(404);
      // Six days is still within the retention.
      await db.updateTable('spaces').set({ deleted_at: new Date(Date.now() - 6 * DAY).toISOString() }).where('id', '=', s.id).execute();
      expect((await t.request('POST', `/v1/spaces/${s.id}/restore`, { token: org.admin.token })).status).toBe(200);
    });

    it('is 403 below admin, 404 for non-members and unknown ids, 401 without a token', async () => {
      const s = await newSpace({ title: 'Deleted for good?' });
      await remove(s.id);
      for (const user of [reader, editor, creator]) {
        expect((await t.request('POST', `/v1/spaces/${s.id}/restore`, { token: user.token })).status).toBe(403);
      }
      expect((await t.request('POST', `/v1/spaces/${s.id}/restore`, { token: stranger.token })).status).toBe(404);
      expect((await t.request('POST', '/v1/spaces/unknown/restore', { token: org.admin.token })).status).toBe(404);
      expect((await t.request('POST', `/v1/spaces/${s.id}/restore`)).status).toBe(401);
      expect((await get(s.id)).status).toBe(404);
    });
  });

  describe('POST /v1/spaces/:spaceId/move (moveSpace)', () => {
    it('moves a space into a collection, among its siblings, and back to the top level', async () => {
      const c = await newCollection({ title: 'Destination' });
      const a = await newSpace({ title: 'A', parent: c.id });
      const b = await newSpace({ title: 'B', parent: c.id });
      const s = await newSpace({ title: 'Moving' });

      const into = await t.request('POST', `/v1/spaces/${s.id}/move`, { token: org.admin.token, body: { parent: c.id } });
      expect(into.status).toBe(200);
      expect(into.body.parent).toBe(c.id);
      expect(await spaceIdsOf(c.id)).toEqual([a.id, b.id, s.id]);

      const before = await t.request('POST', `/v1/spaces/${s.id}/move`, { token: org.admin.token, body: { position: { before: { type: 'space', space: a.id } } } });
      expect(before.status).toBe(200);
      expect(await spaceIdsOf(c.id)).toEqual([s.id, a.id, b.id]);

      const after = await t.request('POST', `/v1/spaces/${s.id}/move`, { token: org.admin.token, body: { position: { after: { type: 'space', space: a.id } } } });
      expect(after.status).toBe(200);
      expect(await spaceIdsOf(c.id)).toEqual([a.id, s.id, b.id]);

      await t.request('PATCH', `/v1/spaces/${s.id}`, { token: org.admin.token, body: { visibility: 'in-collection' } });
      const out = await t.request('POST', `/v1/spaces/${s.id}/move`, { token: org.admin.token, body: { parent: null } });
      expect(out.status).toBe(200);
      expect(out.body.parent).toBeUndefined();
      // "in-collection" means nothing at the top level.
      expect(out.body.visibility).toBe('private');
      expect(await spaceIdsOf(c.id)).toEqual([a.id, b.id]);
      expect((await get(s.id)).body).toMatchObject({ visibility: 'private' });
    });

    it('keeps moving a space among many siblings in the requested order', async () => {
      const c = await newCollection({ title: 'Crowded' });
      const spaces = [];
      for (let i = 0; i < 4; i++) spaces.push((await newSpace({ title: `S${i}`, parent: c.id })).id);
      // Repeatedly insert right after the first sibling: the positions between them keep halving.
      const expected = [...spaces];
      for (let round = 0; round < 60; round++) {
        const moving = expected[expected.length - 1];
        const res = await t.request('POST', `/v1/spaces/${moving}/move`, { token: org.admin.token, body: { position: { after: { type: 'space', space: expected[0] } } } });
        expect(res.status).toBe(200);
        expected.splice(expected.length - 1, 1);
        expected.splice(1, 0, moving);
      }
      expect(await spaceIdsOf(c.id)).toEqual(expected);
    });

    it('answers 409 when the move would change nothing', async () => {
      const c = await newCollection({ title: 'Still' });
      const a = await newSpace({ title: 'A', parent: c.id });
      const b = await newSpace({ title: 'B', parent: c.id });
      for (const body of [{ parent: c.id }, { position: { after: { type: 'space', space: a.id } } }]) {
        const res = await t.request('POST', `/v1/spaces/${b.id}/move`, { token: org.admin.token, body });
        expect(res.status, JSON.stringify(body)).toBe(409);
      }
      expect((await t.request('POST', `/v1/spaces/${a.id}/move`, { token: org.admin.token, body: { position: { before: { type: 'space', space: b.id } } } })).status).toBe(409);
      expect(await spaceIdsOf(c.id)).toEqual([a.id, b.id]);
    });

    it('refuses bad input naming the field', async () => {
      const c = await newCollection({ title: 'Here' });
      const elsewhere = await newCollection({ title: 'There' });
      const stray = await newSpace({ title: 'Stray', parent: elsewhere.id });
      const s = await newSpace({ title: 'Mover', parent: c.id });
      const url = `/v1/spaces/${s.id}/move`;
      const cases: Array<[unknown, RegExp]> = [
        [{}, /^body: must have at least 1 member\(s\)$/],
        [{ parent: 5 }, /^parent: must be string/],
        [{ parent: 'unknown' }, /^parent: no collection "unknown"/],
        [{ position: [] }, /^position: must be object/],
        [{ position: { before: { type: 'site', space: stray.id } } }, /^position.before.type: must be one of: space, collection$/],
        [{ position: { before: {} } }, /^position.before.type: is required$/],
        [{ position: { after: { type: 'collection' } } }, /^position.after.collection: is required/],
        [{ position: { before: { type: 'space', space: stray.id } } }, /^position.before: space ".+" is not in the target location$/],
        [{ position: { after: { type: 'collection', collection: elsewhere.id } } }, /^position.after: collection ".+" is not in the target location$/],
        [{ parent: elsewhere.id, position: { before: { type: 'space', space: s.id } } }, /^position.before: /],
      ];
      for (const [body, message] of cases) await expectBadRequest('POST', url, body, message);
      await expectMalformedJson('POST', url);
      expect((await get(s.id)).body.parent).toBe(c.id);
      expect(await spaceIdsOf(elsewhere.id)).toEqual([stray.id]);
    });

    it('is 403 below admin or without create at the destination, 404 for non-members and unknown ids, 401 without a token', async () => {
      const s = await newSpace({ title: 'Anchored' });
      const dest = await newCollection({ title: 'Wanted' });
      for (const user of [reader, editor, creator]) {
        expect((await t.request('POST', `/v1/spaces/${s.id}/move`, { token: user.token, body: { parent: dest.id } })).status).toBe(403);
      }
      const delegate = await t.member(org.id, 'read');
      await t.grant(org.id, { space: s.id }, { user: delegate.user.id }, 'admin');
      const denied = await t.request('POST', `/v1/spaces/${s.id}/move`, { token: delegate.token, body: { parent: dest.id } });
      expect(denied.status).toBe(403);
      expect(denied.body.error.message).toMatch(/"create"/);
      expect((await t.request('POST', `/v1/spaces/${s.id}/move`, { token: stranger.token, body: { parent: dest.id } })).status).toBe(404);
      expect((await t.request('POST', '/v1/spaces/unknown/move', { token: org.admin.token, body: { parent: dest.id } })).status).toBe(404);
      expect((await t.request('POST', `/v1/spaces/${s.id}/move`, { body: { parent: dest.id } })).status).toBe(401);
      expect((await get(s.id)).body.parent).toBeUndefined();
    });
  });

  describe('POST /v1/spaces/:spaceId/transfer (transferSpace)', () => {
    it('moves the space to the top level of another organization; grants stay behind', async () => {
      const target = await t.organization('Target');
      await addMember(t.container.ctx, target.id, org.admin.user.id, 'admin');
      const c = await newCollection({ title: 'Origin' });
      const s = await newSpace({ title: 'Emigrant', parent: c.id });
      await t.request('PATCH', `/v1/spaces/${s.id}`, { token: org.admin.token, body: { visibility: 'in-collection', defaultLevel: 'comment' } });
      const guest = await t.member(org.id, null);
      await t.grant(org.id, { space: s.id }, { user: guest.user.id }, 'edit');
      expect((await get(s.id, guest.token)).status).toBe(200);

      const res = await t.request('POST', `/v1/spaces/${s.id}/transfer`, { token: org.admin.token, body: { organization: target.id } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: s.id, organization: target.id, visibility: 'private', revision: s.revision, permissions: { admin: true } });
      expect(res.body.parent).toBeUndefined();
      expect((await get(s.id, target.admin.token)).body.organization).toBe(target.id);
      expect((await get(s.id, guest.token)).status).toBe(404);
      expect(await t.container.ctx.db.selectFrom('content_grants').select('id').where('space_id', '=', s.id).execute()).toEqual([]);
      expect(await spaceIdsOf(c.id)).toEqual([]);
      const targetList = await t.request('GET', `/v1/orgs/${target.id}/spaces`, { token: target.admin.token });
      expect(targetList.body.items.map((x: any) => x.id)).toEqual([s.id]);
      const sourceList = await t.request('GET', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, query: { limit: 1000 } });
      expect(sourceList.body.items.map((x: any) => x.id)).not.toContain(s.id);
      // The content did not change.
      expect(git(s.id, 'rev-parse', 'main').trim()).toBe(s.revision);
    });

    it('answers 409 for the same organization, 404 for an unknown or invisible one, 403 when not admin there', async () => {
      const s = await newSpace({ title: 'Homebody' });
      const same = await t.request('POST', `/v1/spaces/${s.id}/transfer`, { token: org.admin.token, body: { organization: org.id } });
      expect(same.status).toBe(409);
      expect(same.body.error.message).toMatch(/^organization: /);
      const unknown = await t.request('POST', `/v1/spaces/${s.id}/transfer`, { token: org.admin.token, body: { organization: 'unknown-org' } });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.message).toMatch(/^organization: /);
      const foreign = await t.organization('Foreign');
      expect((await t.request('POST', `/v1/spaces/${s.id}/transfer`, { token: org.admin.token, body: { organization: foreign.id } })).status).toBe(404);
      await addMember(t.container.ctx, foreign.id, org.admin.user.id, 'edit');
      expect((await t.request('POST', `/v1/spaces/${s.id}/transfer`, { token: org.admin.token, body: { organization: foreign.id } })).status).toBe(403);
      expect((await get(s.id)).body.organization).toBe(org.id);
    });

    it('refuses bad input naming the field', async () => {
      const s = await newSpace({ title: 'Bad transfer' });
      const url = `/v1/spaces/${s.id}/transfer`;
      const cases: Array<[unknown, RegExp]> = [
        [{}, /^organization: is required$/],
        [{ organization: ['x'] }, /^organization: must be string/],
        [{ organization: '' }, /^organization: must be at least 1 character/],
        [42, /^body: must be object/],
      ];
      for (const [body, message] of cases) await expectBadRequest('POST', url, body, message);
      await expectMalformedJson('POST', url);
    });

    it('is 403 below admin, 404 for non-members and unknown ids, 401 without a token', async () => {
      const target = await t.organization('Receiver');
      const s = await newSpace({ title: 'Owned' });
      for (const user of [editor, creator]) {
        expect((await t.request('POST', `/v1/spaces/${s.id}/transfer`, { token: user.token, body: { organization: target.id } })).status).toBe(403);
      }
      expect((await t.request('POST', `/v1/spaces/${s.id}/transfer`, { token: stranger.token, body: { organization: target.id } })).status).toBe(404);
      expect((await t.request('POST', '/v1/spaces/unknown/transfer', { token: org.admin.token, body: { organization: target.id } })).status).toBe(404);
      expect((await t.request('POST', `/v1/spaces/${s.id}/transfer`, { body: { organization: target.id } })).status).toBe(401);
      expect((await get(s.id)).body.organization).toBe(org.id);
    });
  });

  describe('permissions on spaces', () => {
    it('a collection default level lets a read member edit the spaces below it', async () => {
      const c = await newCollection({ title: 'Editable' });
      const sub = await newCollection({ title: 'Editable sub', parent: c.id });
      const s = await newSpace({ title: 'Deep', parent: sub.id });
      const member = await t.member(org.id, 'read');
      expect((await t.request('PATCH', `/v1/spaces/${s.id}`, { token: member.token, body: { title: 'Edited' } })).status).toBe(403);
      await t.request('PATCH', `/v1/collections/${c.id}`, { token: org.admin.token, body: { defaultLevel: 'edit' } });
      expect((await get(s.id, member.token)).body.permissions).toMatchObject({ edit: true, admin: false });
      const res = await t.request('PATCH', `/v1/spaces/${s.id}`, { token: member.token, body: { title: 'Edited' } });
      expect(res.status).toBe(200);
      expect((await get(s.id)).body.title).toBe('Edited');
      // Still not enough for admin-only changes.
      expect((await t.request('PATCH', `/v1/spaces/${s.id}`, { token: member.token, body: { editMode: 'locked' } })).status).toBe(403);
    });

    it("a space's own default level raises members, not guests", async () => {
      const s = await newSpace({ title: 'Own level' });
      const member = await t.member(org.id, 'read');
      const guest = await t.member(org.id, null);
      await t.request('PATCH', `/v1/spaces/${s.id}`, { token: org.admin.token, body: { defaultLevel: 'edit' } });
      expect((await t.request('PATCH', `/v1/spaces/${s.id}`, { token: member.token, body: { emoji: '🚀' } })).status).toBe(200);
      expect((await get(s.id, guest.token)).status).toBe(404);
    });

    it('a guest sees nothing until a grant, to them or to one of their teams', async () => {
      const s = await newSpace({ title: 'For the guest' });
      const c = await newCollection({ title: 'For the team' });
      const inC = await newSpace({ title: 'Team space', parent: c.id });
      const guest = await t.member(org.id, null);
      expect((await get(s.id, guest.token)).status).toBe(404);
      expect((await t.request('PATCH', `/v1/spaces/${s.id}`, { token: guest.token, body: { title: 'x' } })).status).toBe(404);

      await t.grant(org.id, { space: s.id }, { user: guest.user.id }, 'read');
      const granted = await get(s.id, guest.token);
      expect(granted.status).toBe(200);
      expect(granted.body.permissions).toMatchObject({ view: true, edit: false });
      expect((await t.request('PATCH', `/v1/spaces/${s.id}`, { token: guest.token, body: { title: 'x' } })).status).toBe(403);

      expect((await get(inC.id, guest.token)).status).toBe(404);
      await t.grant(org.id, { collection: c.id }, { team: await t.team(org.id, [guest]) }, 'edit');
      const viaTeam = await t.request('PATCH', `/v1/spaces/${inC.id}`, { token: guest.token, body: { title: 'Edited by a guest' } });
      expect(viaTeam.status).toBe(200);
      expect((await get(inC.id)).body.title).toBe('Edited by a guest');
    });

    it('a disabled member loses access', async () => {
      const s = await newSpace({ title: 'Members only' });
      const member = await t.member(org.id, 'admin');
      expect((await get(s.id, member.token)).status).toBe(200);
      await t.container.ctx.db.updateTable('members').set({ disabled: 1 }).where('user_id', '=', member.user.id).execute();
      expect((await get(s.id, member.token)).status).toBe(404);
      expect((await t.request('DELETE', `/v1/spaces/${s.id}`, { token: member.token })).status).toBe(404);
    });
  });

  describe('routes', () => {
    it('publishes the operations under the reference operationIds', async () => {
      const doc = (await t.request('GET', '/v1/openapi.json')).body;
      const ids = {
        'get /v1/spaces/{spaceId}': 'getSpaceById',
        'delete /v1/spaces/{spaceId}': 'deleteSpaceById',
        'patch /v1/spaces/{spaceId}': 'updateSpaceById',
        'post /v1/spaces/{spaceId}/restore': 'restoreSpace',
        'post /v1/spaces/{spaceId}/move': 'moveSpace',
        'post /v1/spaces/{spaceId}/transfer': 'transferSpace',
        'get /v1/orgs/{organizationId}/spaces': 'listSpacesInOrganizationById',
        'post /v1/orgs/{organizationId}/spaces': 'createSpace',
        'get /v1/collections/{collectionId}': 'getCollectionById',
        'delete /v1/collections/{collectionId}': 'deleteCollectionById',
        'patch /v1/collections/{collectionId}': 'updateCollectionById',
        'get /v1/collections/{collectionId}/spaces': 'listSpacesInCollectionById',
        'post /v1/collections/{collectionId}/move': 'moveCollection',
        'post /v1/collections/{collectionId}/transfer': 'transferCollection',
        'get /v1/orgs/{organizationId}/collections': 'listCollectionsInOrganizationById',
        'post /v1/orgs/{organizationId}/collections': 'createCollection',
      };
      for (const [key, operationId] of Object.entries(ids)) {
        const [method, route] = key.split(' ');
        expect(doc.paths[route]?.[method]?.operationId, key).toBe(operationId);
      }
      expect(doc.paths['/v1/orgs/{organizationId}/spaces'].post.responses['201'].headers.Location).toBeDefined();
      expect(doc.paths['/v1/orgs/{organizationId}/collections'].post.responses['201'].headers.Location).toBeDefined();
      expect(doc.paths['/v1/spaces/{spaceId}'].patch.requestBody.content['application/json'].schema.properties.title.maxLength).toBe(50);
      // A 205 has no content.
      expect(doc.paths['/v1/spaces/{spaceId}'].delete.responses['205'].content).toBeUndefined();
      expect(doc.paths['/v1/collections/{collectionId}'].delete.responses['205'].content).toBeUndefined();
    });
  });
});
