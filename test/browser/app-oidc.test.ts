/**
 * Signing in to the app through a real OpenID Connect provider (panva's oidc-provider on loopback) in headless
 * Chromium: the provider's button on the sign-in page, its login and consent forms, and back to the page asked for,
 * signed in; a refusal comes back as a sentence on the sign-in page.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WALK_ON_POSTGRES } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchBrowser } from '../helpers/browser.js';
import { AppBrowser } from '../helpers/app-browser.js';
import { freePort } from '../helpers/cli.js';
import { startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.js';

describe.each(WALK_ON_POSTGRES)('the app signs in through OpenID Connect in Chromium (%s)', (kind) => {
  let t: TestApp;
  let op: TestOidcProvider;
  let app: AppBrowser;
  let server: string;
  let orgId: string;

  beforeAll(async () => {
    op = await startOidcProvider();
    const port = await freePort();
    server = `http://127.0.0.1:${port}`;
    // The browser follows the provider back to Quire's public URL: the address it listens on.
    t = await startTestApp(kind, { publicUrl: server, fetchAllow: ['127.0.0.1'], oidc: { issuer: op.issuer, clientId: op.clientId, clientSecret: op.clientSecret, label: 'Acme SSO' } });
    await t.app.listen({ port, host: '127.0.0.1' });
    op.setRedirectUri(`${server}/sso/oidc/callback`);
    app = new AppBrowser(await launchBrowser(), server, t);
    const org = await t.organization('Single Sign-On Co');
    orgId = org.id;
    op.accounts.set('ada', { email: org.admin.user.email, email_verified: true, name: 'Ada' });
    op.accounts.set('eve', { email: 'eve@example.com', email_verified: false, name: 'Eve' });
  });
  afterAll(async () => {
    await app?.close();
    await t?.close();
    await op?.close();
  });

  async function throughProvider(page: Page, account: string): Promise<void> {
    await page.getByRole('link', { name: 'Acme SSO' }).click();
    await page.waitForURL(`${op.issuer}/**`);
    await page.locator('input[name=login]').fill(account);
    await page.locator('input[name=password]').fill('any');
    await page.locator('button[type=submit]').first().click();
    // The consent form, when the provider asks.
    const consent = page.locator('form button[type=submit]');
    if (new URL(page.url()).origin === op.issuer && (await consent.count()) > 0) await consent.first().click();
  }

  it('signs in with the provider and comes back to the page asked for', { timeout: 60_000 }, async () => {
    await app.inEveryTheme('app-sign-in-oidc', async (options) => {
      const page = await app.newPage(options);
      await page.goto(`${server}/app/o/${orgId}`);
      await page.waitForURL(/\/app\/sign-in\?next=/);
      await page.getByRole('link', { name: 'Acme SSO' }).waitFor();
      return page;
    });
    const page = await app.newPage();
    await page.goto(`${server}/app/o/${orgId}`);
    await page.waitForURL(/\/app\/sign-in\?next=/);
    await throughProvider(page, 'ada');
    await page.waitForURL(`${server}/app/o/${orgId}`);
    await page.getByRole('heading', { name: 'Single Sign-On Co', level: 1 }).waitFor();
    await page.context().close();
    expect(app.problems).toEqual([]);
  });

  it('says why when the provider\'s account may not sign in', { timeout: 60_000 }, async () => {
    const page = await app.newPage();
    await page.goto(`${server}/app/sign-in`);
    await throughProvider(page, 'eve');
    await page.waitForURL(/\/app\/sign-in\?error=email_unverified/);
    await page.getByRole('alert').getByText('The sign-in provider has not verified your e-mail address.').waitFor();
    await page.context().close();
    expect(app.problems).toEqual([]);
  });
});
