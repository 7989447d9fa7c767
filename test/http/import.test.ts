import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { QUEUE_DRIVERS } from '../helpers/queues.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { tinyPng } from '../helpers/content.js';
import { docxOf, htmlPage, zipOf } from '../helpers/web.js';
import { closedPort, startFileServer, type FileServer, type Route } from '../helpers/file-server.js';
import { deferred, waitFor } from '../helpers/wait.js';

const exec = promisify(execFile);
const LOGO = tinyPng(6, 4);
const DIAGRAM = tinyPng(3, 2);

/** A small documentation site: nested pages, an image, a table, a code block, a broken link, robots.txt. */
function siteRoutes(): Record<string, Route> {
  const nav = ['/guide/', '/guide/install.html', '/api.html', '/private/secret.html'];
  return {
    '/': {
      body: htmlPage(
        'Home',
        `<h1>Welcome to Acme</h1><p>Start with the <a href="/guide/">guide</a>, or read about <a href="https://example.com/elsewhere">elsewhere</a>.</p>
         <p>This page <a href="/missing.html">is gone</a>.</p>`,
        nav,
      ),
    },
    '/guide/': { body: htmlPage('Guide', '<h1>Guide</h1><p>Read <a href="install.html">the install page</a> first.</p>', nav) },
    '/guide/install.html': {
      body: htmlPage(
        'Install',
        `<article><h1>Install</h1>
         <p>Run this:</p>
         <pre><code class="language-sh">npm install acme
acme init</code></pre>
         <p><img src="/img/logo.png" alt="Logo"></p>
         <table><thead><tr><th>Option</th><th>Default</th></tr></thead><tbody><tr><td>port</td><td>8080</td></tr></tbody></table>
         <ul><li>See <a href="../api.html#auth">authentication</a></li><li>An <a href="/missing.html">old page</a></li></ul>
         <h2 id="next">Next</h2></article>`,
        nav,
      ),
    },
    '/api.html': { body: htmlPage('API', '<h1>API</h1><h2 id="auth">Authentication</h2><p>Tokens.</p>', nav) },
    '/private/secret.html': { body: htmlPage('Secret', '<h1>Secret</h1>') },
    '/img/logo.png': { body: LOGO, contentType: 'image/png' },
    '/robots.txt': { body: 'User-agent: *\nDisallow: /private/\n', contentType: 'text/plain' },
  };
}

describe.each(DATABASE_KINDS)('content import (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let site: FileServer;

  beforeAll(async () => {
    t = await startTestApp(kind, { fetchAllow: ['127.0.0.1'] });
    org = await t.organization();
    site = await startFileServer(siteRoutes());
  });
  afterAll(async () => {
    await site?.close();
    await t?.close();
  });

  const api = (method: string, url: string, body?: unknown, token = org.admin.token) => t.request(method, url, { token, body });
  const newSpace = async (title = 'Imports') => (await api('POST', `/v1/orgs/${org.id}/spaces`, { title })).body.id as string;
  const gitIn = async (spaceId: string, ...args: string[]) =>
    (await exec('git', ['--git-dir', t.container.git.repositoryPath(spaceId), ...args])).stdout.trim();
  const pageAt = async (spaceId: string, path: string) => api('GET', `/v1/spaces/${spaceId}/content/path/${path}`);

  it('imports a website: nested pages by path, the image as a file, converted markdown, one commit on main (importContent)', async () => {
    const spaceId = await newSpace('Acme');
    const before = await gitIn(spaceId, 'rev-parse', 'main');
    const res = await api('POST', `/v1/spaces/${spaceId}/content/import`, { url: `${site.base}/`, source: 'website' });
    expect(res.status).toBe(201);
    // 4 pages and the logo; found: 6 pages (the 404 and the one robots.txt disallows too) and the logo.
    expect(res.body).toEqual({ revision: expect.stringMatching(/^[0-9a-f]{40}$/), importedResources: 5, totalResources: 7 });
    expect(res.headers.location).toBe(`http://quire.test/v1/spaces/${spaceId}/revisions/${res.body.revision}`);
    expect(await gitIn(spaceId, 'rev-parse', 'main')).toBe(res.body.revision);
    expect(await gitIn(spaceId, 'rev-parse', 'main^')).toBe(before);
    expect((await api('GET', `/v1/spaces/${spaceId}`)).body.revision).toBe(res.body.revision);
    expect(site.requests).not.toContain('/private/secret.html');

    // The page tree follows the URL paths; the site's home page is named after its title (README.md is taken).
    const pages = (await api('GET', `/v1/spaces/${spaceId}/content/pages`)).body.pages;
    expect(pages.map((p: any) => p.title)).toEqual(['Acme', 'Welcome to Acme']);
    const home = pages[1];
    expect(home.path).toBe('welcome-to-acme');
    expect(home.pages.map((p: any) => [p.title, p.path])).toEqual([
      ['Guide', 'guide'],
      ['API', 'api'],
    ]);
    expect(home.pages[0].pages.map((p: any) => [p.title, p.path])).toEqual([['Install', 'guide/install']]);

    const install = await pageAt(spaceId, 'guide/install');
    expect(install.status).toBe(200);
    expect(install.body.title).toBe('Install');
    const markdown: string = install.body.markdown;
    expect(markdown).toContain('```sh\nnpm install acme\nacme init\n```');
    expect(markdown).toContain('![Logo](../.gitbook/assets/logo.png)');
    expect(markdown).toContain('| Option | Default |');
    expect(markdown).toContain('| port   | 8080    |');
    expect(markdown).toContain('[authentication](../api.md#auth)');
    // The link to a page of the site that answered 404 stays as written, so it shows as broken.
    expect(markdown).toContain('[old page](/missing.html)');
    expect(markdown).toContain('## Next');
    // Navigation, header, footer and scripts are not content.
    expect(markdown).not.toMatch(/Copyright|console\.log|secret/);
    expect((await pageAt(spaceId, 'welcome-to-acme')).body.markdown).toContain('[elsewhere](https://example.com/elsewhere)');
    expect((await pageAt(spaceId, 'guide')).body.markdown).toContain('[the install page](install.md)');
    expect(await gitIn(spaceId, 'show', 'main:guide/install.md')).toMatch(/^# Install\n\nRun this:\n/);

    const files = (await api('GET', `/v1/spaces/${spaceId}/content/files`)).body.items;
    expect(files).toEqual([expect.objectContaining({ name: 'logo.png', contentType: 'image/png', size: LOGO.length, dimensions: { width: 6, height: 4 } })]);
    const file = await api('GET', `/v1/spaces/${spaceId}/content/files/${files[0].id}`);
    expect(file.status).toBe(200);
    const download = await t.request('GET', new URL(files[0].downloadURL).pathname, { token: org.admin.token, unchecked: true });
    expect(Buffer.from(download.body as string, 'binary').length).toBeGreaterThan(0);

    // The link index (built by the index-links job the import queued, or by this first read) reports the broken
    // link of the imported pages, and the file backlink of the logo.
    const links = await api('GET', `/v1/spaces/${spaceId}/links`);
    expect(links.status).toBe(200);
    const broken = links.body.items.filter((item: any) => item.status === 'broken');
    expect(broken.map((item: any) => item.targetReference)).toEqual([expect.objectContaining({ kind: 'url', url: expect.stringMatching(/missing\.html$/) })]);
    expect(broken[0].locationReferences.map((location: any) => location.page.title).sort()).toEqual(['Install', 'Welcome to Acme']);
    expect(links.body.stats.broken.total).toBe(1);
    const backlinks = await api('GET', `/v1/spaces/${spaceId}/content/files/${files[0].id}/backlinks`);
    expect(backlinks.body.items.map((location: any) => location.page?.title)).toEqual(['Install']);

    const summary = await gitIn(spaceId, 'show', 'main:SUMMARY.md');
    expect(summary).toBe(
      [
        '# Table of contents',
        '',
        '* [Acme](README.md)',
        '* [Welcome to Acme](welcome-to-acme.md)',
        '  * [Guide](guide/README.md)',
        '    * [Install](guide/install.md)',
        '  * [API](api.md)',
      ].join('\n'),
    );
    expect(await gitIn(spaceId, 'log', '-1', '--format=%an <%ae>%n%B', 'main')).toContain(`Import website from ${site.base}/`);
  });

  it('imports twice into one space: the second import gets suffixed names and is appended to SUMMARY.md', async () => {
    const spaceId = await newSpace();
    await api('POST', `/v1/spaces/${spaceId}/content/import`, { url: `${site.base}/guide/install.html`, source: 'html' });
    const second = await api('POST', `/v1/spaces/${spaceId}/content/import`, { url: `${site.base}/guide/install.html`, source: 'html' });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({ importedResources: 2, totalResources: 2 });
    const pages = (await api('GET', `/v1/spaces/${spaceId}/content/pages`)).body.pages;
    expect(pages.map((p: any) => [p.title, p.path])).toEqual([
      ['Imports', 'readme'],
      ['Install', 'install'],
      ['Install', 'install-2'],
    ]);
    // The identical image is the same file, not a copy.
    expect((await api('GET', `/v1/spaces/${spaceId}/content/files`)).body.items.map((f: any) => f.name)).toEqual(['logo.png']);
    expect(await gitIn(spaceId, 'show', 'main:SUMMARY.md')).toBe(
      '# Table of contents\n\n* [Imports](README.md)\n* [Install](install.md)\n* [Install](install-2.md)',
    );
    expect((await pageAt(spaceId, 'install-2')).body.markdown).toContain('![Logo](.gitbook/assets/logo.png)');
  });

  it('places two imports running at once one after the other: both commits land, names do not collide', async () => {
    const spaceId = await newSpace();
    const before = Number(await gitIn(spaceId, 'rev-list', '--count', 'main'));
    const body = { url: `${site.base}/api.html`, source: 'html' };
    const [a, b] = await Promise.all([api('POST', `/v1/spaces/${spaceId}/content/import`, body), api('POST', `/v1/spaces/${spaceId}/content/import`, body)]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(Number(await gitIn(spaceId, 'rev-list', '--count', 'main'))).toBe(before + 2);
    expect([a.body.revision, b.body.revision]).toContain(await gitIn(spaceId, 'rev-parse', 'main'));
    const pages = (await api('GET', `/v1/spaces/${spaceId}/content/pages`)).body.pages;
    expect(pages.map((p: any) => p.path)).toEqual(['readme', 'api', 'api-2']);
  });

  it('imports one markdown file, its relative image downloaded and links made absolute', async () => {
    site.set('/notes/release.md', {
      contentType: 'text/markdown',
      body: '---\ntitle: Ignored when there is an H1\ndescription: What changed\nlayout: post\n---\n\n# Release notes\n\n* Faster\n* [Details](details.md)\n\n![Diagram](diagram.png)\n\n| a | b |\n| - | - |\n| 1 | 2 |\n',
    });
    site.set('/notes/diagram.png', { contentType: 'image/png', body: DIAGRAM });
    const spaceId = await newSpace();
    const res = await api('POST', `/v1/spaces/${spaceId}/content/import`, { url: `${site.base}/notes/release.md`, source: 'markdown' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ importedResources: 2, totalResources: 2 });
    const page = (await pageAt(spaceId, 'release')).body;
    expect(page).toMatchObject({ title: 'Release notes', description: 'What changed' });
    expect(page.markdown).toBe(`* Faster\n* [Details](${site.base}/notes/details.md)\n\n![Diagram](.gitbook/assets/diagram.png)\n\n| a | b |\n| - | - |\n| 1 | 2 |\n`);
    expect(await gitIn(spaceId, 'show', 'main:release.md')).not.toContain('layout');
  });

  it('imports one HTML page', async () => {
    const spaceId = await newSpace();
    const res = await api('POST', `/v1/spaces/${spaceId}/content/import`, { url: `${site.base}/api.html`, source: 'html' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ importedResources: 1, totalResources: 1 });
    expect((await pageAt(spaceId, 'api')).body).toMatchObject({ title: 'API', markdown: '## Authentication\n\nTokens.\n' });
  });

  it('imports a zip of a docs repository in the GitBook layout; a zip-slip entry refuses the archive', async () => {
    site.set('/docs.zip', {
      contentType: 'application/zip',
      body: zipOf({
        'docs-main/.gitbook.yaml': 'root: ./docs/\n',
        'docs-main/package.json': '{}\n',
        'docs-main/docs/README.md': '# Introduction\n\nHello.\n',
        'docs-main/docs/SUMMARY.md': '# Table of contents\n\n* [Introduction](README.md)\n* [Setup](guides/setup.md)\n\n## Reference\n\n* [Config](reference/config.md)\n',
        'docs-main/docs/guides/setup.md': '---\ndescription: Set it up\n---\n\n# Setup\n\nBack to [the start](../README.md). ![Diagram](../.gitbook/assets/diagram.png)\n',
        'docs-main/docs/reference/config.md': '# Config\n\nSee [setup](../guides/setup.md#steps).\n',
        'docs-main/docs/.gitbook/assets/diagram.png': DIAGRAM,
        'docs-main/docs/link.md': { content: '/etc/passwd', symlink: true },
      }),
    });
    const spaceId = await newSpace('Zipped');
    const res = await api('POST', `/v1/spaces/${spaceId}/content/import`, { url: `${site.base}/docs.zip`, source: 'zip' });
    expect(res.status).toBe(201);
    // 3 pages and the diagram; found: 7 files (package.json and .gitbook.yaml not imported) and the symbolic link.
    expect(res.body).toMatchObject({ importedResources: 4, totalResources: 8 });
    const pages = (await api('GET', `/v1/spaces/${spaceId}/content/pages`)).body.pages;
    expect(pages.map((p: any) => [p.type, p.title])).toEqual([
      ['document', 'Zipped'],
      ['document', 'Introduction'],
      ['document', 'Setup'],
      ['group', 'Reference'],
    ]);
    expect(pages[3].pages.map((p: any) => p.path)).toEqual(['reference/config']);
    expect((await pageAt(spaceId, 'guides/setup')).body).toMatchObject({
      description: 'Set it up',
      markdown: 'Back to [the start](../introduction.md). ![Diagram](../.gitbook/assets/diagram.png)\n',
    });
    expect((await pageAt(spaceId, 'reference/config')).body.markdown).toBe('See [setup](../guides/setup.md#steps).\n');
    const tree = await gitIn(spaceId, 'ls-tree', '-r', '--name-only', 'main');
    expect(tree.split('\n').sort()).toEqual(['.gitbook/assets/diagram.png', 'README.md', 'SUMMARY.md', 'guides/setup.md', 'introduction.md', 'reference/config.md']);

    site.set('/evil.zip', { contentType: 'application/zip', body: zipOf({ 'ok.md': '# Fine\n', '../evil.md': '# Escaped\n' }) });
    const head = await gitIn(spaceId, 'rev-parse', 'main');
    const evil = await api('POST', `/v1/spaces/${spaceId}/content/import`, { url: `${site.base}/evil.zip`, source: 'zip' });
    expect(evil.status).toBe(400);
    expect(evil.body.error.message).toMatch(/^url: the archive holds an entry whose path leaves the archive \(\.\.\/evil\.md\)/);
    expect(await gitIn(spaceId, 'rev-parse', 'main')).toBe(head);
  });

  it('imports a Word document (.docx): heading, bold, link, table and its image', async () => {
    site.set('/files/report.docx', {
      contentType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      body: docxOf({
        title: 'Quarterly report',
        paragraph: 'Sales grew. ',
        bold: 'A lot.',
        link: { text: ' Details', href: 'https://example.com/details' },
        table: [
          ['Quarter', 'Sales'],
          ['Q1', '10'],
        ],
        image: DIAGRAM,
      }),
    });
    const spaceId = await newSpace();
    const res = await api('POST', `/v1/spaces/${spaceId}/content/import`, { url: `${site.base}/files/report.docx`, source: 'docx' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ importedResources: 2, totalResources: 2 });
    const page = (await pageAt(spaceId, 'report')).body;
    expect(page.title).toBe('Quarterly report');
    expect(page.markdown).toContain('Sales grew. **A lot.**[ Details](https://example.com/details)');
    expect(page.markdown).toContain('| Quarter | Sales |\n| ------- | ----- |\n| Q1      | 10    |\n');
    expect(page.markdown).toContain('![Chart](.gitbook/assets/image-1.png)');
    const files = (await api('GET', `/v1/spaces/${spaceId}/content/files`)).body.items;
    expect(files).toEqual([expect.objectContaining({ name: 'image-1.png', dimensions: { width: 3, height: 2 } })]);
  });

  it('imports into a change request: its branch moves, main does not (importContentInChangeRequest)', async () => {
    const spaceId = await newSpace();
    const main = await gitIn(spaceId, 'rev-parse', 'main');
    const cr = (await api('POST', `/v1/spaces/${spaceId}/change-requests`, { subject: 'Import' })).body;
    const res = await api('POST', `/v1/spaces/${spaceId}/change-requests/${cr.id}/content/import`, { url: `${site.base}/api.html`, source: 'html' });
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(`http://quire.test/v1/spaces/${spaceId}/revisions/${res.body.revision}`);
    expect(await gitIn(spaceId, 'rev-parse', `change-requests/${cr.number}`)).toBe(res.body.revision);
    expect(await gitIn(spaceId, 'rev-parse', 'main')).toBe(main);
    const pages = (await api('GET', `/v1/spaces/${spaceId}/change-requests/${cr.number}/content/pages`)).body.pages;
    expect(pages.map((p: any) => p.title)).toEqual(['Imports', 'API']);
    expect((await api('GET', `/v1/spaces/${spaceId}/content/pages`)).body.pages.map((p: any) => p.title)).toEqual(['Imports']);
    const revision = await api('GET', new URL(res.headers.location as string).pathname);
    expect(revision.status).toBe(200);
    expect(revision.body.id).toBe(res.body.revision);

    // A change request that is archived (or merged) takes no imports, as its branch takes no pushes.
    await api('PATCH', `/v1/spaces/${spaceId}/change-requests/${cr.id}`, { status: 'archived' });
    const archived = await api('POST', `/v1/spaces/${spaceId}/change-requests/${cr.number}/content/import`, { url: `${site.base}/api.html`, source: 'html' });
    expect(archived.status).toBe(409);
    expect(archived.body.error.message).toMatch(/^changeRequestId: .*archived/);
    const unknown = await api('POST', `/v1/spaces/${spaceId}/change-requests/999/content/import`, { url: `${site.base}/api.html`, source: 'html' });
    expect(unknown.status).toBe(404);
  });

  it('answers 400 naming the field for bad input, and writes nothing', async () => {
    const spaceId = await newSpace();
    const head = await gitIn(spaceId, 'rev-parse', 'main');
    const port = await closedPort();
    site.set('/huge.md', { contentType: 'text/markdown', body: Buffer.alloc(21 * 1024 * 1024, 0x61) });
    const cases: Array<[unknown, RegExp]> = [
      [{ source: 'website' }, /^url: is required/],
      [{ url: `${site.base}/` }, /^source: is required/],
      [{ url: 'not a url', source: 'website' }, /^url: must match format "uri"/],
      [{ url: 'ftp://example.com/docs.zip', source: 'zip' }, /^url: must be an http or https URL/],
      [{ url: `${site.base}/`, source: 'pdf' }, /^source: must be one of: website, docx, markdown, html, zip, confluence/],
      [{ url: `${site.base}/`, source: 'notion' }, /^source: Quire cannot import from "notion": .*zip/],
      [{ url: `${site.base}/`, source: 'confluence' }, /^source: Quire cannot import from "confluence"/],
      [{ url: `${site.base}/`, source: 'github-wiki' }, /^source: Quire cannot import from "github-wiki"/],
      [{ url: `${site.base}/`, source: 'google-docs' }, /^source: Quire cannot import from "google-docs": .*docx/],
      [{ url: `${site.base}/nothing-here.html`, source: 'html' }, /^url: .*nothing-here\.html answered 404 \(not found\); nothing was imported/],
      [{ url: `${site.base}/nothing-here/`, source: 'website' }, /^url: .*answered 404/],
      [{ url: `http://127.0.0.1:${port}/`, source: 'website' }, /^url: could not fetch .*ECONNREFUSED/],
      [{ url: `http://127.0.0.1:${port}/a.md`, source: 'markdown' }, /^url: could not fetch .*ECONNREFUSED/],
      [{ url: 'http://no-such-host.invalid/', source: 'html' }, /^url: could not fetch http:\/\/no-such-host\.invalid\/: .*ENOTFOUND/],
      [{ url: `${site.base}/huge.md`, source: 'markdown' }, /^url: .*huge\.md is larger than 20971520 bytes/],
      [{ url: `${site.base}/img/logo.png`, source: 'markdown' }, /^url: .* is not a text file/],
      [{ url: `${site.base}/api.html`, source: 'markdown' }, /^url: .* is an HTML page, not a markdown file/],
      [{ url: `${site.base}/api.html`, source: 'zip' }, /^url: .* is not a zip archive/],
      [{ url: `${site.base}/api.html`, source: 'docx' }, /^url: .* is not a Word document/],
      [{ url: `${site.base}/img/logo.png`, source: 'website' }, /^url: .* is not an HTML page/],
    ];
    for (const [body, message] of cases) {
      const res = await api('POST', `/v1/spaces/${spaceId}/content/import`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.message, JSON.stringify(body)).toMatch(message);
    }
    expect(await gitIn(spaceId, 'rev-parse', 'main')).toBe(head);
  });

  it('shows imports as they stand while their request waits: running with counts, then done or failed with the reason', async () => {
    const spaceId = await newSpace('Watched');
    const pages = Array.from({ length: 8 }, (_, i) => `p${i}.html`);
    site.set('/slow/', `<html><head><title>Slow</title></head><body><h1>Slow</h1>${pages.map((p) => `<a href="${p}">${p}</a>`).join(' ')}</body></html>`);
    // The first page answers at once, the others once the test has seen the import running.
    const seenRunning = deferred();
    pages.forEach((page, i) => site.set(`/slow/${page}`, { body: `<html><body><h1>${page}</h1><p>Text.</p></body></html>`, ...(i > 0 ? { release: seenRunning.promise } : {}) }));
    const reader = await t.member(org.id, 'read');
    const list = async () => (await t.request('GET', `/v1/spaces/${spaceId}/content/imports`, { token: reader.token, unchecked: true })).body;

    const answer = api('POST', `/v1/spaces/${spaceId}/content/import`, { url: `${site.base}/slow/`, source: 'website' });
    const running = await waitFor(async () => (await list()).items.find((item: any) => item.status === 'running' && item.importedResources >= 1), {
      what: 'the import to be listed running with counts',
    }).finally(() => seenRunning.resolve());
    expect(running, 'an import seen running with counts').toMatchObject({ object: 'content-import', url: `${site.base}/slow/`, source: 'website' });
    expect(running.totalResources).toBeGreaterThanOrEqual(running.importedResources);
    expect(running.revision).toBeUndefined();
    const done = await answer;
    expect(done.status).toBe(201);
    const [seen] = (await list()).items;
    expect(seen).toMatchObject({ id: running.id, status: 'done', revision: done.body.revision, importedResources: done.body.importedResources, totalResources: done.body.totalResources });
    expect((await t.request('GET', new URL(seen.urls.location).pathname, { token: reader.token, unchecked: true })).body).toEqual(seen);

    // A failed import says why.
    expect((await api('POST', `/v1/spaces/${spaceId}/content/import`, { url: `${site.base}/nothing-here/`, source: 'website' })).status).toBe(400);
    const [failed] = (await list()).items;
    expect(failed).toMatchObject({ status: 'failed', importedResources: 0, error: expect.stringMatching(/^url: .*answered 404/) });
    expect(failed.revision).toBeUndefined();

    // Readers of the space only.
    const stranger = await t.user();
    expect((await t.request('GET', `/v1/spaces/${spaceId}/content/imports`, { token: stranger.token, unchecked: true })).status).toBe(404);
    expect((await t.request('GET', `/v1/spaces/${spaceId}/content/imports/nope`, { token: reader.token, unchecked: true })).status).toBe(404);
  });

  it('needs edit on the space: reader 403, non-member 404, no token 401, locked space 403', async () => {
    const spaceId = await newSpace();
    const body = { url: `${site.base}/api.html`, source: 'html' };
    const reader = await t.member(org.id, 'read');
    const readerRes = await api('POST', `/v1/spaces/${spaceId}/content/import`, body, reader.token);
    expect(readerRes.status).toBe(403);
    const outsider = await t.user();
    expect((await api('POST', `/v1/spaces/${spaceId}/content/import`, body, outsider.token)).status).toBe(404);
    const cr = (await api('POST', `/v1/spaces/${spaceId}/change-requests`, {})).body;
    expect((await api('POST', `/v1/spaces/${spaceId}/change-requests/${cr.number}/content/import`, body, reader.token)).status).toBe(403);
    expect((await api('POST', `/v1/spaces/${spaceId}/change-requests/${cr.number}/content/import`, body, outsider.token)).status).toBe(404);
    const anonymous = await t.request('POST', `/v1/spaces/${spaceId}/content/import`, { body });
    expect(anonymous.status).toBe(401);
    const editor = await t.member(org.id, 'edit');
    expect((await api('POST', `/v1/spaces/${spaceId}/content/import`, body, editor.token)).status).toBe(201);

    await api('PATCH', `/v1/spaces/${spaceId}`, { editMode: 'locked' });
    const locked = await api('POST', `/v1/spaces/${spaceId}/content/import`, body);
    expect(locked.status).toBe(403);
    expect(locked.body.error.message).toMatch(/locked/);
    expect((await api('POST', `/v1/spaces/${spaceId}/change-requests/${cr.number}/content/import`, body)).status).toBe(403);
  });
});

describe.each(DATABASE_KINDS)('content import with default settings: private addresses refused (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let site: FileServer;

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.organization();
    site = await startFileServer(siteRoutes());
  });
  afterAll(async () => {
    await site?.close();
    await t?.close();
  });

  it('refuses loopback, private, link-local and localhost URLs with a clear 400, fetching nothing', async () => {
    const spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Guarded' } })).body.id;
    const port = new URL(site.base).port;
    const urls = [`${site.base}/`, 'http://10.0.0.1/docs/', 'http://169.254.169.254/latest/meta-data/', `http://localhost:${port}/`];
    for (const url of urls) {
      for (const source of ['website', 'markdown']) {
        const res = await t.request('POST', `/v1/spaces/${spaceId}/content/import`, { token: org.admin.token, body: { url, source } });
        expect(res.status, `${source} ${url}`).toBe(400);
        expect(res.body.error.message, url).toMatch(/^url: .* resolves to .*, a private, loopback or link-local address; Quire does not fetch from those unless QUIRE_FETCH_ALLOW allows it/);
      }
    }
    expect(site.requests).toEqual([]);
  });
});

describe.each(QUEUE_DRIVERS)('the import-content job under the %s driver (sqlite)', (queue) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let site: FileServer;

  beforeAll(async () => {
    t = await startTestApp('sqlite', { fetchAllow: ['127.0.0.1'] }, { queue });
    org = await t.organization();
    site = await startFileServer(siteRoutes());
  });
  afterAll(async () => {
    await site?.close();
    await t?.close();
  });

  const gitIn = async (spaceId: string, ...args: string[]) =>
    (await exec('git', ['--git-dir', t.container.git.repositoryPath(spaceId), ...args])).stdout.trim();

  it('runs an import through the API to its commit; running the job again for the row makes no second commit', async () => {
    expect(t.container.ctx.jobs.driver).toBe(queue);
    const spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Jobs' } })).body.id;
    const res = await t.request('POST', `/v1/spaces/${spaceId}/content/import`, { token: org.admin.token, body: { url: `${site.base}/`, source: 'website' } });
    expect(res.status).toBe(201);
    expect(await gitIn(spaceId, 'rev-parse', 'main')).toBe(res.body.revision);
    expect(await gitIn(spaceId, 'ls-tree', '-r', '--name-only', 'main')).toContain('guide/install.md');
    const row = await t.container.ctx.db.selectFrom('content_imports').selectAll().where('space_id', '=', spaceId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'done', result_revision: res.body.revision, imported_resources: 5, total_resources: 7, source: 'website' });

    const commits = async () => Number(await gitIn(spaceId, 'rev-list', '--count', 'main'));
    const count = await commits();
    const job = { name: 'import-content' as const, payload: { importId: row.id } };
    await t.container.ctx.jobs.run(job, { timeoutMs: 60_000 });
    await t.container.ctx.jobs.run(job, { timeoutMs: 60_000 });
    expect(await commits()).toBe(count);

    // A worker that stopped after its commit landed but before the row recorded it: the rerun finds the commit.
    await t.container.ctx.db.updateTable('content_imports').set({ result_revision: null, status: 'running' }).where('id', '=', row.id).execute();
    await t.container.ctx.jobs.run(job, { timeoutMs: 60_000 });
    expect(await commits()).toBe(count);
    const again = await t.container.ctx.db.selectFrom('content_imports').selectAll().where('id', '=', row.id).executeTakeFirstOrThrow();
    expect(again).toMatchObject({ status: 'done', result_revision: res.body.revision, imported_resources: 5, total_resources: 7 });
  });

  it('rethrows the processor reason to the waiting request: 400 naming url, the row failed', async () => {
    const spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Fails' } })).body.id;
    const res = await t.request('POST', `/v1/spaces/${spaceId}/content/import`, { token: org.admin.token, body: { url: `${site.base}/gone.md`, source: 'markdown' } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^url: .*gone\.md answered 404/);
    const row = await t.container.ctx.db.selectFrom('content_imports').selectAll().where('space_id', '=', spaceId).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'failed', result_revision: null, error: expect.stringMatching(/^url: .*404/) });
  });
});
