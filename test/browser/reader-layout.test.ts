/**
 * The reader's layout of a published site in a real Chromium against a real server: the phone layout (the menu
 * button opens the table of contents as a drawer, Escape closes it and gives focus back, the outline is reachable;
 * without script the table of contents is below the page), the theme switch (remembered, applied before the first
 * paint), the current page marked and scrolled into view in the sidebar, the outline following the reading, code
 * blocks (copy button, language, title, line numbers), figures and broken links, the site's 404 page and its search
 * results page. axe-core finds no serious violation on any view in light and dark, and every view is screenshot in
 * light, dark and at 390 px into test-artifacts/browser/.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchBrowser, screenshot, seriousAccessibilityViolations } from '../helpers/browser.js';
import { publishReaderSite, YAML_SAMPLE, type ReaderSite } from './reader-site.js';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

describe('the reader layout of a published site in Chromium', () => {
  let t: TestApp;
  let browser: Browser;
  let server: string;
  let site: ReaderSite;
  const contexts: BrowserContext[] = [];

  const url = (path: string) => new URL(`${site.path}${path}`, server).toString();

  async function context(options: Parameters<Browser['newContext']>[0] = {}): Promise<BrowserContext> {
    const made = await browser.newContext({ viewport: DESKTOP, ...options });
    contexts.push(made);
    return made;
  }

  async function open(path: string, options: Parameters<Browser['newContext']>[0] = {}): Promise<Page> {
    const page = await (await context(options)).newPage();
    await page.goto(url(path));
    return page;
  }

  beforeAll(async () => {
    browser = await launchBrowser();
    t = await startTestApp('sqlite');
    const org = await t.organization('Readers Co');
    server = await t.listen();
    site = await publishReaderSite(t, server, org);
  });

  afterAll(async () => {
    for (const made of contexts) await made.close().catch(() => undefined);
    await browser?.close();
    await t?.close();
  });

  it('shows the site title once, with the sections as tabs', async () => {
    const page = await open('');
    const header = page.locator('header.site');
    expect(await header.getByText(site.title, { exact: true }).count()).toBe(1);
    expect(await page.getByRole('navigation', { name: 'Sections' }).getByRole('link').allTextContents()).toEqual(['Handbook', 'API']);
    // Every page links its icon, and the site answers it (never a "not found").
    const icon = await page.locator('link[rel=icon]').getAttribute('href');
    const answer = await page.request.get(new URL(icon!, server).toString());
    expect([answer.status(), answer.headers()['content-type']]).toEqual([200, 'image/svg+xml']);
    const ico = await page.request.get(url('/favicon.ico'));
    expect([ico.status(), ico.headers()['content-type']]).toEqual([200, 'image/svg+xml']);
  });

  it('opens the table of contents as a drawer on a phone, closes it with Escape, and reaches the outline', async () => {
    const page = await open('/setup/install', { viewport: PHONE });
    const menu = page.getByRole('button', { name: 'Menu' });
    const toc = page.getByRole('navigation', { name: 'Table of contents' });
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await toc.isVisible()).toBe(false);
    await menu.click();
    expect(await menu.getAttribute('aria-expanded')).toBe('true');
    await toc.getByRole('link', { name: 'Webhooks' }).waitFor({ state: 'visible' });
    // Focus moved into the drawer, on the current page.
    expect(await page.evaluate(() => document.activeElement?.closest('#sidebar') !== null)).toBe(true);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Install');
    await page.waitForTimeout(300);
    await screenshot(page, 'reader-phone-drawer');
    await page.keyboard.press('Escape');
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    expect(await page.evaluate(() => document.activeElement?.classList.contains('menu-button'))).toBe(true);
    await toc.waitFor({ state: 'hidden' });
    // The backdrop closes it too.
    await menu.click();
    await page.locator('.backdrop').click({ position: { x: 370, y: 400 } });
    expect(await menu.getAttribute('aria-expanded')).toBe('false');
    // The outline, in the article.
    const outline = page.locator('details.outline-mobile');
    await outline.locator('summary').click();
    await outline.getByRole('link', { name: 'Install part 3' }).click();
    await page.waitForURL(/#install-part-3$/);
    await screenshot(page, 'reader-phone-page');
  });

  it('keeps the table of contents reachable below the page on a phone without script', async () => {
    const page = await open('/setup/install', { viewport: PHONE, javaScriptEnabled: false });
    expect(await page.getByRole('button', { name: 'Menu' }).isVisible()).toBe(false);
    const link = page.getByRole('navigation', { name: 'Table of contents' }).getByRole('link', { name: 'Webhooks' });
    expect(await link.isVisible()).toBe(true);
    const below = await page.evaluate(() => document.querySelector('#sidebar')!.getBoundingClientRect().top > document.querySelector('main')!.getBoundingClientRect().bottom - 1);
    expect(below).toBe(true);
  });

  it('switches to dark, remembers it, and applies it before the first paint', async () => {
    const reader = await context({ colorScheme: 'light' });
    const page = await reader.newPage();
    await page.goto(url(''));
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(await background()).toBe('rgb(255, 255, 255)');
    await page.getByRole('combobox', { name: 'Theme' }).selectOption('dark');
    expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
    expect(await background()).toBe('rgb(13, 17, 23)');
    // At DOMContentLoaded of the next page (before any deferred script could run later): already dark.
    const next = await reader.newPage();
    await next.addInitScript(() => {
      document.addEventListener('DOMContentLoaded', () => {
        (window as unknown as { atLoad: string }).atLoad = `${document.documentElement.dataset.theme} ${getComputedStyle(document.body).backgroundColor}`;
      });
    });
    await next.goto(url('/reference/code'));
    expect(await next.evaluate(() => (window as unknown as { atLoad: string }).atLoad)).toBe('dark rgb(13, 17, 23)');
    expect(await next.getByRole('combobox', { name: 'Theme' }).inputValue()).toBe('dark');
    // Highlighting follows the chosen theme, not the system's (light here).
    const keyColour = await next.locator('.language-yaml .hljs-attr').first().evaluate((e) => getComputedStyle(e).color);
    expect(keyColour).toBe('rgb(126, 231, 135)');
    // System again: the system's light.
    await next.getByRole('combobox', { name: 'Theme' }).selectOption('system');
    await next.reload();
    expect(await next.evaluate(() => [document.documentElement.dataset.theme ?? null, getComputedStyle(document.body).backgroundColor])).toEqual([null, 'rgb(255, 255, 255)']);
  });

  it('marks the current page in the sidebar and scrolls the sidebar, not the page, to it', async () => {
    const page = await open('/reference/hints', { viewport: { width: 1280, height: 500 } });
    const current = page.locator('nav.toc [aria-current=page]');
    expect(await current.textContent()).toBe('Hints and figures');
    const style = await current.evaluate((e) => ({ background: getComputedStyle(e).backgroundColor, bar: getComputedStyle(e).boxShadow }));
    expect(style.background).not.toBe('rgba(0, 0, 0, 0)');
    expect(style.bar).toContain('inset');
    const place = await page.evaluate(() => {
      const sidebar = document.getElementById('sidebar')!.getBoundingClientRect();
      const link = document.querySelector('nav.toc [aria-current=page]')!.getBoundingClientRect();
      return { scrollY: window.scrollY, scrolled: document.getElementById('sidebar')!.scrollTop, inside: link.top >= sidebar.top && link.bottom <= sidebar.bottom };
    });
    expect(place.scrollY).toBe(0);
    expect(place.scrolled).toBeGreaterThan(0);
    expect(place.inside).toBe(true);
  });

  it('follows the reading in the outline', async () => {
    const page = await open('/setup/install');
    const active = () => page.locator('aside.outline a.active').textContent();
    await expect.poll(active).toBe('Install part 1');
    await page.locator('#install-part-4').scrollIntoViewIfNeeded();
    await page.evaluate(() => document.getElementById('install-part-4')!.scrollIntoView({ block: 'start' }));
    await expect.poll(active).toBe('Install part 4');
    expect(await page.locator('aside.outline a.active').getAttribute('aria-current')).toBe('location');
  });

  it('copies a code block with its button and announces it; shows its title, language and line numbers', async () => {
    const reader = await context();
    await reader.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: new URL(server).origin });
    const page = await reader.newPage();
    await page.goto(url('/reference/code'));
    const block = page.locator('.code-block').filter({ hasText: 'deploy.yaml' });
    expect(await block.locator('.code-title').textContent()).toBe('deploy.yaml');
    expect(await block.locator('.code-lang').textContent()).toBe('YAML');
    expect(await block.locator('.gutter').textContent()).toBe('1\n2\n3\n4\n5\n6\n7\n8\n9\n');
    // YAML in several colours: keys, strings, numbers, literals, bullets.
    const colours = await block.locator('code span').evaluateAll((spans) => new Set(spans.map((s) => getComputedStyle(s).color)).size);
    expect(colours).toBeGreaterThanOrEqual(4);
    await block.getByRole('button', { name: 'Copy deploy.yaml' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(YAML_SAMPLE);
    expect(await page.locator('[aria-live=polite]').last().textContent()).toBe('Copied');
    expect(await block.getByRole('button').textContent()).toBe('Copied');
    // Every language of the page is highlighted (a class of highlight.js inside each block).
    const plain = await page.locator('.code-block').evaluateAll((blocks) => blocks.filter((b) => b.querySelector('code [class^=hljs-]') === null).map((b) => b.querySelector('code')!.className));
    expect(plain).toEqual([]);
  });

  it('shows figures with their images and broken links as broken; hints with their icon and word', async () => {
    const page = await open('/reference/hints');
    const image = page.getByRole('img', { name: 'A diagram of the pipeline' });
    await expect.poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(320);
    const box = await image.boundingBox();
    expect(box!.width).toBeGreaterThan(100);
    const broken = page.getByRole('link', { name: 'the old guide' });
    expect(await broken.evaluate((a) => getComputedStyle(a).textDecorationStyle)).toBe('wavy');
    for (const word of ['Info:', 'Success:', 'Warning:', 'Danger:']) {
      const label = page.locator('.hint-label', { hasText: word });
      expect(await label.count()).toBe(1);
      // The word is said, the icon is shown (a mask over the style's colour).
      expect(await label.evaluate((e) => getComputedStyle(e).maskImage || getComputedStyle(e).webkitMaskImage)).toContain('data:image/svg+xml');
    }
  });

  it('answers an unknown page of the site with its header, search box and the nearest pages (404)', async () => {
    const reader = await context();
    const page = await reader.newPage();
    const response = await page.goto(url('/setup/instal'));
    expect(response?.status()).toBe(404);
    expect(await page.locator('h1').textContent()).toBe('Page not found');
    expect(await page.locator('header.site').getByText(site.title, { exact: true }).isVisible()).toBe(true);
    expect(await page.getByRole('searchbox', { name: 'Search the site' }).isVisible()).toBe(true);
    expect(await page.getByRole('combobox', { name: 'Theme' }).isVisible()).toBe(true);
    const nearest = page.locator('.nearest a');
    expect((await nearest.first().textContent())?.startsWith('Install')).toBe(true);
    await nearest.first().click();
    await page.waitForURL(/\/setup\/install$/);
    // Outside any site: the plain page.
    const plain = await reader.newPage();
    expect((await plain.goto(new URL('/sites/nobody/nothing', server).toString()))?.status()).toBe(404);
    expect(await plain.locator('header.site').count()).toBe(0);
  });

  it('shows search results with the words marked, the section of each, and filters by section', async () => {
    const page = await open('/~search?q=install');
    const first = page.locator('ol.results > li').first();
    expect(await first.locator('mark').first().textContent()).toMatch(/^install$/i);
    expect(await first.locator('.result-section').textContent()).toBe('Handbook');
    const filters = page.getByRole('navigation', { name: 'Filter by section' });
    expect(await filters.getByRole('link').allTextContents()).toEqual(['All sections', 'Handbook', 'API']);
    await filters.getByRole('link', { name: 'API' }).click();
    await page.waitForURL(/section=/);
    expect(await page.locator('ol.results > li .result-title').allTextContents()).toEqual(['API reference']);
    expect(await filters.locator('[aria-current=page]').textContent()).toBe('API');
  });

  it('has no serious accessibility violations on any view, light and dark, and leaves screenshots of each', { timeout: 180_000 }, async () => {
    const views = { page: '/reference/code', hints: '/reference/hints', 'not-found': '/setup/instal', search: '/~search?q=install' };
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const viewport of [DESKTOP, PHONE]) {
        const themed = await context({ colorScheme, viewport });
        for (const [name, path] of Object.entries(views)) {
          const page = await themed.newPage();
          await page.goto(url(path));
          await page.waitForLoadState('load');
          const label = `${name}-${colorScheme}${viewport === PHONE ? '-390' : ''}`;
          expect(await seriousAccessibilityViolations(page), label).toEqual([]);
          await screenshot(page, `reader-${label}`);
          if (viewport === PHONE && name === 'page') {
            await page.getByRole('button', { name: 'Menu' }).click();
            await page.waitForTimeout(300);
            expect(await seriousAccessibilityViolations(page), `${label} drawer`).toEqual([]);
            await page.screenshot({ path: `test-artifacts/browser/reader-drawer-${colorScheme}-390.png` });
          }
          await page.close();
        }
      }
    }
  });
});
