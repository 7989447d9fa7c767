/**
 * Published sites as HTML: the page a published URL names (sections, variants, nested
 * pages), its GitBook blocks rendered, links between pages as site URLs, files served from the site; access as the
 * API decides it (public, unlisted with noindex, share links with and without their key, a deactivated link, a
 * private site); script injection in markdown, front matter and SUMMARY titles rendered inert. Checked on the
 * parsed HTML (elements and attributes), not on strings.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { all, hasClass, parseHtml, text } from '../helpers/html.js';
import { readPublishedPage, readPublishedSite } from '../../src/domain/sites/published.js';
import { pageHtmlOptionsFor, renderContent } from '../../src/http/routes/published/render.js';
import { pageHtml } from '../../src/content/page-html.js';
import { exportSite } from '../../src/http/routes/published/export.js';
import { waitFor } from '../helpers/wait.js';
import { dropAnswers } from '../../src/http/answer-cache.js';

describe.each(DATABASE_KINDS)('published sites as HTML (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let guideId: string;
  let siteId: string;
  let base: string;
  let apiSpaceId: string;
  let server: string;

  const get = async (url: string, headers: Record<string, string> = {}) => {
    const res = await t.request('GET', url, { headers, unchecked: true });
    return { ...res, html: parseHtml(String(res.body ?? '')) };
  };

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.organization('Docs Co');
    server = await t.listen();
    const token = org.admin.token;
    const api = async (method: string, url: string, body?: unknown) => (await t.request(method, url, { token, body })).body;
    guideId = (await api('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Guide' })).id;
    apiSpaceId = (await api('POST', `/v1/orgs/${org.id}/spaces`, { title: 'API v2' })).id;
    const checkout = await Checkout.clone(spaceRemote(server, token, guideId));
    await checkout.write('README.md', '---\ndescription: Start <script>alert(1)</script> here\n---\n\n# Welcome\n\nRead the [install guide](setup/install.md#steps).\n\n![Logo](.gitbook/assets/logo.png)\n\n{% include ".gitbook/includes/footer.md" %}\n');
    await checkout.write('.gitbook/includes/footer.md', '---\ntitle: Footer\n---\n\nQuestions? Ask the **docs team**.\n');
    await checkout.write(
      'setup/install.md',
      [
        '# Install',
        '',
        '{% hint style="warning" %}',
        'Back up **first**.',
        '{% endhint %}',
        '',
        '## Steps',
        '',
        '{% tabs %}',
        '{% tab title="npm" %}',
        '```bash',
        'npm install quire',
        '```',
        '{% endtab %}',
        '{% tab title="yarn" %}',
        'Use yarn.',
        '{% endtab %}',
        '{% endtabs %}',
        '',
        '<details>',
        '<summary>More</summary>',
        '',
        'Hidden text.',
        '',
        '</details>',
        '',
        '<script>alert("x")</script><img src="x" onerror="alert(1)"> [bad](javascript:alert(1))',
        '',
      ].join('\n'),
    );
    await checkout.write('.gitbook.yaml', 'redirects:\n  old/install: setup/install.md\n  elsewhere: https://example.com/moved\n');
    // An emoji of code points no character has (a surrogate, one past U+10FFFF) beside a real one.
    await checkout.write('secret.md', '---\nnoIndex: true\nnoRobotsIndex: true\nemoji: d800-110000-1f600\n---\n\n# Secret\n\nNot for crawlers.\n');
    await checkout.write('.gitbook/assets/logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]));
    await checkout.write('.gitbook/assets/hero dark.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 4, 5, 6]));
    await checkout.write(
      'landing.md',
      '---\nhidden: true\ncover: .gitbook/assets/logo.png\ncoverDark: .gitbook/assets/hero%20dark.png\ncoverY: -40\nlayout:\n  width: wide\n  title:\n    visible: false\n  tableOfContents:\n    visible: false\n  pagination:\n    visible: false\n---\n\n# Landing\n\nBig picture.\n',
    );
    await checkout.write('SUMMARY.md', '# Summary\n\n* [Welcome](README.md)\n\n## Setup <img src=x onerror=alert(1)>\n\n* [Install](setup/install.md)\n* [Secret](secret.md)\n* [Landing](landing.md)\n');
    await checkout.commitAndPush('Guide');
    await checkout.dispose();

    const site = await api('POST', `/v1/orgs/${org.id}/sites`, { title: 'Docs', visibility: 'public' });
    siteId = site.id;
    await api('POST', `/v1/orgs/${org.id}/sites/${siteId}/sections`, { spaceId: guideId, title: 'Guides' });
    await api('POST', `/v1/orgs/${org.id}/sites/${siteId}/sections`, { spaceId: apiSpaceId, title: 'Reference' });
    const published = await api('GET', `/v1/orgs/${org.id}/sites/${siteId}`);
    base = new URL(published.urls.published).pathname;
  });
  afterAll(async () => t?.close());

  it('serves the first page at the URL the API hands out, with sections, the table of contents and the outline', async () => {
    const { status, html, headers } = await get(base);
    expect(status).toBe(200);
    expect(headers['content-type']).toContain('text/html');
    expect(text(all(html, (e) => e.tagName === 'h1')[0])).toBe('Welcome');
    const sections = all(html, (e) => e.tagName === 'nav' && hasClass('sections')(e)).flatMap((nav) => all(nav, (e) => e.tagName === 'a'));
    expect(sections.map((a) => [text(a), a.properties.ariaCurrent ?? null])).toEqual([
      ['Guides', 'page'],
      ['Reference', null],
    ]);
    const toc = all(html, (e) => e.tagName === 'nav' && hasClass('toc')(e))[0];
    expect(all(toc, (e) => e.tagName === 'a').map((a) => [text(a), a.properties.href])).toEqual([
      ['Welcome', base],
      ['Install', `${base}/setup/install`],
      ['\ufffd\ufffd\u{1f600} Secret', `${base}/secret`],
    ]);
    // The link to another page leads to its site URL, at its anchor; the image to the site's copy of the file.
    expect(text(all(html, hasClass('include'))[0]).trim()).toBe('Questions? Ask the docs team.');
    const link = all(html, (e) => e.tagName === 'a' && text(e) === 'install guide')[0];
    expect(link.properties.href).toBe(`${base}/setup/install#steps`);
    const image = all(html, (e) => e.tagName === 'img')[0];
    const file = await t.request('GET', String(image.properties.src), { unchecked: true });
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');
    expect(file.headers['cache-control']).toContain('immutable');
    // A blob the site does not publish (here: a page's markdown, not a file) is not served, whatever its id.
    const readmeBlob = (await t.request('GET', `/v1/spaces/${guideId}/content/pages?metadata=true`, { token: org.admin.token })).body.pages[0].git.oid as string;
    expect(readmeBlob).toMatch(/^[0-9a-f]{40}$/);
    const pageBlob = String(image.properties.src).replace(/\/[0-9a-f]{40}\/logo\.png$/, `/${readmeBlob}/x.md`);
    expect((await t.request('GET', pageBlob, { unchecked: true })).status).toBe(404);
  });

  it('answers the root of a space with no pages yet with a page saying so (200), not "not found"', async () => {
    const token = org.admin.token;
    const empty = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token, body: { title: 'Empty' } })).body;
    // A new space has a first page: the space's writers removed every page.
    const checkout = await Checkout.clone(spaceRemote(server, token, empty.id));
    for (const file of (await checkout.git('ls-files')).split('\n').filter(Boolean)) await checkout.remove(file);
    await checkout.commitAndPush('No pages yet');
    const site = (await t.request('POST', `/v1/orgs/${org.id}/sites`, { token, body: { title: 'Coming soon', visibility: 'public', spaces: [empty.id] } })).body;
    const published = (await t.request('GET', `/v1/orgs/${org.id}/sites/${site.id}`, { token })).body.urls.published as string;
    const root = await get(new URL(published).pathname);
    expect(root.status).toBe(200);
    expect(String(root.body)).toContain('<h1>Coming soon</h1><p>Nothing is published here yet.</p>');
    expect(String(root.body)).toContain('<meta name="robots" content="noindex">');
    // Below the root, a page that does not exist is still not found.
    expect((await get(`${new URL(published).pathname}/missing`)).status).toBe(404);
  });

  it('renders the GitBook blocks of a nested page: hint, tabs without script, code, expandable, and its outline', async () => {
    const { status, html } = await get(`${base}/setup/install`);
    expect(status).toBe(200);
    const hint = all(html, hasClass('hint'))[0];
    expect(hint.properties.className).toEqual(['hint', 'hint-warning']);
    // Its style said in words (the icon shows it), then its content.
    expect(text(all(hint, hasClass('hint-label'))[0])).toBe('Warning:');
    expect(text(all(hint, hasClass('hint-body'))[0]).trim()).toBe('Back up first.');
    const tabs = all(html, hasClass('tabs'))[0];
    const radios = all(tabs, (e) => e.tagName === 'input');
    expect(radios.map((r) => [r.properties.type, r.properties.checked === true, r.properties.disabled ?? false])).toEqual([
      ['radio', true, false],
      ['radio', false, false],
    ]);
    expect(all(tabs, (e) => e.tagName === 'label').map((label) => [text(label), label.properties.htmlFor])).toEqual([
      ['npm', [radios[0].properties.id]],
      ['yarn', [radios[1].properties.id]],
    ]);
    expect(text(all(tabs, (e) => e.tagName === 'code')[0])).toBe('npm install quire\n');
    expect(all(html, (e) => e.tagName === 'summary').map(text)).toContain('More');
    const outline = all(html, (e) => e.tagName === 'aside')[0];
    expect(all(outline, (e) => e.tagName === 'a').map((a) => [text(a), a.properties.href])).toEqual([['Steps', '#steps']]);
    expect(all(html, (e) => e.tagName === 'h2' && text(e) === 'Steps')[0].properties.id).toBe('steps');
    const previous = all(html, (e) => e.tagName === 'a' && e.properties.rel?.toString() === 'prev')[0];
    expect(previous.properties.href).toBe(base);
  });

  it('renders a page on the CPU pool (as big pages are) to the same HTML as on the event loop: links, files and includes resolved', async () => {
    const tree = await readPublishedSite(t.container.ctx, {}, org.id, siteId);
    const target = await readPublishedPage(t.container.ctx, tree, []);
    if (target.kind !== 'page') throw new Error('no first page');
    // Renders kept with the revision dropped, so that this one is made on the pool.
    dropAnswers(target.content);
    const pooled = await renderContent(t.container.ctx, target, base, undefined, { pooledAbove: 0 });
    const inline = pageHtml(target.page.markdown, { ...pageHtmlOptionsFor(target, base) });
    expect(pooled).toEqual(inline);
    expect(parseHtml(pooled.html).children.length).toBeGreaterThan(0);
    expect(all(parseHtml(pooled.html), (e) => e.tagName === 'a').map((a) => a.properties.href)).toContain(`${base}/setup/install#steps`);
    expect(text(all(parseHtml(pooled.html), hasClass('include'))[0]).trim()).toBe('Questions? Ask the docs team.');
  });

  it("shows a page's cover (with its dark variant) and hides what its layout hides", async () => {
    const { status, html } = await get(`${base}/landing`);
    expect(status).toBe(200);
    // Both images, the theme's shown by CSS (the reader's chosen theme, not only the system's).
    const cover = all(html, hasClass('cover'))[0];
    const [image, dark] = all(cover, (e) => e.tagName === 'img');
    expect([image.properties.className, dark.properties.className]).toEqual([['only-light'], ['only-dark']]);
    expect(String(dark.properties.src)).toMatch(/\/~files\/[^/]+\/[0-9a-f]{40}\/hero%20dark\.png$/);
    expect(String(image.properties.src)).toMatch(/\/~files\/[^/]+\/[0-9a-f]{40}\/logo\.png$/);
    expect((await t.request('GET', String(dark.properties.src), { unchecked: true })).status).toBe(200);
    // Title, table of contents and pagination hidden by the page's layout; the wide layout.
    expect(all(html, (e) => e.tagName === 'h1')).toEqual([]);
    expect(all(html, (e) => e.tagName === 'nav' && (hasClass('toc')(e) || hasClass('pagination')(e)))).toEqual([]);
    expect(all(html, hasClass('layout'))[0].properties.className).toEqual(['layout', 'wide', 'no-toc']);
    expect(text(all(html, (e) => e.tagName === 'article')[0])).toContain('Big picture.');
  });

  it('shows a page emoji of code points no character has as U+FFFD in the table of contents', async () => {
    const { html } = await get(base);
    const secret = all(html, (e) => e.tagName === 'a' && String(e.properties.href).endsWith('/secret'));
    expect(secret.map(text)).toEqual(['\ufffd\ufffd\u{1f600} Secret']);
  });

  it('renders script from markdown, front matter and SUMMARY titles inert', async () => {
    for (const url of [base, `${base}/setup/install`]) {
      const { html, headers } = await get(url);
      // The only scripts are Quire's own files (theme, page, search box), from its own origin.
      expect(all(html, (e) => e.tagName === 'script').map((e) => String(e.properties.src))).toEqual([
        expect.stringMatching(/^\/~quire\/theme\.[0-9a-f]{10}\.js$/),
        expect.stringMatching(/^\/~quire\/site\.[0-9a-f]{10}\.js$/),
        expect.stringMatching(/^\/~quire\/search\.[0-9a-f]{10}\.js$/),
      ]);
      expect(all(html, (e) => Object.keys(e.properties ?? {}).some((key) => /^on/i.test(key)))).toEqual([]);
      expect(all(html, (e) => String(e.properties?.href ?? '').startsWith('javascript:'))).toEqual([]);
      expect(headers['content-security-policy']).toContain("default-src 'none'");
    }
    const { html } = await get(base);
    expect(all(html, (e) => e.tagName === 'meta' && e.properties.name === 'description')[0].properties.content).toBe('Start <script>alert(1)</script> here');
  });

  it('serves pages as markdown, redirects of .gitbook.yaml, sitemap.xml, robots.txt, llms.txt and llms-full.txt', async () => {
    const markdown = await t.request('GET', `${base}/setup/install.md`, { unchecked: true });
    expect(markdown.headers['content-type']).toContain('text/markdown');
    const index = `> The index of this documentation, for agents and tools: http://quire.test${base}/llms.txt\n\n`;
    expect(String(markdown.body)).toMatch(/^> The index of this documentation, for agents and tools: .*\n\n# Install\n\n\{% hint style="warning" %\}/);
    expect(String(markdown.body).startsWith(index)).toBe(true);
    // The page's own URL, asked for markdown first (as agents ask), answers the same; asked for HTML, the page.
    const asked = await t.request('GET', `${base}/setup/install`, { unchecked: true, headers: { accept: 'text/markdown, text/html;q=0.9' } });
    expect([asked.status, asked.headers['content-type'], asked.headers.vary, String(asked.body)]).toEqual([200, 'text/markdown; charset=utf-8', 'accept', String(markdown.body)]);
    const html = await t.request('GET', `${base}/setup/install`, { unchecked: true, headers: { accept: 'text/html, text/markdown' } });
    // (The page may go compressed: it varies on the encoding asked for too.)
    expect([html.headers['content-type'], String(html.headers.vary).split(', ')[0]]).toEqual(['text/html; charset=utf-8', 'accept']);
    expect((await t.request('GET', `${base}/nowhere`, { unchecked: true, headers: { accept: 'text/markdown' } })).status).toBe(404);
    const moved = await t.request('GET', `${base}/old/install`, { unchecked: true });
    expect([moved.status, moved.headers.location]).toEqual([301, `${base}/setup/install`]);
    const away = await t.request('GET', `${base}/elsewhere`, { unchecked: true });
    expect([away.status, away.headers.location]).toEqual([301, 'https://example.com/moved']);

    const sitemap = String((await t.request('GET', `${base}/sitemap.xml`, { unchecked: true })).body);
    const locs = [...sitemap.matchAll(/<loc>([^<]*)<\/loc>/g)].map((m) => m[1]);
    // Both sections: the guide (its secret page left out) and the reference section's space.
    expect(locs).toEqual([`http://quire.test${base}`, `http://quire.test${base}/setup/install`, `http://quire.test${base}/reference`]);
    const robots = String((await t.request('GET', `${base}/robots.txt`, { unchecked: true })).body);
    expect(robots.split('\n')).toEqual(['User-agent: *', 'Allow: /', `Disallow: ${base}/secret`, `Sitemap: http://quire.test${base}/sitemap.xml`, '']);
    const llms = String((await t.request('GET', `${base}/llms.txt`, { unchecked: true })).body);
    expect(llms).toContain('# Docs');
    expect(llms).toContain(`- [Install](http://quire.test${base}/setup/install.md)`);
    const full = String((await t.request('GET', `${base}/llms-full.txt`, { unchecked: true })).body);
    expect(full).toContain('# Welcome\n\nStart <script>alert(1)</script> here');
    expect(full).toContain(`Source: http://quire.test${base}/setup/install`);
    // Parts of 100 pages: this site's pages are all in the first; there is no second.
    const first = await t.request('GET', `${base}/llms-full.txt/1`, { unchecked: true });
    expect([first.status, String(first.body)]).toEqual([200, full]);
    expect((await t.request('GET', `${base}/llms-full.txt/2`, { unchecked: true })).status).toBe(404);
    expect((await t.request('GET', `${base}/llms-full.txt/0`, { unchecked: true })).status).toBe(404);
  });

  it('has a search box that works without JavaScript: a results page with the pages and sections found, linked on the site', async () => {
    const { html } = await get(base);
    const form = all(html, (e) => e.tagName === 'form')[0];
    expect(form.properties).toMatchObject({ action: `${base}/~search`, method: 'get' });
    expect(all(form, (e) => e.tagName === 'input')[0].properties.name).toBe('q');
    const results = await get(`${base}/~search?q=yarn`);
    expect(results.status).toBe(200);
    const links = all(all(results.html, (e) => e.tagName === 'ol')[0], (e) => e.tagName === 'a').map((a) => [text(a), a.properties.href]);
    expect(links).toEqual([
      ['Install', `${base}/setup/install`],
      ['Steps', `${base}/setup/install#steps`],
    ]);
    const none = await get(`${base}/~search?q=zzzunfound`);
    expect(text(all(none.html, (e) => e.tagName === 'main')[0])).toContain('No results for “zzzunfound”');
  });

  it('searches as you type: the results as JSON for the last word begun, and the script the page loads from its own origin', async () => {
    const answer = await t.request('GET', `${base}/~search?q=ya`, { headers: { accept: 'application/json' }, unchecked: true });
    expect(answer.status).toBe(200);
    expect(answer.body.results.map((r: { title: string; href: string }) => [r.title, r.href])).toEqual([['Install', `${base}/setup/install`]]);
    const page = await get(base);
    const script = all(page.html, (e) => e.tagName === 'script' && String(e.properties.src).includes('/search.'))[0];
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    const served = await t.request('GET', String(script.properties.src), { unchecked: true });
    expect([served.status, served.headers['content-type'], served.headers['cache-control']]).toEqual([200, 'text/javascript; charset=utf-8', 'public, max-age=31536000, immutable']);
    expect(String(served.body)).toContain("fetch(form.action + '?q='");
    // Another name under ~quire/ is nothing of Quire's.
    expect((await t.request('GET', '/~quire/search.js', { unchecked: true })).status).toBe(404);
  });

  it('answers 404 pages for what is not there, and for sites the reader may not see', async () => {
    expect((await get(`${base}/no/such/page`)).status).toBe(404);
    expect((await get(`/sites/${org.id}/no-such-site`)).status).toBe(404);
    const hidden = await t.request('POST', `/v1/orgs/${org.id}/sites`, { token: org.admin.token, body: { title: 'Internal', spaces: [guideId] } });
    const url = new URL(hidden.body.urls.published).pathname;
    const anonymous = await get(url);
    expect(anonymous.status).toBe(404);
    expect(text(all(anonymous.html, (e) => e.tagName === 'h1')[0])).toBe('Page not found');
    // A member with an API token reads it.
    expect((await get(url, { authorization: `Bearer ${org.admin.token}` })).status).toBe(200);
  });

  it('marks unlisted sites noindex; opens share-link sites with their key, remembers it, and closes them when the link is deactivated', async () => {
    await t.request('PATCH', `/v1/orgs/${org.id}/sites/${siteId}`, { token: org.admin.token, body: { visibility: 'unlisted' } });
    const unlisted = await get(base);
    expect(all(unlisted.html, (e) => e.tagName === 'meta' && e.properties.name === 'robots')[0].properties.content).toBe('noindex');
    expect(String((await t.request('GET', `${base}/robots.txt`, { unchecked: true })).body)).toBe('User-agent: *\nDisallow: /\n');
    expect((await t.request('GET', `${base}/sitemap.xml`, { unchecked: true })).status).toBe(404);

    await t.request('PATCH', `/v1/orgs/${org.id}/sites/${siteId}`, { token: org.admin.token, body: { visibility: 'share-link' } });
    expect((await get(base)).status).toBe(404);
    const link = (await t.request('POST', `/v1/orgs/${org.id}/sites/${siteId}/share-links`, { token: org.admin.token, body: { name: 'Partners' } })).body;
    const shared = new URL(link.urls.published);
    const opened = await get(`${shared.pathname}${shared.search}`);
    expect(opened.status).toBe(200);
    const cookie = String(opened.headers['set-cookie']).split(';')[0];
    expect(String(opened.headers['set-cookie'])).toContain(`Path=${base}`);
    expect((await get(`${base}/setup/install`, { cookie })).status).toBe(200);
    await t.request('PATCH', `/v1/orgs/${org.id}/sites/${siteId}/share-links/${link.id}`, { token: org.admin.token, body: { active: false } });
    expect((await get(`${base}/setup/install`, { cookie })).status).toBe(404);
    expect((await get(`${shared.pathname}${shared.search}`)).status).toBe(404);
    await t.request('PATCH', `/v1/orgs/${org.id}/sites/${siteId}`, { token: org.admin.token, body: { visibility: 'public' } });
  });

  it('renders OpenAPI blocks from the organization\'s specs, and renders the page again when a spec gets a new version', async () => {
    const token = org.admin.token;
    const spec = (summary: string) => `openapi: 3.0.3
info: { title: Pets, version: '1' }
paths:
  /pets:
    get:
      summary: ${summary}
      description: 'Lists pets. <script>alert(1)</script><img src="x" onerror="alert(2)">'
      parameters:
        - { name: limit, in: query, required: false, schema: { type: integer } }
      responses:
        '200':
          description: The pets
          content:
            application/json:
              schema: { type: array, items: { $ref: '#/components/schemas/Pet' } }
components:
  schemas:
    Pet: { type: object, required: [name], properties: { name: { type: string } } }
`;
    const versionOf = async (previous?: string) => {
      const body = await waitFor(async () => (await t.request('GET', `/v1/orgs/${org.id}/openapi/petstore`, { token })).body, {
        until: (spec) => spec.processingState === 'complete' && Boolean(spec.lastVersion) && spec.lastVersion !== previous,
        what: 'the OpenAPI spec to get a new version',
      });
      return body.lastVersion as string;
    };
    await t.request('POST', `/v1/orgs/${org.id}/openapi`, { token, body: { slug: 'petstore', source: { text: spec('List pets') } } });
    const first = await versionOf();
    const checkout = await Checkout.clone(spaceRemote(server, token, apiSpaceId));
    await checkout.write(
      'README.md',
      '# API\n\n{% openapi-operation spec="petstore" path="/pets" method="get" %}\n{% endopenapi-operation %}\n\n{% openapi-operation spec="nothere" path="/pets" method="get" %}\n{% endopenapi-operation %}\n',
    );
    await checkout.write('SUMMARY.md', '# Summary\n\n* [API](README.md)\n');
    await checkout.commitAndPush('API');
    await checkout.dispose();

    const { status, html } = await get(`${base}/reference`);
    expect(status).toBe(200);
    const [operation] = all(html, hasClass('openapi-operation'));
    expect(text(all(operation, hasClass('openapi-method'))[0])).toBe('GET');
    expect(text(all(operation, hasClass('openapi-summary'))[0])).toBe('List pets');
    expect(all(all(operation, hasClass('openapi-parameters'))[0], (e) => e.tagName === 'code').map(text)).toEqual(['limit']);
    expect(all(operation, hasClass('schema-type')).map(text)).toEqual(['array of Pet', 'string']);
    expect(all(html, hasClass('note')).map(text)).toEqual(['OpenAPI operation GET /pets: not found in specification nothere']);
    expect(all(html, (e) => e.tagName === 'script').map((e) => String(e.properties.src)).every((src) => src.startsWith('/~quire/'))).toBe(true);
    expect(all(html, (e) => Object.keys(e.properties ?? {}).some((key) => /^on/i.test(key)))).toEqual([]);

    // Same revision, new version of the spec: the page shows the new one.
    await t.request('PUT', `/v1/orgs/${org.id}/openapi/petstore`, { token, body: { source: { text: spec('List all pets') } } });
    await versionOf(first);
    const again = await get(`${base}/reference`);
    expect(text(all(again.html, hasClass('openapi-summary'))[0])).toBe('List all pets');
  });

  it('serves llms-full.txt in parts of 100 pages at llms-full.txt/N, in the order of llms.txt', async () => {
    const token = org.admin.token;
    const spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token, body: { title: 'Many' } })).body.id as string;
    const checkout = await Checkout.clone(spaceRemote(server, token, spaceId));
    const summary = ['# Summary', ''];
    for (let i = 0; i < 150; i++) {
      await checkout.write(`page-${i}.md`, `# Page ${i}\n\nText ${i}.\n`);
      summary.push(`* [Page ${i}](page-${i}.md)`);
    }
    await checkout.write('SUMMARY.md', `${summary.join('\n')}\n`);
    await checkout.commitAndPush('Many pages');
    await checkout.dispose();
    const site = await t.request('POST', `/v1/orgs/${org.id}/sites`, { token, body: { title: 'Many', visibility: 'public', spaces: [spaceId] } });
    const siteBase = new URL(site.body.urls.published).pathname;
    const sources = async (name: string) => {
      const res = await t.request('GET', `${siteBase}/${name}`, { unchecked: true });
      return { status: res.status, pages: [...String(res.body).matchAll(/^# (Page \d+)$/gm)].map((m) => m[1]) };
    };
    const all150 = Array.from({ length: 150 }, (_, i) => `Page ${i}`);
    expect(await sources('llms-full.txt')).toEqual({ status: 200, pages: all150 });
    expect(await sources('llms-full.txt/1')).toEqual({ status: 200, pages: all150.slice(0, 100) });
    expect(await sources('llms-full.txt/2')).toEqual({ status: 200, pages: all150.slice(100) });
    expect((await sources('llms-full.txt/3')).status).toBe(404);
  });

  it('serves agents (.md, text/markdown, llms.txt, llms-full.txt, MCP) only while the site\'s agentsContext is included, as new sites are; its export likewise', async () => {
    const token = org.admin.token;
    const created = await t.request('POST', `/v1/orgs/${org.id}/sites`, { token, body: { title: 'For agents', visibility: 'public', spaces: [guideId] } });
    expect([created.status, created.body.agentsContext]).toEqual([201, 'included']);
    const site = created.body;
    const siteBase = new URL(site.urls.published).pathname;
    const setAgents = async (agentsContext: 'included' | 'excluded') =>
      expect((await t.request('PATCH', `/v1/orgs/${org.id}/sites/${site.id}`, { token, body: { agentsContext } })).body.agentsContext).toBe(agentsContext);
    const agentUrls = ['setup/install.md', 'llms.txt', 'llms-full.txt', 'llms-full.txt/1'].map((name) => `${siteBase}/${name}`);
    // An agent's first exchange with the site's MCP server, over HTTP.
    const initialize = () =>
      fetch(`${server}${siteBase}/~quire/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } } }),
      });
    const served = async () => ({
      agents: await Promise.all(agentUrls.map(async (url) => (await t.request('GET', url, { unchecked: true })).status)),
      markdownAsked: (await t.request('GET', `${siteBase}/setup/install`, { unchecked: true, headers: { accept: 'text/markdown' } })).headers['content-type'],
      mcp: (await initialize()).status,
      // What is for every reader and crawler stays.
      page: (await get(`${siteBase}/setup/install`)).status,
      robots: (await t.request('GET', `${siteBase}/robots.txt`, { unchecked: true })).status,
      sitemap: (await t.request('GET', `${siteBase}/sitemap.xml`, { unchecked: true })).status,
    });
    /** The markdown files of the site's static export. */
    const exportedMarkdown = async () => {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-agents-export-'));
      try {
        await exportSite(t.container.ctx, site.id, dir);
        expect((await fs.stat(path.join(dir, 'setup', 'install', 'index.html'))).isFile()).toBe(true);
        return (await fs.readdir(dir, { recursive: true })).filter((file) => file.endsWith('.md')).map((file) => file.split(path.sep).join('/')).sort();
      } finally {
        await fs.rm(dir, { recursive: true, force: true });
      }
    };
    const included = { agents: [200, 200, 200, 200], markdownAsked: 'text/markdown; charset=utf-8', mcp: 200, page: 200, robots: 200, sitemap: 200 };
    expect(await served()).toEqual(included);
    expect(await exportedMarkdown()).toEqual(['landing.md', 'secret.md', 'setup/install.md']);

    await setAgents('excluded');
    // At once (the published site's caches are emptied by the write): every address for agents is a plain 404.
    expect(await served()).toEqual({ ...included, agents: [404, 404, 404, 404], markdownAsked: 'text/html; charset=utf-8', mcp: 404 });
    const twin = await t.request('GET', `${siteBase}/setup/install.md`, { unchecked: true });
    expect([twin.headers['content-type'], String(twin.body)]).toEqual(['text/plain; charset=utf-8', expect.stringContaining('does not serve AI agents')]);
    const refused = await initialize();
    expect([refused.headers.get('content-type'), await refused.json()]).toEqual([
      'application/json; charset=utf-8',
      { jsonrpc: '2.0', error: { code: -32000, message: expect.stringContaining('does not serve AI agents') }, id: null },
    ]);
    // Its HTML names none of them.
    expect(String((await t.request('GET', `${siteBase}/setup/install`, { unchecked: true })).body)).not.toMatch(/llms(-full)?\.txt|\.md"|text\/markdown|~quire\/mcp/);
    expect(await exportedMarkdown()).toEqual([]);

    await setAgents('included');
    expect(await served()).toEqual(included);
    expect(await exportedMarkdown()).toEqual(['landing.md', 'secret.md', 'setup/install.md']);
  });

  it('stops publishing a deleted space at once (pages, .md, files, search, llms.txt, sitemap), and publishes it again when restored', async () => {
    const token = org.admin.token;
    const api = async (method: string, url: string, body?: unknown) => {
      const res = await t.request(method, url, { token, body });
      expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      return res.body;
    };
    const removableId = (await api('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Removable' })).id as string;
    const checkout = await Checkout.clone(spaceRemote(server, token, removableId));
    await checkout.write('README.md', '# Mistake\n\nPublished by quetzalcoatl mistake.\n\n![Chart](.gitbook/assets/chart.png)\n');
    await checkout.write('.gitbook/assets/chart.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 7, 8, 9]));
    await checkout.commitAndPush('Mistake');
    await checkout.dispose();
    const site = await api('POST', `/v1/orgs/${org.id}/sites`, { title: 'Takedowns', visibility: 'public', spaces: [guideId, removableId] });
    const outsider = await t.user();
    const siteBase = new URL(site.urls.published).pathname;
    const page = `${siteBase}/removable`;
    const fileUrl = String(all((await get(page)).html, (e) => e.tagName === 'img')[0].properties.src);
    const search = async () =>
      (await t.request('GET', `${siteBase}/~search`, { query: { q: 'quetzalcoatl' }, headers: { accept: 'application/json' }, unchecked: true })).body.results.map((r: { href: string }) => r.href);
    const machine = async (name: string) => String((await t.request('GET', `${siteBase}/${name}`, { unchecked: true })).body);
    /** What the site serves of the space: the status of its page, its .md and its file, and where it is named. */
    const served = async () => ({
      page: (await get(page)).status,
      markdown: (await get(`${page}.md`)).status,
      file: (await t.request('GET', fileUrl, { unchecked: true })).status,
      search: await search(),
      llms: (await machine('llms.txt')).includes(`${page}.md`),
      llmsFull: (await machine('llms-full.txt')).includes('quetzalcoatl'),
      sitemap: (await machine('sitemap.xml')).includes(`<loc>http://quire.test${page}</loc>`),
      // The published site as the API shows it to someone outside the organization (getPublishedContentSite).
      api: (await t.request('GET', `/v1/orgs/${org.id}/sites/${site.id}/published`, { token: outsider.token })).body.structure.structure.map((s: { space: { id: string } }) => s.space.id),
    });
    const shown = { page: 200, markdown: 200, file: 200, search: [page], llms: true, llmsFull: true, sitemap: true, api: [guideId, removableId] };
    await expect.poll(served, { timeout: 20_000 }).toEqual(shown);
    await api('DELETE', `/v1/spaces/${removableId}`);
    expect(await served()).toEqual({ page: 404, markdown: 404, file: 404, search: [], llms: false, llmsFull: false, sitemap: false, api: [guideId] });
    // The rest of the site is as it was.
    expect((await get(siteBase)).status).toBe(200);
    await api('POST', `/v1/spaces/${removableId}/restore`);
    expect(await served()).toEqual(shown);
  });
});
