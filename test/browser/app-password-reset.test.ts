/**
 * A forgotten password in headless Chromium, with a real SMTP server on loopback: "Forgot your password?" on the
 * sign-in page, the address sent, the mail's link opened, a new password set, and signed in. The new form is checked
 * by axe-core in light and dark and screenshot (light, dark, phone) in test-artifacts/.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WALK_ON_SQLITE } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchBrowser, screenshot, seriousAccessibilityViolations } from '../helpers/browser.js';
import { AppBrowser } from '../helpers/app-browser.js';
import { freePort } from '../helpers/cli.js';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp-server.js';

describe.each(WALK_ON_SQLITE)('the app resets a forgotten password by e-mail in Chromium (%s)', (kind) => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let web: AppBrowser;
  let server: string;

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
    web = new AppBrowser(await launchBrowser(), server, t);
  });
  afterAll(async () => {
    await web?.close();
    await t?.close();
    await smtp?.close();
  });

  it('shows the form in light, dark and at phone width, with no serious accessibility violation', { timeout: 60_000 }, async () => {
    await web.inEveryTheme('app-forgot-password', async (options) => {
      const page = await web.newPage(options);
      await openForgotPassword(page);
      return page;
    });
    expect(web.problems).toEqual([]);
  });

  it('mails a link from the form, which sets a new password and signs in', { timeout: 60_000 }, async () => {
    const { user } = await t.user();
    const before = smtp.messages.length;
    const page = await web.newPage();
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
    expect(web.problems).toEqual([]);
  });
});
