/**
 * Visitor sign-in through a visitor-auth site's OpenID Connect provider (a Quire extension), against a real provider
 * (oidc-provider on loopback): the setting (admins only, the secret never returned nor stored in clear), an anonymous
 * browser sent through the provider and back to its page, the provider's claims deciding adaptive content, the sealed
 * cookie for the site alone, a tampered state refused, and visitor tokens still opening the site.
 */
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { all, hasClass, parseHtml, text } from '../helpers/html.js';

type Headers = Record<string, string | string[] | number | undefined>;

const README = ['# Welcome', '', 'Everyone reads this.', '', '{% if visitor.claims.email == "beta@example.com" %}', 'Beta features are on.', '{% else %}', 'Join the beta.', '{% endif %}', ''].join('\n');

function cookieSet(headers: Headers, name: string): string | undefined {
  const set = headers['set-cookie'];
  const lines = (Array.isArray(set) ? set : set === undefined ? [] : [String(set)]).map(String);
  return lines.find((line) => line.startsWith(`${name}=`));
}

describe.each(DATABASE_KINDS)('visitor sign-in through a site\'s OpenID Connect provider (%s)', (kind) => {
  let t: TestApp;
  let op: TestOidcProvider;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let siteId: string;
  let siteBase: string;
  let accounts = 0;

  const settingUrl = () => `/v1/orgs/${org.id}/sites/${siteId}/visitor-oidc`;
  const browse = (url: string, cookie?: string) => t.app.inject({ method: 'GET', url, headers: { accept: 'text/html', ...(cookie ? { cookie } : {}) } });
  const paragraphs = (body: string) =>
    all(parseHtml(body), (e) => e.tagName === 'article').flatMap((a) => all(a, (e) => e.tagName === 'p' && !hasClass('updated')(e)).map((p) => text(p).trim()));

  function account(claims: { email?: string; name?: string }): string {
    accounts += 1;
    const id = `visitor-${accounts}`;
    op.accounts.set(id, { ...claims, email_verified: true });
    return id;
  }

  /** An anonymous browser at `page`, through the provider as `accountId`: the callback's answer. */
  async function signIn(page: string, accountId: string) {
    const refused = await browse(page);
    expect(refused.statusCode).toBe(302);
    const start = String(refused.headers.location);
    expect(start).toBe(`${siteBase}/~quire/sign-in?next=${encodeURIComponent(page)}`);
    const started = await browse(start);
    expect(started.statusCode).toBe(303);
    const attempt = cookieSet(started.headers, 'quire_visitor_oidc')!;
    expect(attempt).toMatch(/HttpOnly; SameSite=Lax/);
    const back = await op.authorize(String(started.headers.location), accountId);
    return { back, attempt: attempt.split(';')[0] };
  }

  beforeAll(async () => {
    op = await startOidcProvider();
    t = await startTestApp(kind, { fetchAllow: ['127.0.0.1'] });
    org = await t.organization('Visitors Co');
    const server = await t.listen();
    const api = async (method: string, url: string, body?: unknown) => {
      const res = await t.request(method, url, { token: org.admin.token, body });
      expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      return res.body;
    };
    const spaceId = (await api('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Guide' })).id;
    const checkout = await Checkout.clone(spaceRemote(server, org.admin.token, spaceId));
    await checkout.write('README.md', README);
    await checkout.write('setup.md', '# Setup\n\nInstall it.\n');
    await checkout.write('SUMMARY.md', '# Summary\n\n* [Welcome](README.md)\n* [Setup](setup.md)\n');
    await checkout.commitAndPush('Guide');
    await checkout.dispose();
    siteId = (await api('POST', `/v1/orgs/${org.id}/sites`, { title: 'Portal', visibility: 'visitor-auth' })).id;
    await api('POST', `/v1/orgs/${org.id}/sites/${siteId}/site-spaces`, { spaceId });
    siteBase = new URL((await api('GET', `/v1/orgs/${org.id}/sites/${siteId}`)).urls.published).pathname;
  });
  afterAll(async () => {
    await t?.close();
    await op?.close();
  });

  it('is set, read and removed by admins only; the secret is never returned nor stored in clear', async () => {
    const creator = await t.member(org.id, 'create');
    const body = { issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret };
    expect((await t.request('PUT', settingUrl(), { token: creator.token, body })).status).toBe(403);
    expect((await t.request('GET', settingUrl(), { token: org.admin.token })).status).toBe(404);
    const set = await t.request('PUT', settingUrl(), { token: org.admin.token, body, unchecked: true });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ object: 'site-oidc-provider', siteId, issuer: op.issuer, clientId: op.clientId, callbackUrl: expect.stringMatching(/^http:/), createdAt: expect.any(String), updatedAt: expect.any(String) });
    expect(new URL(set.body.callbackUrl).pathname).toBe(`${siteBase}/~quire/oidc/callback`);
    // The provider knows only the redirect URI the answer named: the sign-ins below go through it.
    op.setRedirectUri(set.body.callbackUrl);
    expect(JSON.stringify((await t.request('GET', settingUrl(), { token: org.admin.token, unchecked: true })).body)).not.toContain(op.clientSecret);
    const row = await t.container.ctx.db.selectFrom('site_oidc_providers').selectAll().where('site_id', '=', siteId).executeTakeFirstOrThrow();
    expect(row.client_secret).not.toContain(op.clientSecret);
    const bad = await t.request('PUT', settingUrl(), { token: org.admin.token, body: { ...body, issuer: 'not a url' } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/^issuer: /);
  });

  it("sends an anonymous browser through the provider and back; the provider's claims decide what it reads", async () => {
    const beta = await signIn(`${siteBase}/`, account({ email: 'beta@example.com', name: 'Beta Tester' }));
    const callback = await browse(`${beta.back.pathname}${beta.back.search}`, beta.attempt);
    expect(callback.statusCode).toBe(303);
    expect(callback.headers.location).toBe(`${siteBase}/`);
    const session = cookieSet(callback.headers, 'quire_visitor_session')!;
    expect(session).toContain(`Path=${siteBase};`);
    expect(session).toMatch(/Max-Age=\d+; HttpOnly; SameSite=Lax/);
    expect(session).not.toContain('beta%40example.com');
    const page = await browse(`${siteBase}/`, session.split(';')[0]);
    expect(page.statusCode).toBe(200);
    expect(paragraphs(page.body)).toContain('Beta features are on.');
    expect(page.headers['cache-control']).toBe('private, no-store');

    const other = await signIn(`${siteBase}/setup`, account({ email: 'someone@example.com' }));
    const otherCallback = await browse(`${other.back.pathname}${other.back.search}`, other.attempt);
    expect(otherCallback.headers.location).toBe(`${siteBase}/setup`);
    const otherSession = cookieSet(otherCallback.headers, 'quire_visitor_session')!.split(';')[0];
    expect(paragraphs((await browse(`${siteBase}/setup`, otherSession)).body)).toEqual(['Install it.']);
    expect(paragraphs((await browse(`${siteBase}/`, otherSession)).body)).toContain('Join the beta.');
  });

  it('refuses a tampered state, an attempt from another browser, and a cookie that does not open', async () => {
    const { back, attempt } = await signIn(`${siteBase}/`, account({ email: 'beta@example.com' }));
    const tampered = new URL(back);
    tampered.searchParams.set('state', 'not-the-state');
    const refused = await browse(`${tampered.pathname}${tampered.search}`, attempt);
    expect(refused.statusCode).toBe(403);
    expect(cookieSet(refused.headers, 'quire_visitor_session')).toBeUndefined();
    expect((await browse(`${back.pathname}${back.search}`)).statusCode).toBe(403);
    // A forged session cookie opens nothing: the browser is sent to sign in again.
    expect((await browse(`${siteBase}/`, 'quire_visitor_session=forged')).statusCode).toBe(302);
    // `next` never leads off the site.
    const offsite = await browse(`${siteBase}/~quire/sign-in?next=${encodeURIComponent('https://evil.example/')}`);
    expect(offsite.statusCode).toBe(303);
  });

  it('still opens with a visitor token (jwt_token)', async () => {
    const key = (await t.request('GET', `/v1/orgs/${org.id}/sites/${siteId}/visitor-key`, { token: org.admin.token })).body.key;
    const jwt = await new SignJWT({ email: 'beta@example.com' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuedAt()
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(key));
    const page = await browse(`${siteBase}/?jwt_token=${jwt}`);
    expect(page.statusCode).toBe(200);
    expect(paragraphs(page.body)).toContain('Beta features are on.');
  });

  it('answers a callback at a site that no longer offers the sign-in with the refusal page (403), at an unknown site 404', async () => {
    const { back, attempt } = await signIn(`${siteBase}/`, account({ email: 'late@example.com' }));
    expect((await t.request('PATCH', `/v1/orgs/${org.id}/sites/${siteId}`, { token: org.admin.token, body: { visibility: 'public' } })).status).toBe(200);
    const late = await browse(`${back.pathname}${back.search}`, attempt);
    expect(late.statusCode).toBe(403);
    expect(cookieSet(late.headers, 'quire_visitor_session')).toBeUndefined();
    expect((await browse(`/sites/${org.id}/no-such-site/~quire/oidc/callback`)).statusCode).toBe(404);
    expect((await t.request('PATCH', `/v1/orgs/${org.id}/sites/${siteId}`, { token: org.admin.token, body: { visibility: 'visitor-auth' } })).status).toBe(200);
  });
});
