/**
 * A visitor-auth site whose visitors sign in through its OpenID Connect provider (panva's oidc-provider on loopback),
 * in headless Chromium: an admin makes the site visitor-auth and sets its provider in the app, whose redirect URI is
 * what the provider is given; then an anonymous browser is sent through the provider's login and consent and back to
 * the page it asked for, which shows what the provider's claims decide. No script breaks the site's CSP, axe-core finds no
 * serious violation (light and dark), and the page is screenshot (light, dark, phone) in test-artifacts/.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WALK_ON_POSTGRES } from '../helpers/databases.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { launchBrowser, screenshot, seriousAccessibilityViolations } from '../helpers/browser.js';
import { startOidcProvider, type TestOidcProvider } from '../helpers/oidc-provider.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { AppBrowser, PHONE } from '../helpers/app-browser.js';
import { freePort } from '../helpers/cli.js';


describe.each(WALK_ON_POSTGRES)('visitor sign-in through the site\'s provider in Chromium (%s)', (kind) => {
  let t: TestApp;
  let op: TestOidcProvider;
  let browser: Browser;
  let server: string;
  let siteBase: string;
  let siteView: string;
  let admin: TestUser;
  let app: AppBrowser;
  const problems: string[] = [];

  beforeAll(async () => {
    op = await startOidcProvider();
    const port = await freePort();
    server = `http://127.0.0.1:${port}`;
    // The browser follows the provider back to Quire's public URL: the address it listens on.
    t = await startTestApp(kind, { publicUrl: server, fetchAllow: ['127.0.0.1'] });
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await launchBrowser();
    const org = await t.organization('Visitors Co');
    const api = async (method: string, url: string, body?: unknown) => {
      const res = await t.request(method, url, { token: org.admin.token, body });
      expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      return res.body;
    };
    const spaceId = (await api('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Guide' })).id;
    const checkout = await Checkout.clone(spaceRemote(server, org.admin.token, spaceId));
    await checkout.write('README.md', '# Welcome\n\n{% if visitor.claims.email == "beta@example.com" %}\nBeta features are on.\n{% else %}\nJoin the beta.\n{% endif %}\n');
    await checkout.commitAndPush('Guide');
    await checkout.dispose();
    const siteId = (await api('POST', `/v1/orgs/${org.id}/sites`, { title: 'Portal', visibility: 'public' })).id;
    await api('POST', `/v1/orgs/${org.id}/sites/${siteId}/site-spaces`, { spaceId });
    const site = await api('GET', `/v1/orgs/${org.id}/sites/${siteId}`);
    siteBase = new URL(site.urls.published).pathname;
    siteView = site.urls.app;
    admin = org.admin;
    app = new AppBrowser(browser, server, t);
    await app.withPassword(admin);
    op.accounts.set('beta', { email: 'beta@example.com', email_verified: true, name: 'Beta' });
  }, 120_000);
  afterAll(async () => {
    await (app ? app.close() : browser?.close());
    await t?.close();
    await op?.close();
  });

  async function throughProvider(page: Page): Promise<void> {
    await page.waitForURL(`${op.issuer}/**`);
    await page.locator('input[name=login]').fill('beta');
    await page.locator('input[name=password]').fill('any');
    await page.locator('button[type=submit]').first().click();
    const consent = page.locator('form button[type=submit]');
    if (new URL(page.url()).origin === op.issuer && (await consent.count()) > 0) await consent.first().click();
  }

  it("is made visitor-auth, and given its provider, by an admin in the app: the secret never shows, the redirect URI does", { timeout: 120_000 }, async () => {
    const page = await app.newPage();
    await page.goto(siteView);
    await app.signIn(page, admin);
    await page.waitForURL(siteView);
    await expect(page.getByLabel('Issuer URL').count()).resolves.toBe(0);
    await page.getByLabel('Visibility').selectOption('visitor-auth');
    await page.getByRole('button', { name: 'Save visibility' }).click();
    await page.getByText('No provider yet').waitFor();
    await page.getByLabel('Issuer URL').fill(op.issuer);
    await page.getByLabel('Client ID').fill(op.clientId);
    await page.getByLabel('Client secret').fill(op.clientSecret);
    await page.getByRole('button', { name: "Add the visitors' provider" }).click();
    const redirectUri = page.locator('.given code');
    await redirectUri.waitFor();
    const callbackUrl = (await redirectUri.textContent())!;
    expect(new URL(callbackUrl).pathname).toBe(`${siteBase}/~quire/oidc/callback`);
    // The provider knows only the redirect URI the app showed: the visitors below sign in through it.
    op.setRedirectUri(callbackUrl);
    expect(await page.getByLabel('Client secret').inputValue()).toBe('');
    expect(await page.content()).not.toContain(op.clientSecret);
    await page.context().close();

    await app.inEveryTheme('app-site-visitor-sign-in', async (options) => {
      const view = await app.newPage(options);
      await view.goto(siteView);
      await app.signIn(view, admin);
      await view.locator('.given code').waitFor();
      return view;
    });
    expect(app.problems).toEqual([]);
  });

  it('sends an anonymous visitor through the provider and back to the page, shown for their claims', { timeout: 120_000 }, async () => {
    for (const [variant, options] of [
      ['light', { colorScheme: 'light' }],
      ['dark', { colorScheme: 'dark' }],
      ['phone', { colorScheme: 'light', viewport: PHONE }],
    ] as const) {
      const context = await browser.newContext(options);
      const page = await context.newPage();
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error' && new URL(page.url()).origin === server) problems.push(`console: ${message.text()}`);
      });
      await page.goto(`${server}${siteBase}/`);
      await throughProvider(page);
      await page.waitForURL(`${server}${siteBase}/`);
      await expect.poll(() => page.locator('article p').first().textContent()).toBe('Beta features are on.');
      if (variant !== 'phone') expect(await seriousAccessibilityViolations(page), variant).toEqual([]);
      await screenshot(page, `site-visitor-oidc-${variant}-${kind}`);
      await context.close();
    }
    expect(problems).toEqual([]);
  });
});
