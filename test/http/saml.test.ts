import crypto, { X509Certificate } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { bareBase64, IDP_CERTIFICATE, OTHER_IDP_CERTIFICATE } from '../helpers/saml.js';

describe.each(DATABASE_KINDS)('SAML providers and SSO login infos (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let creator: TestUser;
  let guest: TestUser;
  let stranger: TestUser;

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.organization('SSO Co');
    creator = await t.member(org.id, 'create');
    guest = await t.member(org.id, null);
    stranger = await t.user();
  });
  afterAll(async () => t?.close());

  const saml = (orgId = org.id) => `/v1/orgs/${orgId}/saml`;
  const configured = { entityID: 'https://idp.example.test/entity', ssoURL: 'https://idp.example.test/sso', certificate: IDP_CERTIFICATE };

  async function create(body: Record<string, unknown>, orgId = org.id, token = org.admin.token) {
    return t.request('POST', saml(orgId), { token, body });
  }

  async function countProviders(orgId = org.id): Promise<number> {
    const rows = await t.container.ctx.db.selectFrom('saml_providers').select('id').where('organization_id', '=', orgId).execute();
    return rows.length;
  }

  describe('POST /v1/orgs/:id/saml (createOrganizationSAMLProvider)', () => {
    it('creates a provider from a label alone: pending, with our service URLs and the organization default role', async () => {
      const res = await create({ label: 'Okta' });
      expect(res.status).toBe(201);
      const id = res.body.id as string;
      expect(res.headers.location).toBe(`http://quire.test/v1/orgs/${org.id}/saml/${id}`);
      expect(res.body).toEqual({
        object: 'saml-provider',
        id,
        label: 'Okta',
        ssoURL: 'about:blank',
        entityID: '',
        certificate: '',
        defaultRole: 'read',
        createdAt: expect.any(String),
        status: 'pending',
        service: {
          acsURL: `http://quire.test/sso/saml/${id}/acs`,
          startURL: `http://quire.test/sso/saml/${id}/start`,
          entityID: `http://quire.test/sso/saml/${id}/metadata`,
        },
        urls: { location: `http://quire.test/v1/orgs/${org.id}/saml/${id}` },
      });
      expect(Date.parse(res.body.createdAt)).toBeGreaterThan(Date.now() - 60_000);
    });

    it('creates an active provider when entity id, SSO URL and certificate are all given; the default team is a full Team', async () => {
      const team = await t.team(org.id, [creator]);
      const res = await create({ label: 'Azure AD', ...configured, defaultTeam: team, defaultRole: null });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ status: 'active', entityID: configured.entityID, ssoURL: configured.ssoURL, defaultRole: null });
      expect(res.body.certificate).toBe(new X509Certificate(IDP_CERTIFICATE).toString());
      expect(res.body.defaultTeam).toEqual({
        object: 'team',
        id: team,
        title: `Team ${team}`,
        members: 1,
        spaces: 0,
        createdAt: expect.any(String),
        permissions: { admin: true, view: true },
      });
    });

    it('accepts the bare base64 body of a certificate, with line breaks or without, and stores it as PEM', async () => {
      const wrapped = bareBase64(IDP_CERTIFICATE).replace(/(.{64})/g, '$1\n');
      for (const certificate of [bareBase64(IDP_CERTIFICATE), wrapped, `Bag Attributes\n  friendlyName: idp\n${IDP_CERTIFICATE}`]) {
        const res = await create({ label: 'Bare', certificate });
        expect(res.status, certificate.slice(0, 30)).toBe(201);
        expect(res.body.certificate).toBe(new X509Certificate(IDP_CERTIFICATE).toString());
        expect(res.body.status).toBe('pending');
      }
    });

    it('refuses bad values with a 400 naming the field, and writes nothing', async () => {
      const otherOrg = await t.organization('Other SSO Co');
      const foreignTeam = await t.team(otherOrg.id, []);
      const { privateKey } = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const keyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
      const corrupt = bareBase64(IDP_CERTIFICATE).slice(0, 120);
      const before = await countProviders();
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [{}, /^label: is required$/],
        [{ label: '' }, /^label: must be at least 1 character$/],
        [{ label: 'x'.repeat(31) }, /^label: must be at most 30 characters$/],
        [{ label: '   ' }, /^label: must not be blank$/],
        [{ label: 5 }, /^label: must be string$/],
        [{ label: 'L', ssoURL: 'not a url' }, /^ssoURL: must be an http or https URL$/],
        [{ label: 'L', ssoURL: 'ftp://idp.example.test/sso' }, /^ssoURL: must be an http or https URL$/],
        [{ label: 'L', ssoURL: `https://idp.example.test/${'a'.repeat(2048)}` }, /^ssoURL: must be at most 2048 characters$/],
        [{ label: 'L', entityID: 'e'.repeat(1025) }, /^entityID: must be at most 1024 characters$/],
        [{ label: 'L', certificate: 'c'.repeat(10001) }, /^certificate: must be at most 10000 characters$/],
        [{ label: 'L', certificate: 'not a certificate!' }, /^certificate: must be an X.509 certificate in PEM, or its base64 body$/],
        [{ label: 'L', certificate: corrupt }, /^certificate: is not a valid X.509 certificate/],
        [{ label: 'L', certificate: keyPem }, /^certificate: must be an X.509 certificate; got a PEM "PRIVATE KEY" block$/],
        [{ label: 'L', certificate: IDP_CERTIFICATE + OTHER_IDP_CERTIFICATE }, /^certificate: must hold one certificate; got 2$/],
        [{ label: 'L', certificate: IDP_CERTIFICATE.replace('-----END CERTIFICATE-----', '') }, /^certificate: has a PEM header without/],
        [{ label: 'L', defaultTeam: 'no-such-team' }, /^defaultTeam: no team "no-such-team" in this organization$/],
        [{ label: 'L', defaultTeam: foreignTeam }, /^defaultTeam: no team ".+" in this organization$/],
        [{ label: 'L', defaultRole: 'owner' }, /^defaultRole: must be one of: admin, create, review, edit, comment, read, null$/],
      ];
      for (const [body, message] of cases) {
        const res = await create(body);
        expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
        expect(res.body.error.message).toMatch(message);
      }
      expect(await countProviders()).toBe(before);
    });

    it('is for admins: 403 for other members, guests included; 404 for non-members and unknown organizations; 401 without a token', async () => {
      const before = await countProviders();
      expect((await create({ label: 'X' }, org.id, creator.token)).status).toBe(403);
      expect((await create({ label: 'X' }, org.id, guest.token)).status).toBe(403);
      expect((await create({ label: 'X' }, org.id, stranger.token)).status).toBe(404);
      expect((await create({ label: 'X' }, 'unknown-org')).status).toBe(404);
      expect((await t.request('POST', saml(), { body: { label: 'X' } })).status).toBe(401);
      expect(await countProviders()).toBe(before);
    });
  });

  describe('PATCH /v1/orgs/:id/saml/:providerId (updateOrganizationSAMLProvider)', () => {
    it('moves from pending to active once entity id, SSO URL and certificate are all set, and back when one is cleared', async () => {
      const id = (await create({ label: 'Stepwise' })).body.id as string;
      const url = `${saml()}/${id}`;
      let res = await t.request('PATCH', url, { token: org.admin.token, body: { entityID: configured.entityID, ssoURL: configured.ssoURL } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 'pending', entityID: configured.entityID, ssoURL: configured.ssoURL, certificate: '' });
      res = await t.request('PATCH', url, { token: org.admin.token, body: { certificate: bareBase64(OTHER_IDP_CERTIFICATE) } });
      expect(res.body.status).toBe('active');
      expect(res.body.certificate).toBe(new X509Certificate(OTHER_IDP_CERTIFICATE).toString());
      res = await t.request('PATCH', url, { token: org.admin.token, body: { ssoURL: '' } });
      expect(res.body).toMatchObject({ status: 'pending', ssoURL: 'about:blank', entityID: configured.entityID });
      res = await t.request('PATCH', url, { token: org.admin.token, body: { ssoURL: 'https://idp.example.test/other sso' } });
      expect(res.body).toMatchObject({ status: 'active', ssoURL: 'https://idp.example.test/other%20sso' });
      expect((await t.request('GET', url, { token: org.admin.token })).body.status).toBe('active');
    });

    it('changes label, default role and default team, and clears the team with null', async () => {
      const team = await t.team(org.id, []);
      const id = (await create({ label: 'Before' })).body.id as string;
      const url = `${saml()}/${id}`;
      let res = await t.request('PATCH', url, { token: org.admin.token, body: { label: 'After', defaultRole: 'edit', defaultTeam: team } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ label: 'After', defaultRole: 'edit', defaultTeam: { object: 'team', id: team } });
      res = await t.request('PATCH', url, { token: org.admin.token, body: { defaultTeam: null } });
      expect(res.body.defaultTeam).toBeUndefined();
      expect(res.body.label).toBe('After');
      expect(res.body.defaultRole).toBe('edit');
    });

    it('forgets a default team that is deleted', async () => {
      const team = await t.team(org.id, []);
      const id = (await create({ label: 'Teamed', defaultTeam: team })).body.id as string;
      expect((await t.request('DELETE', `/v1/orgs/${org.id}/teams/${team}`, { token: org.admin.token })).status).toBe(204);
      const res = await t.request('GET', `${saml()}/${id}`, { token: org.admin.token });
      expect(res.status).toBe(200);
      expect(res.body.defaultTeam).toBeUndefined();
    });

    it('refuses bad values with a 400 naming the field and keeps the provider as it was', async () => {
      const created = await create({ label: 'Keep', ...configured });
      const url = `${saml()}/${created.body.id}`;
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [{}, /^body: must have at least 1 member/],
        [{ label: '' }, /^label: must be at least 1 character$/],
        [{ ssoURL: 'javascript:alert(1)' }, /^ssoURL: must be an http or https URL$/],
        [{ certificate: 'MIIB' }, /^certificate: is not a valid X.509 certificate/],
        [{ defaultTeam: 'nope' }, /^defaultTeam: no team "nope"/],
        [{ defaultRole: 'superuser' }, /^defaultRole: must be one of/],
        [{ label: 'Changed', certificate: 'garbage!' }, /^certificate: /],
      ];
      for (const [body, message] of cases) {
        const res = await t.request('PATCH', url, { token: org.admin.token, body });
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.message).toMatch(message);
      }
      const after = await t.request('GET', url, { token: org.admin.token });
      expect(after.body).toEqual(created.body);
    });

    it('is 404 for an unknown provider or one of another organization, 403 for non-admins, 404 for non-members, 401 without a token', async () => {
      const otherOrg = await t.organization('Foreign SSO Co');
      const foreign = (await create({ label: 'Foreign' }, otherOrg.id, otherOrg.admin.token)).body.id as string;
      const mine = (await create({ label: 'Mine' })).body.id as string;
      const unknown = await t.request('PATCH', `${saml()}/no-such-provider`, { token: org.admin.token, body: { label: 'X' } });
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.message).toMatch(/^samlProviderId: /);
      expect((await t.request('PATCH', `${saml()}/${foreign}`, { token: org.admin.token, body: { label: 'X' } })).status).toBe(404);
      expect((await t.request('PATCH', `${saml()}/${mine}`, { token: creator.token, body: { label: 'X' } })).status).toBe(403);
      expect((await t.request('PATCH', `${saml()}/${mine}`, { token: stranger.token, body: { label: 'X' } })).status).toBe(404);
      expect((await t.request('PATCH', `${saml()}/${mine}`, { body: { label: 'X' } })).status).toBe(401);
      expect((await t.request('GET', `${saml()}/${mine}`, { token: org.admin.token })).body.label).toBe('Mine');
      expect((await t.request('GET', `${saml(otherOrg.id)}/${foreign}`, { token: otherOrg.admin.token })).body.label).toBe('Foreign');
    });
  });

  describe('GET /v1/orgs/:id/saml and /saml/:providerId (listSAMLProvidersInOrganizationById, getOrganizationSAMLProviderById)', () => {
    it('lists the providers oldest first, in pages', async () => {
      const o = await t.organization('Listing SSO Co');
      const ids: string[] = [];
      for (const label of ['One', 'Two', 'Three']) ids.push((await create({ label }, o.id, o.admin.token)).body.id);
      const all = await t.request('GET', saml(o.id), { token: o.admin.token });
      expect(all.status).toBe(200);
      expect(all.body.items.map((p: any) => p.id)).toEqual(ids);
      expect(all.body.count).toBe(3);
      expect(all.body.next).toBeUndefined();
      const first = await t.request('GET', saml(o.id), { token: o.admin.token, query: { limit: 2 } });
      expect(first.body.items.map((p: any) => p.label)).toEqual(['One', 'Two']);
      const second = await t.request('GET', saml(o.id), { token: o.admin.token, query: { limit: 2, page: first.body.next.page } });
      expect(second.body.items.map((p: any) => p.label)).toEqual(['Three']);
      expect(second.body.next).toBeUndefined();
      const bad = await t.request('GET', saml(o.id), { token: o.admin.token, query: { page: 'forged' } });
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toMatch(/^page: /);
    });

    it('reads one provider; 404 for unknown ones; admins only', async () => {
      const created = await create({ label: 'Readable', ...configured });
      const url = `${saml()}/${created.body.id}`;
      const res = await t.request('GET', url, { token: org.admin.token });
      expect(res.status).toBe(200);
      expect(res.body).toEqual(created.body);
      expect((await t.request('GET', `${saml()}/unknown`, { token: org.admin.token })).status).toBe(404);
      for (const user of [creator, guest]) {
        expect((await t.request('GET', url, { token: user.token })).status).toBe(403);
        expect((await t.request('GET', saml(), { token: user.token })).status).toBe(403);
      }
      expect((await t.request('GET', url, { token: stranger.token })).status).toBe(404);
      expect((await t.request('GET', saml(), { token: stranger.token })).status).toBe(404);
      expect((await t.request('GET', url)).status).toBe(401);
      expect((await t.request('GET', saml())).status).toBe(401);
    });
  });

  describe('DELETE /v1/orgs/:id/saml/:providerId (deleteOrganizationSAMLProvider)', () => {
    it('deletes a provider with 204, and answers 204 again when it is gone (as the spec says; the reference has 205 for a deletion)', async () => {
      const id = (await create({ label: 'Doomed' })).body.id as string;
      const url = `${saml()}/${id}`;
      expect((await t.request('DELETE', url, { token: creator.token })).status).toBe(403);
      expect((await t.request('DELETE', url, { token: stranger.token })).status).toBe(404);
      expect((await t.request('DELETE', url)).status).toBe(401);
      expect((await t.request('GET', url, { token: org.admin.token })).status).toBe(200);
      const deleted = await t.request('DELETE', url, { token: org.admin.token });
      expect(deleted.status).toBe(204);
      expect(deleted.body).toBeUndefined();
      expect((await t.request('GET', url, { token: org.admin.token })).status).toBe(404);
      expect((await t.request('DELETE', url, { token: org.admin.token })).status).toBe(204);
      expect((await t.request('DELETE', `${saml('unknown-org')}/${id}`, { token: org.admin.token })).status).toBe(404);
    });
  });

  describe("Quire's side of a provider: the service URLs an answer hands out", () => {
    it('serves the metadata an identity provider imports; sign-in with a pending or unknown provider goes back to the sign-in page; unknown metadata 404', async () => {
      const created = await create({ label: 'Metadata' });
      const { acsURL, startURL, entityID } = created.body.service as Record<string, string>;
      const path = (url: string) => url.slice('http://quire.test'.length);
      const metadata = await t.app.inject({ method: 'GET', url: path(entityID) });
      expect(metadata.statusCode).toBe(200);
      expect(metadata.headers['content-type']).toMatch(/^application\/samlmetadata\+xml/);
      expect(metadata.body).toContain(`entityID="${entityID}"`);
      expect(metadata.body).toContain(`Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${acsURL}"`);
      // Sign-in itself: test/http/saml-sign-in.test.ts.
      const start = await t.app.inject({ method: 'GET', url: path(startURL) });
      expect(start.statusCode).toBe(303);
      expect(start.headers.location).toBe('http://quire.test/app/sign-in?error=unknown_provider');
      const acs = await t.app.inject({ method: 'GET', url: path(acsURL) });
      expect(acs.statusCode).toBe(303);
      expect(acs.headers.location).toBe('http://quire.test/app/sign-in?error=provider_refused');
      const unknown = await t.app.inject({ method: 'GET', url: '/sso/saml/nope/metadata' });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().error.message).toBe('providerId: no SAML provider "nope"');
      const unknownStart = await t.app.inject({ method: 'GET', url: '/sso/saml/nope/start' });
      expect(unknownStart.headers.location).toBe('http://quire.test/app/sign-in?error=unknown_provider');
    });
  });

  describe('GET /v1/orgs/:id/sso (listSSOProviderLoginsInOrganization)', () => {
    it("lists the active providers' sign-in links to every member, pending ones left out", async () => {
      const o = await t.organization('Login Co');
      const member = await t.member(o.id, 'read');
      const guestMember = await t.member(o.id, null);
      const active = (await create({ label: 'Active IdP', ...configured }, o.id, o.admin.token)).body.id as string;
      await create({ label: 'Pending IdP', entityID: 'x', ssoURL: 'https://idp.example.test/sso' }, o.id, o.admin.token);
      for (const user of [o.admin, member, guestMember]) {
        const res = await t.request('GET', `/v1/orgs/${o.id}/sso`, { token: user.token });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ items: [{ id: active, label: 'Active IdP', startURL: `http://quire.test/sso/saml/${active}/start` }] });
      }
      const none = await t.organization('No Login Co');
      expect((await t.request('GET', `/v1/orgs/${none.id}/sso`, { token: none.admin.token })).body).toEqual({ items: [] });
      expect((await t.request('GET', `/v1/orgs/${o.id}/sso`, { token: stranger.token })).status).toBe(404);
      expect((await t.request('GET', '/v1/orgs/unknown-org/sso', { token: o.admin.token })).status).toBe(404);
      expect((await t.request('GET', `/v1/orgs/${o.id}/sso`)).status).toBe(401);
    });
  });
});
