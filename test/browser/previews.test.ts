/**
 * A change request's preview in a real headless Chromium: its author copies a preview link from the change request's
 * view, and someone without an account opens it in a fresh browser, reads the banner and the changed page, and follows
 * the table of contents inside the preview. No script breaks the CSP, axe-core finds no serious violation (light and
 * dark), and each view is screenshot (light, dark, phone) in test-artifacts/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WALK_ON_SQLITE } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchBrowser, screenshot, seriousAccessibilityViolations } from '../helpers/browser.js';
import { AppBrowser } from '../helpers/app-browser.js';
import { Checkout, spaceRemote } from '../helpers/git.js';

describe.each(WALK_ON_SQLITE)('change-request previews in Chromium (%s)', (kind) => {
  let t: TestApp;
  let web: AppBrowser;
  let server: string;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let spaceId: string;
  let number: number;

  beforeAll(async () => {
    t = await startTestApp(kind);
    server = await t.listen();
    web = new AppBrowser(await launchBrowser(), server, t);
    org = await t.organization('Preview Co');
    await web.withPassword(org.admin);
    const api = async (method: string, url: string, body?: unknown) => {
      const res = await t.request(method, url, { token: org.admin.token, body });
      expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      return res.body;
    };
    spaceId = (await api('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Guide' })).id;
    const main = await Checkout.clone(spaceRemote(server, org.admin.token, spaceId));
    await main.write('README.md', '# Welcome\n\nThe published intro.\n');
    await main.write('setup.md', '# Setup\n\nInstall it.\n');
    await main.write('SUMMARY.md', '# Summary\n\n* [Welcome](README.md)\n* [Setup](setup.md)\n');
    await main.commitAndPush('Guide');
    await main.dispose();
    const site = await api('POST', `/v1/orgs/${org.id}/sites`, { title: 'Handbook', visibility: 'share-link' });
    await api('POST', `/v1/orgs/${org.id}/sites/${site.id}/site-spaces`, { spaceId });
    number = (await api('POST', `/v1/spaces/${spaceId}/change-requests`, { subject: 'Simpler setup' })).number;
    const branch = await Checkout.clone(spaceRemote(server, org.admin.token, spaceId));
    await branch.git('checkout', '--quiet', '-b', `change-requests/${number}`, `origin/change-requests/${number}`);
    await branch.write('setup.md', '# Setup\n\nInstall it with one command.\n');
    await branch.commit('Simpler setup');
    await branch.push(`HEAD:refs/heads/change-requests/${number}`);
    await branch.dispose();
  }, 120_000);

  afterAll(async () => {
    await web?.close();
    await t?.close();
  });

  it('copies a preview link from the change request, and opens it in a fresh browser without an account', async () => {
    const app = await web.signedIn(org.admin, `/s/${spaceId}/~/changes/${number}`);
    await expect.poll(() => app.getByRole('link', { name: 'Preview', exact: true }).count()).toBe(1);
    await app.getByRole('button', { name: 'Copy preview link' }).click();
    const field = app.getByLabel('Preview link');
    await field.waitFor();
    const shared = new URL(await field.inputValue());
    // The API's public address (QUIRE_PUBLIC_URL) is the test server's here.
    const link = `${server}${shared.pathname}${shared.search}`;
    expect(shared.pathname).toMatch(new RegExp(`^/preview/${org.id}/`));
    await screenshot(app, `preview-link-${kind}`);
    expect(await seriousAccessibilityViolations(app)).toEqual([]);

    await web.inEveryTheme('preview-change-request', async (options, variant) => {
      const page = await web.newPage(options);
      await page.goto(link);
      await expect.poll(() => page.locator('aside.preview-banner').textContent()).toBe(`Preview of change request #${number}: Simpler setup`);
      await expect.poll(() => page.locator('article h1').textContent()).toBe('Welcome');
      if (variant !== 'phone') {
        // The table of contents leads inside the preview, to the changed page (the cookie carries the link on): the
        // themes are checked there.
        await page.locator('nav.toc').getByRole('link', { name: 'Setup' }).click();
        await expect.poll(() => page.locator('article p').first().textContent()).toBe('Install it with one command.');
        expect(new URL(page.url()).pathname).toBe(`${new URL(link).pathname}/setup`);
      }
      return page;
    });
    expect(web.problems).toEqual([]);
  }, 180_000);
});
