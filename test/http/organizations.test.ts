import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { insertLinkInvite } from '../../src/store/sql/organizations.js';

describe.each(DATABASE_KINDS)('organizations (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.organization('Acme');
  });
  afterAll(async () => t?.close());

  describe('GET /v1/orgs (listOrganizationsForAuthenticatedUser)', () => {
    it('lists the organizations the caller belongs to, guests included', async () => {
      const other = await t.organization('Other');
      const guest = await t.member(org.id, null);
      const res = await t.request('GET', '/v1/orgs', { token: guest.token });
      expect(res.status).toBe(200);
      expect(res.body.items.map((o: any) => o.id)).toEqual([org.id]);
      expect(res.body.count).toBe(1);
      expect(res.body.next).toBeUndefined();
      expect(res.body.items[0].permissions).toMatchObject({ view: true, admin: false, listMembers: false });
      expect(res.body.items[0].defaultRole).toBe('read');
      const own = await t.request('GET', '/v1/orgs', { token: other.admin.token });
      expect(own.body.items.map((o: any) => o.title)).toEqual(['Other']);
    });

    it('pages with limit and an opaque cursor, and omits next on the last page', async () => {
      const user = await t.user();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const o = await t.organization(`Paged ${i}`);
        await t.request('PATCH', `/v1/orgs/${o.id}`, { token: o.admin.token, body: { title: `Paged ${i}` } });
        const { addMember } = await import('../../src/domain/members/members.js');
        await addMember(t.container.ctx, o.id, user.user.id, 'read');
        ids.push(o.id);
      }
      const first = await t.request('GET', '/v1/orgs', { token: user.token, query: { limit: 2 } });
      expect(first.body.count).toBe(2);
      expect(first.body.next.page).toEqual(expect.any(String));
      // An organization created between pages does not shift the next page.
      const late = await t.organization('Late');
      const { addMember } = await import('../../src/domain/members/members.js');
      await addMember(t.container.ctx, late.id, user.user.id, 'read');
      const second = await t.request('GET', '/v1/orgs', { token: user.token, query: { limit: 2, page: first.body.next.page } });
      const third = await t.request('GET', '/v1/orgs', { token: user.token, query: { limit: 2, page: second.body.next.page } });
      const seen = [...first.body.items, ...second.body.items, ...third.body.items].map((o: any) => o.id);
      expect(seen).toEqual([...ids, late.id]);
      expect(third.body.next).toBeUndefined();
      const zero = await t.request('GET', '/v1/orgs', { token: user.token, query: { limit: 0 } });
      expect(zero.body.items).toEqual([]);
      expect(zero.body.next.page).toEqual(expect.any(String));
      const afterZero = await t.request('GET', '/v1/orgs', { token: user.token, query: { limit: 1, page: zero.body.next.page } });
      expect(afterZero.body.items[0].id).toBe(ids[0]);
      const fractional = await t.request('GET', '/v1/orgs', { token: user.token, query: { limit: 1.9 } });
      expect(fractional.body.count).toBe(1);
    });

    it('refuses a bad limit or a tampered page token', async () => {
      for (const limit of ['-1', '1001', 'ten']) {
        const res = await t.request('GET', '/v1/orgs', { token: org.admin.token, query: { limit } });
        expect(res.status).toBe(400);
        expect(res.body.error.message).toMatch(/^limit: /);
      }
      const page = (await t.request('GET', '/v1/orgs', { token: org.admin.token, query: { limit: 0 } })).body.next.page as string;
      const tampered = page.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'));
      // A signature of the right length in characters, with a non-ASCII one (more bytes): once a 500.
      const nonAscii = page.replace(/.$/, 'é');
      for (const bad of [tampered, 'garbage', `${page}x`, nonAscii]) {
        const res = await t.request('GET', '/v1/orgs', { token: org.admin.token, query: { page: bad } });
        expect(res.status).toBe(400);
        expect(res.body.error.message).toMatch(/^page: /);
      }
      // A token from another list is refused as well.
      const other = await t.request('GET', `/v1/orgs/${org.id}/members`, { token: org.admin.token, query: { page } });
      expect(other.status).toBe(400);
    });

    it('answers 401 without, with a malformed, or with an unknown token', async () => {
      expect((await t.request('GET', '/v1/orgs')).status).toBe(401);
      expect((await t.request('GET', '/v1/orgs', { headers: { authorization: 'Basic abc' } })).status).toBe(401);
      expect((await t.request('GET', '/v1/orgs', { headers: { authorization: 'Bearer' } })).status).toBe(401);
      const unknown = await t.request('GET', '/v1/orgs', { token: 'qt_unknown' });
      expect(unknown.status).toBe(401);
      expect(unknown.body.error.message).toMatch(/^authorization: /);
    });
  });

  describe('GET /v1/orgs/:id (getOrganizationById)', () => {
    it('returns the organization with the caller permissions', async () => {
      const res = await t.request('GET', `/v1/orgs/${org.id}`, { token: org.admin.token });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ object: 'organization', id: org.id, title: 'Acme', permissions: { admin: true, createContent: true } });
      expect(res.body.urls.location).toBe(`http://quire.test/v1/orgs/${org.id}`);
    });

    it('answers 404 to non-members and for unknown ids, 401 without a token', async () => {
      const stranger = await t.user();
      expect((await t.request('GET', `/v1/orgs/${org.id}`, { token: stranger.token })).status).toBe(404);
      expect((await t.request('GET', '/v1/orgs/nope', { token: org.admin.token })).status).toBe(404);
      expect((await t.request('GET', `/v1/orgs/${org.id}`)).status).toBe(401);
    });
  });

  describe('PATCH /v1/orgs/:id (updateOrganizationById)', () => {
    it('updates every member of the body', async () => {
      const res = await t.request('PATCH', `/v1/orgs/${org.id}`, {
        token: org.admin.token,
        body: {
          title: 'Acme Inc',
          emailDomains: ['Acme.example', 'docs.acme.example'],
          hostname: `acme-${kind}`,
          defaultRole: 'edit',
          logo: 'https://acme.example/logo.png',
          sso: true,
          ai: true,
          inviteLinks: false,
        },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        title: 'Acme Inc',
        emailDomains: ['acme.example', 'docs.acme.example'],
        hostname: `acme-${kind}`,
        defaultRole: 'edit',
        sso: true,
        ai: true,
        inviteLinks: false,
      });
      expect(res.body.urls.logo).toBe('https://acme.example/logo.png');
      const cleared = await t.request('PATCH', `/v1/orgs/${org.id}`, { token: org.admin.token, body: { logo: null, defaultRole: null, defaultContent: null } });
      expect(cleared.body.urls.logo).toBeUndefined();
      expect(cleared.body.defaultRole).toBeNull();
      const again = await t.request('GET', `/v1/orgs/${org.id}`, { token: org.admin.token });
      expect(again.body.title).toBe('Acme Inc');
    });

    it('refuses bad input naming the field', async () => {
      const cases: Array<[unknown, RegExp]> = [
        [{ title: 'A' }, /^title: must be at least 2/],
        [{ title: 'x'.repeat(256) }, /^title: must be at most 255/],
        [{ title: 42 }, /^title: must be string/],
        [{ hostname: 'ab' }, /^hostname: /],
        [{ hostname: 'Not_Valid' }, /^hostname: /],
        [{ defaultRole: 'owner' }, /^defaultRole: /],
        [{ logo: 'not a url' }, /^logo: /],
        [{ sso: 'yes' }, /^sso: must be boolean/],
        [{ emailDomains: 'acme.example' }, /^emailDomains: must be array/],
        [{ emailDomains: ['not a domain'] }, /^emailDomains\[0\]: /],
        [{ defaultContent: { type: 'site', site: 'missing' } }, /^defaultContent.site: /],
        [{ defaultContent: { type: 'space', site: 'x' } }, /^defaultContent/],
        [{}, /must have at least 1/],
      ];
      for (const [body, message] of cases) {
        const res = await t.request('PATCH', `/v1/orgs/${org.id}`, { token: org.admin.token, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.message, JSON.stringify(body)).toMatch(message);
      }
      const malformed = await t.request('PATCH', `/v1/orgs/${org.id}`, { token: org.admin.token, rawBody: '{"title": ' });
      expect(malformed.status).toBe(400);
      expect(malformed.body.error.message).toMatch(/^body: is not valid JSON/);
      const huge = await t.request('PATCH', `/v1/orgs/${org.id}`, { token: org.admin.token, rawBody: JSON.stringify({ title: 'x'.repeat(2 * 1024 * 1024) }) });
      expect(huge.status).toBe(413);
      expect(huge.body.error.code).toBe(413);
    });

    it('sets defaultContent to a site of the organization, refuses another organization\'s site, forgets a deleted site', async () => {
      const site = await t.request('POST', `/v1/orgs/${org.id}/sites`, { token: org.admin.token, body: { title: 'Handbook' } });
      expect(site.status).toBe(201);
      const set = await t.request('PATCH', `/v1/orgs/${org.id}`, { token: org.admin.token, body: { defaultContent: { type: 'site', site: site.body.id } } });
      expect(set.status).toBe(200);
      expect(set.body.defaultContent).toEqual({ type: 'site', site: site.body.id });
      expect((await t.request('GET', `/v1/orgs/${org.id}`, { token: org.admin.token })).body.defaultContent).toEqual({ type: 'site', site: site.body.id });

      const other = await t.organization('Elsewhere');
      const foreign = await t.request('POST', `/v1/orgs/${other.id}/sites`, { token: other.admin.token, body: { title: 'Theirs' } });
      const refused = await t.request('PATCH', `/v1/orgs/${org.id}`, { token: org.admin.token, body: { defaultContent: { type: 'site', site: foreign.body.id } } });
      expect(refused.status).toBe(400);
      expect(refused.body.error.message).toMatch(/^defaultContent.site: /);
      expect((await t.request('GET', `/v1/orgs/${org.id}`, { token: org.admin.token })).body.defaultContent).toEqual({ type: 'site', site: site.body.id });

      expect((await t.request('DELETE', `/v1/orgs/${org.id}/sites/${site.body.id}`, { token: org.admin.token })).status).toBe(205);
      expect((await t.request('GET', `/v1/orgs/${org.id}`, { token: org.admin.token })).body.defaultContent).toBeUndefined();
    });

    it('refuses a hostname another organization uses', async () => {
      const other = await t.organization('Taken');
      await t.request('PATCH', `/v1/orgs/${other.id}`, { token: other.admin.token, body: { hostname: `taken-${kind}` } });
      const res = await t.request('PATCH', `/v1/orgs/${org.id}`, { token: org.admin.token, body: { hostname: `taken-${kind}` } });
      expect(res.status).toBe(409);
      expect(res.body.error.message).toMatch(/^hostname: /);
    });

    it('is 403 for members who are not admins, 404 for non-members, 401 without a token', async () => {
      const editor = await t.member(org.id, 'create');
      const res = await t.request('PATCH', `/v1/orgs/${org.id}`, { token: editor.token, body: { title: 'Hijacked' } });
      expect(res.status).toBe(403);
      const stranger = await t.user();
      expect((await t.request('PATCH', `/v1/orgs/${org.id}`, { token: stranger.token, body: { title: 'Hijacked' } })).status).toBe(404);
      expect((await t.request('PATCH', `/v1/orgs/${org.id}`, { body: { title: 'Hijacked' } })).status).toBe(401);
      expect((await t.request('GET', `/v1/orgs/${org.id}`, { token: org.admin.token })).body.title).not.toBe('Hijacked');
    });
  });

  describe('DELETE /v1/orgs/:id/link-invites/:inviteId (deleteOrganizationInviteById)', () => {
    it('deletes an invite link (205), then answers 204', async () => {
      await insertLinkInvite(t.container.ctx.db, { id: 'invite1', organization_id: org.id, role: 'read', created_by: org.admin.user.id, created_at: new Date().toISOString() });
      const reader = await t.member(org.id, 'read');
      expect((await t.request('DELETE', `/v1/orgs/${org.id}/link-invites/invite1`, { token: reader.token })).status).toBe(403);
      const stranger = await t.user();
      expect((await t.request('DELETE', `/v1/orgs/${org.id}/link-invites/invite1`, { token: stranger.token })).status).toBe(404);
      expect((await t.request('DELETE', `/v1/orgs/${org.id}/link-invites/invite1`)).status).toBe(401);
      const deleted = await t.request('DELETE', `/v1/orgs/${org.id}/link-invites/invite1`, { token: org.admin.token });
      expect(deleted.status).toBe(205);
      expect(deleted.body).toBeUndefined();
      expect((await t.request('DELETE', `/v1/orgs/${org.id}/link-invites/invite1`, { token: org.admin.token })).status).toBe(204);
    });
  });

  describe('GET /v1/orgs/:id/search (searchOrganizationContent)', () => {
    it('requires a query and membership', async () => {
      const ok = await t.request('GET', `/v1/orgs/${org.id}/search`, { token: org.admin.token, query: { query: 'install' } });
      expect(ok.status).toBe(200);
      expect(ok.body.items).toEqual([]);
      const missing = await t.request('GET', `/v1/orgs/${org.id}/search`, { token: org.admin.token });
      expect(missing.status).toBe(400);
      expect(missing.body.error.message).toBe('query: is required');
      const long = await t.request('GET', `/v1/orgs/${org.id}/search`, { token: org.admin.token, query: { query: 'x'.repeat(513) } });
      expect(long.body.error.message).toMatch(/^query: must be at most 512/);
      const stranger = await t.user();
      expect((await t.request('GET', `/v1/orgs/${org.id}/search`, { token: stranger.token, query: { query: 'x' } })).status).toBe(404);
      expect((await t.request('GET', `/v1/orgs/${org.id}/search`, { query: { query: 'x' } })).status).toBe(401);
    });
  });

  describe('GET /v1/email-domains/:domain/orgs (getOrganizationsForEmailDomain)', () => {
    it('finds organizations by e-mail domain for members and for users of that domain', async () => {
      const o = await t.organization('Domain Co');
      await t.request('PATCH', `/v1/orgs/${o.id}`, { token: o.admin.token, body: { emailDomains: [`domain-${kind}.example`] } });
      const colleague = await t.user(`someone@domain-${kind}.example`);
      const found = await t.request('GET', `/v1/email-domains/domain-${kind}.example/orgs`, { token: colleague.token });
      expect(found.status).toBe(200);
      expect(found.body.organizations.map((x: any) => x.id)).toEqual([o.id]);
      expect(found.body.organizations[0].permissions.view).toBe(false);
      const member = await t.request('GET', `/v1/email-domains/domain-${kind}.example/orgs`, { token: o.admin.token });
      expect(member.body.organizations.map((x: any) => x.id)).toEqual([o.id]);
      const outsider = await t.user();
      const hidden = await t.request('GET', `/v1/email-domains/domain-${kind}.example/orgs`, { token: outsider.token });
      expect(hidden.body.organizations).toEqual([]);
      expect((await t.request('GET', `/v1/email-domains/domain-${kind}.example/orgs`)).status).toBe(401);
    });
  });

  describe('routes and methods', () => {
    it('answers unknown routes and methods in the error shape', async () => {
      const unknown = await t.request('GET', '/v1/nothing-here', { token: org.admin.token });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ error: { code: 404, message: 'route: no route GET /v1/nothing-here' } });
      const method = await t.request('PUT', `/v1/orgs/${org.id}`, { token: org.admin.token, body: {} });
      expect(method.status).toBe(404);
      expect(method.body.error.code).toBe(404);
    });

    it('publishes its OpenAPI document', async () => {
      const res = await t.request('GET', '/v1/openapi.json');
      expect(res.status).toBe(200);
      expect(res.body.openapi).toBe('3.0.3');
      expect(res.body.paths['/v1/orgs/{organizationId}'].patch.operationId).toBe('updateOrganizationById');
      expect(res.body.paths['/v1/orgs/{organizationId}'].patch.requestBody.content['application/json'].schema.properties.title.maxLength).toBe(255);
    });
  });
});
