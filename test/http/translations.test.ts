import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { nextMillisecond } from '../helpers/wait.js';

// Translation settings follow the spec's shape (the reference's `Translation` is another resource), so the reference
// check leaves their answers out (test/helpers/contract.ts); these tests check the shape themselves. Error answers are
// still checked.
describe.each(DATABASE_KINDS)('translation settings (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let reader: TestUser;
  let guest: TestUser;
  let stranger: TestUser;

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.organization('Translated Co');
    reader = await t.member(org.id, 'read');
    guest = await t.member(org.id, null);
    stranger = await t.user();
  });
  afterAll(async () => t?.close());

  const base = (orgId = org.id) => `/v1/orgs/${orgId}/translations`;

  async function create(body: Record<string, unknown>, orgId = org.id, token = org.admin.token) {
    return t.request('POST', base(orgId), { token, body });
  }

  async function count(): Promise<number> {
    return (await t.container.ctx.db.selectFrom('translation_settings').select('id').where('organization_id', '=', org.id).execute()).length;
  }

  describe('POST /v1/orgs/:id/translations (createTranslation)', () => {
    it('creates settings in the spec shape; languages default to none', async () => {
      const res = await create({ title: 'Docs in French' });
      expect(res.status).toBe(201);
      const id = res.body.id as string;
      expect(res.body).toEqual({
        object: 'translation-settings',
        id,
        title: 'Docs in French',
        languages: [],
        createdAt: expect.any(String),
        updatedAt: res.body.createdAt,
        permissions: { view: true, edit: true },
        urls: { location: `http://quire.test/v1/orgs/${org.id}/translations/${id}` },
      });
      expect(Date.parse(res.body.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    });

    it('takes languages as an optional extra member, in the order given', async () => {
      const res = await create({ title: 'European', languages: ['fr', 'de', 'pt'] });
      expect(res.status).toBe(201);
      expect(res.body.languages).toEqual(['fr', 'de', 'pt']);
    });

    it('refuses bad input with a 400 naming the field, writing nothing', async () => {
      const before = await count();
      const cases: Array<[unknown, RegExp]> = [
        [{}, /^title: is required$/],
        [{ title: '' }, /^title: must be at least 1 character$/],
        [{ title: 'x'.repeat(101) }, /^title: must be at most 100 characters$/],
        [{ title: '   ' }, /^title: must not be blank$/],
        [{ title: 7 }, /^title: must be string$/],
        [{ title: 'T', languages: ['xx'] }, /^languages\[0\]: must be one of: en, fr, /],
        [{ title: 'T', languages: 'fr' }, /^languages: must be array$/],
        [{ title: 'T', languages: ['fr', 'de', 'fr'] }, /^languages\[2\]: "fr" is listed twice$/],
      ];
      for (const [body, message] of cases) {
        const res = await t.request('POST', base(), { token: org.admin.token, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.message).toMatch(message);
      }
      const malformed = await t.request('POST', base(), { token: org.admin.token, rawBody: '{"title": ' });
      expect(malformed.status).toBe(400);
      expect(await count()).toBe(before);
    });

    it('is for admins: 403 for other members, 404 for non-members and unknown organizations, 401 without a token', async () => {
      const before = await count();
      expect((await create({ title: 'No' }, org.id, reader.token)).status).toBe(403);
      expect((await create({ title: 'No' }, org.id, guest.token)).status).toBe(403);
      expect((await create({ title: 'No' }, org.id, stranger.token)).status).toBe(404);
      expect((await create({ title: 'No' }, 'unknown-org')).status).toBe(404);
      expect((await t.request('POST', base(), { body: { title: 'No' } })).status).toBe(401);
      expect(await count()).toBe(before);
    });
  });

  describe('GET /v1/orgs/:id/translations and /:translationSettingsId (listTranslations, getTranslation)', () => {
    it('lists settings oldest first in pages; members who are not guests read them, without edit', async () => {
      const o = await t.organization('Listing Translations Co');
      const member = await t.member(o.id, 'edit');
      const ids: string[] = [];
      for (const title of ['A', 'B', 'C']) ids.push((await create({ title }, o.id, o.admin.token)).body.id);
      const all = await t.request('GET', base(o.id), { token: member.token });
      expect(all.status).toBe(200);
      expect(all.body.items.map((s: any) => s.id)).toEqual(ids);
      expect(all.body.count).toBe(3);
      expect(all.body.next).toBeUndefined();
      expect(all.body.items[0].permissions).toEqual({ view: true, edit: false });
      const first = await t.request('GET', base(o.id), { token: member.token, query: { limit: 2 } });
      expect(first.body.items.map((s: any) => s.title)).toEqual(['A', 'B']);
      const second = await t.request('GET', base(o.id), { token: member.token, query: { limit: 2, page: first.body.next.page } });
      expect(second.body).toEqual({ items: [expect.objectContaining({ title: 'C' })], count: 1 });
      const one = await t.request('GET', `${base(o.id)}/${ids[1]}`, { token: member.token });
      expect(one.status).toBe(200);
      expect(one.body).toEqual(all.body.items[1]);
      expect((await t.request('GET', base(o.id), { token: member.token, query: { limit: 1001 } })).status).toBe(400);
    });

    it('is 403 on the list and 404 on an item for guests, 404 for non-members and unknown ids, 401 without a token', async () => {
      const id = (await create({ title: 'Hidden from guests' })).body.id as string;
      expect((await t.request('GET', base(), { token: guest.token })).status).toBe(403);
      expect((await t.request('GET', `${base()}/${id}`, { token: guest.token })).status).toBe(404);
      expect((await t.request('GET', base(), { token: stranger.token })).status).toBe(404);
      expect((await t.request('GET', `${base()}/${id}`, { token: stranger.token })).status).toBe(404);
      const unknown = await t.request('GET', `${base()}/no-such-settings`, { token: reader.token });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.message).toMatch(/^translationSettingsId: /);
      const otherOrg = await t.organization('Other Translations Co');
      expect((await t.request('GET', `${base(otherOrg.id)}/${id}`, { token: otherOrg.admin.token })).status).toBe(404);
      expect((await t.request('GET', base())).status).toBe(401);
      expect((await t.request('GET', `${base()}/${id}`)).status).toBe(401);
    });
  });

  describe('PUT /v1/orgs/:id/translations/:translationSettingsId (updateTranslation)', () => {
    it('replaces the title, keeps the languages unless given, and moves updatedAt', async () => {
      const created = (await create({ title: 'Before', languages: ['ja'] })).body;
      const url = `${base()}/${created.id}`;
      await nextMillisecond();
      const renamed = await t.request('PUT', url, { token: org.admin.token, body: { title: 'After' } });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toEqual({ ...created, title: 'After', updatedAt: expect.any(String) });
      expect(Date.parse(renamed.body.updatedAt)).toBeGreaterThan(Date.parse(created.updatedAt));
      const relanguaged = await t.request('PUT', url, { token: org.admin.token, body: { title: 'After', languages: ['ko', 'zh'] } });
      expect(relanguaged.body.languages).toEqual(['ko', 'zh']);
      const cleared = await t.request('PUT', url, { token: org.admin.token, body: { title: 'After', languages: [] } });
      expect(cleared.body.languages).toEqual([]);
      expect((await t.request('GET', url, { token: reader.token })).body.title).toBe('After');
    });

    it('refuses bad input (400) and non-admins (403), 404 for unknown ids and non-members, 401 without a token', async () => {
      const created = (await create({ title: 'Stable' })).body;
      const url = `${base()}/${created.id}`;
      const missing = await t.request('PUT', url, { token: org.admin.token, body: { languages: ['fr'] } });
      expect(missing.status).toBe(400);
      expect(missing.body.error.message).toBe('title: is required');
      const long = await t.request('PUT', url, { token: org.admin.token, body: { title: 'y'.repeat(101) } });
      expect(long.body.error.message).toMatch(/^title: must be at most 100/);
      expect((await t.request('PUT', url, { token: reader.token, body: { title: 'Changed' } })).status).toBe(403);
      expect((await t.request('PUT', url, { token: guest.token, body: { title: 'Changed' } })).status).toBe(404);
      expect((await t.request('PUT', url, { token: stranger.token, body: { title: 'Changed' } })).status).toBe(404);
      expect((await t.request('PUT', `${base()}/unknown`, { token: org.admin.token, body: { title: 'Changed' } })).status).toBe(404);
      expect((await t.request('PUT', url, { body: { title: 'Changed' } })).status).toBe(401);
      expect((await t.request('GET', url, { token: org.admin.token })).body).toEqual(created);
    });
  });

  describe('DELETE /v1/orgs/:id/translations/:translationSettingsId (deleteTranslation)', () => {
    it('deletes with 205, then answers 204; admins only', async () => {
      const id = (await create({ title: 'Doomed' })).body.id as string;
      const url = `${base()}/${id}`;
      expect((await t.request('DELETE', url, { token: reader.token })).status).toBe(403);
      expect((await t.request('DELETE', url, { token: stranger.token })).status).toBe(404);
      expect((await t.request('DELETE', url)).status).toBe(401);
      const deleted = await t.request('DELETE', url, { token: org.admin.token });
      expect(deleted.status).toBe(205);
      expect(deleted.body).toBeUndefined();
      expect((await t.request('GET', url, { token: org.admin.token })).status).toBe(404);
      expect((await t.request('DELETE', url, { token: org.admin.token })).status).toBe(204);
      expect((await t.request('DELETE', `${base('unknown-org')}/${id}`, { token: org.admin.token })).status).toBe(404);
    });
  });
});
