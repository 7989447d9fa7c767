/**
 * Pages rendered ahead of their readers on the CPU pool (src/http/routes/published/prerender.ts) are the pages a
 * reader's request renders on the event loop, byte for byte: links to pages, anchors, files and nothing, includes,
 * variables, cards, `{% if %}` blocks.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { readPublishedPage, readPublishedSite, documentPages } from '../../src/domain/sites/published.js';
import { pageHtmlOptionsFor, prerenderSiblings, renderContent } from '../../src/http/routes/published/render.js';
import { pageHtml } from '../../src/content/page-html.js';
import { waitFor } from '../helpers/wait.js';
import { keptAnswerKeys } from '../../src/http/answer-cache.js';

describe('pages rendered ahead of their readers', () => {
  let t: TestApp;
  let organizationId: string;
  let siteId: string;
  let checkout: Checkout;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const org = await t.organization('Docs Co');
    organizationId = org.id;
    const server = await t.listen();
    const token = org.admin.token;
    const api = async (method: string, url: string, body?: unknown) => (await t.request(method, url, { token, body })).body;
    const spaceId = (await api('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Guide' })).id;
    checkout = await Checkout.clone(spaceRemote(server, token, spaceId));
    await checkout.write('README.md', '# Welcome\n\nRead [install](setup/install.md#steps), [the logo](.gitbook/assets/logo.png) and [nothing](missing.md).\n\n{% include ".gitbook/includes/footer.md" %}\n');
    await checkout.write('.gitbook/includes/footer.md', '---\ntitle: Footer\n---\n\nVersion {{ space.vars.version }}.\n');
    await checkout.write('.gitbook/vars.yaml', 'version: "2.1"\n');
    await checkout.write('.gitbook/assets/logo.png', Buffer.from('89504e470d0a1a0a', 'hex'));
    await checkout.write(
      'setup/install.md',
      '# Install\n\n## Steps\n\n{% content-ref url="../README.md" %}\n[Welcome](../README.md)\n{% endcontent-ref %}\n\n{% if visitor.claims.beta %}\nBeta.\n{% else %}\nStable.\n{% endif %}\n\n```yaml\nkey: value\n```\n\n[back](../README.md) [here](#steps) [up](../../outside.md)\n',
    );
    await checkout.write('setup/configure.md', '---\ndescription: Settings\n---\n\n# Configure\n\n![Logo](../.gitbook/assets/logo.png)\n\n[install](install.md)\n');
    await checkout.write('SUMMARY.md', '# Summary\n\n* [Welcome](README.md)\n* [Setup](setup/install.md)\n  * [Configure](setup/configure.md)\n');
    await checkout.commit('Pages');
    await checkout.push();
    siteId = (await api('POST', `/v1/orgs/${org.id}/sites`, { title: 'Docs', visibility: 'public', spaces: [spaceId] })).id;
  });
  afterAll(async () => {
    await checkout?.dispose();
    await t?.close();
  });

  it('renders every page of the space on the CPU pool as a reader\'s request renders it', async () => {
    const ctx = t.container.ctx;
    const tree = await readPublishedSite(ctx, {}, organizationId, siteId);
    const first = await readPublishedPage(ctx, tree, []);
    if (first.kind !== 'page') throw new Error('the site has no first page');
    // A place on the site no reader has read yet (the site served at the root of a host of its own).
    const siteBase = '';
    const pages = documentPages(first.content.revision.pages);
    expect(pages.length).toBe(3);
    const before = keptAnswerKeys(first.content).length;
    await prerenderSiblings(ctx, first, siteBase, 1);
    // Every page is kept, rendered on the pool: none was rendered here.
    expect(keptAnswerKeys(first.content).length - before).toBe(pages.length);
    for (const page of pages) {
      const published = { ...first, page };
      const kept = await renderContent(ctx, published, siteBase);
      const here = pageHtml(page.markdown, pageHtmlOptionsFor(published, siteBase));
      expect(kept, page.path).toEqual(here);
    }
    const install = await renderContent(ctx, { ...first, page: pages.find((page) => page.path === 'setup/install')! }, siteBase);
    // What the comparison covers: page links with anchors, broken links, cards' titles, the `{% if %}` branch for a
    // reader without claims, highlighted code.
    expect(install.html).toContain('href="/"');
    expect(install.html).toContain('href="/setup/install#steps"');
    expect(install.html).toContain('broken-link');
    expect(install.html).toContain('Welcome');
    expect(install.html).toContain('Stable.');
    expect(install.html).toContain('hljs-attr');
    const welcome = await renderContent(ctx, { ...first, page: pages[0] }, siteBase);
    expect(welcome.html).toContain(`${siteBase}/setup/install#steps`);
    expect(welcome.html).toContain('/~files/');
    expect(welcome.html).toContain('Version 2.1.');
  });

  it('starts once per revision and place; a reader\'s cold page starts it for the other pages of its place', async () => {
    const ctx = t.container.ctx;
    const tree = await readPublishedSite(ctx, {}, organizationId, siteId);
    const first = await readPublishedPage(ctx, tree, []);
    if (first.kind !== 'page') throw new Error('the site has no first page');
    const size = keptAnswerKeys(first.content).length;
    await prerenderSiblings(ctx, first, '', 1);
    expect(keptAnswerKeys(first.content).length).toBe(size);

    // A new revision: a reader's first page of it starts the others'.
    await checkout.write('setup/configure.md', '# Configure\n\nNew text.\n');
    await checkout.commit('Configure');
    await checkout.push();
    const page = await t.app.inject({ method: 'GET', url: `/sites/${organizationId}/${siteId}/setup/configure` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('New text.');
    const now = await readPublishedPage(ctx, tree, []);
    if (now.kind !== 'page') throw new Error('the site has no first page');
    expect(now.content).not.toBe(first.content);
    const kept = () => keptAnswerKeys(now.content).filter((key) => key.startsWith(`published:/sites/${organizationId}/${siteId}`));
    await waitFor(() => kept().length === 3, { what: 'the three pages of the new revision kept, two of them rendered ahead' });
  });
});
