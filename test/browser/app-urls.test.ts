/**
 * Every `urls.app` the API hands out opens its view in the app: an organization, a collection, a space, a page, a
 * change request, a revision, an invite link, a site and an OpenAPI specification, each read from the API's answer and
 * opened in Chromium signed in as the organization's admin. The views of collections, sites and specifications are
 * screenshot (light, dark, phone) and axe-checked in both themes.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WALK_ON_POSTGRES } from '../helpers/databases.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { launchBrowser } from '../helpers/browser.js';
import { AppBrowser, type ContextOptions } from '../helpers/app-browser.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { waitFor } from '../helpers/wait.js';

const PETSTORE = JSON.stringify({ openapi: '3.0.3', info: { title: 'Petstore', version: '1' }, paths: { '/pets': { get: { responses: { '200': { description: 'ok' } } } } } });

describe.each(WALK_ON_POSTGRES)('every urls.app opens its view in Chromium (%s)', (kind) => {
  let t: TestApp;
  let web: AppBrowser;
  let server: string;
  let admin: TestUser;
  /** What each resource's answer says, by resource. */
  const answers: Record<string, any> = {};

  /** An address the API wrote (on its configured public origin, which the app shows as it is) on the test server. */
  const onServer = (url: string) => url.replace('http://quire.test', server);

  async function as200(method: string, path: string, body?: unknown): Promise<any> {
    const res = await t.request(method, path, { token: admin.token, ...(body !== undefined ? { body } : {}) });
    expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  }

  /** A page of the app at `url` as the API wrote it, signed in as the admin in a fresh browser once sent to sign in. */
  async function signedIn(url: string, options: ContextOptions = {}): Promise<Page> {
    const page = await web.newPage(options);
    await page.goto(url);
    await page.waitForURL(/\/app\/sign-in\?next=/);
    await web.signIn(page, admin);
    await page.waitForURL(url);
    return page;
  }

  beforeAll(async () => {
    t = await startTestApp(kind);
    server = await t.listen();
    web = new AppBrowser(await launchBrowser(), server, t);
    const org = await t.organization('Atlas Co');
    admin = org.admin;
    await web.withPassword(admin);

    answers.organization = await as200('GET', `/v1/orgs/${org.id}`);
    answers.collection = await as200('POST', `/v1/orgs/${org.id}/collections`, { title: 'Guides' });
    await as200('POST', `/v1/orgs/${org.id}/collections`, { title: 'Archive', parent: answers.collection.id });
    answers.space = await as200('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Field manual', parent: answers.collection.id });
    const spaceId = answers.space.id;
    const checkout = await Checkout.clone(spaceRemote(server, admin.token, spaceId));
    await checkout.write('README.md', '# Welcome\n\nRead the [setup](setup.md).\n');
    await checkout.write('setup.md', '# Setup\n\nPlug it in.\n');
    await checkout.write('SUMMARY.md', '# Summary\n\n* [Welcome](README.md)\n* [Setup](setup.md)\n');
    await checkout.commitAndPush('Field manual');
    await checkout.dispose();
    answers.page = await as200('GET', `/v1/spaces/${spaceId}/content/path/setup`);
    answers.changeRequest = await as200('POST', `/v1/spaces/${spaceId}/change-requests`, { subject: 'Explain the wiring' });
    answers.revision = (await as200('GET', `/v1/spaces/${spaceId}/revisions`)).items[0];
    answers.invite = await as200('POST', `/v1/orgs/${org.id}/link-invites`, { role: 'read' });
    answers.site = await as200('POST', `/v1/orgs/${org.id}/sites`, { title: 'Atlas docs', visibility: 'public', spaces: [spaceId] });
    await as200('POST', `/v1/orgs/${org.id}/openapi`, { slug: 'petstore', source: { text: PETSTORE } });
    answers.spec = await waitFor(() => as200('GET', `/v1/orgs/${org.id}/openapi/petstore`), { until: (spec) => spec.processingState === 'complete', what: 'the spec to be processed' });
  });

  afterAll(async () => {
    await web?.close();
    await t?.close();
  });

  it('opens the view of every resource from its urls.app, never the not-found view', { timeout: 120_000 }, async () => {
    // Each view, and what shows it is the one of that resource.
    const crumb = (page: Page, label: string) => page.getByRole('navigation', { name: 'Breadcrumb' }).locator('[aria-current="page"]', { hasText: label });
    const h1 = (page: Page, name: string) => page.getByRole('heading', { name, level: 1, exact: true });
    const views: Array<[string, (page: Page) => ReturnType<Page['getByRole']>]> = [
      ['organization', (page) => h1(page, 'Atlas Co')],
      ['collection', (page) => h1(page, 'Guides')],
      ['space', (page) => crumb(page, 'Field manual')],
      ['page', (page) => h1(page, 'Setup')],
      ['changeRequest', (page) => h1(page, `#${answers.changeRequest.number} Explain the wiring`)],
      ['revision', (page) => crumb(page, answers.revision.id.slice(0, 8))],
      ['invite', (page) => h1(page, 'Join an organization')],
      ['site', (page) => h1(page, 'Atlas docs')],
      ['spec', (page) => h1(page, 'petstore')],
    ];
    const page = await signedIn(onServer(answers.organization.urls.app));
    for (const [name, shown] of views) {
      const url = answers[name].urls.app;
      expect(url, name).toMatch(/^http:\/\/quire\.test\/app\//);
      await page.goto(onServer(url));
      await shown(page).waitFor();
      expect(await page.getByRole('heading', { name: 'Nothing here' }).count(), name).toBe(0);
    }
    // The space and the revision show their first page.
    for (const name of ['space', 'revision']) {
      await page.goto(onServer(answers[name].urls.app));
      await h1(page, 'Welcome').waitFor();
    }
    expect(web.problems).toEqual([]);
  });

  it('reads a collection: its place in the organization, its collections and spaces as links', { timeout: 60_000 }, async () => {
    const page = await signedIn(onServer(answers.collection.urls.app));
    const breadcrumb = page.getByRole('navigation', { name: 'Breadcrumb' });
    await breadcrumb.getByRole('link', { name: 'Atlas Co' }).waitFor();
    await page.getByRole('link', { name: 'Archive' }).click();
    await h1Of(page, 'Archive');
    expect(await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link').allTextContents()).toEqual(['Atlas Co', 'Guides']);
    await page.getByText('Nothing in this collection yet.').waitFor();
    await page.goBack();
    await page.getByRole('link', { name: 'Field manual' }).click();
    await page.waitForURL(onServer(answers.space.urls.app));
    await page.getByRole('heading', { name: 'Welcome', level: 1 }).waitFor();
  });

  it('reads a site: published where, what it publishes, and a preview for those who may edit it', { timeout: 60_000 }, async () => {
    const page = await signedIn(onServer(answers.organization.urls.app));
    await page.getByRole('link', { name: 'Atlas docs' }).click();
    await h1Of(page, 'Atlas docs');
    const published = page.getByRole('link', { name: answers.site.urls.published });
    expect(answers.site.urls.published).toBeTruthy();
    await published.waitFor();
    expect(await page.locator('.facts dd').first().textContent()).toBe('public');
    expect(await page.getByRole('link', { name: 'Field manual', exact: true }).getAttribute('href')).toBe(new URL(answers.space.urls.app).pathname);
    expect(await page.getByRole('link', { name: 'Field manual as published' }).getAttribute('href')).toBe(answers.site.urls.published);
    await page.getByRole('button', { name: 'Preview' }).click();
    const preview = page.getByRole('link', { name: 'open the preview' });
    const href = (await preview.getAttribute('href'))!;
    expect(href).toContain('?preview=');
    // The link opens the site as published, without the session.
    const res = await fetch(onServer(href));
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Welcome');
  });

  it('reads an OpenAPI specification: its state and its versions', { timeout: 60_000 }, async () => {
    const page = await signedIn(onServer(answers.organization.urls.app));
    await page.getByRole('link', { name: 'petstore' }).click();
    await h1Of(page, 'petstore');
    await page.getByText('Processed', { exact: true }).waitFor();
    await page.getByText('Text given to Quire').waitFor();
    const versions = await t.request('GET', `${new URL(answers.spec.urls.location).pathname}/versions`, { token: admin.token });
    expect(versions.body.items).toHaveLength(1);
    await page.getByRole('link', { name: versions.body.items[0].url }).waitFor();
    const document = await page.getByRole('link', { name: "The latest version's document (JSON)" }).getAttribute('href');
    const res = await page.request.get(onServer(document!));
    expect(res.status()).toBe(200);
    expect(JSON.stringify(await res.json())).toContain('Petstore');
  });

  it('shows the new views clean in light and dark and at phone width', { timeout: 120_000 }, async () => {
    for (const [name, resource, heading] of [
      ['collection', 'collection', 'Guides'],
      ['site', 'site', 'Atlas docs'],
      ['openapi-spec', 'spec', 'petstore'],
    ] as const) {
      await web.inEveryTheme(`app-${name}`, async (options) => {
        const page = await signedIn(onServer(answers[resource].urls.app), options);
        await h1Of(page, heading);
        await waitFor(async () => (await page.locator('p.loading').count()) === 0, { what: `every read of the ${name} view to be shown` });
        return page;
      });
    }
    expect(web.problems).toEqual([]);
  });

  async function h1Of(page: Page, name: string): Promise<void> {
    await page.getByRole('heading', { name, level: 1, exact: true }).waitFor();
  }
});
