/**
 * `quire site export SITE_ID DIR`: the whole public site as static files (pages as PATH/index.html and PATH.md, the
 * files pages show, a search index with its results page, a 404 page), written by the command itself; sites not
 * public are refused with exit 1 and nothing written.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../helpers/browser.js';
import { runQuire, startServer, type ServerProcess } from '../helpers/cli.js';
import { startStaticHost } from '../helpers/file-server.js';
import { Checkout, spaceRemote } from '../helpers/git.js';

describe('quire site export (sqlite)', () => {
  let dataDir: string;
  let out: string;
  let server: ServerProcess;
  let env: Record<string, string>;
  let token: string;
  let org: string;

  const api = async (method: string, url: string, body?: unknown) =>
    (await fetch(`${server.url}${url}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined })).json();

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-export-'));
    out = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-export-out-'));
    env = { QUIRE_DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '' };
    const boot = await runQuire(['admin', 'bootstrap', '--init', '--email', 'ops@example.com', '--org', 'Docs'], env);
    ({ token } = JSON.parse(boot.stdout));
    org = JSON.parse(boot.stdout).organization.id;
    server = await startServer(env, { startTimeoutMs: 60_000 });
  });
  afterAll(async () => {
    await server?.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
    await fs.rm(out, { recursive: true, force: true });
  });

  it('writes every page, its markdown, the files and the search index; refuses a site that is not public', async () => {
    const space = await api('POST', `/v1/orgs/${org}/spaces`, { title: 'Guide' });
    const checkout = await Checkout.clone(spaceRemote(server.url, token, space.id));
    await checkout.write('README.md', '# Welcome\n\nSee [install](setup/install.md) and ![logo](.gitbook/assets/logo.png).\n');
    const install = '# Install\n\nRun the installer.\n\n{% if visitor.claims.beta %}\nBeta builds.\n{% else %}\nStable builds.\n{% endif %}\n';
    await checkout.write('setup/install.md', install);
    await checkout.write('.gitbook/assets/logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 9, 9]));
    await checkout.write('SUMMARY.md', '# Summary\n\n* [Welcome](README.md)\n* [Install](setup/install.md)\n');
    await checkout.commitAndPush('Guide');
    await checkout.dispose();
    const hidden = await api('POST', `/v1/orgs/${org}/sites`, { title: 'Internal', spaces: [space.id] });
    const refused = await runQuire(['site', 'export', hidden.id, path.join(out, 'refused')], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('not published for everyone');
    await expect(fs.access(path.join(out, 'refused'))).rejects.toThrow();

    const site = await api('POST', `/v1/orgs/${org}/sites`, { title: 'Public docs', visibility: 'public', spaces: [space.id] });
    const run = await runQuire(['site', 'export', site.id, out], env);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ dir: out, pages: 2, files: 1 });
    const home = await fs.readFile(path.join(out, 'index.html'), 'utf8');
    expect(home).toContain('<h1>Welcome</h1>');
    expect(home).toContain('href="/setup/install"');
    const src = /<img src="([^"]+)"/.exec(home)![1];
    expect(await fs.readFile(path.join(out, ...src.split('/').filter(Boolean).map(decodeURIComponent)))).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 9, 9]));
    const installHtml = await fs.readFile(path.join(out, 'setup', 'install', 'index.html'), 'utf8');
    expect(installHtml).toContain('Run the installer.');
    // Adaptive content as for a visitor without claims: the `else` branch only.
    expect(installHtml).toContain('Stable builds.');
    expect(installHtml).not.toContain('Beta builds.');
    expect(await fs.readFile(path.join(out, 'setup', 'install.md'), 'utf8')).toBe('# Install\n\nRun the installer.\n\nStable builds.\n');
    // The search index: each page's text as the server's search extracts it, as a reader without claims reads it.
    const index = JSON.parse(await fs.readFile(path.join(out, '~search', 'index.json'), 'utf8'));
    expect(index.pages.map((p: [string, string]) => [p[0], p[1]])).toEqual([
      ['Welcome', '/'],
      ['Install', '/setup/install'],
    ]);
    expect(index.pages[1][5].join(' ')).toContain('Stable builds.');
    expect(index.pages[1][5].join(' ')).not.toMatch(/Beta builds|\{%/);
    // The results page and the "not found" page, in the site's layout, with the export's script.
    for (const file of [['~search', 'index.html'], ['404.html']]) {
      const html = await fs.readFile(path.join(out, ...file), 'utf8');
      expect(html).toContain('<header class="site">');
      expect(html).toMatch(/<script src="\/~quire\/export-search\.[0-9a-f]{10}\.js" defer><\/script>/);
    }
  }, 180_000);

  it('writes no script a reader can run: no javascript: link in the table of contents, active files as text, a CSP on every page', async () => {
    const space = await api('POST', `/v1/orgs/${org}/spaces`, { title: 'Hostile' });
    const checkout = await Checkout.clone(spaceRemote(server.url, token, space.id));
    await checkout.write(
      'SUMMARY.md',
      [
        '# Summary',
        '',
        '* [Home](README.md)',
        "* [Plain](javascript:alert('toc-plain'))",
        "* [Upper]( JaVaScRiPt:alert('toc-upper'))",
        "* [Entity](&#106;avascript:alert('toc-entity'))",
        "* [Data](data:text/html,<script>alert('toc-data')</script>)",
        "* [VB](vbscript:alert('toc-vb'))",
        '* [Status](https://status.example.com)',
        '',
      ].join('\n'),
    );
    await checkout.write(
      'README.md',
      [
        '# Home',
        '',
        '![diagram](.gitbook/assets/diagram.svg) [page](.gitbook/assets/page.html) [feed](.gitbook/assets/feed.xml) [script](.gitbook/assets/tool.js) ![photo](.gitbook/assets/photo.png)',
        '',
        '{% file src=".gitbook/assets/page.html" %}',
        '',
        `<a href="jav&#x09;ascript:alert('raw')">raw</a> <mark style="position:fixed;inset:0;background-color:red">cover</mark>`,
        '',
      ].join('\n'),
    );
    await checkout.write('.gitbook/assets/diagram.svg', `<svg xmlns="http://www.w3.org/2000/svg" onload="alert('svg')" width="10" height="10"><script>alert('svg-script')</script><rect width="10" height="10"/></svg>`);
    await checkout.write('.gitbook/assets/page.html', `<!doctype html><script>alert('html')</script><img src=x onerror="alert('html-img')">`);
    await checkout.write('.gitbook/assets/feed.xml', `<?xml version="1.0"?><x:script xmlns:x="http://www.w3.org/1999/xhtml">alert('xml')</x:script>`);
    await checkout.write('.gitbook/assets/tool.js', `alert('js')`);
    await checkout.write('.gitbook/assets/photo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 9, 9]));
    await checkout.commitAndPush('Hostile');
    await checkout.dispose();
    const site = await api('POST', `/v1/orgs/${org}/sites`, { title: 'Hostile docs', visibility: 'public', spaces: [space.id] });
    const dir = path.join(out, 'hostile');
    const run = await runQuire(['site', 'export', site.id, dir], env);
    expect(run.code, run.stderr).toBe(0);

    const html = await fs.readFile(path.join(dir, 'index.html'), 'utf8');
    // Soft: the reader's view below is checked too, whatever these say.
    // A page with a style attribute (the `<mark>`) allows inline styles; the others only the stylesheet, by hash.
    expect.soft(html).toContain(`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'self'; connect-src 'self'; img-src * data:; media-src *; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'">`);
    // Quire's scripts and icon are written where the pages load them from.
    const scripts = [...html.matchAll(/<script src="([^"]+)"/g)].map((match) => match[1]);
    expect.soft(scripts.map((src) => src.replace(/\.[0-9a-f]{10}\./, '.'))).toEqual(['/~quire/theme.js', '/~quire/site.js', '/~quire/export-search.js']);
    for (const src of scripts) expect.soft((await fs.stat(path.join(dir, src))).isFile()).toBe(true);
    expect.soft(await fs.readFile(path.join(dir, 'favicon.svg'), 'utf8')).toContain('<svg');
    expect.soft(await fs.readFile(path.join(dir, '~search', 'index.html'), 'utf8')).toMatch(/content="default-src 'none'; script-src 'self'; connect-src 'self'; img-src \* data:; media-src \*; style-src 'sha256-[A-Za-z0-9+/=]+'; base-uri 'none'; form-action 'self'"/);
    const files = (await fs.readdir(path.join(dir, '~files'), { recursive: true })).map((file) => path.basename(file)).filter((name) => name.includes('.'));
    expect.soft(files.sort()).toEqual(['diagram.svg.txt', 'feed.xml.txt', 'page.html.txt', 'photo.png', 'tool.js.txt']);

    const host = await startStaticHost(dir);
    const browser = await launchBrowser();
    try {
      const context = await browser.newContext();
      // Nothing leaves this machine: links to elsewhere end there.
      await context.route((url) => url.hostname !== '127.0.0.1', (route) => route.abort());
      const dialogs: string[] = [];
      context.on('dialog', async (dialog) => {
        dialogs.push(dialog.message());
        await dialog.dismiss();
      });
      const page = await context.newPage();
      // As a reader would: every link of the table of contents and of the page followed (each in a page of its
      // own), every file opened.
      await page.goto(`${host.base}/`);
      const links = await page.locator('nav.toc a, article a').count();
      for (let i = 0; i < links; i++) {
        const reader = await context.newPage();
        await reader.goto(`${host.base}/`);
        const link = reader.locator('nav.toc a, article a').nth(i);
        const href = await link.evaluate((a) => (a as HTMLAnchorElement).href);
        if (/^https?:/.test(href)) await reader.goto(href).catch(() => undefined);
        else {
          // Any other URL (javascript:, data:, ...) runs, if it does, in a task the click queues: let it run.
          await link.evaluate((a) => (a as HTMLElement).click());
          await reader.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)))).catch(() => undefined);
        }
        await reader.close();
      }
      await page.goto(`${host.base}/`);
      const hrefs = await page.locator('a[href], img[src]').evaluateAll((elements) => elements.map((e) => (e as HTMLAnchorElement).href || (e as HTMLImageElement).src));
      const fileLinks = hrefs.filter((href) => href.includes('/~files/'));
      for (const href of fileLinks) {
        const response = await page.goto(href);
        expect([href, response?.status()]).toEqual([href, 200]);
      }
      expect(dialogs).toEqual([]);

      await page.goto(`${host.base}/`);
      // Quire's own scripts run under the page's policy (the theme's before the first paint, then the page's).
      expect(await page.evaluate(() => document.documentElement.classList.contains('js'))).toBe(true);
      await page.getByRole('combobox', { name: 'Theme' }).selectOption('dark');
      expect(await page.evaluate(() => document.documentElement.dataset.theme)).toBe('dark');
      const toc = await page.locator('nav.toc a').evaluateAll((elements) => elements.map((a) => [a.textContent, a.getAttribute('href')]));
      expect(toc).toEqual([
        ['Home', '/'],
        ['Status', 'https://status.example.com'],
      ]);
      expect(fileLinks.map((href) => decodeURIComponent(href.split('/').pop()!)).sort()).toEqual(['diagram.svg.txt', 'feed.xml.txt', 'page.html.txt', 'page.html.txt', 'photo.png', 'tool.js.txt']);
      expect(await page.locator('mark').getAttribute('style')).toBe('background-color:red;');
      // The export's own script still runs under the search page's policy.
      await page.goto(`${host.base}/~search/?q=home`);
      await expect.poll(() => page.locator('ol.results > li').count()).toBe(1);
      expect(dialogs).toEqual([]);
    } finally {
      await browser.close();
      await host.close();
    }
  }, 180_000);
});
