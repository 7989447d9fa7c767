import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.js';
import { GuardedFetcher } from '../../src/store/net/guarded-fetch.js';

type Headers = Record<string, string | string[] | number | undefined>;

function setCookies(headers: Headers): string[] {
  const set = headers['set-cookie'];
  return (Array.isArray(set) ? set : set === undefined ? [] : [String(set)]).map(String);
}

/** The value of cookie `name` an answer set (the part before the attributes), or undefined. */
function cookieSet(headers: Headers, name: string): string | undefined {
  const line = setCookies(headers).find((value) => value.startsWith(`${name}=`));
  const value = line?.split(';')[0];
  return value && value !== `${name}=` ? value : undefined;
}

describe.each(DATABASE_KINDS)('signing in with OpenID Connect (%s)', (kind) => {
  let t: TestApp;
  let op: TestOidcProvider;
  const logLines: string[] = [];

  beforeAll(async () => {
    op = await startOidcProvider();
    t = await startTestApp(
      kind,
      { fetchAllow: ['127.0.0.1'], logLevel: 'info', oidc: { issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, label: 'Acme SSO' } },
      { logLines },
    );
    op.setRedirectUri(`${t.config.publicUrl}/sso/oidc/callback`);
  });
  afterAll(async () => {
    await t?.close();
    await op?.close();
  });

  const get = (url: string, cookie?: string) => t.app.inject({ method: 'GET', url, headers: cookie ? { cookie } : {} });

  /** Starts a sign-in: the provider's authorization URL and the attempt cookie. */
  async function start(next = '/app/spaces/x') {
    const answer = await get(`/sso/oidc/start?provider=instance&next=${encodeURIComponent(next)}`);
    expect(answer.statusCode).toBe(303);
    const attempt = cookieSet(answer.headers, 'quire_oidc');
    expect(attempt).toBeDefined();
    expect(setCookies(answer.headers).join()).toMatch(/HttpOnly; SameSite=Lax/);
    return { location: String(answer.headers.location), attempt: attempt! };
  }

  /** Quire's callback path (with the provider's query) from the URL the provider sent the browser to. */
  const callbackPath = (url: URL) => `${url.pathname}${url.search}`;

  function expectRefused(answer: { statusCode: number; headers: Headers }, reason: string) {
    expect(answer.statusCode).toBe(303);
    expect(answer.headers.location).toBe(`${t.config.publicUrl}/app/sign-in?error=${reason}`);
    expect(cookieSet(answer.headers, 'quire_session')).toBeUndefined();
  }

  let accounts = 0;
  function account(claims: { email?: string; email_verified?: boolean; name?: string }): string {
    accounts += 1;
    const id = `account-${accounts}`;
    op.accounts.set(id, claims);
    return id;
  }

  it('lists the instance provider publicly', async () => {
    const answer = await t.request('GET', '/v1/auth/providers', { token: null });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      items: [{ id: 'instance', kind: 'oidc', label: 'Acme SSO', startUrl: `${t.config.publicUrl}/sso/oidc/start?provider=instance` }],
      passwordResetByEmail: false,
    });
  });

  it('signs in a verified e-mail (PKCE S256, state, nonce), creating the user, and lands on `next`', async () => {
    const email = `ada-${kind}@oidc.example`;
    const id = account({ email, email_verified: true, name: 'Ada Lovelace' });
    const { location, attempt } = await start('/app/spaces/x?tab=1');
    const authorization = new URL(location);
    expect(authorization.origin).toBe(op.issuer);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('state')).toBeTruthy();
    expect(authorization.searchParams.get('nonce')).toBeTruthy();
    const back = await op.authorize(location, id);
    const answer = await get(callbackPath(back), attempt);
    expect(answer.statusCode).toBe(303);
    expect(answer.headers.location).toBe(`${t.config.publicUrl}/app/spaces/x?tab=1`);
    const session = cookieSet(answer.headers, 'quire_session');
    expect(session).toBeDefined();
    const me = await t.request('GET', '/v1/user', { token: null, headers: { cookie: session! } });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email, displayName: 'Ada Lovelace' });
    const current = await t.request('GET', '/v1/user/session', { token: null, headers: { cookie: session! } });
    expect(current.body.session.method).toBe('oidc');

    // The same person again: the same user.
    const again = await start();
    const second = await get(callbackPath(await op.authorize(again.location, id)), again.attempt);
    const me2 = await t.request('GET', '/v1/user', { token: null, headers: { cookie: cookieSet(second.headers, 'quire_session')! } });
    expect(me2.body.id).toBe(me.body.id);
  });

  it('refuses a replayed callback, a missing or wrong state, and a tampered code', async () => {
    const id = account({ email: `replay-${kind}@oidc.example`, email_verified: true });
    const { location, attempt } = await start();
    const back = await op.authorize(location, id);
    const withoutState = new URL(back);
    withoutState.searchParams.delete('state');
    expectRefused(await get(callbackPath(withoutState), attempt), 'invalid_state');
    const wrongState = new URL(back);
    wrongState.searchParams.set('state', 'not-the-state');
    expectRefused(await get(callbackPath(wrongState), attempt), 'invalid_state');
    expectRefused(await get(callbackPath(back)), 'invalid_state');
    const tampered = new URL(back);
    tampered.searchParams.set('code', `${back.searchParams.get('code')}x`);
    expectRefused(await get(callbackPath(tampered), attempt), 'provider_refused');
    const first = await get(callbackPath(back), attempt);
    expect(cookieSet(first.headers, 'quire_session')).toBeDefined();
    expectRefused(await get(callbackPath(back), attempt), 'provider_refused');
  });

  it("refuses another attempt's cookie, and a nonce that is not the attempt's", async () => {
    const id = account({ email: `nonce-${kind}@oidc.example`, email_verified: true });
    const a = await start();
    const b = await start();
    const backA = await op.authorize(a.location, id);
    expectRefused(await get(callbackPath(backA), b.attempt), 'invalid_state');
    // The attempt of A with another nonce (sealed with Quire's key, as only Quire can): the ID token's nonce is A's.
    const ctx = t.container.ctx;
    const sealed = decodeURIComponent(a.attempt.slice('quire_oidc='.length));
    const opened = JSON.parse(ctx.secrets.open(sealed, 'quire oidc sign-in attempt')) as Record<string, unknown>;
    const forged = ctx.secrets.seal(JSON.stringify({ ...opened, nonce: 'another-nonce' }), 'quire oidc sign-in attempt');
    expectRefused(await get(callbackPath(backA), `quire_oidc=${forged}`), 'provider_refused');
  });

  it("refuses the provider's error answer", async () => {
    const { location, attempt } = await start();
    const state = new URL(location).searchParams.get('state')!;
    expectRefused(await get(`/sso/oidc/callback?error=access_denied&error_description=no&state=${state}`, attempt), 'provider_refused');
  });

  it('refuses an unverified e-mail and a token without one', async () => {
    const unverified = account({ email: `unverified-${kind}@oidc.example`, email_verified: false });
    const u = await start();
    expectRefused(await get(callbackPath(await op.authorize(u.location, unverified)), u.attempt), 'email_unverified');
    const none = account({ name: 'No Mail' });
    const n = await start();
    expectRefused(await get(callbackPath(await op.authorize(n.location, none)), n.attempt), 'email_missing');
  });

  it('lands on /app/ when `next` is not a path of the app', async () => {
    const id = account({ email: `next-${kind}@oidc.example`, email_verified: true });
    for (const next of ['https://evil.example/app/', '//evil.example/app/', '/app/../v1/user', '/\\evil.example', '/v1/user']) {
      const { location, attempt } = await start(next);
      const answer = await get(callbackPath(await op.authorize(location, id)), attempt);
      expect(answer.statusCode).toBe(303);
      expect(answer.headers.location).toBe(`${t.config.publicUrl}/app/`);
    }
  });

  it('redirects with an error when the issuer does not answer, is not allowed, or the provider is unknown', async () => {
    const ctx = t.container.ctx;
    const saved = { oidc: ctx.oidc, fetcher: ctx.fetcher };
    try {
      ctx.oidc = { ...saved.oidc!, issuer: 'http://127.0.0.1:9' };
      expectRefused(await get('/sso/oidc/start?provider=instance'), 'provider_unavailable');
      ctx.oidc = saved.oidc;
      ctx.fetcher = new GuardedFetcher({ allow: [] });
      expectRefused(await get('/sso/oidc/start?provider=instance'), 'provider_unavailable');
    } finally {
      await ctx.fetcher.close();
      Object.assign(ctx, saved);
    }
    expectRefused(await get('/sso/oidc/start?provider=nope'), 'unknown_provider');
  });

  describe("an organization's provider", () => {
    let organization: { id: string; admin: { token: string } };
    /** The provider's one client, also the organization's (its secret must never show). */
    const orgSecret = () => op.clientSecret;

    beforeAll(async () => {
      organization = await t.organization('OIDC Org');
    });

    it('is set, read and removed by admins; bad inputs answer 400 naming the field; the secret is never returned', async () => {
      const path = `/v1/orgs/${organization.id}/oidc`;
      const token = organization.admin.token;
      const member = await t.member(organization.id, 'create');
      expect((await t.request('GET', path, { token })).status).toBe(404);
      const good = { issuer: op.issuer, clientId: op.clientId, clientSecret: orgSecret(), label: 'OIDC Org SSO', allowedDomains: ['Acme.Example'], defaultRole: 'comment' };
      expect((await t.request('PUT', path, { token: member.token, body: good })).status).toBe(403);
      for (const [field, body] of [
        ['issuer', { ...good, issuer: 'not a url' }],
        ['issuer', { ...good, issuer: 'http://idp.example.com' }],
        ['issuer', { ...good, issuer: 'ftp://idp.example.com' }],
        ['clientId', { ...good, clientId: '' }],
        ['clientSecret', { ...good, clientSecret: undefined }],
        ['allowedDomains', { ...good, allowedDomains: ['not a domain'] }],
        ['defaultRole', { ...good, defaultRole: 'owner' }],
      ] as const) {
        const answer = await t.request('PUT', path, { token, body });
        expect(answer.status, JSON.stringify(body)).toBe(400);
        expect(answer.body.error.message, JSON.stringify(body)).toContain(field);
      }
      const set = await t.request('PUT', path, { token, body: good });
      expect(set.status).toBe(200);
      expect(set.body).toMatchObject({
        object: 'oidc-provider',
        organizationId: organization.id,
        issuer: op.issuer,
        clientId: op.clientId,
        label: 'OIDC Org SSO',
        allowedDomains: ['acme.example'],
        defaultRole: 'comment',
        callbackUrl: `${t.config.publicUrl}/sso/oidc/callback`,
      });
      const read = await t.request('GET', path, { token });
      expect(read.body).toEqual(set.body);
      for (const answer of [set, read]) expect(JSON.stringify(answer.body)).not.toContain(orgSecret());
      const stored = await t.container.ctx.db.selectFrom('oidc_providers').selectAll().where('organization_id', '=', organization.id).executeTakeFirstOrThrow();
      expect(stored.client_secret).not.toContain(orgSecret());
      const listed = await t.request('GET', '/v1/auth/providers', { token: null });
      expect(listed.body.items).toContainEqual({ id: organization.id, kind: 'oidc', label: 'OIDC Org SSO', startUrl: `${t.config.publicUrl}/sso/oidc/start?provider=${organization.id}` });
      expect(JSON.stringify(listed.body)).not.toContain(orgSecret());
    });

    async function signInWith(accountId: string) {
      const started = await get(`/sso/oidc/start?provider=${organization.id}`);
      expect(started.statusCode).toBe(303);
      const back = await op.authorize(String(started.headers.location), accountId);
      return get(callbackPath(back), cookieSet(started.headers, 'quire_oidc'));
    }

    it('lets a person of an allowed domain join with the default role on the first sign-in, and members in', async () => {
      const email = `newcomer-${kind}@acme.example`;
      const answer = await signInWith(account({ email, email_verified: true, name: 'New Comer' }));
      expect(answer.statusCode).toBe(303);
      expect(answer.headers.location).toBe(`${t.config.publicUrl}/app/`);
      const session = cookieSet(answer.headers, 'quire_session')!;
      const me = await t.request('GET', '/v1/user', { token: null, headers: { cookie: session } });
      const membership = await t.request('GET', `/v1/orgs/${organization.id}/members/${me.body.id}`, { token: organization.admin.token });
      expect(membership.status).toBe(200);
      expect(membership.body.role).toBe('comment');

      // A member of another domain signs in; again, the newcomer too (no second join).
      const existing = await t.member(organization.id, 'edit');
      expect((await signInWith(account({ email: existing.user.email, email_verified: true }))).headers.location).toBe(`${t.config.publicUrl}/app/`);
      expect((await signInWith(account({ email, email_verified: true }))).headers.location).toBe(`${t.config.publicUrl}/app/`);
    });

    it('refuses a non-member of a domain not allowed, and creates no user for them', async () => {
      const email = `stranger-${kind}@elsewhere.example`;
      expectRefused(await signInWith(account({ email, email_verified: true })), 'not_allowed');
      expect(await t.container.ctx.db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst()).toBeUndefined();
    });

    it('is gone once removed', async () => {
      const path = `/v1/orgs/${organization.id}/oidc`;
      expect((await t.request('DELETE', path, { token: organization.admin.token })).status).toBe(204);
      expect((await t.request('GET', path, { token: organization.admin.token })).status).toBe(404);
      expectRefused(await get(`/sso/oidc/start?provider=${organization.id}`), 'unknown_provider');
    });
  });

  it('never logs the client secret', () => {
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('\n')).not.toContain(op.clientSecret);
  });
});
