import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createSite, createSpace, expectBadRequest, expectStatus, outline, sitePeople, siteUrl, type SitePeople } from '../helpers/sites.js';

const BETA_SCHEMA = {
  type: 'object',
  properties: {
    beta: { type: 'boolean', description: 'Beta testers' },
    staff: { type: 'boolean', description: 'Employees' },
    unsigned: { type: 'object', description: 'Unsigned claims of the site visitor.', properties: {}, additionalProperties: false },
  },
  additionalProperties: false,
};

describe.each(DATABASE_KINDS)('site structure (%s)', (kind) => {
  let t: TestApp;
  let p: SitePeople;
  let org: SitePeople['org'];
  let admin: string;
  let guide: { id: string; title: string };
  let api: { id: string; title: string };
  let manual: { id: string; title: string };

  beforeAll(async () => {
    t = await startTestApp(kind);
    p = await sitePeople(t);
    org = p.org;
    admin = org.admin.token;
    guide = await createSpace(t, org.id, admin, 'Guide');
    api = await createSpace(t, org.id, admin, 'API reference');
    manual = await createSpace(t, org.id, admin, 'Manual');
  });
  afterAll(async () => t?.close());

  const url = (siteId: string, path = '') => siteUrl(org.id, siteId, path);
  const structureOf = async (siteId: string, token = admin) => expectStatus(t, 200, 'GET', url(siteId, '/structure'), { token });
  const addSection = async (siteId: string, body: Record<string, unknown>, token = admin) => expectStatus(t, 201, 'POST', url(siteId, '/sections'), { token, body });
  const addSiteSpace = async (siteId: string, body: Record<string, unknown>, token = admin) => expectStatus(t, 201, 'POST', url(siteId, '/site-spaces'), { token, body });
  const addGroup = async (siteId: string, body: Record<string, unknown>, token = admin) => expectStatus(t, 201, 'POST', url(siteId, '/section-groups'), { token, body });

  /** Pages through a list with `limit` 1 and returns every item. */
  async function everyItem(path: string, query: Record<string, unknown> = {}, token = admin): Promise<any[]> {
    const items: any[] = [];
    let page: string | undefined;
    do {
      const res = await expectStatus(t, 200, 'GET', path, { token, query: { ...query, limit: 1, page } });
      expect(res.count).toBe(res.items.length);
      items.push(...res.items);
      page = res.next?.page;
    } while (page);
    return items;
  }

  describe('sections', () => {
    it('adding the first section to a site whose spaces sit at its root gathers them in a first, default section', async () => {
      const site = await createSite(t, org.id, admin, { title: 'Product docs', spaces: [guide.id, api.id] });
      const root = (await structureOf(site.id)).structure;
      const res = await t.request('POST', url(site.id, '/sections'), { token: p.creator.token, body: { spaceId: manual.id } });
      expect(res.status).toBe(201);
      const section = res.body;
      expect(res.headers.location).toBe(`http://quire.test${url(site.id, `/sections/${section.id}`)}`);
      expect(section).toMatchObject({ object: 'site-section', title: 'Manual', path: 'manual', default: false, urls: { location: res.headers.location } });
      expect(section.urls.published).toBe(`${site.urls.published}/manual`);
      expect(section.siteSpaces.map((s: any) => [s.space.id, s.default, s.section])).toEqual([[manual.id, true, section.id]]);

      // Read as the creator: the embedded spaces carry the caller's permissions.
      const structure = await structureOf(site.id, p.creator.token);
      expect(structure.type).toBe('sections');
      expect(structure.structure).toHaveLength(2);
      const [first, second] = structure.structure;
      expect(first).toMatchObject({ title: 'Product docs', path: 'product-docs', default: true });
      expect(first.urls.published).toBe(site.urls.published);
      // The former root site spaces, unchanged but for their section.
      expect(first.siteSpaces.map((s: any) => ({ ...s, space: s.space.id }))).toEqual(root.map((s: any) => ({ ...s, space: s.space.id, section: first.id })));
      expect(second).toEqual(section);
      expect(await everyItem(url(site.id, '/sections'), {}, p.creator.token)).toEqual(structure.structure);
      expect((await expectStatus(t, 200, 'GET', url(site.id), { token: admin })).siteSpaces).toBe(3);
    });

    it('the first section of an empty site is its default; titles come from the body or the space; made paths get -2', async () => {
      const site = await createSite(t, org.id, admin, { title: 'Sections' });
      const guides = await addSection(site.id, { spaceId: guide.id, title: 'Guides', icon: 'book' });
      expect(guides).toMatchObject({ title: 'Guides', path: 'guides', icon: 'book', default: true });
      expect(guides.urls.published).toBe(`http://quire.test/sites/${org.id}/${site.id}`);
      const again = await addSection(site.id, { spaceId: guide.id, title: 'Guides' });
      expect(again).toMatchObject({ path: 'guides-2', default: false });
      const named = await addSection(site.id, { spaceId: api.id, title: null, icon: null });
      expect(named).toMatchObject({ title: 'API reference', path: 'api-reference' });
      expect(named.icon).toBeUndefined();
      expect(outline(await structureOf(site.id))).toEqual([
        [`section:${guides.id}*`, [`space:${guides.siteSpaces[0].id}*`]],
        [`section:${again.id}`, [`space:${again.siteSpaces[0].id}*`]],
        [`section:${named.id}`, [`space:${named.siteSpaces[0].id}*`]],
      ]);
    });

    it('updates a section: a condition is kept when absent and removed by null; icon and description likewise', async () => {
      const site = await createSite(t, org.id, admin, { title: 'Conditional' });
      await expectStatus(t, 200, 'PUT', url(site.id, '/adaptive-schema'), { token: admin, body: { jsonSchema: BETA_SCHEMA } });
      const section = await addSection(site.id, { spaceId: guide.id });
      const second = await addSiteSpace(site.id, { spaceId: api.id, sectionId: section.id });
      const sectionUrl = url(site.id, `/sections/${section.id}`);
      const condition = '!visitor.claims.beta && (visitor.claims.staff == true || visitor.claims.unsigned.lang != "de")';
      const set = await expectStatus(t, 200, 'PATCH', sectionUrl, {
        token: p.creator.token,
        body: { title: 'Beta guide', path: 'beta', description: 'For testers', icon: 'flask', condition, defaultSiteSpace: second.id },
      });
      expect(set).toMatchObject({ title: 'Beta guide', path: 'beta', description: 'For testers', icon: 'flask', condition });
      expect(set.siteSpaces.map((s: any) => [s.id, s.default])).toEqual([
        [section.siteSpaces[0].id, false],
        [second.id, true],
      ]);
      const kept = await expectStatus(t, 200, 'PATCH', sectionUrl, { token: admin, body: { title: 'Guide again' } });
      expect(kept).toMatchObject({ title: 'Guide again', condition, icon: 'flask', description: 'For testers' });
      const cleared = await expectStatus(t, 200, 'PATCH', sectionUrl, { token: admin, body: { condition: null, icon: null, description: null } });
      expect(cleared.condition).toBeUndefined();
      expect(cleared.icon).toBeUndefined();
      expect(cleared.description).toBeUndefined();
      expect((await everyItem(url(site.id, '/sections')))[0]).toEqual(cleared);
    });

    it('refuses bad input naming the field (409 for a path another section uses), and changes nothing', async () => {
      const site = await createSite(t, org.id, admin, { title: 'Strict sections' });
      await expectStatus(t, 200, 'PUT', url(site.id, '/adaptive-schema'), { token: admin, body: { jsonSchema: BETA_SCHEMA } });
      const section = await addSection(site.id, { spaceId: guide.id, title: 'First' });
      const other = await addSection(site.id, { spaceId: api.id, title: 'Second' });
      const sectionUrl = url(site.id, `/sections/${section.id}`);
      const before = await structureOf(site.id);
      const cases: Array<[unknown, RegExp]> = [
        [{}, /must have at least 1 member/],
        [{ title: 'A' }, /^title: must be at least 2 characters$/],
        [{ path: '' }, /^path: must be at least 1 character$/],
        [{ path: 'a/b' }, /^path: must be one URL path segment/],
        [{ path: 'x'.repeat(101) }, /^path: must be at most 100 characters$/],
        [{ icon: 'i'.repeat(51) }, /^icon: must be at most 50 characters$/],
        [{ description: 'd'.repeat(257) }, /^description: must be at most 256 characters$/],
        [{ condition: '' }, /^condition: must be at least 1 character$/],
        [{ condition: 'x'.repeat(1025) }, /^condition: must be at most 1024 characters$/],
        [{ condition: 'visitor.claims.gamma' }, /^condition: "visitor.claims.gamma" at 1 is not a claim of the site's adaptive schema \(claims: beta, staff\)$/],
        [{ condition: 'process.exit()' }, /^condition: unknown name "process.exit"/],
        [{ condition: 'visitor.claims.beta === true' }, /^condition: "===" at 21 is not supported/],
        [{ condition: 'visitor.claims.beta &&' }, /^condition: the expression ends too early$/],
        [{ condition: '(visitor.claims.beta' }, /^condition: expected "\)"/],
        [{ condition: 'visitor.claims.beta == "yes"' }, /^condition: "==" at 21 compares a boolean with a string$/],
        [{ condition: '"text"' }, /^condition: must be a boolean expression/],
        [{ condition: 'visitor.claims.beta; drop' }, /^condition: unexpected ";"/],
        [{ condition: 'visitor["claims"]' }, /^condition: unexpected "\[" at 8$/],
        [{ title: 'Fine', condition: 'constructor' }, /^condition: unknown name "constructor"/],
        [{ defaultSiteSpace: other.siteSpaces[0].id }, /^defaultSiteSpace: no site space ".*" in this section$/],
        [{ title: 5 }, /^title: must be string/],
      ];
      for (const [body, message] of cases) await expectBadRequest(t, 'PATCH', sectionUrl, admin, body, message);
      const clash = await expectStatus(t, 409, 'PATCH', sectionUrl, { token: admin, body: { path: other.path } });
      expect(clash.error.message).toMatch(/^path: another section of this site already uses "second"$/);
      expect(await structureOf(site.id)).toEqual(before);

      const addCases: Array<[unknown, RegExp]> = [
        [{}, /^spaceId: is required$/],
        [{ spaceId: 'unknown' }, /^spaceId: no space "unknown" in this organization/],
        [{ spaceId: guide.id, title: 'A' }, /^title: /],
        [{ spaceId: guide.id, icon: 'i'.repeat(51) }, /^icon: /],
      ];
      for (const [body, message] of addCases) await expectBadRequest(t, 'POST', url(site.id, '/sections'), admin, body, message);
      expect(await structureOf(site.id)).toEqual(before);
    });

    it('deletes a section with its site spaces (205, then 204); the default passes to the first remaining section', async () => {
      const site = await createSite(t, org.id, admin, { title: 'Shrinking', spaces: [guide.id] });
      const second = await addSection(site.id, { spaceId: api.id });
      const [first] = (await structureOf(site.id)).structure;
      await expectStatus(t, 205, 'DELETE', url(site.id, `/sections/${first.id}`), { token: p.creator.token });
      expect(outline(await structureOf(site.id))).toEqual([[`section:${second.id}*`, [`space:${second.siteSpaces[0].id}*`]]]);
      expect((await expectStatus(t, 200, 'GET', url(site.id), { token: admin })).siteSpaces).toBe(1);
      await expectStatus(t, 204, 'DELETE', url(site.id, `/sections/${first.id}`), { token: admin });
      await expectStatus(t, 205, 'DELETE', url(site.id, `/sections/${second.id}`), { token: admin });
      expect(await structureOf(site.id)).toEqual({ type: 'siteSpaces', structure: [] });
      expect((await expectStatus(t, 200, 'GET', url(site.id), { token: admin })).published).toBe(false);
    });

    it('moves a section among its siblings (deprecated moveSiteSection)', async () => {
      const site = await createSite(t, org.id, admin, { title: 'Moving sections' });
      const [a, b, c] = [await addSection(site.id, { spaceId: guide.id }), await addSection(site.id, { spaceId: api.id }), await addSection(site.id, { spaceId: manual.id })];
      const ids = async () => (await structureOf(site.id)).structure.map((s: any) => s.id);
      const move = (id: string, body?: unknown) => expectStatus(t, 200, 'POST', url(site.id, `/sections/${id}/move`), { token: admin, body });
      expect((await move(c.id, { position: { before: { type: 'site-section', siteSection: a.id } } })).id).toBe(c.id);
      expect(await ids()).toEqual([c.id, a.id, b.id]);
      await move(c.id, { position: { after: { type: 'site-section', siteSection: b.id } } });
      expect(await ids()).toEqual([a.id, b.id, c.id]);
      await move(a.id);
      expect(await ids()).toEqual([b.id, c.id, a.id]);
      await move(a.id, { position: {} });
      expect(await ids()).toEqual([b.id, c.id, a.id]);
      await expectBadRequest(t, 'POST', url(site.id, `/sections/${a.id}/move`), admin, { position: { before: { type: 'site-section', siteSection: 'nope' } } }, /^position.before: site-section "nope" is not a sibling/);
      await expectBadRequest(t, 'POST', url(site.id, `/sections/${a.id}/move`), admin, { position: { after: { type: 'site-space', siteSection: b.id } } }, /^position.after.type: must be one of: site-section$/);
      await expectBadRequest(t, 'POST', url(site.id, `/sections/${a.id}/move`), admin, { position: { before: { type: 'site-section' } } }, /^position.before.siteSection: is required$/);
      await expectStatus(t, 404, 'POST', url(site.id, '/sections/nope/move'), { token: admin });
      expect(await ids()).toEqual([b.id, c.id, a.id]);
    });

    it('lets members read and only creators and admins change; 404 for guests, non-members and unknown ids', async () => {
      const site = await createSite(t, org.id, admin, { title: 'Guarded sections' });
      const section = await addSection(site.id, { spaceId: guide.id });
      const sectionUrl = url(site.id, `/sections/${section.id}`);
      expect((await expectStatus(t, 200, 'GET', url(site.id, '/sections'), { token: p.editor.token })).items).toHaveLength(1);
      await expectStatus(t, 403, 'POST', url(site.id, '/sections'), { token: p.editor.token, body: { spaceId: api.id } });
      await expectStatus(t, 403, 'PATCH', sectionUrl, { token: p.editor.token, body: { title: 'No' } });
      await expectStatus(t, 403, 'DELETE', sectionUrl, { token: p.editor.token });
      await expectStatus(t, 403, 'POST', `${sectionUrl}/move`, { token: p.editor.token });
      for (const token of [p.guest.token, p.stranger.token]) {
        await expectStatus(t, 404, 'GET', url(site.id, '/sections'), { token });
        await expectStatus(t, 404, 'POST', url(site.id, '/sections'), { token, body: { spaceId: api.id } });
        await expectStatus(t, 404, 'PATCH', sectionUrl, { token, body: { title: 'No' } });
        await expectStatus(t, 404, 'DELETE', sectionUrl, { token });
        await expectStatus(t, 404, 'POST', `${sectionUrl}/move`, { token });
      }
      await expectStatus(t, 404, 'PATCH', url(site.id, '/sections/nope'), { token: admin, body: { title: 'No' } });
      await expectStatus(t, 404, 'GET', url('nope', '/sections'), { token: admin });
      await expectStatus(t, 404, 'DELETE', url('nope', `/sections/${section.id}`), { token: admin });
      await expectStatus(t, 401, 'GET', url(site.id, '/sections'));
      expect(outline(await structureOf(site.id))).toEqual([[`section:${section.id}*`, [`space:${section.siteSpaces[0].id}*`]]]);
    });
  });

  describe('defaults and lists', () => {
    it('defaultSiteSection and defaultSiteSpace (updateSiteById) choose the default section and the default site space in it', async () => {
      const site = await createSite(t, org.id, admin, { title: 'Default choices', spaces: [guide.id, api.id] });
      const other = await addSection(site.id, { spaceId: manual.id });
      const [gathered] = (await structureOf(site.id)).structure;
      await expectBadRequest(t, 'PATCH', url(site.id), admin, { defaultSiteSpace: other.siteSpaces[0].id }, /^defaultSiteSpace: no site space ".*" in the default section of this site$/);
      await expectStatus(t, 200, 'PATCH', url(site.id), { token: p.creator.token, body: { defaultSiteSpace: gathered.siteSpaces[1].id } });
      expect(outline(await structureOf(site.id))).toEqual([
        [`section:${gathered.id}*`, [`space:${gathered.siteSpaces[0].id}`, `space:${gathered.siteSpaces[1].id}*`]],
        [`section:${other.id}`, [`space:${other.siteSpaces[0].id}*`]],
      ]);
      await expectStatus(t, 200, 'PATCH', url(site.id), { token: admin, body: { defaultSiteSection: other.id } });
      const after = await structureOf(site.id);
      expect(outline(after)).toEqual([
        [`section:${gathered.id}`, [`space:${gathered.siteSpaces[0].id}`, `space:${gathered.siteSpaces[1].id}*`]],
        [`section:${other.id}*`, [`space:${other.siteSpaces[0].id}*`]],
      ]);
      // The default section is served at the site's own address, the others one segment down.
      expect(after.structure[1].urls.published).toBe(site.urls.published);
      expect(after.structure[0].urls.published).toBe(`${site.urls.published}/${gathered.path}`);
      expect(after.structure[0].siteSpaces[0].urls.published).toBe(`${site.urls.published}/${gathered.path}/guide`);
      // Now the default section is `other`: defaultSiteSpace looks there.
      await expectBadRequest(t, 'PATCH', url(site.id), admin, { defaultSiteSpace: gathered.siteSpaces[0].id }, /^defaultSiteSpace: /);
    });

    it('every list refuses a bad page token or limit naming the parameter', async () => {
      const site = await createSite(t, org.id, admin, { title: 'Lists', spaces: [guide.id] });
      for (const path of ['/sections', '/section-groups', '/site-spaces', '/share-links']) {
        await expectBadRequest(t, 'GET', `${url(site.id, path)}?page=forged.token`, admin, undefined, /^page: is not a valid page token/);
        await expectBadRequest(t, 'GET', `${url(site.id, path)}?limit=1001`, admin, undefined, /^limit: /);
        await expectBadRequest(t, 'GET', `${url(site.id, path)}?limit=many`, admin, undefined, /^limit: /);
      }
      // A token of one list is refused by another.
      const page = (await expectStatus(t, 200, 'GET', url(site.id, '/site-spaces'), { token: admin, query: { limit: 0 } })).next.page;
      await expectBadRequest(t, 'GET', `${url(site.id, '/sections')}?page=${page}`, admin, undefined, /^page: /);
    });
  });

  describe('section groups', () => {
    it('groups sections: creation with sections, list, update, add and remove a section, deletion puts the sections back in place', async () => {
      const site = await createSite(t, org.id, admin, { title: 'Grouped' });
      const [a, b, c, d] = [
        await addSection(site.id, { spaceId: guide.id, title: 'Alpha' }),
        await addSection(site.id, { spaceId: api.id, title: 'Bravo' }),
        await addSection(site.id, { spaceId: manual.id, title: 'Charlie' }),
        await addSection(site.id, { spaceId: guide.id, title: 'Delta' }),
      ];
      const sp = (s: any) => `space:${s.siteSpaces[0].id}*`;
      const res = await t.request('POST', url(site.id, '/section-groups'), { token: p.creator.token, body: { title: 'Reference', icon: 'books', sections: [c.id, b.id] } });
      expect(res.status).toBe(201);
      const group = res.body;
      expect(res.headers.location).toBe(`http://quire.test${url(site.id, `/section-groups/${group.id}`)}`);
      expect(group).toMatchObject({ object: 'site-section-group', title: 'Reference', icon: 'books' });
      expect(group.sections.map((s: any) => [s.id, s.sectionGroup])).toEqual([
        [c.id, group.id],
        [b.id, group.id],
      ]);
      expect(outline(await structureOf(site.id))).toEqual([
        [`section:${a.id}*`, [sp(a)]],
        [`section:${d.id}`, [sp(d)]],
        [`group:${group.id}`, [[`section:${c.id}`, [sp(c)]], [`section:${b.id}`, [sp(b)]]]],
      ]);
      // The sections list follows the structure.
      expect((await everyItem(url(site.id, '/sections'))).map((s: any) => s.id)).toEqual([a.id, d.id, c.id, b.id]);

      const renamed = await expectStatus(t, 200, 'PATCH', url(site.id, `/section-groups/${group.id}`), { token: admin, body: { title: 'APIs', icon: null } });
      expect(renamed.title).toBe('APIs');
      expect(renamed.icon).toBeUndefined();
      expect(await everyItem(url(site.id, '/section-groups'))).toEqual([renamed]);

      const added = await expectStatus(t, 201, 'POST', url(site.id, `/section-groups/${group.id}/sections`), { token: admin, body: { sectionId: a.id } });
      expect(added.sections.map((s: any) => s.id)).toEqual([c.id, b.id, a.id]);
      const again = await expectStatus(t, 201, 'POST', url(site.id, `/section-groups/${group.id}/sections`), { token: admin, body: { sectionId: a.id } });
      expect(again).toEqual(added);

      await expectStatus(t, 205, 'DELETE', url(site.id, `/section-groups/${group.id}/sections/${b.id}`), { token: admin });
      await expectStatus(t, 204, 'DELETE', url(site.id, `/section-groups/${group.id}/sections/${b.id}`), { token: admin });
      await expectStatus(t, 204, 'DELETE', url(site.id, `/section-groups/${group.id}/sections/nope`), { token: admin });
      expect(outline(await structureOf(site.id))).toEqual([
        [`section:${d.id}`, [sp(d)]],
        [`group:${group.id}`, [[`section:${c.id}`, [sp(c)]], [`section:${a.id}*`, [sp(a)]]]],
        [`section:${b.id}`, [sp(b)]],
      ]);

      await expectStatus(t, 205, 'DELETE', url(site.id, `/section-groups/${group.id}`), { token: p.creator.token });
      await expectStatus(t, 204, 'DELETE', url(site.id, `/section-groups/${group.id}`), { token: admin });
      const after = await structureOf(site.id);
      expect(outline(after)).toEqual([
        [`section:${d.id}`, [sp(d)]],
        [`section:${c.id}`, [sp(c)]],
        [`section:${a.id}*`, [sp(a)]],
        [`section:${b.id}`, [sp(b)]],
      ]);
      expect(after.structure.every((s: any) => s.sectionGroup === undefined)).toBe(true);
      expect(await everyItem(url(site.id, '/section-groups'))).toEqual([]);
    });

    it('moves a group among the top-level items (deprecated moveSiteSectionGroup)', async () => {
      const site = await createSite(t, org.id, admin, { title: 'Moving groups' });
      const a = await addSection(site.id, { spaceId: guide.id });
      const b = await addSection(site.id, { spaceId: api.id });
      const inner = await addSection(site.id, { spaceId: manual.id });
      const group = await addGroup(site.id, { title: 'Group', sections: [inner.id] });
      const top = async () => (await structureOf(site.id)).structure.map((s: any) => s.id);
      expect(await top()).toEqual([a.id, b.id, group.id]);
      const moved = await expectStatus(t, 200, 'POST', url(site.id, `/section-groups/${group.id}/move`), { token: admin, body: { position: { before: { type: 'site-section', id: a.id } } } });
      expect(moved.id).toBe(group.id);
      expect(await top()).toEqual([group.id, a.id, b.id]);
      await expectStatus(t, 200, 'POST', url(site.id, `/section-groups/${group.id}/move`), { token: admin, body: { position: { after: { type: 'site-section', id: a.id } } } });
      expect(await top()).toEqual([a.id, group.id, b.id]);
      await expectStatus(t, 200, 'POST', url(site.id, `/section-groups/${group.id}/move`), { token: admin });
      expect(await top()).toEqual([a.id, b.id, group.id]);
      await expectBadRequest(t, 'POST', url(site.id, `/section-groups/${group.id}/move`), admin, { position: { before: { type: 'site-section', id: inner.id } } }, /^position.before: site-section ".*" is not a sibling/);
      await expectBadRequest(t, 'POST', url(site.id, `/section-groups/${group.id}/move`), admin, { position: { before: { type: 'site-space', id: a.id } } }, /^position.before.type: /);
      await expectStatus(t, 404, 'POST', url(site.id, '/section-groups/nope/move'), { token: admin });
      expect(await top()).toEqual([a.id, b.id, group.id]);
    });

    it('refuses bad input naming the field; 403 for members without the create role; 404 for guests, non-members and unknown ids', async () => {
      const site = await createSite(t, org.id, admin, { title: 'Strict groups' });
      const section = await addSection(site.id, { spaceId: guide.id });
      const group = await addGroup(site.id, { title: 'Group' });
      const groupUrl = url(site.id, `/section-groups/${group.id}`);
      const before = await structureOf(site.id);
      const cases: Array<[string, string, unknown, RegExp]> = [
        ['POST', url(site.id, '/section-groups'), {}, /^title: is required$/],
        ['POST', url(site.id, '/section-groups'), { title: '' }, /^title: must be at least 1 character$/],
        ['POST', url(site.id, '/section-groups'), { title: 'x'.repeat(101) }, /^title: must be at most 100 characters$/],
        ['POST', url(site.id, '/section-groups'), { title: 'G', sections: ['nope'] }, /^sections\[0\]: no section "nope" in this site$/],
        ['POST', url(site.id, '/section-groups'), { title: 'G', sections: [section.id, section.id] }, /^sections\[1\]: section ".*" is listed twice$/],
        ['POST', url(site.id, '/section-groups'), { title: 'G', icon: 'i'.repeat(51) }, /^icon: /],
        ['PATCH', groupUrl, {}, /must have at least 1 member/],
        ['PATCH', groupUrl, { title: '' }, /^title: /],
        ['POST', `${groupUrl}/sections`, {}, /^sectionId: is required$/],
        ['POST', `${groupUrl}/sections`, { sectionId: 'nope' }, /^sectionId: no section "nope" in this site$/],
      ];
      for (const [method, path, body, message] of cases) await expectBadRequest(t, method, path, admin, body, message);
      expect(await structureOf(site.id)).toEqual(before);

      expect((await expectStatus(t, 200, 'GET', url(site.id, '/section-groups'), { token: p.editor.token })).items).toHaveLength(1);
      const writes: Array<[string, string, unknown]> = [
        ['POST', url(site.id, '/section-groups'), { title: 'No' }],
        ['PATCH', groupUrl, { title: 'No' }],
        ['DELETE', groupUrl, undefined],
        ['POST', `${groupUrl}/sections`, { sectionId: section.id }],
        ['DELETE', `${groupUrl}/sections/${section.id}`, undefined],
        ['POST', `${groupUrl}/move`, undefined],
      ];
      for (const [method, path, body] of writes) {
        await expectStatus(t, 403, method, path, { token: p.editor.token, body });
        for (const token of [p.guest.token, p.stranger.token]) await expectStatus(t, 404, method, path, { token, body });
        await expectStatus(t, 401, method, path, { body });
      }
      for (const token of [p.guest.token, p.stranger.token]) await expectStatus(t, 404, 'GET', url(site.id, '/section-groups'), { token });
      await expectStatus(t, 404, 'PATCH', url(site.id, '/section-groups/nope'), { token: admin, body: { title: 'No' } });
      await expectStatus(t, 404, 'POST', url(site.id, '/section-groups/nope/sections'), { token: admin, body: { sectionId: section.id } });
      await expectStatus(t, 404, 'DELETE', url(site.id, `/section-groups/nope/sections/${section.id}`), { token: admin });
      await expectStatus(t, 404, 'GET', url('nope', '/section-groups'), { token: admin });
      expect(await structureOf(site.id)).toEqual(before);
    });
  });

  describe('site spaces', () => {
    it('adds a space at the root, in the default section, or in a given section; the first of each is its default', async () => {
      const site = await createSite(t, org.id, admin, { title: 'Spaces' });
      const res = await t.request('POST', url(site.id, '/site-spaces'), { token: p.creator.token, body: { spaceId: guide.id } });
      expect(res.status).toBe(201);
      const first = res.body;
      expect(res.headers.location).toBe(`http://quire.test${url(site.id, `/site-spaces/${first.id}`)}`);
      expect(first).toMatchObject({ object: 'site-space', path: 'guide', title: 'Guide', default: true, space: { id: guide.id } });
      expect(first.section).toBeUndefined();
      const twice = await addSiteSpace(site.id, { spaceId: guide.id });
      expect(twice).toMatchObject({ path: 'guide-2', default: false });
      expect(outline(await structureOf(site.id))).toEqual([`space:${first.id}*`, `space:${twice.id}`]);

      const section = await addSection(site.id, { spaceId: api.id });
      const [gathered] = (await structureOf(site.id)).structure;
      const intoDefault = await addSiteSpace(site.id, { spaceId: manual.id });
      expect(intoDefault.section).toBe(gathered.id);
      const intoSection = await addSiteSpace(site.id, { spaceId: manual.id, sectionId: section.id });
      expect(intoSection).toMatchObject({ section: section.id, default: false, path: 'manual' });
      expect(outline(await structureOf(site.id))).toEqual([
        [`section:${gathered.id}*`, [`space:${first.id}*`, `space:${twice.id}`, `space:${intoDefault.id}`]],
        [`section:${section.id}`, [`space:${section.siteSpaces[0].id}*`, `space:${intoSection.id}`]],
      ]);

      const all = await everyItem(url(site.id, '/site-spaces'));
      expect(all.map((s: any) => s.id)).toEqual([first.id, twice.id, intoDefault.id, section.siteSpaces[0].id, intoSection.id]);
      expect((await everyItem(url(site.id, '/site-spaces'), { default: true })).map((s: any) => s.id)).toEqual([first.id, section.siteSpaces[0].id]);
      expect((await everyItem(url(site.id, '/site-spaces'), { default: false })).map((s: any) => s.id)).toEqual([twice.id, intoDefault.id, intoSection.id]);
      expect((await expectStatus(t, 200, 'GET', url(site.id), { token: admin })).siteSpaces).toBe(5);
    });

    it('updates a site space: path, condition (kept when absent, removed by null), the space it points to', async () => {
      const site = await createSite(t, org.id, admin, { title: 'Updating spaces', spaces: [guide.id, api.id] });
      await expectStatus(t, 200, 'PUT', url(site.id, '/adaptive-schema'), { token: admin, body: { jsonSchema: BETA_SCHEMA } });
      const [one, two] = (await structureOf(site.id)).structure;
      const siteSpaceUrl = url(site.id, `/site-spaces/${two.id}`);
      const updated = await expectStatus(t, 200, 'PATCH', siteSpaceUrl, { token: p.creator.token, body: { path: 'v2', condition: 'visitor.claims.beta' } });
      expect(updated).toMatchObject({ path: 'v2', condition: 'visitor.claims.beta', space: { id: api.id } });
      expect(updated.urls.published).toBe(`${site.urls.published}/v2`);
      const pointed = await expectStatus(t, 200, 'PATCH', siteSpaceUrl, { token: admin, body: { spaceId: manual.id } });
      expect(pointed).toMatchObject({ path: 'v2', condition: 'visitor.claims.beta', title: 'Manual', space: { id: manual.id } });
      const cleared = await expectStatus(t, 200, 'PATCH', siteSpaceUrl, { token: admin, body: { condition: null } });
      expect(cleared.condition).toBeUndefined();

      const before = await structureOf(site.id);
      const cases: Array<[unknown, RegExp]> = [
        [{}, /must have at least 1 member/],
        [{ path: '' }, /^path: must be at least 1 character$/],
        [{ path: 'a b' }, /^path: must be one URL path segment/],
        [{ condition: '' }, /^condition: must be at least 1 character$/],
        [{ condition: 'visitor.claims.nobody' }, /^condition: "visitor.claims.nobody" at 1 is not a claim/],
        [{ condition: 'visitor.claims.beta ||| x' }, /^condition: /],
        [{ spaceId: 'nope' }, /^spaceId: no space "nope" in this organization/],
        [{ spaceId: 7 }, /^spaceId: must be string/],
      ];
      for (const [body, message] of cases) await expectBadRequest(t, 'PATCH', siteSpaceUrl, admin, body, message);
      const clash = await expectStatus(t, 409, 'PATCH', siteSpaceUrl, { token: admin, body: { path: one.path } });
      expect(clash.error.message).toMatch(/^path: another site space at the root of this site already uses "guide"$/);
      expect(await structureOf(site.id)).toEqual(before);

      const addCases: Array<[unknown, RegExp]> = [
        [{}, /^spaceId: is required$/],
        [{ spaceId: 'nope' }, /^spaceId: no space "nope"/],
        [{ spaceId: guide.id, sectionId: 'nope' }, /^sectionId: no section "nope" in this site$/],
      ];
      for (const [body, message] of addCases) await expectBadRequest(t, 'POST', url(site.id, '/site-spaces'), admin, body, message);
      expect(await structureOf(site.id)).toEqual(before);
    });

    it('the same path is fine in another section', async () => {
      const site = await createSite(t, org.id, admin, { title: 'Paths' });
      const s1 = await addSection(site.id, { spaceId: guide.id });
      const s2 = await addSection(site.id, { spaceId: api.id });
      const moved = await expectStatus(t, 200, 'PATCH', url(site.id, `/site-spaces/${s2.siteSpaces[0].id}`), { token: admin, body: { path: s1.siteSpaces[0].path } });
      expect(moved.path).toBe('guide');
    });

    it('removes a site space (205, then 204); the default passes to the first remaining one', async () => {
      const site = await createSite(t, org.id, admin, { title: 'Removing', spaces: [guide.id, api.id, manual.id] });
      const [a, b, c] = (await structureOf(site.id)).structure;
      await expectStatus(t, 205, 'DELETE', url(site.id, `/site-spaces/${a.id}`), { token: p.creator.token });
      await expectStatus(t, 204, 'DELETE', url(site.id, `/site-spaces/${a.id}`), { token: admin });
      expect(outline(await structureOf(site.id))).toEqual([`space:${b.id}*`, `space:${c.id}`]);
      expect((await structureOf(site.id)).structure[0].urls.published).toBe(site.urls.published);
      expect((await expectStatus(t, 200, 'GET', url(site.id), { token: admin })).siteSpaces).toBe(2);
    });

    it('moves a site space among the site spaces of its section (deprecated moveSiteSpace)', async () => {
      const site = await createSite(t, org.id, admin, { title: 'Moving spaces', spaces: [guide.id, api.id, manual.id] });
      const other = await addSection(site.id, { spaceId: guide.id });
      const [gathered] = (await structureOf(site.id)).structure;
      const [a, b, c] = gathered.siteSpaces;
      const ids = async () => (await structureOf(site.id)).structure[0].siteSpaces.map((s: any) => s.id);
      const move = (id: string, body?: unknown) => expectStatus(t, 200, 'POST', url(site.id, `/site-spaces/${id}/move`), { token: admin, body });
      expect((await move(c.id, { position: { before: { type: 'site-space', siteSpace: a.id } } })).id).toBe(c.id);
      expect(await ids()).toEqual([c.id, a.id, b.id]);
      await move(c.id, { position: { after: { type: 'site-space', siteSpace: b.id } } });
      expect(await ids()).toEqual([a.id, b.id, c.id]);
      await move(a.id);
      expect(await ids()).toEqual([b.id, c.id, a.id]);
      await expectBadRequest(t, 'POST', url(site.id, `/site-spaces/${a.id}/move`), admin, { position: { before: { type: 'site-space', siteSpace: other.siteSpaces[0].id } } }, /^position.before: site-space ".*" is not a sibling/);
      await expectStatus(t, 404, 'POST', url(site.id, '/site-spaces/nope/move'), { token: admin });
      expect(await ids()).toEqual([b.id, c.id, a.id]);
    });

    it('lets members read and only creators and admins change; 404 for guests, non-members and unknown ids', async () => {
      const site = await createSite(t, org.id, admin, { title: 'Guarded spaces', spaces: [guide.id] });
      const [siteSpace] = (await structureOf(site.id)).structure;
      const siteSpaceUrl = url(site.id, `/site-spaces/${siteSpace.id}`);
      expect((await expectStatus(t, 200, 'GET', url(site.id, '/site-spaces'), { token: p.editor.token })).items).toHaveLength(1);
      const writes: Array<[string, string, unknown]> = [
        ['POST', url(site.id, '/site-spaces'), { spaceId: api.id }],
        ['PATCH', siteSpaceUrl, { path: 'no' }],
        ['DELETE', siteSpaceUrl, undefined],
        ['POST', `${siteSpaceUrl}/move`, undefined],
      ];
      for (const [method, path, body] of writes) {
        await expectStatus(t, 403, method, path, { token: p.editor.token, body });
        for (const token of [p.guest.token, p.stranger.token]) await expectStatus(t, 404, method, path, { token, body });
        await expectStatus(t, 401, method, path, { body });
      }
      await expectStatus(t, 404, 'PATCH', url(site.id, '/site-spaces/nope'), { token: admin, body: { path: 'x' } });
      await expectStatus(t, 404, 'POST', url('nope', '/site-spaces'), { token: admin, body: { spaceId: api.id } });
      await expectStatus(t, 404, 'DELETE', url('nope', `/site-spaces/${siteSpace.id}`), { token: admin });
      await expectBadRequest(t, 'GET', `${url(site.id, '/site-spaces')}?default=perhaps`, admin, undefined, /^default: /);
      expect(outline(await structureOf(site.id))).toEqual([`space:${siteSpace.id}*`]);
    });
  });

  describe('sortSiteStructure and the deprecated moves reorder siblings and nothing else', () => {
    /** A deep copy of `structure` in which `edit` reorders one list of siblings. */
    function reordered(structure: any, edit: (copy: any) => void): any {
      const copy = structuredClone(structure);
      edit(copy);
      return copy;
    }
    const moveIn = <T>(list: T[], from: number, to: number) => list.splice(to, 0, ...list.splice(from, 1));

    it('sorts site spaces, sections, sections in a group and groups; the whole structure is otherwise unchanged', async () => {
      const site = await createSite(t, org.id, admin, { title: 'Sorted', spaces: [guide.id, api.id, manual.id] });
      await expectStatus(t, 200, 'PUT', url(site.id, '/adaptive-schema'), { token: admin, body: { jsonSchema: BETA_SCHEMA } });
      const b = await addSection(site.id, { spaceId: api.id, title: 'Bravo' });
      const c = await addSection(site.id, { spaceId: manual.id, title: 'Charlie' });
      const d = await addSection(site.id, { spaceId: guide.id, title: 'Delta' });
      const group = await addGroup(site.id, { title: 'Group', sections: [c.id, d.id] });
      await expectStatus(t, 200, 'PATCH', url(site.id, `/sections/${b.id}`), { token: admin, body: { condition: 'visitor.claims.staff' } });
      const start = await structureOf(site.id);
      const [a] = start.structure;
      await expectStatus(t, 200, 'PATCH', url(site.id, `/site-spaces/${a.siteSpaces[1].id}`), { token: admin, body: { condition: '!visitor.claims.beta' } });
      let before = await structureOf(site.id);
      expect(outline(before)).toEqual([
        [`section:${a.id}*`, [`space:${a.siteSpaces[0].id}*`, `space:${a.siteSpaces[1].id}?!visitor.claims.beta`, `space:${a.siteSpaces[2].id}`]],
        [`section:${b.id}?visitor.claims.staff`, [`space:${b.siteSpaces[0].id}*`]],
        [`group:${group.id}`, [[`section:${c.id}`, [`space:${c.siteSpaces[0].id}*`]], [`section:${d.id}`, [`space:${d.siteSpaces[0].id}*`]]]],
      ]);
      const sort = (body: unknown, token = admin) => expectStatus(t, 200, 'PATCH', url(site.id, '/structure/sort'), { token, body });
      const step = async (body: unknown, edit: (copy: any) => void, answer: (after: any) => any) => {
        const res = await sort(body);
        const after = await structureOf(site.id);
        expect(after).toEqual(reordered(before, edit));
        expect(res).toEqual(answer(after));
        before = after;
      };

      // A site space before the first of its section (the default keeps its flag: it is not a position).
      await step(
        { item: { type: 'site-space', id: a.siteSpaces[2].id }, position: { before: { type: 'site-space', id: a.siteSpaces[0].id } } },
        (copy) => moveIn(copy.structure[0].siteSpaces, 2, 0),
        (after) => after.structure[0].siteSpaces[0],
      );
      // A section after the group.
      await step(
        { item: { type: 'site-section', id: a.id }, position: { after: { type: 'site-section-group', id: group.id } } },
        (copy) => moveIn(copy.structure, 0, 2),
        (after) => after.structure[2],
      );
      // A section inside its group.
      await step(
        { item: { type: 'site-section', id: d.id }, position: { before: { type: 'site-section', id: c.id } } },
        (copy) => moveIn(copy.structure[1].sections, 1, 0),
        (after) => after.structure[1].sections[0],
      );
      // The group first.
      await step(
        { item: { type: 'site-section-group', id: group.id }, position: { before: { type: 'site-section', id: b.id } } },
        (copy) => moveIn(copy.structure, 1, 0),
        (after) => after.structure[0],
      );
      // No anchor: the end of its siblings.
      await step({ item: { type: 'site-section', id: b.id }, position: {} }, (copy) => moveIn(copy.structure, 1, 2), (after) => after.structure[2]);

      // The deprecated moves do the same.
      const siteSpaceMove = await expectStatus(t, 200, 'POST', url(site.id, `/site-spaces/${a.siteSpaces[0].id}/move`), {
        token: admin,
        body: { position: { after: { type: 'site-space', siteSpace: a.siteSpaces[1].id } } },
      });
      let after = await structureOf(site.id);
      expect(after).toEqual(reordered(before, (copy) => moveIn(copy.structure[1].siteSpaces, 1, 2)));
      expect(siteSpaceMove).toEqual(after.structure[1].siteSpaces[2]);
      before = after;
      await expectStatus(t, 200, 'POST', url(site.id, `/sections/${c.id}/move`), { token: admin, body: { position: { before: { type: 'site-section', siteSection: d.id } } } });
      after = await structureOf(site.id);
      expect(after).toEqual(reordered(before, (copy) => moveIn(copy.structure[0].sections, 1, 0)));
      before = after;
      await expectStatus(t, 200, 'POST', url(site.id, `/section-groups/${group.id}/move`), { token: admin, body: { position: { after: { type: 'site-section', id: b.id } } } });
      after = await structureOf(site.id);
      expect(after).toEqual(reordered(before, (copy) => moveIn(copy.structure, 0, 2)));
      before = after;

      // Sorting many times keeps the order it is asked for (positions are split, then renumbered).
      const [x, y, z] = before.structure[0].siteSpaces.map((s: any) => s.id);
      for (let i = 0; i < 60; i++) {
        await sort({ item: { type: 'site-space', id: i % 2 ? y : z }, position: { before: { type: 'site-space', id: x } } });
        await sort({ item: { type: 'site-space', id: x }, position: { before: { type: 'site-space', id: i % 2 ? z : y } } });
      }
      after = await structureOf(site.id);
      expect(after.structure[0].siteSpaces.map((s: any) => s.id)).toEqual([x, z, y]);
      expect(after).toEqual(reordered(before, (copy) => moveIn(copy.structure[0].siteSpaces, 2, 1)));
    });

    it('refuses pointers outside the item\'s siblings (400), unknown items (404), bad bodies, and callers who may not change the site', async () => {
      const site = await createSite(t, org.id, admin, { title: 'Sort guards', spaces: [guide.id, api.id] });
      const other = await addSection(site.id, { spaceId: manual.id });
      const [gathered] = (await structureOf(site.id)).structure;
      const before = await structureOf(site.id);
      const sortUrl = url(site.id, '/structure/sort');
      const item = { type: 'site-space', id: gathered.siteSpaces[1].id };
      const cases: Array<[unknown, RegExp]> = [
        [{ item, position: { before: { type: 'site-space', id: other.siteSpaces[0].id } } }, /^position.before: site-space ".*" is not a sibling of the moved site-space/],
        [{ item, position: { after: { type: 'site-section', id: gathered.id } } }, /^position.after: site-section ".*" is not a sibling/],
        [{ item: { type: 'site-section', id: other.id }, position: { before: { type: 'site-space', id: gathered.siteSpaces[0].id } } }, /^position.before: /],
        [{ item, position: { before: { type: 'site-space', id: item.id } } }, /^position.before: /],
        [{ item }, /^position: is required$/],
        [{ position: {} }, /^item: is required$/],
        [{ item: { type: 'page', id: 'x' }, position: {} }, /^item.type: must be one of: site-space, site-section, site-section-group$/],
        [{ item: { type: 'site-space' }, position: {} }, /^item.id: is required$/],
      ];
      for (const [body, message] of cases) await expectBadRequest(t, 'PATCH', sortUrl, admin, body, message);
      const missing = await expectStatus(t, 404, 'PATCH', sortUrl, { token: admin, body: { item: { type: 'site-section-group', id: 'nope' }, position: {} } });
      expect(missing.error.message).toMatch(/^item: no site-section-group "nope" in this site$/);
      const body = { item, position: {} };
      await expectStatus(t, 403, 'PATCH', sortUrl, { token: p.editor.token, body });
      for (const token of [p.guest.token, p.stranger.token]) await expectStatus(t, 404, 'PATCH', sortUrl, { token, body });
      await expectStatus(t, 404, 'PATCH', url('nope', '/structure/sort'), { token: admin, body });
      await expectStatus(t, 401, 'PATCH', sortUrl, { body });
      expect(await structureOf(site.id)).toEqual(before);
    });
  });
});
