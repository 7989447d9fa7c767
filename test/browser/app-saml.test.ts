/**
 * Signing in to the app through an organization's SAML provider in headless Chromium: the provider's button on the
 * sign-in page, the test identity provider's page (test/helpers/saml-idp.ts), whose form posts the signed response
 * to Quire's ACS from another site (localhost, Quire being 127.0.0.1), and back to the page asked for, signed in; a
 * refusal comes back as a sentence on the sign-in page.
 */
import net from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchBrowser, screenshot, seriousAccessibilityViolations } from '../helpers/browser.js';
import { startSamlIdp, type TestSamlIdp } from '../helpers/saml-idp.js';

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

describe.each(DATABASE_KINDS)('the app signs in through SAML in Chromium (%s)', (kind) => {
  let t: TestApp;
  let idp: TestSamlIdp;
  let browser: Browser;
  let server: string;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let metadata: string;
  /** What the pages reported that must never happen: CSP violations, script errors. */
  const problems: string[] = [];

  beforeAll(async () => {
    // Another site than Quire's (localhost against 127.0.0.1): the ACS is posted to cross-site, as from a real provider.
    idp = await startSamlIdp({ host: 'localhost' });
    const port = await freePort();
    server = `http://127.0.0.1:${port}`;
    // The identity provider posts to Quire's public URL: the address it listens on.
    t = await startTestApp(kind, { publicUrl: server });
    await t.app.listen({ port, host: '127.0.0.1' });
    browser = await launchBrowser();
    org = await t.organization('SAML Sign-On Co');
    const created = await t.request('POST', `/v1/orgs/${org.id}/saml`, {
      token: org.admin.token,
      body: { label: 'Acme SAML', entityID: idp.entityID, ssoURL: idp.ssoURL, certificate: idp.certificate, defaultRole: 'read' },
    });
    expect(created.status).toBe(201);
    metadata = (await t.app.inject({ method: 'GET', url: `/sso/saml/${created.body.id}/metadata` })).body;
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await idp?.close();
  });

  async function newPage(options: Parameters<Browser['newContext']>[0] = {}): Promise<Page> {
    const context = await browser.newContext({ viewport: DESKTOP, ...options });
    const page = await context.newPage();
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/Failed to load resource: the server responded with a status of 4\d\d/.test(message.text())) problems.push(`console: ${message.text()}`);
    });
    return page;
  }

  it('offers the SAML provider on the sign-in page (light, dark, phone; no serious accessibility violation)', { timeout: 60_000 }, async () => {
    for (const [variant, options] of [
      ['light', { colorScheme: 'light' }],
      ['dark', { colorScheme: 'dark' }],
      ['phone', { colorScheme: 'light', viewport: PHONE }],
    ] as const) {
      const page = await newPage(options);
      await page.goto(`${server}/app/o/${org.id}`);
      await page.waitForURL(/\/app\/sign-in\?next=/);
      await page.getByRole('link', { name: 'Acme SAML' }).waitFor();
      await screenshot(page, `app-sign-in-saml-${variant}-${kind}`);
      if (variant !== 'phone') expect(await seriousAccessibilityViolations(page), variant).toEqual([]);
      await page.context().close();
    }
    expect(problems).toEqual([]);
  });

  it('signs a new person in through the identity provider and comes back to the page asked for', { timeout: 60_000 }, async () => {
    idp.signInAs(`newcomer-${kind}@saml.example`, metadata);
    const page = await newPage();
    await page.goto(`${server}/app/o/${org.id}`);
    await page.waitForURL(/\/app\/sign-in\?next=/);
    await page.getByRole('link', { name: 'Acme SAML' }).click();
    await page.waitForURL(`${server}/app/o/${org.id}`);
    await page.getByRole('heading', { name: 'SAML Sign-On Co', level: 1 }).waitFor();
    const cookies = await page.context().cookies(server);
    expect(cookies.find((c) => c.name === 'quire_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    await page.context().close();
    expect(problems).toEqual([]);
  });

  it("says why when the provider's account may not sign in", { timeout: 60_000 }, async () => {
    // An account of another organization: this organization's provider does not vouch for it.
    const outsider = await t.organization('Elsewhere Co');
    idp.signInAs(outsider.admin.user.email, metadata);
    const page = await newPage();
    await page.goto(`${server}/app/sign-in`);
    await page.getByRole('link', { name: 'Acme SAML' }).click();
    await page.waitForURL(/\/app\/sign-in\?error=not_allowed/);
    await page.getByRole('alert').getByText('This account may not sign in to that organization.', { exact: false }).waitFor();
    await page.context().close();
  });
});
