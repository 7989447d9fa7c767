/**
 * Signing in with an organization's SAML provider: Quire (node-saml) against a samlify identity provider on
 * loopback, which reads Quire's AuthnRequests and signs real responses with its test key (test/helpers/saml-idp.ts).
 * Every forged, altered, stale or replayed response is refused with no session.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startSamlIdp, type ResponseOptions, type TestSamlIdp } from '../helpers/saml-idp.js';
import { OTHER_SIGNING_IDP } from '../helpers/saml.js';

type Headers = Record<string, string | string[] | number | undefined>;

/** The value of cookie `name` an answer set (the part before the attributes), or undefined. */
function cookieSet(headers: Headers, name: string): string | undefined {
  const set = headers['set-cookie'];
  const lines = (Array.isArray(set) ? set : set === undefined ? [] : [String(set)]).map(String);
  const value = lines.find((line) => line.startsWith(`${name}=`))?.split(';')[0];
  return value && value !== `${name}=` ? value : undefined;
}

describe.each(DATABASE_KINDS)('signing in with SAML (%s)', (kind) => {
  let t: TestApp;
  let idp: TestSamlIdp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let providerId: string;
  let metadata: string;
  let teamId: string;
  const base = 'http://quire.test';

  async function createProvider(organization: typeof org, body: Record<string, unknown>): Promise<string> {
    const created = await t.request('POST', `/v1/orgs/${organization.id}/saml`, { token: organization.admin.token, body });
    expect(created.status).toBe(201);
    return created.body.id as string;
  }

  const metadataOf = async (id: string) => (await t.app.inject({ method: 'GET', url: `/sso/saml/${id}/metadata` })).body;

  beforeAll(async () => {
    idp = await startSamlIdp();
    t = await startTestApp(kind);
    org = await t.organization('SAML Co');
    teamId = await t.team(org.id, []);
    providerId = await createProvider(org, {
      label: 'Acme SAML',
      entityID: idp.entityID,
      ssoURL: idp.ssoURL,
      certificate: idp.certificate,
      defaultRole: 'edit',
      defaultTeam: teamId,
    });
    metadata = await metadataOf(providerId);
  });
  afterAll(async () => {
    await t?.close();
    await idp?.close();
  });

  /** Starts a sign-in: the AuthnRequest as the identity provider reads it. */
  async function start(next = '/app/spaces/x', id = providerId, spMetadata = metadata) {
    const answer = await t.app.inject({ method: 'GET', url: `/sso/saml/${id}/start?next=${encodeURIComponent(next)}` });
    expect(answer.statusCode).toBe(303);
    const location = String(answer.headers.location);
    expect(location.startsWith(`${idp.ssoURL}?SAMLRequest=`)).toBe(true);
    return idp.readRequest(location, spMetadata);
  }

  const post = (id: string, fields: Record<string, string>, contentType = 'application/x-www-form-urlencoded') =>
    t.app.inject({ method: 'POST', url: `/sso/saml/${id}/acs`, headers: { 'content-type': contentType }, payload: new URLSearchParams(fields).toString() });

  const acs = async (options: ResponseOptions & { relayState?: string }, id = providerId, spMetadata = metadata) =>
    post(id, { SAMLResponse: await idp.response(spMetadata, options), ...(options.relayState !== undefined ? { RelayState: options.relayState } : {}) });

  function expectRefused(answer: { statusCode: number; headers: Headers }, reason: string) {
    expect(answer.statusCode).toBe(303);
    expect(answer.headers.location).toBe(`${base}/app/sign-in?error=${reason}`);
    expect(cookieSet(answer.headers, 'quire_session')).toBeUndefined();
  }

  async function signedInAs(answer: { statusCode: number; headers: Headers }, next: string) {
    expect(answer.statusCode).toBe(303);
    expect(answer.headers.location).toBe(`${base}${next}`);
    const session = cookieSet(answer.headers, 'quire_session');
    expect(session).toBeDefined();
    expect(String(answer.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Lax/);
    const me = await t.request('GET', '/v1/user', { token: null, headers: { cookie: session! } });
    expect(me.status).toBe(200);
    const current = await t.request('GET', '/v1/user/session', { token: null, headers: { cookie: session! } });
    expect(current.body.session.method).toBe('saml');
    return me.body as { id: string; email: string; displayName: string };
  }

  let people = 0;
  const newEmail = () => `person-${(people += 1)}-${kind}@saml.example`;

  it('lists the active provider on the sign-in page, with its start URL', async () => {
    await createProvider(org, { label: 'Pending SAML' });
    const answer = await t.request('GET', '/v1/auth/providers', { token: null });
    expect(answer.status).toBe(200);
    expect(answer.body.items).toEqual([{ id: providerId, kind: 'saml', label: 'Acme SAML', startUrl: `${base}/sso/saml/${providerId}/start` }]);
  });

  it("serves metadata samlify takes as a service provider's: entity id, the ACS (HTTP-POST), assertions signed", async () => {
    const sp = (await import('samlify')).ServiceProvider({ metadata });
    expect(sp.entityMeta.getEntityID()).toBe(`${base}/sso/saml/${providerId}/metadata`);
    expect(sp.entityMeta.getAssertionConsumerService('post')).toBe(`${base}/sso/saml/${providerId}/acs`);
    expect(sp.entityMeta.isWantAssertionsSigned()).toBe(true);
  });

  it('signs in from a request Quire started (SP-initiated): the person is made, joins with the default role and team, lands on next', async () => {
    const request = await start('/app/spaces/x?tab=1');
    expect(request.issuer).toBe(`${base}/sso/saml/${providerId}/metadata`);
    expect(request.acsURL).toBe(`${base}/sso/saml/${providerId}/acs`);
    const email = newEmail();
    const answer = await acs({ email, inResponseTo: request.id, attributes: { displayName: 'Grace Hopper' } });
    const me = await signedInAs(answer, '/app/spaces/x?tab=1');
    expect(me).toMatchObject({ email, displayName: 'Grace Hopper' });
    const member = await t.request('GET', `/v1/orgs/${org.id}/members/${me.id}`, { token: org.admin.token });
    expect(member.status).toBe(200);
    expect(member.body).toMatchObject({ role: 'edit', sso: true, teams: 1 });
    const team = await t.request('GET', `/v1/orgs/${org.id}/teams/${teamId}/members`, { token: org.admin.token });
    expect(team.body.items.map((m: { organization: { id: string } }) => m.organization.id)).toContain(me.id);

    // The same person again (a member now): the same user.
    const again = await start();
    const second = await signedInAs(await acs({ email, inResponseTo: again.id }), '/app/spaces/x');
    expect(second.id).toBe(me.id);
  });

  it('refuses the same response twice, and a response to a request it never started', async () => {
    const request = await start();
    const samlResponse = await idp.response(metadata, { email: newEmail(), inResponseTo: request.id });
    await signedInAs(await post(providerId, { SAMLResponse: samlResponse }), '/app/spaces/x');
    expectRefused(await post(providerId, { SAMLResponse: samlResponse }), 'invalid_state');
    expectRefused(await acs({ email: newEmail(), inResponseTo: '_never-sent-by-quire' }), 'invalid_state');
    // A request of another provider is not one of this provider's.
    const otherId = await createProvider(org, { label: 'Second', entityID: idp.entityID, ssoURL: idp.ssoURL, certificate: idp.certificate });
    const otherRequest = await start('/app/', otherId, await metadataOf(otherId));
    expectRefused(await acs({ email: newEmail(), inResponseTo: otherRequest.id }), 'invalid_state');
  });

  it('signs in from an unsolicited response (IdP-initiated), RelayState as next when it is a path of the app, once', async () => {
    const email = newEmail();
    const samlResponse = await idp.response(metadata, { email });
    const answer = await post(providerId, { SAMLResponse: samlResponse, RelayState: '/app/o/somewhere' });
    expect((await signedInAs(answer, '/app/o/somewhere')).email).toBe(email);
    expectRefused(await post(providerId, { SAMLResponse: samlResponse, RelayState: '/app/o/somewhere' }), 'invalid_state');
    for (const relayState of ['https://evil.example/app/', '//evil.example/app/', '/v1/user', '']) {
      await signedInAs(await acs({ email, relayState }), '/app/');
    }
  });

  it('takes the e-mail from an "email" attribute when the NameID is not one, and refuses an assertion with none', async () => {
    const email = newEmail();
    expect((await signedInAs(await acs({ nameId: 'opaque-123', attributes: { email } }), '/app/')).email).toBe(email);
    expectRefused(await acs({ nameId: 'opaque-456', attributes: { department: 'R&D' } }), 'email_missing');
  });

  it('refuses responses that are not signed, signed by another key, altered after signing, or for someone else', async () => {
    const email = newEmail();
    const fresh = async (options: Omit<ResponseOptions, 'inResponseTo'>) => ({ ...options, inResponseTo: (await start()).id });
    expectRefused(await acs(await fresh({ email, signed: 'none' })), 'provider_refused');
    // A signed message around an unsigned assertion: Quire asks for the assertion signed.
    expectRefused(await acs(await fresh({ email, signed: 'response' })), 'provider_refused');
    expectRefused(await acs(await fresh({ email, signer: OTHER_SIGNING_IDP })), 'provider_refused');
    const signed = await idp.response(metadata, await fresh({ email }));
    const altered = Buffer.from(Buffer.from(signed, 'base64').toString('utf8').replace(email, 'admin@saml.example')).toString('base64');
    expect(altered).not.toBe(signed);
    expectRefused(await post(providerId, { SAMLResponse: altered }), 'provider_refused');
    expectRefused(await acs(await fresh({ email, audience: 'https://another-service.example/metadata' })), 'provider_refused');
    expectRefused(await acs(await fresh({ email, recipient: 'https://another-service.example/acs' })), 'provider_refused');
    expectRefused(await acs(await fresh({ email, issuer: 'https://another-idp.example/entity' })), 'provider_refused');
    const hourAgo = new Date(Date.now() - 60 * 60 * 1000);
    expectRefused(await acs(await fresh({ email, notBefore: new Date(hourAgo.getTime() - 60_000), notOnOrAfter: hourAgo })), 'provider_refused');
    expectRefused(await acs(await fresh({ email, notBefore: new Date(Date.now() + 60 * 60 * 1000) })), 'provider_refused');
    // None of them made the person.
    expect((await t.request('GET', `/v1/orgs/${org.id}/members?limit=100`, { token: org.admin.token })).body.items.map((m: { user: { email: string } }) => m.user.email)).not.toContain(email);
  });

  it('answers garbage, empty and oversized posts without a session and without a 5xx', async () => {
    expectRefused(await post(providerId, {}), 'provider_refused');
    expectRefused(await post(providerId, { SAMLResponse: 'not base64 at all <<>>' }), 'provider_refused');
    expectRefused(await post(providerId, { SAMLResponse: Buffer.from('<nope/>').toString('base64') }), 'provider_refused');
    expectRefused(await post(providerId, { SAMLResponse: Buffer.from('<<<not xml').toString('base64') }), 'provider_refused');
    const json = await t.app.inject({ method: 'POST', url: `/sso/saml/${providerId}/acs`, headers: { 'content-type': 'application/json' }, payload: '{"SAMLResponse":1}' });
    expectRefused(json, 'provider_refused');
    const oversized = await post(providerId, { SAMLResponse: 'A'.repeat(300 * 1024) });
    expect(oversized.statusCode).toBe(413);
    expect(oversized.json().error.code).toBeDefined();
    expect(cookieSet(oversized.headers, 'quire_session')).toBeUndefined();
  });

  it('refuses a pending provider and an unknown one, at start and at the ACS', async () => {
    const pending = await createProvider(org, { label: 'Half set', entityID: idp.entityID });
    for (const id of [pending, 'no-such-provider']) {
      expectRefused(await t.app.inject({ method: 'GET', url: `/sso/saml/${id}/start` }), 'unknown_provider');
      expectRefused(await acs({ email: newEmail() }, id), 'unknown_provider');
    }
  });

  it("refuses a response meant for another organization's provider, and accounts the provider's organization does not hold", async () => {
    const other = await t.organization('Other Co');
    const otherProvider = await createProvider(other, { label: 'Other SAML', entityID: idp.entityID, ssoURL: idp.ssoURL, certificate: idp.certificate });
    // Signed for this organization's provider (its audience and ACS), posted to the other's ACS.
    expectRefused(await acs({ email: newEmail() }, otherProvider, metadata), 'provider_refused');
    // The other organization's admin has an account, but is not a member of SAML Co: its provider does not vouch for them.
    expectRefused(await acs({ email: other.admin.user.email }), 'not_allowed');
    // A disabled member is refused too.
    const member = await t.member(org.id, 'read');
    // No operation disables a member yet: the row is changed as one would.
    await t.container.ctx.db.updateTable('members').set({ disabled: 1 }).where('organization_id', '=', org.id).where('user_id', '=', member.user.id).execute();
    expectRefused(await acs({ email: member.user.email }), 'not_allowed');
  });
});
