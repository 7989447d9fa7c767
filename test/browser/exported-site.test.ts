/**
 * A static export (`quire site export`) equals the served site: the reader-layout site (two sections, code, hints, a
 * figure, a broken link, a long table of contents) and a third section with files a browser would run script in
 * (exported as `NAME.txt`) and a `<mark>` with a style, published on a live server and exported, the export served
 * by a plain static file server (node:http and fs, as GitHub Pages serves a folder: `index.html` for a folder, a
 * folder without its slash redirected to it, `404.html` for anything missing).
 *
 * A crawl of each from its home page, following every link, image, script, icon and search form of every page, finds
 * the same addresses; each answers 200 on both but links the source already breaks (marked broken on both); the
 * pages, the 404 page and the files are the same after the known differences are normalised (NORMALISED, below).
 *
 * Then in Chromium, over the static server: the header's box searches as the reader types and sends to the results
 * page, which shows the words marked, the section of each page and filters by section, from the prebuilt index alone;
 * the 404 page offers the nearest pages as the served one does; no content security policy violation; axe-core finds
 * no serious violation; screenshots light and dark, desktop and phone, in test-artifacts/browser/.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Element } from 'hast';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchBrowser, screenshot, seriousAccessibilityViolations } from '../helpers/browser.js';
import { startStaticHost } from '../helpers/file-server.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { all, hasClass, parseHtml } from '../helpers/html.js';
import { publishReaderSite, solidPng, type ReaderSite } from './reader-site.js';
import { exportSite } from '../../src/http/routes/published/export.js';
import { contentTypeOf, runsScript } from '../../src/content/files.js';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 900 };

/** An address no page is near (no nearest pages on either side). */
const NOWHERE = '/qqxq-zzvz-wwyw';

const DOWNLOADS: Record<string, string | Buffer> = {
  'README.md': [
    '# Downloads',
    '',
    'The ![diagram](.gitbook/assets/diagram.svg) of the pipeline, [the sheet](.gitbook/assets/sheet.html) to fill in, and a <mark style="background-color:#fff8c5">marked</mark> word.',
    '',
    '![A photo of the rack](.gitbook/assets/rack.png)',
    '',
    '## Checks',
    '',
    '{% hint style="info" %}',
    'Downloads are **checked** before they are published.',
    '{% endhint %}',
    '',
  ].join('\n'),
  '.gitbook/assets/diagram.svg': '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10"/></svg>',
  '.gitbook/assets/sheet.html': '<!doctype html><title>Sheet</title><p>Fill me in.</p>',
  '.gitbook/assets/rack.png': solidPng(60, 30),
  'SUMMARY.md': '# Table of contents\n\n* [Downloads](README.md)\n',
};

interface Answer {
  status: number;
  type: string;
  body: Buffer;
}

/** What a page links to: followed (links, images, scripts, the icon, GET forms) and marked broken. */
function targetsOf(html: string): { followed: string[]; broken: string[] } {
  const tree = parseHtml(html);
  const followed: string[] = [];
  const broken: string[] = [];
  const attribute = (element: Element, name: string) => {
    const value = element.properties?.[name];
    return typeof value === 'string' ? value : Array.isArray(value) ? value.join(' ') : undefined;
  };
  for (const element of all(tree, () => true)) {
    const isBroken = hasClass('broken-link')(element) || hasClass('broken-image')(element);
    const urls: Array<string | undefined> = [];
    if (element.tagName === 'a' || element.tagName === 'link') urls.push(attribute(element, 'href'));
    if (['img', 'script', 'source', 'video', 'audio'].includes(element.tagName)) urls.push(attribute(element, 'src'));
    if (element.tagName === 'img' || element.tagName === 'source') urls.push(...(attribute(element, 'srcSet')?.split(',').map((candidate) => candidate.trim().split(/\s+/)[0]) ?? []));
    if (element.tagName === 'form' && (attribute(element, 'method') ?? 'get').toLowerCase() === 'get') urls.push(attribute(element, 'action'));
    for (const url of urls) if (url !== undefined && url !== '') (isBroken ? broken : followed).push(url);
  }
  return { followed, broken };
}

/**
 * Every address a crawl from `start` reaches on `origin`, by its key (`keyOf`, undefined: not followed), with its
 * answer (redirects followed), and the broken links of each page.
 */
async function crawl(origin: string, start: string, keyOf: (url: URL) => string | undefined): Promise<{ answers: Map<string, Answer>; broken: Map<string, string[]> }> {
  const answers = new Map<string, Answer>();
  const broken = new Map<string, string[]>();
  const queue: Array<[string, URL]> = [[keyOf(new URL(start, origin))!, new URL(start, origin)]];
  while (queue.length > 0) {
    const [key, url] = queue.shift()!;
    if (answers.has(key)) continue;
    const response = await fetch(url);
    const answer = { status: response.status, type: response.headers.get('content-type') ?? '', body: Buffer.from(await response.arrayBuffer()) };
    answers.set(key, answer);
    if (!answer.type.startsWith('text/html')) continue;
    const targets = targetsOf(answer.body.toString('utf8'));
    broken.set(key, targets.broken);
    for (const href of targets.followed) {
      // A place in the page itself.
      if (href.startsWith('#')) continue;
      const target = new URL(href, response.url);
      target.hash = '';
      if (target.origin !== origin) continue;
      const next = keyOf(target);
      if (next !== undefined && !answers.has(next)) queue.push([next, target]);
    }
  }
  return { answers, broken };
}

describe('a static export of a published site', () => {
  let t: TestApp;
  let server: string;
  let site: ReaderSite;
  let dir: string;
  let host: { base: string; close(): Promise<void> };

  /** The served site's address of a path of the export (`/setup/install` -> `/sites/ORG/SITE/setup/install`). */
  const served = (exported: string) => new URL(`${site.path}${exported === '/' ? '' : exported}`, server).toString();

  /**
   * NORMALISED: what differs between a served page and its exported copy by design, each written one way.
   * - The served site is one folder down (`/sites/ORG/SITE`); the export is at the root of its host.
   * - The export's pages carry their content security policy in a meta tag (a static host sends no header of ours).
   * - The live search script: the served one asks the server, the export's searches its prebuilt index.
   * - A file a browser would run script in (SVG, HTML, ...) is exported as `NAME.txt` (served as a download).
   * - The "Was this page helpful?" form: the export has no server to send it to, its pages leave it out.
   */
  function normaliseUrl(url: string, side: 'served' | 'exported'): string {
    let out = url.replace(/\/~quire\/(?:export-)?search\.[0-9a-f]{10}\.js/, '/~quire/live-search.js');
    if (side === 'served' && (out === site.path || out.startsWith(`${site.path}/`) || out.startsWith(`${site.path}#`) || out.startsWith(`${site.path}?`))) {
      out = out.slice(site.path.length);
      if (!out.startsWith('/')) out = `/${out}`;
    }
    if (side === 'exported') out = out.replace(/^(\/~files\/[^?#]*)\.txt(?=$|[?#])/, (whole, name: string) => (runsScript(contentTypeOf(decodeURIComponent(name))) ? name : whole));
    return out;
  }

  function normalisePage(html: string, side: 'served' | 'exported'): string {
    let out = html.replace(/(\s(?:href|src|action)=")([^"]*)"/g, (_, attribute: string, url: string) => `${attribute}${normaliseUrl(url, side)}"`);
    if (side === 'served') out = out.replace(/<form class="page-feedback"[\s\S]*?<\/form>/g, '');
    else out = out.replace(/<meta http-equiv="Content-Security-Policy" content="[^"]*">/, '');
    return out;
  }

  const servedKey = (url: URL) => normaliseUrl(`${url.pathname}${url.search}`, 'served');
  const exportedKey = (url: URL) => normaliseUrl(`${url.pathname}${url.search}`, 'exported');

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const org = await t.organization('Export Co');
    server = await t.listen();
    site = await publishReaderSite(t, server, org);
    const token = org.admin.token;
    const downloads = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token, body: { title: 'Downloads' } })).body.id as string;
    const checkout = await Checkout.clone(spaceRemote(server, token, downloads));
    for (const [file, content] of Object.entries(DOWNLOADS)) await checkout.write(file, content);
    await checkout.commitAndPush('Downloads');
    await checkout.dispose();
    const section = await t.request('POST', `/v1/orgs/${org.id}/sites/${site.siteId}/sections`, { token, body: { spaceId: downloads, title: 'Downloads' } });
    expect(section.status, JSON.stringify(section.body)).toBe(201);
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-exported-site-'));
    await exportSite(t.container.ctx, site.siteId, dir);
    host = await startStaticHost(dir);
  }, 180_000);

  afterAll(async () => {
    await host?.close();
    await t?.close();
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  it('has the same pages, files, scripts and 404 page as the served site: a crawl of both compared', { timeout: 120_000 }, async () => {
    const live = await crawl(new URL(server).origin, served('/'), servedKey);
    const exported = await crawl(host.base, `${host.base}/`, exportedKey);
    // The same addresses, each answering 200 (after a static host's redirect of a folder to its slash).
    expect([...exported.answers.keys()].sort()).toEqual([...live.answers.keys()].sort());
    expect([...live.answers].filter(([, answer]) => answer.status !== 200).map(([key, answer]) => `${key} ${answer.status}`)).toEqual([]);
    expect([...exported.answers].filter(([, answer]) => answer.status !== 200).map(([key, answer]) => `${key} ${answer.status}`)).toEqual([]);
    // What a crawl reaches: every page, the files pages show, Quire's scripts and icon, the search page.
    const keys = [...live.answers.keys()];
    expect(keys).toEqual(expect.arrayContaining(['/', '/setup/install', '/reference/hints', '/api', '/downloads', '/~search', '/favicon.svg', '/~quire/live-search.js']));
    expect(keys.filter((key) => key.startsWith('/~files/')).map((key) => decodeURIComponent(key.split('/').pop()!)).sort()).toEqual(['diagram.svg', 'pixel.png', 'rack.png', 'sheet.html']);
    // Links the source breaks are marked broken on both, and not followed.
    expect(live.broken.get('/reference/hints')).toEqual([expect.stringContaining('old/guide')]);
    expect(exported.broken).toEqual(live.broken);

    // Every page and file the same, but for NORMALISED.
    for (const [key, answer] of live.answers) {
      const copy = exported.answers.get(key)!;
      if (key === '/~quire/live-search.js') continue;
      if (answer.type.startsWith('text/html')) {
        expect(normalisePage(copy.body.toString('utf8'), 'exported'), key).toBe(normalisePage(answer.body.toString('utf8'), 'served'));
      } else expect(copy.body.equals(answer.body), key).toBe(true);
    }

    // The 404 page: the served one for an address near no page, and the export's `404.html` as the host answers it.
    const missing = await fetch(served(NOWHERE));
    const missingCopy = await fetch(`${host.base}${NOWHERE}`);
    expect([missing.status, missingCopy.status]).toEqual([404, 404]);
    const missingHtml = await missing.text();
    expect(missingHtml).toContain('Page not found');
    expect(missingHtml).not.toContain('class="nearest"');
    expect(normalisePage(await missingCopy.text(), 'exported')).toBe(normalisePage(missingHtml, 'served'));

    // Each exported page's policy: the stylesheet by its hash, `'unsafe-inline'` only where a style attribute is.
    const inline: string[] = [];
    for (const [key, answer] of exported.answers) {
      if (!answer.type.startsWith('text/html')) continue;
      const policy = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(answer.body.toString('utf8'))?.[1] ?? '';
      expect(policy, key).toMatch(/^default-src 'none'; script-src 'self'; connect-src 'self'; .*style-src ('unsafe-inline'|'sha256-[A-Za-z0-9+/=]+');/);
      if (policy.includes("'unsafe-inline'")) inline.push(key);
    }
    expect(inline).toEqual(['/downloads']);
  });

  describe('in Chromium, over the static host', () => {
    let browser: Browser;
    const contexts: BrowserContext[] = [];
    const violations: string[] = [];

    async function context(options: Parameters<Browser['newContext']>[0] = {}): Promise<BrowserContext> {
      const made = await browser.newContext({ viewport: DESKTOP, ...options });
      // Nothing leaves this machine.
      await made.route((url) => url.hostname !== '127.0.0.1', (route) => route.abort());
      made.on('console', (message) => {
        if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
      });
      contexts.push(made);
      return made;
    }

    async function open(url: string, options: Parameters<Browser['newContext']>[0] = {}): Promise<Page> {
      const page = await (await context(options)).newPage();
      await page.goto(url);
      return page;
    }

    beforeAll(async () => {
      browser = await launchBrowser();
    });

    afterAll(async () => {
      for (const made of contexts) await made.close().catch(() => undefined);
      await browser?.close();
    });

    it('searches as the reader types, from the index, and sends the query to the results page', async () => {
      const page = await open(`${host.base}/setup/install`);
      const box = page.getByRole('searchbox', { name: 'Search', exact: true });
      await box.fill('instal');
      const live = page.locator('#search-live');
      await live.locator('li a').first().waitFor({ state: 'visible' });
      expect(await live.locator('li a strong').first().textContent()).toBe('Install');
      await screenshot(page, 'export-live-search');
      await box.press('Enter');
      await page.waitForURL(/\/~search\/\?q=instal$/);
      await page.locator('ol.results').waitFor();
      expect(await page.title()).toBe(`Search: instal | ${site.title}`);
      expect(await box.inputValue()).toBe('instal');
      expect(violations).toEqual([]);
    });

    it('shows the results page of the served site: words marked, the section of each page, filters by section', { timeout: 60_000 }, async () => {
      const page = await open(`${host.base}/~search/?q=install`);
      const first = page.locator('ol.results > li').first();
      await first.waitFor();
      expect(await first.locator('mark').first().textContent()).toMatch(/^install$/i);
      expect(await first.locator('.result-section').textContent()).toBe('Handbook');
      // The same pages as the served results page finds, and the same filters.
      const servedPage = await open(served('/~search?q=install'));
      const titles = (p: Page) => p.locator('ol.results > li .result-title').allTextContents();
      expect((await titles(page)).sort()).toEqual((await titles(servedPage)).sort());
      const filters = page.getByRole('navigation', { name: 'Filter by section' });
      expect(await filters.getByRole('link').allTextContents()).toEqual(await servedPage.getByRole('navigation', { name: 'Filter by section' }).getByRole('link').allTextContents());
      await filters.getByRole('link', { name: 'API' }).click();
      await page.waitForURL(/section=/);
      await page.locator('ol.results').waitFor();
      expect(await titles(page)).toEqual(['API reference']);
      expect(await filters.locator('[aria-current=page]').textContent()).toBe('API');
      // Excerpts are the page's text as the served ones: no markdown, no Liquid tag.
      await page.goto(`${host.base}/~search/?q=checked`);
      await page.locator('ol.results').waitFor();
      const excerpt = page.locator('ol.results li li').first();
      expect(await excerpt.innerHTML()).toBe('<a href="/downloads#checks">Checks</a><p>Downloads are <mark>checked</mark> before they are published.</p>');
      await servedPage.goto(served('/~search?q=checked'));
      expect(normalisePage(await servedPage.locator('ol.results li li').first().innerHTML(), 'served')).toBe(await excerpt.innerHTML());
      expect(violations).toEqual([]);
    });

    it('offers the nearest pages on its 404 page, as the served site does', async () => {
      const page = await (await context()).newPage();
      const response = await page.goto(`${host.base}/setup/instal`);
      expect(response?.status()).toBe(404);
      await page.locator('.nearest a').first().waitFor();
      const servedPage = await open(served('/setup/instal'));
      const nearest = (p: Page, side: 'served' | 'exported') =>
        p.locator('.nearest a').evaluateAll((links) => links.map((a) => [a.textContent, a.getAttribute('href')])).then((pairs) => pairs.map(([text, href]) => [text, normaliseUrl(href!, side)]));
      expect(await nearest(page, 'exported')).toEqual(await nearest(servedPage, 'served'));
      expect((await nearest(page, 'exported'))[0]).toEqual(['InstallHandbook', '/setup/install']);
      expect(await page.locator('h1').textContent()).toBe('Page not found');
      expect(violations).toEqual([]);
    });

    it('has no serious accessibility violations on its search and 404 pages, light and dark, and leaves screenshots', { timeout: 180_000 }, async () => {
      const views = { search: ['/~search/?q=install', 'ol.results'], 'not-found': ['/setup/instal', '.nearest'] } as const;
      for (const colorScheme of ['light', 'dark'] as const) {
        for (const viewport of [DESKTOP, PHONE]) {
          const themed = await context({ colorScheme, viewport });
          for (const [name, [address, shown]] of Object.entries(views)) {
            const page = await themed.newPage();
            await page.goto(`${host.base}${address}`);
            await page.locator(shown).waitFor();
            await page.waitForLoadState('load');
            const label = `${name}-${colorScheme}${viewport === PHONE ? '-390' : ''}`;
            expect(await seriousAccessibilityViolations(page), label).toEqual([]);
            await screenshot(page, `export-${label}`);
            await page.close();
          }
        }
      }
      expect(violations).toEqual([]);
    });
  });
});
