/**
 * A change request's preview: the site that publishes its space as it would read with the change request merged (its
 * pages from the branch head), at `/preview/ORG/SITE/CHANGE_REQUEST_ID/...`, with a banner naming the change request;
 * members who may read the change request open it signed in, others with its preview link (a Quire extension), which
 * stops working once the change request is archived or merged. Checked on the parsed HTML.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { all, hasClass, parseHtml, text } from '../helpers/html.js';
import { PREVIEW_LINK_MS } from '../../src/domain/sites/change-request-previews.js';

describe.each(DATABASE_KINDS)('change-request previews (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let server: string;
  let spaceId: string;
  let sitePath: string;
  let editor: TestUser;
  let reader: TestUser;

  const api = async (method: string, url: string, body?: unknown, token = org.admin.token) => {
    const res = await t.request(method, url, { token, body });
    expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };

  /** Opens a change request and pushes `files` to its branch; its id and number. */
  async function changeRequest(subject: string, files: Record<string, string>): Promise<{ id: string; number: number }> {
    const { id, number } = await api('POST', `/v1/spaces/${spaceId}/change-requests`, { subject });
    const checkout = await Checkout.clone(spaceRemote(server, org.admin.token, spaceId));
    await checkout.git('checkout', '--quiet', '-b', `change-requests/${number}`, `origin/change-requests/${number}`);
    for (const [file, content] of Object.entries(files)) await checkout.write(file, content);
    await checkout.commit(subject);
    await checkout.push(`HEAD:refs/heads/change-requests/${number}`);
    await checkout.dispose();
    return { id, number };
  }

  async function read(url: string, options: { token?: string; cookie?: string; accept?: string } = {}) {
    const headers: Record<string, string> = {};
    if (options.cookie) headers.cookie = options.cookie;
    if (options.accept) headers.accept = options.accept;
    const res = await t.request('GET', url, { token: options.token ?? null, headers, unchecked: true });
    const html = parseHtml(String(res.body ?? ''));
    const paragraphs = all(html, (e) => e.tagName === 'article').flatMap((a) => all(a, (e) => e.tagName === 'p' && !hasClass('updated')(e)).map((p) => text(p).trim()));
    const banner = all(html, hasClass('preview-banner')).map((e) => text(e).trim());
    return { ...res, html, paragraphs, banner, title: text(all(html, (e) => e.tagName === 'h1')[0] ?? html) };
  }

  const pathOf = (url: string) => {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
  };

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.organization('Preview Co');
    editor = await t.member(org.id, 'edit');
    reader = await t.member(org.id, 'read');
    server = await t.listen();
    spaceId = (await api('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Guide' })).id;
    const checkout = await Checkout.clone(spaceRemote(server, org.admin.token, spaceId));
    await checkout.write('README.md', '# Welcome\n\nThe published intro.\n');
    await checkout.write('setup.md', '# Setup\n\nInstall it.\n');
    await checkout.write('SUMMARY.md', '# Summary\n\n* [Welcome](README.md)\n* [Setup](setup.md)\n');
    await checkout.commitAndPush('Guide');
    await checkout.dispose();
    // A site for the organization's members: without the link, an anonymous reader sees nothing of it.
    const site = await api('POST', `/v1/orgs/${org.id}/sites`, { title: 'Handbook', visibility: 'share-link' });
    await api('POST', `/v1/orgs/${org.id}/sites/${site.id}/site-spaces`, { spaceId });
    sitePath = new URL((await api('GET', `/v1/orgs/${org.id}/sites/${site.id}`)).urls.published).pathname;
  });
  afterAll(async () => t?.close());

  it("shows the change request's pages in its preview, and not on the published site", async () => {
    const cr = await changeRequest('Better setup', {
      'setup.md': '# Setup\n\nInstall it with one command.\n',
      'upgrade.md': '# Upgrade\n\nMove to the new version.\n',
      'SUMMARY.md': '# Summary\n\n* [Welcome](README.md)\n* [Setup](setup.md)\n* [Upgrade](upgrade.md)\n',
    });
    const { url } = await api('GET', `/v1/spaces/${spaceId}/change-requests/${cr.id}/preview`, undefined, reader.token);
    expect(new URL(url).pathname).toBe(`/preview/${org.id}/${sitePath.split('/').pop()}/${cr.id}`);
    const setup = await read(`${new URL(url).pathname}/setup`, { token: reader.token });
    expect(setup.status).toBe(200);
    expect(setup.paragraphs).toEqual(['Install it with one command.']);
    expect(setup.banner).toEqual(['Preview of change request #1: Better setup']);
    expect(setup.headers['x-robots-tag']).toBe('noindex');
    expect(setup.headers['cache-control']).toBe('private, no-store');
    // Its links stay in the preview: the table of contents leads to the new page under the preview's address.
    const toc = all(setup.html, (e) => e.tagName === 'a' && text(e) === 'Upgrade').map((a) => String(a.properties?.href));
    expect(toc).toEqual([`${new URL(url).pathname}/upgrade`]);
    expect((await read(`${new URL(url).pathname}/upgrade`, { token: reader.token })).title).toBe('Upgrade');
    // The published site is unchanged.
    const published = await read(`${sitePath}/setup`, { token: reader.token });
    expect(published.paragraphs).toEqual(['Install it.']);
    expect(published.banner).toEqual([]);
    expect((await read(`${sitePath}/upgrade`, { token: reader.token })).status).toBe(404);
  });

  it('opens with its share link without an account, and sends an anonymous browser without one to sign in', async () => {
    const cr = await changeRequest('New page', { 'faq.md': '# FAQ\n\nAsk away.\n', 'SUMMARY.md': '# Summary\n\n* [Welcome](README.md)\n* [Setup](setup.md)\n* [FAQ](faq.md)\n' });
    const link = await api('POST', `/v1/spaces/${spaceId}/change-requests/${cr.number}/preview-link`, undefined, editor.token);
    expect(Date.parse(link.expiresAt) - Date.now()).toBeGreaterThan(PREVIEW_LINK_MS - 60_000);
    const previewPath = new URL(link.url).pathname;
    const opened = await read(pathOf(link.url));
    expect(opened.status).toBe(200);
    expect(opened.title).toBe('Welcome');
    expect(opened.banner).toEqual(['Preview of change request #2: New page']);
    const cookie = ([] as string[]).concat((opened.headers['set-cookie'] as string[] | string | undefined) ?? []).find((c) => c.startsWith('quire_change_preview='))!;
    expect(cookie).toContain(`Path=${previewPath}`);
    expect((await read(`${previewPath}/faq`, { cookie: cookie.split(';')[0] })).title).toBe('FAQ');
    // Without the link: a 404, or in a browser the sign-in page and back.
    expect((await read(`${previewPath}/faq`)).status).toBe(404);
    const browser = await read(`${previewPath}/faq`, { accept: 'text/html' });
    expect(browser.status).toBe(302);
    expect(browser.headers.location).toBe(`/app/sign-in?next=${encodeURIComponent(`${previewPath}/faq`)}`);
    // The link is this change request's alone.
    const other = await changeRequest('Other', { 'other.md': '# Other\n' });
    const otherPath = `/preview/${org.id}/${sitePath.split('/').pop()}/${other.id}`;
    expect((await read(`${otherPath}?preview=${encodeURIComponent(new URL(link.url).searchParams.get('preview')!)}`)).status).toBe(404);
  });

  it("stops opening when the space's editors revoke the links made so far; a new link works", async () => {
    const cr = await changeRequest('Revoked', { 'setup.md': '# Setup\n\nRevoked text.\n' });
    const before = await api('POST', `/v1/spaces/${spaceId}/change-requests/${cr.id}/preview-link`);
    expect((await read(pathOf(before.url))).status).toBe(200);
    expect((await t.request('DELETE', `/v1/spaces/${spaceId}/change-requests/${cr.id}/preview-link`, { token: reader.token })).status).toBe(403);
    expect((await t.request('DELETE', `/v1/spaces/${spaceId}/change-requests/${cr.id}/preview-link`, { token: editor.token })).status).toBe(204);
    expect((await read(pathOf(before.url))).status).toBe(404);
    const after = await api('POST', `/v1/spaces/${spaceId}/change-requests/${cr.id}/preview-link`, undefined, editor.token);
    expect((await read(pathOf(after.url))).status).toBe(200);
  });

  it('stops opening once the change request is archived or merged', async () => {
    const archived = await changeRequest('To archive', { 'setup.md': '# Setup\n\nArchived text.\n' });
    const archivedLink = await api('POST', `/v1/spaces/${spaceId}/change-requests/${archived.id}/preview-link`);
    expect((await read(pathOf(archivedLink.url))).status).toBe(200);
    await api('PATCH', `/v1/spaces/${spaceId}/change-requests/${archived.id}`, { status: 'archived' });
    expect((await read(pathOf(archivedLink.url))).status).toBe(404);
    const archivedAgain = await t.request('POST', `/v1/spaces/${spaceId}/change-requests/${archived.id}/preview-link`, { token: org.admin.token });
    expect(archivedAgain.status).toBe(409);
    expect(archivedAgain.body.error.message).toMatch(/^changeRequestId: /);

    const merged = await changeRequest('To merge', { 'setup.md': '# Setup\n\nMerged text.\n' });
    const mergedLink = await api('POST', `/v1/spaces/${spaceId}/change-requests/${merged.id}/preview-link`);
    expect((await read(`${new URL(mergedLink.url).pathname}/setup${new URL(mergedLink.url).search}`)).paragraphs).toEqual(['Merged text.']);
    await api('POST', `/v1/spaces/${spaceId}/change-requests/${merged.id}/merge`);
    expect((await read(pathOf(mergedLink.url))).status).toBe(404);
    // Members still read the merged change request's preview; the site now shows its text.
    expect((await read(`${sitePath}/setup`, { token: reader.token })).paragraphs).toEqual(['Merged text.']);
  });

  it('refuses readers without access to the change request, and links to those who may not edit', async () => {
    const cr = await changeRequest('Hidden', { 'setup.md': '# Setup\n\nSecret.\n' });
    const { url } = await api('GET', `/v1/spaces/${spaceId}/change-requests/${cr.id}/preview`);
    const previewPath = new URL(url).pathname;
    const stranger = await t.user();
    const guest = await t.member(org.id, null);
    expect((await read(previewPath, { token: stranger.token })).status).toBe(404);
    expect((await read(previewPath, { token: guest.token })).status).toBe(404);
    expect((await read(previewPath, { token: reader.token })).status).toBe(200);
    // A forged token (the signature of another change request's link on this one's id) opens nothing.
    const other = await api('POST', `/v1/spaces/${spaceId}/change-requests/${cr.id}/preview-link`);
    const [payload, signature] = new URL(other.url).searchParams.get('preview')!.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), changeRequest: 'another' })).toString('base64url');
    expect((await read(`${previewPath}?preview=${encodeURIComponent(`${forged}.${signature}`)}`)).status).toBe(404);
    // Sharing a link needs edit on the space; finding the preview, read.
    expect((await t.request('POST', `/v1/spaces/${spaceId}/change-requests/${cr.id}/preview-link`, { token: reader.token })).status).toBe(403);
    expect((await t.request('GET', `/v1/spaces/${spaceId}/change-requests/${cr.id}/preview`, { token: stranger.token })).status).toBe(404);
    expect((await t.request('POST', `/v1/spaces/${spaceId}/change-requests/${cr.id}/preview-link`, {})).status).toBe(401);
    // A space no site publishes has nothing to preview on.
    const lone = (await api('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Lone' })).id;
    const loneCr = (await api('POST', `/v1/spaces/${lone}/change-requests`, { subject: 'x' })).id;
    const none = await t.request('GET', `/v1/spaces/${lone}/change-requests/${loneCr}/preview`, { token: org.admin.token });
    expect(none.status).toBe(409);
    expect(none.body.error.message).toMatch(/^spaceId: /);
  });
});
