/**
 * Site previews (getSitePublishingPreviewById): a URL that opens a site as published for an hour without an account,
 * whatever its visibility, with the chosen visitor claims deciding its adaptive content; a forged, altered, expired or
 * other site's token opens nothing (the site's own answer); only those who may edit the site get one; `claims` that
 * are not a Rison object are a 400 naming it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { all, hasClass, parseHtml, text } from '../helpers/html.js';
import { SITE_PREVIEW_MS } from '../../src/domain/sites/site-previews.js';

const README = ['# Welcome', '', 'Everyone reads this.', '', '{% if visitor.claims.beta %}', 'Beta features are on.', '{% else %}', 'Join the beta.', '{% endif %}', ''].join('\n');

const SCHEMA = { type: 'object', properties: { beta: { type: 'boolean', description: 'Beta testers' } }, additionalProperties: false };

describe.each(DATABASE_KINDS)('site previews (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let creator: TestUser;
  let editor: TestUser;
  let membersSite: string;
  let visitorSite: string;
  let releaseSiteSpace: { id: string; path: string };

  const previewUrl = (siteId: string) => `/v1/orgs/${org.id}/sites/${siteId}/publishing/preview`;

  /** The preview URL the API hands out for `query`, as `token` (must be 200). */
  async function preview(siteId: string, query: Record<string, string> = {}, token = creator.token): Promise<URL> {
    const res = await t.request('GET', previewUrl(siteId), { token, query });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return new URL(res.body.url);
  }

  /** An anonymous reader's GET (no cookie unless given). */
  async function read(url: string, cookie?: string) {
    const res = await t.request('GET', url, { headers: cookie ? { cookie } : {}, unchecked: true });
    const html = parseHtml(String(res.body ?? ''));
    const paragraphs = all(html, (e) => e.tagName === 'article').flatMap((a) => all(a, (e) => e.tagName === 'p' && !hasClass('updated')(e)).map((p) => text(p).trim()));
    return { ...res, html, paragraphs, title: text(all(html, (e) => e.tagName === 'h1')[0] ?? html) };
  }

  const cookieOf = (headers: Record<string, unknown>, name: string) =>
    ([] as string[]).concat((headers['set-cookie'] as string | string[] | undefined) ?? []).find((cookie) => cookie.startsWith(`${name}=`));

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.organization('Preview Co');
    creator = await t.member(org.id, 'create');
    editor = await t.member(org.id, 'edit');
    const server = await t.listen();
    const token = org.admin.token;
    const api = async (method: string, url: string, body?: unknown) => {
      const res = await t.request(method, url, { token, body });
      expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      return res.body;
    };
    const guideId = (await api('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Guide' })).id;
    const releaseId = (await api('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Release' })).id;
    for (const [spaceId, files] of [
      [guideId, { 'README.md': README }],
      [releaseId, { 'README.md': '# Release notes\n\nWhat changed.\n' }],
    ] as const) {
      const checkout = await Checkout.clone(spaceRemote(server, token, spaceId));
      for (const [path, body] of Object.entries(files)) await checkout.write(path, body);
      await checkout.commitAndPush('Content');
      await checkout.dispose();
    }
    // A site for the organization's members only, with two site spaces; a visitor-auth site.
    membersSite = (await api('POST', `/v1/orgs/${org.id}/sites`, { title: 'Handbook', visibility: 'share-link' })).id;
    await api('PUT', `/v1/orgs/${org.id}/sites/${membersSite}/adaptive-schema`, { jsonSchema: SCHEMA });
    await api('POST', `/v1/orgs/${org.id}/sites/${membersSite}/site-spaces`, { spaceId: guideId });
    const release = await api('POST', `/v1/orgs/${org.id}/sites/${membersSite}/site-spaces`, { spaceId: releaseId });
    releaseSiteSpace = { id: release.id, path: release.path };
    visitorSite = (await api('POST', `/v1/orgs/${org.id}/sites`, { title: 'Portal', visibility: 'visitor-auth' })).id;
    await api('POST', `/v1/orgs/${org.id}/sites/${visitorSite}/site-spaces`, { spaceId: guideId });
  });
  afterAll(async () => t?.close());

  it('opens a members-only site without an account, remembered for the site, never indexed nor kept', async () => {
    const url = await preview(membersSite);
    const site = url.pathname;
    // Without the preview, an anonymous reader gets nothing.
    expect((await read(site)).status).toBe(404);
    const opened = await read(`${url.pathname}${url.search}`);
    expect(opened.status).toBe(200);
    expect(opened.title).toBe('Welcome');
    expect(opened.paragraphs).toContain('Join the beta.');
    expect(opened.headers['x-robots-tag']).toBe('noindex');
    expect(opened.headers['cache-control']).toBe('private, no-store');
    expect(all(opened.html, (e) => e.tagName === 'meta' && e.properties?.name === 'robots')).toHaveLength(1);
    const cookie = cookieOf(opened.headers, 'quire_preview')!;
    expect(cookie).toContain(`Path=${site}`);
    expect(cookie).toContain('HttpOnly');
    // The cookie alone opens the site's other pages.
    const again = await read(`${site}/${releaseSiteSpace.path}`, cookie.split(';')[0]);
    expect(again.status).toBe(200);
    expect(again.title).toBe('Release notes');
  });

  it('opens a visitor-auth site, with the claims given applied as a visitor token would', async () => {
    const plain = await preview(visitorSite);
    expect((await read(plain.pathname)).status).toBe(404);
    expect((await read(`${plain.pathname}${plain.search}`)).paragraphs).toContain('Join the beta.');
    const beta = await preview(visitorSite, { claims: '(beta:!t)' });
    const page = await read(`${beta.pathname}${beta.search}`);
    expect(page.status).toBe(200);
    expect(page.paragraphs).toContain('Beta features are on.');
    expect(page.paragraphs).not.toContain('Join the beta.');
  });

  it('leads to the site space asked for', async () => {
    const url = await preview(membersSite, { siteSpace: releaseSiteSpace.id });
    expect(url.pathname).toMatch(new RegExp(`/${releaseSiteSpace.path}$`));
    expect((await read(`${url.pathname}${url.search}`)).title).toBe('Release notes');
    const unknown = await t.request('GET', previewUrl(membersSite), { token: creator.token, query: { siteSpace: 'nope' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(/^siteSpace: /);
  });

  it('gives the site its own answer for an altered, expired or other site\'s token', async () => {
    const url = await preview(membersSite);
    const token = url.searchParams.get('preview')!;
    const [payload, signature] = token.split('.');
    const altered = `${payload}.${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await read(`${url.pathname}?preview=${encodeURIComponent(altered)}`)).status).toBe(404);
    // The payload changed (another site), the signature kept: refused.
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), claims: { beta: true } })).toString('base64url');
    expect((await read(`${url.pathname}?preview=${encodeURIComponent(`${forged}.${signature}`)}`)).status).toBe(404);
    const { downloadLinks } = t.container.ctx;
    const expired = downloadLinks.create({ kind: 'site-preview', site: membersSite, siteSpace: null, claims: {} }, Date.now() - 1);
    expect((await read(`${url.pathname}?preview=${encodeURIComponent(expired)}`)).status).toBe(404);
    expect(SITE_PREVIEW_MS).toBe(3600 * 1000);
    const otherSite = (await preview(visitorSite)).searchParams.get('preview')!;
    expect((await read(`${url.pathname}?preview=${encodeURIComponent(otherSite)}`)).status).toBe(404);
    // Another kind of signed link (a change-request PDF's) with this site's id is not a preview.
    const otherKind = downloadLinks.create({ kind: 'change-request-pdf', site: membersSite }, Date.now() + 60_000);
    expect((await read(`${url.pathname}?preview=${encodeURIComponent(otherKind)}`)).status).toBe(404);
  });

  it('is for those who may edit the site', async () => {
    expect((await t.request('GET', previewUrl(membersSite), { token: editor.token })).status).toBe(403);
    expect((await t.request('GET', previewUrl(membersSite), { token: (await t.user()).token })).status).toBe(404);
    expect((await t.request('GET', previewUrl(membersSite), {})).status).toBe(401);
    await preview(membersSite, {}, org.admin.token);
  });

  it('refuses claims that are not a Rison object, naming `claims`', async () => {
    for (const claims of ['(beta:', '(beta:!x)', '!(a,b)', "'text'", '(a:1)extra', `(a:${'!('.repeat(40)}${')'.repeat(40)})`, `(a:'${'x'.repeat(5000)}')`]) {
      const res = await t.request('GET', previewUrl(membersSite), { token: creator.token, query: { claims } });
      expect(res.status, claims.slice(0, 40)).toBe(400);
      expect(res.body.error.message, claims.slice(0, 40)).toMatch(/claims/);
    }
  });
});
