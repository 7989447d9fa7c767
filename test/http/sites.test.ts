import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../src/domain/organizations/organizations.js';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createSite, createSpace, expectBadRequest, expectStatus, sitePeople, siteUrl, type SitePeople } from '../helpers/sites.js';

const UNSIGNED = 'Unsigned claims of the site visitor.';

function claimsSchema(claims: Record<string, string>, unsigned?: Record<string, string>): Record<string, unknown> {
  const properties: Record<string, unknown> = Object.fromEntries(Object.entries(claims).map(([name, description]) => [name, { type: 'boolean', description }]));
  if (unsigned) {
    properties.unsigned = {
      type: 'object',
      description: UNSIGNED,
      properties: Object.fromEntries(Object.entries(unsigned).map(([name, description]) => [name, { type: 'boolean', description }])),
      additionalProperties: false,
    };
  }
  return { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties, additionalProperties: false };
}

describe.each(DATABASE_KINDS)('sites (%s)', (kind) => {
  let t: TestApp;
  let p: SitePeople;
  let org: SitePeople['org'];
  let guide: { id: string; title: string };
  let api: { id: string; title: string };

  beforeAll(async () => {
    t = await startTestApp(kind);
    p = await sitePeople(t);
    org = p.org;
    guide = await createSpace(t, org.id, org.admin.token, 'Guide');
    api = await createSpace(t, org.id, org.admin.token, 'API reference');
  });
  afterAll(async () => t?.close());

  const sitesUrl = () => `/v1/orgs/${org.id}/sites`;

  async function siteCount(): Promise<number> {
    return (await expectStatus(t, 200, 'GET', sitesUrl(), { token: org.admin.token, query: { limit: 1000 } })).items.length;
  }

  describe('POST /orgs/:organizationId/sites (createSite)', () => {
    it('publishes the listed spaces at the root, in order, the first as default', async () => {
      const res = await t.request('POST', sitesUrl(), { token: org.admin.token, body: { title: 'Docs', type: 'premium', visibility: 'public', spaces: [guide.id, api.id] } });
      expect(res.status).toBe(201);
      const site = res.body;
      expect(res.headers.location).toBe(`http://quire.test/v1/orgs/${org.id}/sites/${site.id}`);
      expect(site).toEqual({
        object: 'site',
        id: site.id,
        type: 'premium',
        title: 'Docs',
        visibility: 'public',
        published: true,
        siteSpaces: 2,
        createdAt: site.createdAt,
        adaptiveContent: { enabled: false },
        // Docs for agents are on by default (docs/sites.md, "Agents").
        agentsContext: 'included',
        features: [],
        urls: {
          location: res.headers.location,
          app: `http://quire.test/app/o/${org.id}/sites/${site.id}`,
          published: `http://quire.test/sites/${org.id}/${site.id}`,
        },
      });
      const siteSpaces = await expectStatus(t, 200, 'GET', siteUrl(org.id, site.id, '/site-spaces'), { token: org.admin.token });
      expect(siteSpaces.items.map((s: any) => [s.space.id, s.path, s.title, s.default, s.section])).toEqual([
        [guide.id, 'guide', 'Guide', true, undefined],
        [api.id, 'api-reference', 'API reference', false, undefined],
      ]);
      expect(siteSpaces.items.map((s: any) => s.urls.published)).toEqual([site.urls.published, `${site.urls.published}/api-reference`]);
      expect(await expectStatus(t, 200, 'GET', siteUrl(org.id, site.id), { token: org.admin.token })).toEqual(site);
    });

    it('without a body: an "Untitled site", basic, share-link, unpublished', async () => {
      const res = await t.request('POST', sitesUrl(), { token: org.admin.token });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ title: 'Untitled site', type: 'basic', visibility: 'share-link', published: false, siteSpaces: 0 });
      expect(res.body.urls.published).toBeUndefined();
    });

    it('"empty" and "sample" make a new space for the site', async () => {
      for (const [spaces, pages] of [
        ['empty', ['Fresh']],
        ['sample', ['Fresh', 'Getting started']],
      ] as const) {
        const site = await createSite(t, org.id, p.creator.token, { title: 'Fresh', spaces });
        expect(site.siteSpaces).toBe(1);
        const [siteSpace] = (await expectStatus(t, 200, 'GET', siteUrl(org.id, site.id, '/site-spaces'), { token: org.admin.token })).items;
        expect(siteSpace).toMatchObject({ title: 'Fresh', default: true, path: 'fresh', space: { organization: org.id, title: 'Fresh' } });
        const content = await expectStatus(t, 200, 'GET', `/v1/spaces/${siteSpace.space.id}/content/pages`, { token: org.admin.token });
        expect(content.pages.map((page: any) => page.title)).toEqual(pages);
      }
    });

    it('refuses bad input naming the field, and creates nothing', async () => {
      const before = await siteCount();
      const other = await t.organization('Other');
      const foreign = await createSpace(t, other.id, other.admin.token, 'Foreign');
      const gone = await createSpace(t, org.id, org.admin.token, 'Gone');
      await expectStatus(t, 205, 'DELETE', `/v1/spaces/${gone.id}`, { token: org.admin.token });
      const cases: Array<[unknown, RegExp]> = [
        [{ title: 'A' }, /^title: must be at least 2 characters$/],
        [{ title: 'x'.repeat(129) }, /^title: must be at most 128 characters$/],
        [{ title: 7 }, /^title: must be string/],
        [{ type: 'free' }, /^type: must be one of: basic, premium/],
        [{ visibility: 'private' }, /^visibility: must be one of: public, unlisted, share-link, visitor-auth$/],
        [{ spaces: 'other' }, /^spaces: /],
        [{ spaces: [5] }, /^spaces\[0\]: must be string/],
        [{ spaces: ['unknown'] }, /^spaces\[0\]: no space "unknown" in this organization/],
        [{ spaces: [guide.id, guide.id] }, /^spaces\[1\]: space ".*" is listed twice$/],
        [{ spaces: [guide.id, foreign.id] }, /^spaces\[1\]: no space/],
        [{ spaces: [gone.id] }, /^spaces\[0\]: no space/],
        [[], /^body: must be object/],
      ];
      for (const [body, message] of cases) await expectBadRequest(t, 'POST', sitesUrl(), org.admin.token, body, message);
      const malformed = await t.request('POST', sitesUrl(), { token: org.admin.token, rawBody: '{"title": ' });
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.message).toMatch(/^body: is not valid JSON/);
      expect(await siteCount()).toBe(before);
    });

    it('needs the create role: 403 for edit members and guests, 404 for non-members and unknown organizations, 401 without a token', async () => {
      const before = await siteCount();
      for (const user of [p.editor, p.guest]) await expectStatus(t, 403, 'POST', sitesUrl(), { token: user.token, body: { title: 'No' } });
      await expectStatus(t, 404, 'POST', sitesUrl(), { token: p.stranger.token, body: { title: 'No' } });
      await expectStatus(t, 404, 'POST', '/v1/orgs/unknown/sites', { token: org.admin.token, body: { title: 'No' } });
      await expectStatus(t, 401, 'POST', sitesUrl(), { body: { title: 'No' } });
      expect(await siteCount()).toBe(before);
      await createSite(t, org.id, p.creator.token, { title: 'By a creator' });
    });
  });

  describe('GET /orgs/:organizationId/sites (listSites)', () => {
    it('lists oldest first, page by page, with the title, published, space and type filters', async () => {
      const own = await t.organization('Lister');
      const space = await createSpace(t, own.id, own.admin.token, 'Manual');
      const a = await createSite(t, own.id, own.admin.token, { title: 'Alpha Docs', spaces: [space.id] });
      const b = await createSite(t, own.id, own.admin.token, { title: 'Beta' });
      const c = await createSite(t, own.id, own.admin.token, { title: 'Gamma docs', type: 'premium' });
      const list = async (query: Record<string, any>) =>
        (await expectStatus(t, 200, 'GET', `/v1/orgs/${own.id}/sites`, { token: own.admin.token, query })).items.map((s: any) => s.id);
      expect(await list({})).toEqual([a.id, b.id, c.id]);
      expect(await list({ title: 'DOCS' })).toEqual([a.id, c.id]);
      expect(await list({ published: true })).toEqual([a.id]);
      expect(await list({ published: false })).toEqual([b.id, c.id]);
      expect(await list({ space: space.id })).toEqual([a.id]);
      expect(await list({ type: 'premium' })).toEqual([c.id]);
      expect(await list({ type: ['basic', 'premium'] })).toEqual([a.id, b.id, c.id]);

      const seen: string[] = [];
      let page: string | undefined;
      do {
        const res = await expectStatus(t, 200, 'GET', `/v1/orgs/${own.id}/sites`, { token: own.admin.token, query: { limit: 2, page } });
        expect(res.count).toBe(res.items.length);
        seen.push(...res.items.map((s: any) => s.id));
        page = res.next?.page;
      } while (page);
      expect(seen).toEqual([a.id, b.id, c.id]);
      await expectBadRequest(t, 'GET', `/v1/orgs/${own.id}/sites?page=tampered.x`, own.admin.token, undefined, /^page: /);
      await expectBadRequest(t, 'GET', `/v1/orgs/${own.id}/sites?type=free`, own.admin.token, undefined, /^type/);
      await expectBadRequest(t, 'GET', `/v1/orgs/${own.id}/sites?published=maybe`, own.admin.token, undefined, /^published: /);
    });

    it('is readable by members with a role; 403 for guests, 404 for non-members, 401 without a token', async () => {
      expect((await expectStatus(t, 200, 'GET', sitesUrl(), { token: p.editor.token })).items.length).toBeGreaterThan(0);
      await expectStatus(t, 403, 'GET', sitesUrl(), { token: p.guest.token });
      await expectStatus(t, 404, 'GET', sitesUrl(), { token: p.stranger.token });
      await expectStatus(t, 401, 'GET', sitesUrl());
    });
  });

  describe('GET /orgs/:organizationId/sites/:siteId (getSiteById)', () => {
    it('answers the site to members; 404 for guests, non-members, unknown ids and sites of another organization', async () => {
      const site = await createSite(t, org.id, org.admin.token, { title: 'Readable', spaces: [guide.id] });
      expect(await expectStatus(t, 200, 'GET', siteUrl(org.id, site.id), { token: p.editor.token })).toEqual(site);
      for (const token of [p.guest.token, p.stranger.token]) await expectStatus(t, 404, 'GET', siteUrl(org.id, site.id), { token });
      const missing = await expectStatus(t, 404, 'GET', siteUrl(org.id, 'unknown'), { token: org.admin.token });
      expect(missing.error.message).toMatch(/^siteId: /);
      const other = await t.organization('Another');
      await expectStatus(t, 404, 'GET', siteUrl(other.id, site.id), { token: other.admin.token });
      await expectStatus(t, 401, 'GET', siteUrl(org.id, site.id));
    });
  });

  describe('PATCH /orgs/:organizationId/sites/:siteId (updateSiteById)', () => {
    it('updates the settings; basename and proxy shape the published URL; null removes the proxy', async () => {
      const site = await createSite(t, org.id, org.admin.token, { title: 'Settings', spaces: [guide.id, api.id] });
      const url = siteUrl(org.id, site.id);
      const updated = await expectStatus(t, 200, 'PATCH', url, {
        token: p.creator.token,
        body: { title: 'Settled', visibility: 'unlisted', basename: `settled-${kind}`, adaptiveContent: { enabled: true }, agentsContext: 'excluded' },
      });
      expect(updated).toMatchObject({ title: 'Settled', visibility: 'unlisted', basename: `settled-${kind}`, adaptiveContent: { enabled: true }, agentsContext: 'excluded' });
      expect(updated.urls.published).toBe(`http://quire.test/sites/${org.id}/settled-${kind}`);
      const proxied = await expectStatus(t, 200, 'PATCH', url, { token: org.admin.token, body: { proxy: 'company.example/docs' } });
      expect(proxied.proxy).toEqual({ origin: 'company.example/docs', target: `http://quire.test/sites/${org.id}/settled-${kind}` });
      expect(proxied.urls.published).toBe('https://company.example/docs');
      const unproxied = await expectStatus(t, 200, 'PATCH', url, { token: org.admin.token, body: { proxy: null } });
      expect(unproxied.proxy).toBeUndefined();
      expect(unproxied.title).toBe('Settled');
      expect(await expectStatus(t, 200, 'GET', url, { token: org.admin.token })).toEqual(unproxied);
    });

    it('defaultSiteSpace chooses the default at the root of a site without sections', async () => {
      const site = await createSite(t, org.id, org.admin.token, { title: 'Defaults', spaces: [guide.id, api.id] });
      const before = (await expectStatus(t, 200, 'GET', siteUrl(org.id, site.id, '/site-spaces'), { token: org.admin.token })).items;
      await expectStatus(t, 200, 'PATCH', siteUrl(org.id, site.id), { token: org.admin.token, body: { defaultSiteSpace: before[1].id } });
      const after = (await expectStatus(t, 200, 'GET', siteUrl(org.id, site.id, '/site-spaces'), { token: org.admin.token })).items;
      expect(after.map((s: any) => [s.id, s.default])).toEqual([
        [before[0].id, false],
        [before[1].id, true],
      ]);
      expect(after[1].urls.published).toBe(site.urls.published);
      expect(after[0].urls.published).toBe(`${site.urls.published}/guide`);
    });

    it('refuses a basename another site of the organization uses (409)', async () => {
      const first = await createSite(t, org.id, org.admin.token, { title: 'First' });
      const second = await createSite(t, org.id, org.admin.token, { title: 'Second' });
      await expectStatus(t, 200, 'PATCH', siteUrl(org.id, first.id), { token: org.admin.token, body: { basename: `taken-${kind}` } });
      const clash = await expectStatus(t, 409, 'PATCH', siteUrl(org.id, second.id), { token: org.admin.token, body: { basename: `taken-${kind}` } });
      expect(clash.error.message).toMatch(/^basename: /);
    });

    it('refuses bad input naming the field, and changes nothing', async () => {
      const site = await createSite(t, org.id, org.admin.token, { title: 'Strict', spaces: [guide.id] });
      const url = siteUrl(org.id, site.id);
      const cases: Array<[unknown, RegExp]> = [
        [{}, /must have at least 1 member/],
        [{ title: 'A' }, /^title: must be at least 2 characters$/],
        [{ visibility: 'private' }, /^visibility: must be one of/],
        [{ basename: '' }, /^basename: must be at least 1 character$/],
        [{ basename: 'a/b' }, /^basename: must be one URL path segment/],
        [{ adaptiveContent: {} }, /^adaptiveContent.enabled: is required$/],
        [{ agentsContext: 'maybe' }, /^agentsContext: must be one of: included, excluded$/],
        [{ proxy: 'not a proxy' }, /^proxy: /],
        [{ proxy: 'company.example' }, /^proxy: /],
        [{ defaultSiteSpace: 'nope' }, /^defaultSiteSpace: no site space "nope" at the root of this site$/],
        [{ defaultSiteSection: 'nope' }, /^defaultSiteSection: no section "nope" in this site$/],
        [{ title: 'Fine', defaultSiteSection: 'nope' }, /^defaultSiteSection: /],
      ];
      for (const [body, message] of cases) await expectBadRequest(t, 'PATCH', url, org.admin.token, body, message);
      expect(await expectStatus(t, 200, 'GET', url, { token: org.admin.token })).toEqual(site);
    });

    it('is 403 for members without the create role, 404 for guests, non-members and unknown sites', async () => {
      const site = await createSite(t, org.id, org.admin.token, { title: 'Guarded' });
      await expectStatus(t, 403, 'PATCH', siteUrl(org.id, site.id), { token: p.editor.token, body: { title: 'No' } });
      for (const token of [p.guest.token, p.stranger.token]) await expectStatus(t, 404, 'PATCH', siteUrl(org.id, site.id), { token, body: { title: 'No' } });
      await expectStatus(t, 404, 'PATCH', siteUrl(org.id, 'unknown'), { token: org.admin.token, body: { title: 'No' } });
      await expectStatus(t, 401, 'PATCH', siteUrl(org.id, site.id), { body: { title: 'No' } });
      expect((await expectStatus(t, 200, 'GET', siteUrl(org.id, site.id), { token: org.admin.token })).title).toBe('Guarded');
    });
  });

  describe('DELETE /orgs/:organizationId/sites/:siteId (deleteSiteById)', () => {
    it('deletes the site and its structure (205), then answers 204', async () => {
      const site = await createSite(t, org.id, p.creator.token, { title: 'Doomed', spaces: [guide.id] });
      await expectStatus(t, 403, 'DELETE', siteUrl(org.id, site.id), { token: p.editor.token });
      for (const token of [p.guest.token, p.stranger.token]) await expectStatus(t, 404, 'DELETE', siteUrl(org.id, site.id), { token });
      await expectStatus(t, 404, 'DELETE', siteUrl('unknown', site.id), { token: org.admin.token });
      await expectStatus(t, 401, 'DELETE', siteUrl(org.id, site.id));
      await expectStatus(t, 205, 'DELETE', siteUrl(org.id, site.id), { token: p.creator.token });
      await expectStatus(t, 404, 'GET', siteUrl(org.id, site.id), { token: org.admin.token });
      await expectStatus(t, 404, 'GET', siteUrl(org.id, site.id, '/site-spaces'), { token: org.admin.token });
      expect(await t.container.ctx.db.selectFrom('site_spaces').select('id').where('site_id', '=', site.id).execute()).toEqual([]);
      await expectStatus(t, 204, 'DELETE', siteUrl(org.id, site.id), { token: p.creator.token });
      // The space itself stays.
      await expectStatus(t, 200, 'GET', `/v1/spaces/${guide.id}`, { token: org.admin.token });
    });
  });

  describe('a published space transferred to another organization', () => {
    it('leaves the sites of the organization it left', async () => {
      const moving = await createSpace(t, org.id, org.admin.token, 'Moving');
      const site = await createSite(t, org.id, org.admin.token, { title: 'Before the move', spaces: [moving.id, guide.id] });
      expect(site.siteSpaces).toBe(2);
      const other = await createOrganization(t.container.ctx, org.admin.user.id, { title: 'Elsewhere' });
      await expectStatus(t, 200, 'POST', `/v1/spaces/${moving.id}/transfer`, { token: org.admin.token, body: { organization: other.id } });
      const siteSpaces = await expectStatus(t, 200, 'GET', siteUrl(org.id, site.id, '/site-spaces'), { token: org.admin.token });
      expect(siteSpaces.items.map((s: any) => [s.space.id, s.default])).toEqual([[guide.id, true]]);
      expect((await expectStatus(t, 200, 'GET', siteUrl(org.id, site.id), { token: org.admin.token })).siteSpaces).toBe(1);
    });

    it('a collection transferred takes every space in it (nested collections too) off the sites of the organization it left', async () => {
      const token = org.admin.token;
      const outer = await expectStatus(t, 201, 'POST', `/v1/orgs/${org.id}/collections`, { token, body: { title: 'Leaving' } });
      const inner = await expectStatus(t, 201, 'POST', `/v1/orgs/${org.id}/collections`, { token, body: { title: 'Leaving too', parent: outer.id } });
      const direct = await expectStatus(t, 201, 'POST', `/v1/orgs/${org.id}/spaces`, { token, body: { title: 'In the collection', parent: outer.id } });
      const nested = await expectStatus(t, 201, 'POST', `/v1/orgs/${org.id}/spaces`, { token, body: { title: 'Deeper', parent: inner.id } });
      const site = await createSite(t, org.id, token, { title: 'Public before the move', visibility: 'public', spaces: [direct.id, guide.id, nested.id] });
      const published = new URL(site.urls.published).pathname;
      // The moved spaces' places on the site answer (nothing is pushed yet: the page saying so) until the transfer.
      for (const path of ['', '/deeper']) expect((await t.request('GET', `${published}${path}`, { unchecked: true })).status).toBe(200);
      const other = await createOrganization(t.container.ctx, org.admin.user.id, { title: 'Takes the collection' });
      await expectStatus(t, 200, 'POST', `/v1/collections/${outer.id}/transfer`, { token, body: { organization: other.id } });
      const siteSpaces = await expectStatus(t, 200, 'GET', siteUrl(org.id, site.id, '/site-spaces'), { token });
      expect(siteSpaces.items.map((s: any) => [s.space.id, s.default])).toEqual([[guide.id, true]]);
      expect((await expectStatus(t, 200, 'GET', siteUrl(org.id, site.id), { token })).siteSpaces).toBe(1);
      // Anonymous readers of the old organization's site no longer reach them: the site shows its remaining space.
      expect((await t.request('GET', `${published}/deeper`, { unchecked: true })).status).toBe(404);
      expect(await t.container.ctx.db.selectFrom('site_spaces').select('id').where('space_id', 'in', [direct.id, nested.id]).execute()).toEqual([]);
    });
  });

  describe('adaptive schema and template conditions', () => {
    it('answers 404 before a schema is set, then the schema as saved', async () => {
      const site = await createSite(t, org.id, org.admin.token, { title: 'Adaptive', visibility: 'visitor-auth' });
      const none = await expectStatus(t, 404, 'GET', siteUrl(org.id, site.id, '/adaptive-schema'), { token: org.admin.token });
      expect(none.error.message).toMatch(/^siteId: no visitor attributes schema/);
      expect(await expectStatus(t, 200, 'GET', siteUrl(org.id, site.id, '/adaptive-schema/template-conditions'), { token: org.admin.token })).toEqual({ items: [] });

      const jsonSchema = claimsSchema({ beta: 'Beta testers', paid: 'Paying customers' }, { ref: 'Came from a partner link' });
      const saved = await expectStatus(t, 200, 'PUT', siteUrl(org.id, site.id, '/adaptive-schema'), { token: p.creator.token, body: { jsonSchema } });
      expect(saved).toEqual({ object: 'site-adaptive-schema', jsonSchema, updatedAt: saved.updatedAt });
      expect(await expectStatus(t, 200, 'GET', siteUrl(org.id, site.id, '/adaptive-schema'), { token: p.editor.token })).toEqual(saved);

      const templates = await expectStatus(t, 200, 'GET', siteUrl(org.id, site.id, '/adaptive-schema/template-conditions'), { token: p.editor.token });
      expect(templates.items).toEqual([
        { description: 'Beta testers', condition: 'visitor.claims.beta' },
        { description: 'Not: Beta testers', condition: '!visitor.claims.beta' },
        { description: 'Paying customers', condition: 'visitor.claims.paid' },
        { description: 'Not: Paying customers', condition: '!visitor.claims.paid' },
        { description: 'Came from a partner link', condition: 'visitor.claims.unsigned.ref' },
        { description: 'Not: Came from a partner link', condition: '!visitor.claims.unsigned.ref' },
      ]);
      // Every template is a condition the site accepts.
      const section = await expectStatus(t, 201, 'POST', siteUrl(org.id, site.id, '/sections'), { token: org.admin.token, body: { spaceId: guide.id } });
      for (const { condition } of templates.items) {
        const res = await expectStatus(t, 200, 'PATCH', siteUrl(org.id, site.id, `/sections/${section.id}`), { token: org.admin.token, body: { condition } });
        expect(res.condition).toBe(condition);
      }
    });

    it('refuses a schema outside the spec\'s constraints with a 400 naming the member', async () => {
      const site = await createSite(t, org.id, org.admin.token, { title: 'Schemas' });
      const url = siteUrl(org.id, site.id, '/adaptive-schema');
      const valid = claimsSchema({ beta: 'Beta testers' }, { ref: 'Referrer' }) as any;
      const variant = (change: (schema: any) => void) => {
        const copy = structuredClone(valid);
        change(copy);
        return { jsonSchema: copy };
      };
      const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`c${i}`, 'claim']));
      const cases: Array<[unknown, RegExp]> = [
        [{}, /^jsonSchema: is required$/],
        [{ jsonSchema: 'object' }, /^jsonSchema: must be an object$/],
        [{ jsonSchema: [] }, /^jsonSchema: must be an object$/],
        [variant((s) => (s.title = 'Claims')), /^jsonSchema.title: is not allowed here$/],
        [variant((s) => (s.$schema = 'http://json-schema.org/draft-04/schema#')), /^jsonSchema.\$schema: must be "http:\/\/json-schema.org\/draft-07\/schema#"$/],
        [variant((s) => (s.type = 'array')), /^jsonSchema.type: must be "object"$/],
        [variant((s) => delete s.type), /^jsonSchema.type: is required$/],
        [variant((s) => (s.additionalProperties = true)), /^jsonSchema.additionalProperties: must be false$/],
        [variant((s) => delete s.properties), /^jsonSchema.properties: is required$/],
        [variant((s) => (s.properties = [])), /^jsonSchema.properties: must be an object of claims$/],
        [variant((s) => (s.properties.beta.type = 'string')), /^jsonSchema.properties.beta.type: must be "boolean"/],
        [variant((s) => delete s.properties.beta.description), /^jsonSchema.properties.beta.description: is required$/],
        [variant((s) => (s.properties.beta.description = ' ')), /^jsonSchema.properties.beta.description: must be a non-empty string$/],
        [variant((s) => (s.properties.beta.default = true)), /^jsonSchema.properties.beta.default: is not allowed here$/],
        [variant((s) => (s.properties['has-dash'] = { type: 'boolean', description: 'x' })), /^jsonSchema.properties.has-dash: a claim name must be/],
        [variant((s) => (s.properties.unsigned.description = 'Unsigned')), /^jsonSchema.properties.unsigned.description: must be "Unsigned claims of the site visitor."$/],
        [variant((s) => delete s.properties.unsigned.additionalProperties), /^jsonSchema.properties.unsigned.additionalProperties: is required$/],
        [variant((s) => (s.properties.unsigned.properties.ref.type = 'number')), /^jsonSchema.properties.unsigned.properties.ref.type: must be "boolean"/],
        [variant((s) => (s.properties = { ...s.properties, ...Object.fromEntries(Object.keys(many).map((k) => [k, { type: 'boolean', description: 'c' }])) })), /^jsonSchema.properties: must declare at most 100 claims$/],
      ];
      for (const [body, message] of cases) await expectBadRequest(t, 'PUT', url, org.admin.token, body, message);
      await expectStatus(t, 404, 'GET', url, { token: org.admin.token });
    });

    it('refuses a schema that drops a claim a condition of the site uses', async () => {
      const site = await createSite(t, org.id, org.admin.token, { title: 'Kept claims' });
      const url = siteUrl(org.id, site.id, '/adaptive-schema');
      await expectStatus(t, 200, 'PUT', url, { token: org.admin.token, body: { jsonSchema: claimsSchema({ beta: 'Beta', paid: 'Paid' }) } });
      const section = await expectStatus(t, 201, 'POST', siteUrl(org.id, site.id, '/sections'), { token: org.admin.token, body: { spaceId: guide.id } });
      await expectStatus(t, 200, 'PATCH', siteUrl(org.id, site.id, `/sections/${section.id}`), { token: org.admin.token, body: { condition: 'visitor.claims.paid' } });
      await expectBadRequest(t, 'PUT', url, org.admin.token, { jsonSchema: claimsSchema({ beta: 'Beta' }) }, /^jsonSchema.properties: the condition of section ".*" would no longer be valid/);
      const kept = await expectStatus(t, 200, 'PUT', url, { token: org.admin.token, body: { jsonSchema: claimsSchema({ paid: 'Paid customers' }) } });
      expect(Object.keys(kept.jsonSchema.properties)).toEqual(['paid']);
    });

    it('is 403 to change for members without the create role, 404 for guests and non-members', async () => {
      const site = await createSite(t, org.id, org.admin.token, { title: 'Locked schema' });
      const url = siteUrl(org.id, site.id, '/adaptive-schema');
      const body = { jsonSchema: claimsSchema({ beta: 'Beta' }) };
      await expectStatus(t, 403, 'PUT', url, { token: p.editor.token, body });
      for (const token of [p.guest.token, p.stranger.token]) {
        await expectStatus(t, 404, 'PUT', url, { token, body });
        await expectStatus(t, 404, 'GET', url, { token });
        await expectStatus(t, 404, 'GET', `${url}/template-conditions`, { token });
      }
      await expectStatus(t, 404, 'PUT', siteUrl(org.id, 'unknown', '/adaptive-schema'), { token: org.admin.token, body });
      await expectStatus(t, 404, 'GET', siteUrl(org.id, 'unknown', '/adaptive-schema/template-conditions'), { token: org.admin.token });
      await expectStatus(t, 401, 'PUT', url, { body });
      await expectStatus(t, 404, 'GET', url, { token: org.admin.token });
    });
  });

  describe('GET /orgs/:organizationId/sites/:siteId/published (getPublishedContentSite)', () => {
    it('answers the site, its structure, default customizations and no scripts', async () => {
      const site = await createSite(t, org.id, org.admin.token, { title: 'Live', visibility: 'public', spaces: [guide.id, api.id] });
      const published = await expectStatus(t, 200, 'GET', siteUrl(org.id, site.id, '/published'), { token: p.editor.token });
      const siteSpaces = (await expectStatus(t, 200, 'GET', siteUrl(org.id, site.id, '/site-spaces'), { token: p.editor.token })).items;
      expect(published).toMatchObject({ object: 'published-content-site', site, structure: { type: 'siteSpaces', structure: siteSpaces }, scripts: [] });
      expect(published.customizations.siteSpaces).toEqual({});
      expect(published.customizations.site.title).toBe('Live');
      expect(await expectStatus(t, 200, 'GET', siteUrl(org.id, site.id, '/structure'), { token: p.editor.token })).toEqual(published.structure);
      // The spaces of a published site are readable through it, whoever the member.
      expect(published.structure.structure.every((s: any) => s.space.permissions.view)).toBe(true);
    });

    it('opens a published public or unlisted site to anyone; others only to members', async () => {
      const site = await createSite(t, org.id, org.admin.token, { title: 'Audience', visibility: 'public' });
      const url = siteUrl(org.id, site.id, '/published');
      // Unpublished (no site space): members only.
      expect((await expectStatus(t, 200, 'GET', url, { token: org.admin.token })).structure).toEqual({ type: 'siteSpaces', structure: [] });
      await expectStatus(t, 404, 'GET', url, { token: p.stranger.token });
      await expectStatus(t, 201, 'POST', siteUrl(org.id, site.id, '/site-spaces'), { token: org.admin.token, body: { spaceId: guide.id } });
      for (const visibility of ['public', 'unlisted']) {
        await expectStatus(t, 200, 'PATCH', siteUrl(org.id, site.id), { token: org.admin.token, body: { visibility } });
        for (const token of [p.stranger.token, p.guest.token]) {
          const seen = await expectStatus(t, 200, 'GET', url, { token });
          expect(seen.structure.structure[0].space).toMatchObject({ id: guide.id, permissions: { view: true, edit: false, admin: false } });
          await expectStatus(t, 200, 'GET', siteUrl(org.id, site.id, '/sections'), { token });
          await expectStatus(t, 200, 'GET', siteUrl(org.id, site.id, '/site-spaces'), { token });
          // Only the published views: the site's settings stay with its members.
          await expectStatus(t, 404, 'GET', siteUrl(org.id, site.id), { token });
        }
      }
      for (const visibility of ['share-link', 'visitor-auth']) {
        await expectStatus(t, 200, 'PATCH', siteUrl(org.id, site.id), { token: org.admin.token, body: { visibility } });
        for (const token of [p.stranger.token, p.guest.token]) {
          await expectStatus(t, 404, 'GET', url, { token });
          await expectStatus(t, 404, 'GET', siteUrl(org.id, site.id, '/site-spaces'), { token });
        }
        await expectStatus(t, 200, 'GET', url, { token: p.editor.token });
      }
      await expectStatus(t, 404, 'GET', siteUrl(org.id, 'unknown', '/published'), { token: org.admin.token });
      await expectStatus(t, 401, 'GET', url);
    });
  });
});
