import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp-server.js';
import { waitFor } from '../helpers/wait.js';

const FROM = 'Quire <quire@example.com>';
const PASSWORD = 'a brand new password';

/** The token of the one-time link a mail's text carries. */
function tokenOf(text: string | undefined): string {
  const match = /http:\/\/quire\.test\/app\/set-password#token=(qp_[A-Za-z0-9_-]+)/.exec(text ?? '');
  if (!match) throw new Error(`no set-password link in ${JSON.stringify(text)}`);
  return match[1];
}

/** A loopback port nothing listens on: a server that is down. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe.each(DATABASE_KINDS)('password reset by e-mail (%s)', (kind) => {
  let smtp: TestSmtpServer;
  let t: TestApp;

  const requestReset = (app: TestApp, body: unknown) => app.request('POST', '/v1/auth/password-reset', { body });

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp(kind, { mail: { smtpUrl: smtp.url, from: FROM } });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  it('mails a one-time link that sets the password once and signs in', async () => {
    const { user } = await t.user();
    const before = smtp.messages.length;
    const answer = await requestReset(t, { email: ` ${user.email.toUpperCase()} ` });
    expect(answer.status).toBe(202);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.body).toEqual({ email: user.email, message: 'If an account has this address, a link to set its password is on its way.' });

    const mail = await smtp.nextMessageTo(user.email, before);
    expect(mail.from?.text).toBe('"Quire" <quire@example.com>');
    expect(mail.subject).toBe('Set your Quire password');
    expect(mail.text).toContain('http://quire.test.');
    const token = tokenOf(mail.text);
    expect(mail.html).toContain(`href="http://quire.test/app/set-password#token=${token}"`);
    // Nothing that reports the mail's reading: no images, no remote content.
    expect(mail.html).not.toMatch(/<img|src=|url\(/i);
    expect(mail.attachments).toEqual([]);

    const set = await t.request('POST', '/v1/auth/password', { body: { token, password: PASSWORD } });
    expect(set.status).toBe(200);
    expect(set.body.user.id).toBe(user.id);
    const again = await t.request('POST', '/v1/auth/password', { body: { token, password: 'yet another password' } });
    expect(again.status).toBe(400);
    expect(again.body.error.message).toMatch(/^token: /);
    const signIn = await t.request('POST', '/v1/auth/sign-in', { body: { email: user.email, password: PASSWORD } });
    expect(signIn.status).toBe(200);
  });

  it('answers an address without an account the same, and mails nothing', async () => {
    const { user } = await t.user();
    const unknown = `nobody-${Date.now()}@example.com`;
    const before = smtp.messages.length;
    const known = await requestReset(t, { email: user.email });
    const answer = await requestReset(t, { email: unknown });
    expect(answer.status).toBe(known.status);
    expect(answer.body.message).toBe(known.body.message);
    expect(Object.keys(answer.body)).toEqual(Object.keys(known.body));
    await smtp.nextMessageTo(user.email, before);
    await t.container.ctx.jobs.idle();
    expect(smtp.messages.slice(before).map((mail) => mail.text)).toHaveLength(1);
    const providers = await t.request('GET', '/v1/auth/providers');
    expect(providers.body.passwordResetByEmail).toBe(true);
  });

  it('refuses more than three requests for an address in a while, saying when to try again', async () => {
    const email = `flooded-${Date.now()}@example.com`;
    for (let i = 0; i < 3; i += 1) expect((await requestReset(t, { email })).status).toBe(202);
    const refused = await requestReset(t, { email: email.toUpperCase() });
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toMatch(/^email: too many password reset requests; try again in \d+ seconds$/);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('refuses what is not an e-mail address, naming `email`', async () => {
    for (const body of [{ email: 'not-an-address' }, { email: '' }, { email: 5 }, {}, { email: 'a@example.com', extra: true }]) {
      const answer = await requestReset(t, body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(answer.body.error.message, JSON.stringify(body)).toMatch(/email|extra/);
    }
    expect((await requestReset(t, { email: 'not-an-address' })).body.error.message).toMatch(/^email: /);
  });

  it('answers 404 when the server sends no mail, and the sign-in page is told', async () => {
    const plain = await startTestApp(kind);
    try {
      const answer = await requestReset(plain, { email: 'someone@example.com' });
      expect(answer.status).toBe(404);
      expect(answer.body.error.message).toMatch(/^password reset: .*QUIRE_SMTP_URL/);
      const providers = await plain.request('GET', '/v1/auth/providers');
      expect(providers.body.passwordResetByEmail).toBe(false);
    } finally {
      await plain.close();
    }
  });

  it('mails the link from a BullMQ worker as well', { timeout: 60_000 }, async () => {
    const onRedis = await startTestApp(kind, { mail: { smtpUrl: smtp.url, from: FROM } }, { queue: 'bullmq' });
    try {
      const { user } = await onRedis.user();
      const before = smtp.messages.length;
      expect((await requestReset(onRedis, { email: user.email })).status).toBe(202);
      const token = tokenOf((await smtp.nextMessageTo(user.email, before)).text);
      expect((await onRedis.request('POST', '/v1/auth/password', { body: { token, password: PASSWORD } })).status).toBe(200);
    } finally {
      await onRedis.close();
    }
  });

  it('answers 202 while the SMTP server is down, and logs the failure without the password', async () => {
    const logLines: string[] = [];
    const password = 'smtp-secret-password';
    const smtpUrl = `smtp://quire:${password}@127.0.0.1:${await closedPort()}`;
    const down = await startTestApp(kind, { mail: { smtpUrl, from: FROM }, logLevel: 'info' }, { logLines });
    try {
      const { user } = await down.user();
      const answer = await requestReset(down, { email: user.email });
      expect(answer.status).toBe(202);
      const failed = await waitFor(() => logLines.find((line) => line.includes('failed for good')), { what: 'the mail job to fail for good' });
      expect(failed).toContain('did not take the message');
      expect(failed).toContain('smtp://127.0.0.1:');
      expect(logLines.join('\n')).not.toContain(password);
    } finally {
      await down.close();
    }
  });
});
