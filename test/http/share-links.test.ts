import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createSite, createSpace, expectBadRequest, expectStatus, outline, sitePeople, siteUrl, type SitePeople } from '../helpers/sites.js';

const READ_ONLY = { view: true, access: true, admin: false, viewInviteLinks: false, edit: false, triggerGitSync: false, comment: false, merge: false, review: false };

function keyOf(link: { urls: { published: string } }): string {
  return new URL(link.urls.published).searchParams.get('share')!;
}

/** Every embedded space of a structure with the given permissions (what differs between two callers). */
function withSpacePermissions(structure: any, permissions: Record<string, boolean>): any {
  const copy = structuredClone(structure);
  const visit = (value: any) => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') {
      if (value.object === 'space') value.permissions = permissions;
      Object.values(value).forEach(visit);
    }
  };
  visit(copy);
  return copy;
}

describe.each(DATABASE_KINDS)('share links (%s)', (kind) => {
  let t: TestApp;
  let p: SitePeople;
  let org: SitePeople['org'];
  let admin: string;
  let guide: { id: string; title: string };
  let api: { id: string; title: string };
  let manual: { id: string; title: string };
  let unpublished: { id: string; title: string };

  beforeAll(async () => {
    t = await startTestApp(kind);
    p = await sitePeople(t);
    org = p.org;
    admin = org.admin.token;
    guide = await createSpace(t, org.id, admin, 'Guide');
    api = await createSpace(t, org.id, admin, 'API reference');
    manual = await createSpace(t, org.id, admin, 'Manual');
    unpublished = await createSpace(t, org.id, admin, 'Internal');
  });
  afterAll(async () => t?.close());

  const url = (siteId: string, path = '') => siteUrl(org.id, siteId, path);

  describe('share links of a site', () => {
    it('creates, lists, renames, deactivates and deletes share links; the secret is the `share` parameter of urls.published', async () => {
      const site = await createSite(t, org.id, admin, { title: 'Shared', spaces: [guide.id] });
      const res = await t.request('POST', url(site.id, '/share-links'), { token: p.creator.token, body: { name: 'Partners' } });
      expect(res.status).toBe(201);
      const link = res.body;
      expect(res.headers.location).toBe(`http://quire.test${url(site.id, `/share-links/${link.id}`)}`);
      expect(link).toEqual({ object: 'share-link', id: link.id, createdAt: link.createdAt, name: 'Partners', active: true, urls: { published: link.urls.published } });
      expect(link.urls.published.startsWith(`${site.urls.published}?share=`)).toBe(true);
      expect(keyOf(link)).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const second = await expectStatus(t, 201, 'POST', url(site.id, '/share-links'), { token: admin, body: { name: '' } });
      expect(keyOf(second)).not.toBe(keyOf(link));

      const listed: any[] = [];
      let page: string | undefined;
      do {
        const res = await expectStatus(t, 200, 'GET', url(site.id, '/share-links'), { token: admin, query: { limit: 1, page } });
        listed.push(...res.items);
        page = res.next?.page;
      } while (page);
      expect(listed).toEqual([link, second]);

      const renamed = await expectStatus(t, 200, 'PATCH', url(site.id, `/share-links/${link.id}`), { token: p.creator.token, body: { name: 'Resellers' } });
      expect(renamed).toEqual({ ...link, name: 'Resellers' });
      const off = await expectStatus(t, 200, 'PATCH', url(site.id, `/share-links/${link.id}`), { token: admin, body: { active: false } });
      expect(off).toEqual({ ...renamed, active: false });
      expect((await expectStatus(t, 200, 'GET', url(site.id, '/share-links'), { token: admin })).items[0]).toEqual(off);

      await expectStatus(t, 205, 'DELETE', url(site.id, `/share-links/${link.id}`), { token: p.creator.token });
      await expectStatus(t, 204, 'DELETE', url(site.id, `/share-links/${link.id}`), { token: admin });
      expect((await expectStatus(t, 200, 'GET', url(site.id, '/share-links'), { token: admin })).items).toEqual([second]);
      await expectStatus(t, 404, 'PATCH', url(site.id, `/share-links/${link.id}`), { token: admin, body: { active: true } });
    });

    it('refuses bad input naming the field', async () => {
      const site = await createSite(t, org.id, admin, { title: 'Strict links' });
      const link = await expectStatus(t, 201, 'POST', url(site.id, '/share-links'), { token: admin, body: { name: 'One' } });
      const cases: Array<[string, string, unknown, RegExp]> = [
        ['POST', url(site.id, '/share-links'), {}, /^name: is required$/],
        ['POST', url(site.id, '/share-links'), { name: 'n'.repeat(51) }, /^name: must be at most 50 characters$/],
        ['POST', url(site.id, '/share-links'), { name: 5 }, /^name: must be string/],
        ['PATCH', url(site.id, `/share-links/${link.id}`), {}, /must have at least 1 member/],
        ['PATCH', url(site.id, `/share-links/${link.id}`), { active: 'no' }, /^active: must be boolean/],
        ['PATCH', url(site.id, `/share-links/${link.id}`), { name: 'n'.repeat(51) }, /^name: /],
      ];
      for (const [method, path, body, message] of cases) await expectBadRequest(t, method, path, admin, body, message);
      expect((await expectStatus(t, 200, 'GET', url(site.id, '/share-links'), { token: admin })).items).toEqual([link]);
    });

    it('are for those who manage the site: 403 for other members, 404 for guests, non-members and unknown ids', async () => {
      const site = await createSite(t, org.id, admin, { title: 'Guarded links' });
      const link = await expectStatus(t, 201, 'POST', url(site.id, '/share-links'), { token: admin, body: { name: 'One' } });
      const operations: Array<[string, string, unknown]> = [
        ['GET', url(site.id, '/share-links'), undefined],
        ['POST', url(site.id, '/share-links'), { name: 'No' }],
        ['PATCH', url(site.id, `/share-links/${link.id}`), { active: false }],
        ['DELETE', url(site.id, `/share-links/${link.id}`), undefined],
      ];
      for (const [method, path, body] of operations) {
        await expectStatus(t, 403, method, path, { token: p.editor.token, body });
        for (const token of [p.guest.token, p.stranger.token]) await expectStatus(t, 404, method, path, { token, body });
        await expectStatus(t, 401, method, path, { body });
      }
      await expectStatus(t, 404, 'GET', url('nope', '/share-links'), { token: admin });
      await expectStatus(t, 404, 'DELETE', url('nope', `/share-links/${link.id}`), { token: admin });
      await expectStatus(t, 404, 'PATCH', url(site.id, '/share-links/nope'), { token: admin, body: { active: false } });
      expect((await expectStatus(t, 200, 'GET', url(site.id, '/share-links'), { token: admin })).items).toEqual([link]);
    });
  });

  describe('a share-link site with two sections, a group, conditions and a share link', () => {
    it('is published right to a non-member holding the key, until the link is deactivated or deleted', async () => {
      const site = await createSite(t, org.id, admin, { title: 'Partner docs', spaces: [guide.id, api.id] });
      expect(site.visibility).toBe('share-link');
      await expectStatus(t, 200, 'PUT', url(site.id, '/adaptive-schema'), {
        token: admin,
        body: { jsonSchema: { type: 'object', properties: { partner: { type: 'boolean', description: 'Signed partners' } }, additionalProperties: false } },
      });
      // The root spaces move into a first section; the second section goes into a group.
      const reference = await expectStatus(t, 201, 'POST', url(site.id, '/sections'), { token: admin, body: { spaceId: manual.id, title: 'Reference' } });
      const group = await expectStatus(t, 201, 'POST', url(site.id, '/section-groups'), { token: admin, body: { title: 'More', sections: [reference.id] } });
      const [main] = (await expectStatus(t, 200, 'GET', url(site.id, '/structure'), { token: admin })).structure;
      await expectStatus(t, 200, 'PATCH', url(site.id, `/site-spaces/${main.siteSpaces[1].id}`), { token: admin, body: { condition: 'visitor.claims.partner' } });
      await expectStatus(t, 200, 'PATCH', url(site.id, `/sections/${reference.id}`), { token: admin, body: { condition: '!visitor.claims.partner || visitor.claims.unsigned.preview == true' } });
      const link = await expectStatus(t, 201, 'POST', url(site.id, '/share-links'), { token: admin, body: { name: 'Partners' } });
      const shareKey = keyOf(link);

      const member = await expectStatus(t, 200, 'GET', url(site.id, '/published'), { token: p.editor.token });
      expect(outline(member.structure)).toEqual([
        [`section:${main.id}*`, [`space:${main.siteSpaces[0].id}*`, `space:${main.siteSpaces[1].id}?visitor.claims.partner`]],
        [`group:${group.id}`, [[`section:${reference.id}?!visitor.claims.partner || visitor.claims.unsigned.preview == true`, [`space:${reference.siteSpaces[0].id}*`]]]],
      ]);

      const readers = [p.stranger, p.guest];
      const expectOpen = async () => {
        for (const reader of readers) {
          const seen = await expectStatus(t, 200, 'GET', url(site.id, '/published'), { token: reader.token, query: { shareKey } });
          // The same site and structure; the spaces read-only.
          expect(seen).toEqual(withSpacePermissions(member, READ_ONLY));
          const sections = await expectStatus(t, 200, 'GET', url(site.id, '/sections'), { token: reader.token, query: { shareKey } });
          expect(sections.items).toEqual([seen.structure.structure[0], ...seen.structure.structure[1].sections]);
          // urlsUnchecked: the reference section's condition names a claim these readers lack, so its page is hidden
          // from them, and the site space in it does not say so.
          const siteSpaces = await expectStatus(t, 200, 'GET', url(site.id, '/site-spaces'), { token: reader.token, query: { shareKey }, urlsUnchecked: true });
          expect(siteSpaces.items.map((s: any) => s.id)).toEqual([main.siteSpaces[0].id, main.siteSpaces[1].id, reference.siteSpaces[0].id]);
          expect(await expectStatus(t, 200, 'GET', url(site.id, '/structure'), { token: reader.token, query: { shareKey } })).toEqual(seen.structure);
          for (const space of [guide, api, manual]) {
            const read = await expectStatus(t, 200, 'GET', `/v1/spaces/${space.id}`, { token: reader.token, query: { shareKey } });
            expect(read).toMatchObject({ id: space.id, title: space.title, permissions: READ_ONLY });
          }
          // The key opens what the site publishes, read-only, and nothing else.
          await expectStatus(t, 404, 'GET', `/v1/spaces/${unpublished.id}`, { token: reader.token, query: { shareKey } });
          await expectStatus(t, 404, 'GET', url(site.id), { token: reader.token, query: { shareKey } });
          await expectStatus(t, 404, 'PATCH', url(site.id), { token: reader.token, query: { shareKey }, body: { title: 'Mine' } });
          await expectStatus(t, 404, 'PATCH', `/v1/spaces/${guide.id}`, { token: reader.token, query: { shareKey }, body: { title: 'Mine' } });
        }
      };
      const expectClosed = async () => {
        for (const reader of readers) {
          for (const path of ['/published', '/sections', '/site-spaces', '/structure']) {
            await expectStatus(t, 404, 'GET', url(site.id, path), { token: reader.token, query: { shareKey } });
          }
          await expectStatus(t, 404, 'GET', `/v1/spaces/${guide.id}`, { token: reader.token, query: { shareKey } });
        }
        // Members do not need the key.
        await expectStatus(t, 200, 'GET', url(site.id, '/published'), { token: p.editor.token, query: { shareKey } });
      };

      // Without the key, or with a wrong one, nothing is visible.
      for (const reader of readers) {
        await expectStatus(t, 404, 'GET', url(site.id, '/published'), { token: reader.token });
        await expectStatus(t, 404, 'GET', url(site.id, '/published'), { token: reader.token, query: { shareKey: `${shareKey}x` } });
        await expectStatus(t, 404, 'GET', `/v1/spaces/${guide.id}`, { token: reader.token });
      }
      await expectOpen();

      await expectStatus(t, 200, 'PATCH', url(site.id, `/share-links/${link.id}`), { token: admin, body: { active: false } });
      await expectClosed();
      await expectStatus(t, 200, 'PATCH', url(site.id, `/share-links/${link.id}`), { token: admin, body: { active: true } });
      await expectOpen();
      // A key opens share-link sites only.
      await expectStatus(t, 200, 'PATCH', url(site.id), { token: admin, body: { visibility: 'visitor-auth' } });
      await expectClosed();
      await expectStatus(t, 200, 'PATCH', url(site.id), { token: admin, body: { visibility: 'share-link' } });
      await expectOpen();
      await expectStatus(t, 205, 'DELETE', url(site.id, `/share-links/${link.id}`), { token: admin });
      await expectClosed();
    });

    it('a key opens its own site only, and nothing once the site is deleted', async () => {
      const first = await createSite(t, org.id, admin, { title: 'First shared', spaces: [guide.id] });
      const second = await createSite(t, org.id, admin, { title: 'Second shared', spaces: [api.id] });
      const empty = await createSite(t, org.id, admin, { title: 'Empty shared' });
      const shareKey = keyOf(await expectStatus(t, 201, 'POST', url(first.id, '/share-links'), { token: admin, body: { name: 'First' } }));
      const emptyKey = keyOf(await expectStatus(t, 201, 'POST', url(empty.id, '/share-links'), { token: admin, body: { name: 'Empty' } }));
      const token = p.stranger.token;
      await expectStatus(t, 200, 'GET', url(first.id, '/published'), { token, query: { shareKey } });
      await expectStatus(t, 404, 'GET', url(second.id, '/published'), { token, query: { shareKey } });
      await expectStatus(t, 404, 'GET', `/v1/spaces/${api.id}`, { token, query: { shareKey } });
      // An unpublished site (no site space) shows nothing, even with its key.
      await expectStatus(t, 404, 'GET', url(empty.id, '/published'), { token, query: { shareKey: emptyKey } });
      await expectStatus(t, 205, 'DELETE', url(first.id), { token: admin });
      await expectStatus(t, 404, 'GET', `/v1/spaces/${guide.id}`, { token, query: { shareKey } });
      await expectStatus(t, 404, 'GET', url(first.id, '/published'), { token, query: { shareKey } });
    });
  });
});
