/**
 * A forgotten password in headless Chromium, with a real SMTP server on loopback: "Forgot your password?" on the
 * sign-in page, the address sent, the mail's link opened, a new password set, and signed in. The new form is checked
 * by axe-core in light and dark and screenshot (light, dark, phone) in test-artifacts/.
 */
import net from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchBrowser, screenshot, seriousAccessibilityViolations } from '../helpers/browser.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp-server.js';

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });
}

describe.each(DATABASE_KINDS)('the app resets a forgotten password by e-mail in Chromium (%s)', (kind) => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let browser: Browser;
  let server: string;
  /** What the pages reported that must never happen: CSP violations, script errors. */
  const problems: string[] = [];

  async function newPage(options: Parameters<Browser['newContext']>[0] = {}): Promise<Page> {
    const context = await browser.newContext({ viewport: DESKTOP, ...options });
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) problems.push(`console: ${message.text()}`);
    });
    return page;
  }

  /** The sign-in page's way to the form. */
  async function openForgotPassword(page: Page): Promise<void> {
    await page.goto(`${server}/app/sign-in`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.waitForURL(`${server}/app/forgot-password`);
    await page.getByRole('heading', { name: 'Forgot your password?', level: 1 }).waitFor();
  }

  beforeAll(async () => {
    smtp = await startSmtpServer();
    const port = await freePort();
    server = `http://127.0.0.1:${port}`;
    // The mail's link leads to Quire's public URL: the address it listens on.
    t = await startTestApp(kind, { publicUrl: server, mail: { smtpUrl: smtp.url, from: 'Quire <quire@example.com>' } });
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  it('shows the form in light, dark and at phone width, with no serious accessibility violation', { timeout: 60_000 }, async () => {
    for (const [variant, options] of [
      ['light', { colorScheme: 'light' }],
      ['dark', { colorScheme: 'dark' }],
      ['phone', { colorScheme: 'light', viewport: PHONE }],
    ] as const) {
      const page = await newPage(options);
      await openForgotPassword(page);
      await screenshot(page, `app-forgot-password-${variant}-${kind}`);
      if (variant !== 'phone') expect(await seriousAccessibilityViolations(page), variant).toEqual([]);
      await page.context().close();
    }
    expect(problems).toEqual([]);
  });

  it('mails a link from the form, which sets a new password and signs in', { timeout: 60_000 }, async () => {
    const { user } = await t.user();
    const before = smtp.messages.length;
    const page = await newPage();
    await openForgotPassword(page);
    await page.getByLabel('E-mail').fill(user.email);
    await page.getByRole('button', { name: 'Send the link' }).click();
    await page.getByRole('status').getByText(`If an account exists for ${user.email}, we sent it a link`).waitFor();
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, `app-forgot-password-sent-${kind}`);

    const mail = await smtp.nextMessageTo(user.email, before);
    const link = /http:\/\/\S+\/app\/set-password#token=\S+/.exec(mail.text ?? '')?.[0];
    expect(link?.startsWith(`${server}/app/set-password#token=`)).toBe(true);
    await page.goto(link!);
    await page.getByLabel('New password').fill('a new long password');
    await page.getByLabel('The same again').fill('a new long password');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.waitForURL(`${server}/app/`);
    await page.getByRole('heading', { name: 'Your organizations', level: 1 }).waitFor();
    // The token left the address bar once used.
    expect(page.url()).not.toContain('token=');
    await page.context().close();
    expect(problems).toEqual([]);
  });
});
