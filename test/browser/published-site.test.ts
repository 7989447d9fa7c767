/**
 * A published site in a real headless Chromium: a reader follows the navigation to a nested page,
 * switches a tab and opens an expandable (no script needed), searches as they type and without script, switches
 * variant and section; a share-link site with and without its key; a visitor-auth site with and without a valid
 * token, and with claims that show and hide a block; script injection in content, front matter,
 * SUMMARY titles and file names never runs; axe-core finds no serious accessibility violation. Screenshots of a few
 * pages go to test-artifacts/browser/.
 */
import { SignJWT } from 'jose';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchBrowser, screenshot, seriousAccessibilityViolations } from '../helpers/browser.js';
import { Checkout, spaceRemote } from '../helpers/git.js';

describe('a published site in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let server: string;
  let siteUrl: string;
  let org: Awaited<ReturnType<TestApp['organization']>>;

  /** Pushes `files` as the content of a new space; returns its id. */
  async function space(title: string, files: Record<string, string | Buffer>): Promise<string> {
    const id = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title } })).body.id as string;
    const checkout = await Checkout.clone(spaceRemote(server, org.admin.token, id));
    for (const [file, content] of Object.entries(files)) await checkout.write(file, content);
    await checkout.commitAndPush(title);
    await checkout.dispose();
    return id;
  }

  const api = async (method: string, url: string, body?: unknown) => (await t.request(method, url, { token: org.admin.token, body })).body;

  async function open(url: string): Promise<Page> {
    const page = await context.newPage();
    await page.goto(new URL(url, server).toString());
    return page;
  }

  beforeAll(async () => {
    browser = await launchBrowser();
    t = await startTestApp('sqlite');
    org = await t.organization('Readers Co');
    server = await t.listen();
    const guide = await space('Guide', {
      'README.md': '# Welcome\n\nStart with the [install guide](setup/install.md).\n\n[bad](javascript:window.__pwned=1)\n',
      'setup/README.md': '# Setup\n\nAll about setting up.\n',
      'setup/install.md': [
        '---',
        'description: Install it <script>window.__pwned = "description"</script>',
        '---',
        '',
        '# Install',
        '',
        '{% tabs %}',
        '{% tab title="npm" %}',
        'Run npm install.',
        '{% endtab %}',
        '{% tab title="yarn" %}',
        'Run yarn add.',
        '{% endtab %}',
        '{% endtabs %}',
        '',
        '<details>',
        '<summary>Troubleshooting</summary>',
        '',
        'Delete the lock file.',
        '',
        '</details>',
        '',
        '## Checksums',
        '',
        'Compare the zebrafish checksum before you run it.',
        '',
        '<script>window.__pwned = "script"</script><svg onload="window.__pwned = \'svg\'"></svg>',
        '',
      ].join('\n'),
      // (The one page the accessibility check skips: an <img> without alt is the author's, not the layout's.)
      'blocks/all.md': [
        '# Every block',
        '',
        '{% hint style="warning" %}',
        'Careful **now**.',
        '{% endhint %}',
        '',
        '{% code title="app.js" lineNumbers="true" %}',
        '```javascript',
        'const answer = 42; // the answer',
        'console.log("answer", answer);',
        '```',
        '{% endcode %}',
        '',
        '{% stepper %}',
        '{% step %}',
        '### Install',
        'Get it.',
        '{% endstep %}',
        '{% step %}',
        '### Run',
        'Start it.',
        '{% endstep %}',
        '{% endstepper %}',
        '',
        '{% columns %}',
        '{% column %}',
        'Left side.',
        '{% endcolumn %}',
        '{% column %}',
        'Right side.',
        '{% endcolumn %}',
        '{% endcolumns %}',
        '',
        '$$',
        'E = mc^2',
        '$$',
        '',
        '<table data-view="cards"><thead><tr><th></th><th data-hidden data-card-target data-type="content-ref"></th></tr></thead><tbody><tr><td><strong>Install</strong> it</td><td><a href="../setup/install.md">install</a></td></tr><tr><td><strong>Tune</strong> it</td><td><a href="../setup/advanced/tuning.md">tuning</a></td></tr></tbody></table>',
        '',
        '{% content-ref url="../setup/install.md" %}',
        '[install.md](../setup/install.md)',
        '{% endcontent-ref %}',
        '',
        '{% embed url="https://example.com/video" %}',
        '',
        '| Name | Value |',
        '| ---- | ----- |',
        '| a    | 1     |',
        '',
      ].join('\n'),
      'setup/advanced/tuning.md': '# Tuning\n\nTurn the knobs.\n\n![diagram](../../.gitbook/assets/"><img src=x onerror=alert(1)>.png)\n\n<img src="x" onerror="window.__pwned = \'img\'">\n',
      '.gitbook/assets/"><img src=x onerror=alert(1)>.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      'SUMMARY.md': [
        '# Table of contents',
        '',
        '* [Welcome](README.md)',
        '',
        '## Getting started <img src=x onerror="window.__pwned = \'summary\'">',
        '',
        '* [Setup](setup/README.md)',
        '  * [Install](setup/install.md)',
        '  * [Tuning](setup/advanced/tuning.md)',
        '* [Every block](blocks/all.md)',
        '',
      ].join('\n'),
    });
    const guideNext = await space('Guide (next)', { 'README.md': '# Welcome to the next version\n\nThings change.\n', 'SUMMARY.md': '# Table of contents\n\n* [Welcome](README.md)\n' });
    const reference = await space('Reference', { 'README.md': '# API reference\n\nEvery endpoint.\n', 'SUMMARY.md': '# Table of contents\n\n* [API reference](README.md)\n' });

    const site = await api('POST', `/v1/orgs/${org.id}/sites`, { title: 'Readers Docs', visibility: 'public' });
    const guides = await api('POST', `/v1/orgs/${org.id}/sites/${site.id}/sections`, { spaceId: guide, title: 'Guides' });
    await api('POST', `/v1/orgs/${org.id}/sites/${site.id}/sections`, { spaceId: reference, title: 'Reference' });
    await api('POST', `/v1/orgs/${org.id}/sites/${site.id}/site-spaces`, { spaceId: guideNext, sectionId: guides.id });
    siteUrl = new URL((await api('GET', `/v1/orgs/${org.id}/sites/${site.id}`)).urls.published).pathname;
    context = await browser.newContext();
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('follows the table of contents to a nested page, then previous and next', async () => {
    const page = await open(siteUrl);
    expect(await page.locator('h1').textContent()).toBe('Welcome');
    await page.getByRole('navigation', { name: 'Table of contents' }).getByRole('link', { name: 'Tuning' }).click();
    await page.waitForURL(/\/setup\/advanced\/tuning$/);
    expect(await page.locator('article h1').textContent()).toBe('Tuning');
    const current = page.getByRole('navigation', { name: 'Table of contents' }).locator('[aria-current=page]');
    expect(await current.textContent()).toBe('Tuning');
    await page.getByRole('link', { name: /Install/ }).and(page.locator('[rel=prev]')).click();
    await page.waitForURL(/\/setup\/install$/);
    expect(await page.locator('article h1').textContent()).toBe('Install');
    await screenshot(page, 'nested-page');
    await page.close();
  });

  it('switches a tab and opens an expandable without any script of the page', async () => {
    const page = await open(`${siteUrl}/setup/install`);
    const npmPanel = page.getByText('Run npm install.');
    const yarnPanel = page.getByText('Run yarn add.');
    expect(await npmPanel.isVisible()).toBe(true);
    expect(await yarnPanel.isVisible()).toBe(false);
    await page.getByText('yarn', { exact: true }).click();
    expect(await yarnPanel.isVisible()).toBe(true);
    expect(await npmPanel.isVisible()).toBe(false);
    // By keyboard too: the tabs are radio buttons, arrows move between them.
    await page.keyboard.press('ArrowLeft');
    expect(await npmPanel.isVisible()).toBe(true);

    const hidden = page.getByText('Delete the lock file.');
    expect(await hidden.isVisible()).toBe(false);
    await page.getByText('Troubleshooting').click();
    expect(await hidden.isVisible()).toBe(true);
    await screenshot(page, 'blocks');
    await page.close();
  });

  it('searches as the reader types (a word begun is enough) and lands on the section found', async () => {
    const page = await open(siteUrl);
    const box = page.getByRole('searchbox', { name: 'Search' });
    await box.pressSequentially('zebraf', { delay: 20 });
    const live = page.getByRole('region', { name: 'Search results' });
    await live.getByRole('link', { name: /Install/ }).waitFor();
    await screenshot(page, 'live-search');
    // The keyboard reaches the results from the box.
    await page.keyboard.press('ArrowDown');
    const focused = await page.evaluate(() => document.activeElement?.getAttribute('href'));
    expect(focused).toBe(`${siteUrl}/setup/install#checksums`);
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/setup\/install#checksums$/);
    expect(await page.locator('article h1').textContent()).toBe('Install');
    await page.close();
  });

  it('searches without script: the box sends its form to a results page', async () => {
    const noScript = await browser.newContext({ javaScriptEnabled: false });
    const page = await noScript.newPage();
    await page.goto(new URL(siteUrl, server).toString());
    await page.getByRole('searchbox', { name: 'Search' }).fill('zebrafish');
    await page.keyboard.press('Enter');
    await page.waitForURL(/~search\?q=zebrafish/);
    await page.getByRole('link', { name: 'Install' }).first().click();
    await page.waitForURL(/\/setup\/install$/);
    expect(await page.locator('article h1').textContent()).toBe('Install');
    await noScript.close();
  });

  it('switches variant and section', async () => {
    const page = await open(siteUrl);
    await page.getByRole('navigation', { name: 'Variants' }).getByRole('link', { name: 'Guide (next)' }).click();
    await page.waitForURL((url) => url.pathname !== siteUrl);
    expect(await page.getByText('Things change.').isVisible()).toBe(true);
    expect(await page.getByRole('navigation', { name: 'Variants' }).locator('[aria-current=page]').textContent()).toBe('Guide (next)');
    await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Reference' }).click();
    await page.waitForURL(/\/reference$/);
    expect(await page.locator('article h1').textContent()).toBe('API reference');
    await page.close();
  });

  it('never runs a script from content, front matter, SUMMARY titles or file names', async () => {
    for (const path of ['', '/setup/install', '/setup/advanced/tuning']) {
      const page = await open(`${siteUrl}${path}`);
      await page.waitForLoadState('load');
      let dialog = false;
      page.on('dialog', async (d) => {
        dialog = true;
        await d.dismiss();
      });
      await page.getByRole('link', { name: 'bad' }).click({ timeout: 500 }).catch(() => undefined);
      expect(await page.evaluate(() => (window as unknown as { __pwned?: string }).__pwned)).toBeUndefined();
      expect(dialog).toBe(false);
      await page.close();
    }
  });

  it('opens a share-link site only with its key, and keeps it while the reader navigates', async () => {
    const shared = await space('Partner notes', {
      'README.md': '# Partner notes\n\nSee [the terms](terms.md).\n',
      'terms.md': '# Terms\n\nBe nice.\n',
      'SUMMARY.md': '# Table of contents\n\n* [Partner notes](README.md)\n* [Terms](terms.md)\n',
    });
    const site = await api('POST', `/v1/orgs/${org.id}/sites`, { title: 'Partners', visibility: 'share-link' });
    await api('POST', `/v1/orgs/${org.id}/sites/${site.id}/site-spaces`, { spaceId: shared });
    const link = await api('POST', `/v1/orgs/${org.id}/sites/${site.id}/share-links`, { name: 'Acme' });
    const published = new URL(link.urls.published);

    // Without the key, a browser is asked to sign in (members read the site), and comes back here afterwards.
    const stranger = await browser.newContext();
    const denied = await stranger.newPage();
    await denied.goto(new URL(published.pathname, server).toString());
    await denied.waitForURL((url) => url.pathname.endsWith('/app/sign-in') && url.searchParams.get('next') === published.pathname);
    await denied.getByRole('heading', { name: 'Sign in to Quire' }).waitFor();
    expect(await denied.locator('article').count()).toBe(0);
    await stranger.close();

    const partner = await browser.newContext();
    const page = await partner.newPage();
    await page.goto(new URL(`${published.pathname}${published.search}`, server).toString());
    expect(await page.locator('article h1').textContent()).toBe('Partner notes');
    await page.getByRole('link', { name: 'the terms' }).click();
    await page.waitForURL(/\/terms$/);
    expect(await page.locator('article h1').textContent()).toBe('Terms');
    await partner.close();
  });

  it('opens a visitor-auth site only with a valid token, whose claims show and hide a block', async () => {
    const members = await space('Members area', {
      'README.md': '# Members area\n\nHello, member.\n\n{% if visitor.claims.beta %}\nYou are in the beta.\n{% else %}\nAsk us to join the beta.\n{% endif %}\n\nSee [the plans](plans.md).\n',
      'plans.md': '# Plans\n\n{% if visitor.claims.beta %}\nBeta pricing.\n{% endif %}\nStandard pricing.\n',
      'SUMMARY.md': '# Table of contents\n\n* [Members area](README.md)\n* [Plans](plans.md)\n',
    });
    const site = await api('POST', `/v1/orgs/${org.id}/sites`, { title: 'Members', visibility: 'visitor-auth' });
    await api('POST', `/v1/orgs/${org.id}/sites/${site.id}/site-spaces`, { spaceId: members });
    const url = new URL((await api('GET', `/v1/orgs/${org.id}/sites/${site.id}`)).urls.published).pathname;
    const key = (await api('GET', `/v1/orgs/${org.id}/sites/${site.id}/visitor-key`)).key as string;
    const sign = (claims: Record<string, unknown>, secret = key) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(secret));

    const reader = await browser.newContext();
    const page = await reader.newPage();
    expect((await page.goto(new URL(url, server).toString()))?.status()).toBe(404);
    expect((await page.goto(new URL(`${url}?jwt_token=${await sign({ beta: true }, 'not-the-key')}`, server).toString()))?.status()).toBe(404);

    expect((await page.goto(new URL(`${url}?jwt_token=${await sign({ beta: true })}`, server).toString()))?.status()).toBe(200);
    expect(await page.getByText('You are in the beta.').isVisible()).toBe(true);
    expect(await page.getByText('Ask us to join the beta.').count()).toBe(0);
    // The token is remembered for the site: the next page opens without it, for the same claims.
    await page.getByRole('link', { name: 'the plans' }).click();
    await page.waitForURL(/\/plans$/);
    expect(await page.getByText('Beta pricing.').isVisible()).toBe(true);
    await screenshot(page, 'visitor-beta');

    await page.goto(new URL(`${url}?jwt_token=${await sign({ beta: false })}`, server).toString());
    expect(await page.getByText('Ask us to join the beta.').isVisible()).toBe(true);
    expect(await page.getByText('You are in the beta.').count()).toBe(0);
    await reader.close();
  });

  it('has no serious accessibility violations (axe-core), in light and dark', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const themed = await browser.newContext({ colorScheme });
      for (const path of ['', '/setup/install', '/blocks/all', '/~search?q=zebrafish']) {
        const page = await themed.newPage();
        expect((await page.goto(new URL(`${siteUrl}${path}`, server).toString()))?.status()).toBe(200);
        expect(await seriousAccessibilityViolations(page), `${colorScheme} ${path || '/'}`).toEqual([]);
        if (path === '/blocks/all') await screenshot(page, `blocks-${colorScheme}`);
        await page.close();
      }
      await themed.close();
    }
  });
});
