/**
 * Signing in to the app through an organization's SAML provider in headless Chromium: the provider's button on the
 * sign-in page, the test identity provider's page (test/helpers/saml-idp.ts), whose form posts the signed response
 * to Quire's ACS from another site (localhost, Quire being 127.0.0.1), and back to the page asked for, signed in; a
 * refusal comes back as a sentence on the sign-in page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WALK_ON_SQLITE } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchBrowser } from '../helpers/browser.js';
import { AppBrowser } from '../helpers/app-browser.js';
import { freePort } from '../helpers/cli.js';
import { startSamlIdp, type TestSamlIdp } from '../helpers/saml-idp.js';

describe.each(WALK_ON_SQLITE)('the app signs in through SAML in Chromium (%s)', (kind) => {
  let t: TestApp;
  let idp: TestSamlIdp;
  let web: AppBrowser;
  let server: string;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let metadata: string;

  beforeAll(async () => {
    // Another site than Quire's (localhost against 127.0.0.1): the ACS is posted to cross-site, as from a real provider.
    idp = await startSamlIdp({ host: 'localhost' });
    const port = await freePort();
    server = `http://127.0.0.1:${port}`;
    // The identity provider posts to Quire's public URL: the address it listens on.
    t = await startTestApp(kind, { publicUrl: server });
    await t.app.listen({ port, host: '127.0.0.1' });
    web = new AppBrowser(await launchBrowser(), server, t);
    org = await t.organization('SAML Sign-On Co');
    const created = await t.request('POST', `/v1/orgs/${org.id}/saml`, {
      token: org.admin.token,
      body: { label: 'Acme SAML', entityID: idp.entityID, ssoURL: idp.ssoURL, certificate: idp.certificate, defaultRole: 'read' },
    });
    expect(created.status).toBe(201);
    metadata = (await t.app.inject({ method: 'GET', url: `/sso/saml/${created.body.id}/metadata` })).body;
  });
  afterAll(async () => {
    await web?.close();
    await t?.close();
    await idp?.close();
  });

  it('offers the SAML provider on the sign-in page (light, dark, phone; no serious accessibility violation)', { timeout: 60_000 }, async () => {
    await web.inEveryTheme('app-sign-in-saml', async (options) => {
      const page = await web.newPage(options);
      await page.goto(`${server}/app/o/${org.id}`);
      await page.waitForURL(/\/app\/sign-in\?next=/);
      await page.getByRole('link', { name: 'Acme SAML' }).waitFor();
      return page;
    });
    expect(web.problems).toEqual([]);
  });

  it('signs a new person in through the identity provider and comes back to the page asked for', { timeout: 60_000 }, async () => {
    idp.signInAs(`newcomer-${kind}@saml.example`, metadata);
    const page = await web.newPage();
    await page.goto(`${server}/app/o/${org.id}`);
    await page.waitForURL(/\/app\/sign-in\?next=/);
    await page.getByRole('link', { name: 'Acme SAML' }).click();
    await page.waitForURL(`${server}/app/o/${org.id}`);
    await page.getByRole('heading', { name: 'SAML Sign-On Co', level: 1 }).waitFor();
    const cookies = await page.context().cookies(server);
    expect(cookies.find((c) => c.name === 'quire_session')).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    await page.context().close();
    expect(web.problems).toEqual([]);
  });

  it("says why when the provider's account may not sign in", { timeout: 60_000 }, async () => {
    // An account of another organization: this organization's provider does not vouch for it.
    const outsider = await t.organization('Elsewhere Co');
    idp.signInAs(outsider.admin.user.email, metadata);
    const page = await web.newPage();
    await page.goto(`${server}/app/sign-in`);
    await page.getByRole('link', { name: 'Acme SAML' }).click();
    await page.waitForURL(/\/app\/sign-in\?error=not_allowed/);
    await page.getByRole('alert').getByText('This account may not sign in to that organization.', { exact: false }).waitFor();
    await page.context().close();
  });
});
