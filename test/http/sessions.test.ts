import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { createPasswordLink } from '../../src/domain/identity/sessions.js';
import { hashToken } from '../../src/domain/ids.js';
import type { FastifyInstance } from 'fastify';
import { createContainer } from '../../src/container.js';
import { buildApp } from '../../src/http/app.js';

/** The session cookie a sign-in answer set, as a Cookie header's part, and its attributes. */
function sessionCookieOf(headers: Record<string, unknown>): { cookie: string; attributes: string[] } {
  const set = headers['set-cookie'];
  const line = (Array.isArray(set) ? set : [set]).find((value) => typeof value === 'string' && value.startsWith('quire_session=')) as string | undefined;
  if (!line) throw new Error(`no session cookie in ${JSON.stringify(set)}`);
  const [cookie, ...attributes] = line.split(';').map((part) => part.trim());
  return { cookie, attributes };
}

describe.each(DATABASE_KINDS)('sessions and signing in (%s)', (kind) => {
  let t: TestApp;
  const PASSWORD = 'correct horse battery';

  /** A user with a password, set through a one-time link as `quire admin reset-password` makes them. */
  async function userWithPassword(): Promise<TestUser> {
    const user = await t.user();
    const { token } = await createPasswordLink(t.container.ctx, user.user.email);
    const set = await t.request('POST', '/v1/auth/password', { body: { token, password: PASSWORD } });
    expect(set.status).toBe(200);
    return user;
  }

  async function signIn(email: string, password = PASSWORD) {
    return t.request('POST', '/v1/auth/sign-in', { body: { email, password } });
  }

  const withCookie = (cookie: string, csrf?: string) => ({ headers: { cookie, ...(csrf ? { 'x-csrf-token': csrf } : {}) } });

  beforeAll(async () => {
    t = await startTestApp(kind);
  });
  afterAll(async () => t?.close());

  it('sets a password with a one-time link, which works once, and keeps only an argon2id hash', async () => {
    const user = await t.user();
    const { token } = await createPasswordLink(t.container.ctx, user.user.id);
    const set = await t.request('POST', '/v1/auth/password', { body: { token, password: PASSWORD } });
    expect(set.status).toBe(200);
    expect(set.body.user.id).toBe(user.user.id);
    expect(set.body.csrfToken).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    const { cookie, attributes } = sessionCookieOf(set.headers);
    expect(attributes).toEqual(expect.arrayContaining(['Path=/', 'HttpOnly', 'SameSite=Lax']));
    expect(attributes).not.toContain('Secure');
    const again = await t.request('POST', '/v1/auth/password', { body: { token, password: 'another long password' } });
    expect(again.status).toBe(400);
    expect(again.body.error.message).toMatch(/^token: /);
    const stored = await t.container.ctx.db.selectFrom('user_passwords').selectAll().where('user_id', '=', user.user.id).executeTakeFirstOrThrow();
    expect(stored.hash).toMatch(/^\$argon2id\$/);
    expect(stored.hash).not.toContain(PASSWORD);
    const secret = cookie.split('=')[1];
    const sessions = await t.container.ctx.db.selectFrom('sessions').select('secret_hash').where('user_id', '=', user.user.id).execute();
    expect(sessions.map((s) => s.secret_hash)).toEqual([hashToken(secret)]);
  });

  it('signs in with e-mail and password; the cookie reads the API like a token', async () => {
    const user = await userWithPassword();
    const answer = await signIn(user.user.email.toUpperCase());
    expect(answer.status).toBe(200);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.body.session).toMatchObject({ object: 'session', method: 'password', current: true });
    const { cookie } = sessionCookieOf(answer.headers);
    const me = await t.request('GET', '/v1/user', withCookie(cookie));
    expect(me.status).toBe(200);
    expect(me.body.id).toBe(user.user.id);
    const current = await t.request('GET', '/v1/user/session', withCookie(cookie));
    expect(current.body.csrfToken).toBe(answer.body.csrfToken);
    expect(current.body.session.id).toBe(answer.body.session.id);
    const viaToken = await t.request('GET', '/v1/user/session', { token: user.token });
    expect(viaToken.status).toBe(404);
  });

  it('refuses a cookie-authenticated write without the session\'s CSRF token, naming the header', async () => {
    const user = await userWithPassword();
    const signedIn = await signIn(user.user.email);
    const { cookie } = sessionCookieOf(signedIn.headers);
    for (const csrf of [undefined, 'not-the-token', signedIn.body.csrfToken.slice(1)]) {
      const refused = await t.request('POST', '/v1/user/tokens', { ...withCookie(cookie, csrf), body: { label: 'laptop' } });
      expect(refused.status).toBe(403);
      expect(refused.body.error.message).toMatch(/^x-csrf-token: /);
    }
    const made = await t.request('POST', '/v1/user/tokens', { ...withCookie(cookie, signedIn.body.csrfToken), body: { label: 'laptop' } });
    expect(made.status).toBe(201);
    // A bearer token needs no CSRF token: no browser sends it by itself.
    expect((await t.request('POST', '/v1/user/tokens', { token: user.token, body: { label: 'ci' } })).status).toBe(201);
  });

  it('answers a wrong password and an unknown e-mail alike, and refuses guessing for a while (429, Retry-After)', async () => {
    const user = await userWithPassword();
    const wrong = await signIn(user.user.email, 'not the password at all');
    const unknown = await signIn('nobody-here@example.com', 'not the password at all');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.error.message).toBe(unknown.body.error.message);
    expect(wrong.body.error.message).toMatch(/^email, password: /);
    for (let attempt = 2; attempt <= 5; attempt += 1) expect((await signIn(user.user.email, `wrong guess ${attempt}`)).status).toBe(401);
    const limited = await signIn(user.user.email);
    expect(limited.status).toBe(429);
    expect(limited.body.error.message).toMatch(/^email: too many failed sign-ins/);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // Another account is not locked out by this one's guesses.
    const other = await userWithPassword();
    expect((await signIn(other.user.email)).status).toBe(200);
  });

  it('lists the user\'s sessions, ends one, and signs out everywhere', async () => {
    const user = await userWithPassword();
    const first = await signIn(user.user.email);
    const second = await signIn(user.user.email);
    const firstCookie = sessionCookieOf(first.headers).cookie;
    const secondCookie = sessionCookieOf(second.headers).cookie;
    const listed = await t.request('GET', '/v1/user/sessions', withCookie(secondCookie));
    // Three: the one the password link opened, and the two sign-ins.
    expect(listed.body.items).toHaveLength(3);
    expect(listed.body.items.filter((s: any) => s.current).map((s: any) => s.id)).toEqual([second.body.session.id]);
    const revoked = await t.request('DELETE', `/v1/user/sessions/${first.body.session.id}`, withCookie(secondCookie, second.body.csrfToken));
    expect(revoked.status).toBe(204);
    expect((await t.request('GET', '/v1/user', withCookie(firstCookie))).status).toBe(401);
    expect((await t.request('GET', '/v1/user', withCookie(secondCookie))).status).toBe(200);
    const again = await t.request('DELETE', `/v1/user/sessions/${first.body.session.id}`, withCookie(secondCookie, second.body.csrfToken));
    expect(again.status).toBe(404);
    expect(again.body.error.message).toMatch(/^sessionId: /);
    const everywhere = await t.request('DELETE', '/v1/user/sessions', withCookie(secondCookie, second.body.csrfToken));
    expect(everywhere.body.ended).toBe(2);
    expect((await t.request('GET', '/v1/user', withCookie(secondCookie))).status).toBe(401);
    // The API token is not a session: it still works.
    expect((await t.request('GET', '/v1/user', { token: user.token })).status).toBe(200);
  });

  it('signs out the current session only', async () => {
    const user = await userWithPassword();
    const a = await signIn(user.user.email);
    const b = await signIn(user.user.email);
    const out = await t.request('POST', '/v1/auth/sign-out', withCookie(sessionCookieOf(a.headers).cookie, a.body.csrfToken));
    expect(out.status).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/^quire_session=; .*Expires=Thu, 01 Jan 1970/);
    expect((await t.request('GET', '/v1/user', withCookie(sessionCookieOf(a.headers).cookie))).status).toBe(401);
    expect((await t.request('GET', '/v1/user', withCookie(sessionCookieOf(b.headers).cookie))).status).toBe(200);
  });

  it('changes the password given the current one, ending the other sessions', async () => {
    const user = await userWithPassword();
    const a = await signIn(user.user.email);
    const b = await signIn(user.user.email);
    const cookieA = sessionCookieOf(a.headers).cookie;
    const wrong = await t.request('PUT', '/v1/user/password', { ...withCookie(cookieA, a.body.csrfToken), body: { currentPassword: 'not it at all', newPassword: 'a brand new password' } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.message).toMatch(/^currentPassword: /);
    const short = await t.request('PUT', '/v1/user/password', { ...withCookie(cookieA, a.body.csrfToken), body: { currentPassword: PASSWORD, newPassword: 'short' } });
    expect(short.status).toBe(400);
    expect(short.body.error.message).toMatch(/^newPassword: /);
    const changed = await t.request('PUT', '/v1/user/password', { ...withCookie(cookieA, a.body.csrfToken), body: { currentPassword: PASSWORD, newPassword: 'a brand new password' } });
    expect(changed.status).toBe(204);
    expect((await t.request('GET', '/v1/user', withCookie(cookieA))).status).toBe(200);
    expect((await t.request('GET', '/v1/user', withCookie(sessionCookieOf(b.headers).cookie))).status).toBe(401);
    expect((await signIn(user.user.email)).status).toBe(401);
    expect((await signIn(user.user.email, 'a brand new password')).status).toBe(200);
  });

  it('makes, lists and revokes personal tokens; a token is shown once', async () => {
    const user = await t.user();
    const made = await t.request('POST', '/v1/user/tokens', { token: user.token, body: { label: 'deploy script' } });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ object: 'api-token', label: 'deploy script' });
    expect(made.body.token).toMatch(/^qt_/);
    expect((await t.request('GET', '/v1/user', { token: made.body.token })).body.id).toBe(user.user.id);
    const listed = await t.request('GET', '/v1/user/tokens', { token: user.token });
    expect(listed.body.items.map((token: any) => token.id)).toContain(made.body.id);
    expect(JSON.stringify(listed.body)).not.toContain(made.body.token);
    // Another user cannot revoke it, and learns nothing of it.
    const stranger = await t.user();
    expect((await t.request('DELETE', `/v1/user/tokens/${made.body.id}`, { token: stranger.token })).status).toBe(404);
    expect((await t.request('DELETE', `/v1/user/tokens/${made.body.id}`, { token: user.token })).status).toBe(204);
    expect((await t.request('GET', '/v1/user', { token: made.body.token })).status).toBe(401);
  });

  it('refuses bad input naming the field', async () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['/v1/auth/sign-in', { password: PASSWORD }, /email/],
      ['/v1/auth/sign-in', { email: 'someone@example.com' }, /password/],
      ['/v1/auth/sign-in', { email: 'not an address', password: PASSWORD }, /^email: /],
      ['/v1/auth/sign-in', { email: 'someone@example.com', password: 'x'.repeat(257) }, /password/],
      ['/v1/auth/sign-in', { email: 'someone@example.com', password: PASSWORD, admin: true }, /admin/],
      ['/v1/auth/password', { token: 'qp_nothing', password: 'short' }, /^password: /],
      ['/v1/auth/password', { token: 'qp_nothing', password: 'long enough password' }, /^token: /],
    ];
    for (const [url, body, message] of cases) {
      const answer = await t.request('POST', url, { body });
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.message).toMatch(message);
    }
    const user = await t.user();
    const empty = await t.request('POST', '/v1/user/tokens', { token: user.token, body: { label: '   ' } });
    expect(empty.status).toBe(400);
    expect(empty.body.error.message).toMatch(/^label: /);
    expect((await t.request('GET', '/v1/user', withCookie('quire_session=qs_made_up'))).status).toBe(401);
  });
});

describe('the session cookie over https', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite', { publicUrl: 'https://docs.example.com' });
  });
  afterAll(async () => t?.close());

  it('is Secure when Quire is served over https', async () => {
    const user = await t.user();
    const { token } = await createPasswordLink(t.container.ctx, user.user.email);
    const set = await t.request('POST', '/v1/auth/password', { body: { token, password: 'correct horse battery' }, urlsUnchecked: true });
    expect(sessionCookieOf(set.headers).attributes).toContain('Secure');
  });
});

describe.each(DATABASE_KINDS)('sign-in limits across instances sharing Redis (%s)', (kind) => {
  it('counts the guesses made on two servers as one: the sixth, wherever it is sent, is refused', async () => {
    const a = await startTestApp(kind, {}, { queue: 'bullmq' });
    expect(a.config.redisUrl).toBeTruthy();
    const containerB = await createContainer(a.config);
    const appB = await buildApp(containerB, { logger: false });
    try {
      const user = await a.user();
      const guess = (app: FastifyInstance, n: number) =>
        app.inject({ method: 'POST', url: '/v1/auth/sign-in', payload: { email: user.user.email, password: `wrong guess ${n}` } });
      for (let n = 1; n <= 3; n++) expect((await guess(a.app, n)).statusCode).toBe(401);
      for (let n = 4; n <= 5; n++) expect((await guess(appB, n)).statusCode).toBe(401);
      const sixth = await guess(appB, 6);
      expect(sixth.statusCode).toBe(429);
      expect(sixth.json().error.message).toMatch(/^email: too many failed sign-ins/);
      expect((await guess(a.app, 7)).statusCode).toBe(429);
    } finally {
      await appB.close();
      await containerB.close();
      await a.close();
    }
  });
});
