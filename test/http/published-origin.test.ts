/**
 * What a published site's origin may trust, on a server whose public URL is https: user files (`~files/`) never go
 * out as scripts or documents of the site (whose pages allow `script-src 'self'`), and every cookie the site sets
 * (share key, visitor token, unsigned claims) is `Secure`.
 */
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';

/** User files of each kind, by name: what a browser would run script in, and what it only shows. */
const FILES: Record<string, string> = {
  'app.js': 'alert(document.domain)',
  'module.mjs': 'export default 1',
  'page.html': '<script>alert(1)</script>',
  'logo.svg': '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
  'feed.xml': '<?xml version="1.0"?><x/>',
  'chart.png': '\x89PNG',
  'notes.txt': 'plain',
};

describe.each(DATABASE_KINDS)('a published site on an https origin (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let spaceId: string;

  const api = async (method: string, url: string, body?: unknown) => {
    const res = await t.request(method, url, { token: org.admin.token, body });
    expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  const site = async (visibility: string) => {
    const created = await api('POST', `/v1/orgs/${org.id}/sites`, { title: `Docs ${visibility}`, visibility, spaces: [spaceId] });
    return { id: created.id as string, base: new URL(created.urls.published).pathname };
  };
  const setCookies = (headers: Record<string, unknown>) => ([] as string[]).concat((headers['set-cookie'] as string | string[] | undefined) ?? []);

  beforeAll(async () => {
    t = await startTestApp(kind, { publicUrl: 'https://docs.example.test' });
    org = await t.organization('Origin Co');
    const server = await t.listen();
    spaceId = (await api('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Guide' })).id;
    const checkout = await Checkout.clone(spaceRemote(server, org.admin.token, spaceId));
    await checkout.write('README.md', '# Welcome\n\nHello.\n');
    for (const [name, body] of Object.entries(FILES)) await checkout.write(`.gitbook/assets/${name}`, Buffer.from(body, 'latin1'));
    await checkout.commitAndPush('Files');
    await checkout.dispose();
  });
  afterAll(async () => t?.close());

  it('serves user files a browser would run script in as downloads never typed as JavaScript, the others as themselves', async () => {
    const { base } = await site('public');
    const files = (await api('GET', `/v1/spaces/${spaceId}/content/files`)).items as Array<{ name: string; downloadURL: string }>;
    const served: Record<string, [unknown, unknown]> = {};
    for (const file of files) {
      const oid = /\/files\/([0-9a-f]{40})\//.exec(file.downloadURL)![1];
      const res = await t.request('GET', `${base}/~files/${spaceId}/${oid}/${encodeURIComponent(file.name)}`, { unchecked: true });
      expect(res.status, file.name).toBe(200);
      expect(res.headers['x-content-type-options'], file.name).toBe('nosniff');
      expect(res.headers['content-security-policy'], file.name).toContain('sandbox');
      served[file.name] = [res.headers['content-type'], res.headers['content-disposition'] ?? null];
    }
    const attachment = (name: string) => `attachment; filename*=UTF-8''${name}`;
    expect(served).toEqual({
      'app.js': ['application/octet-stream', attachment('app.js')],
      'module.mjs': ['application/octet-stream', attachment('module.mjs')],
      'page.html': ['application/octet-stream', attachment('page.html')],
      'feed.xml': ['application/octet-stream', attachment('feed.xml')],
      // `<img>` shows an SVG only as image/svg+xml; no browser runs it as a script, and opened it is downloaded.
      'logo.svg': ['image/svg+xml', attachment('logo.svg')],
      'chart.png': ['image/png', null],
      'notes.txt': ['text/plain', null],
    });
  });

  it('sets every cookie of the site Secure: unsigned claims, share key, visitor token', async () => {
    const open = await site('public');
    const claims = await t.request('GET', open.base, { query: { 'visitor.plan': 'pro' }, unchecked: true });
    expect(claims.status).toBe(200);

    const shared = await site('share-link');
    const link = await api('POST', `/v1/orgs/${org.id}/sites/${shared.id}/share-links`, { name: 'Partners' });
    const share = await t.request('GET', shared.base, { query: { share: new URL(link.urls.published).searchParams.get('share')! }, unchecked: true });
    expect(share.status).toBe(200);

    const authenticated = await site('visitor-auth');
    const { key } = await api('GET', `/v1/orgs/${org.id}/sites/${authenticated.id}/visitor-key`);
    const jwt = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(key));
    const visitor = await t.request('GET', authenticated.base, { query: { jwt_token: jwt }, unchecked: true });
    expect(visitor.status).toBe(200);

    const cookies = [...setCookies(claims.headers), ...setCookies(share.headers), ...setCookies(visitor.headers)];
    expect(cookies.map((cookie) => cookie.split('=')[0])).toEqual(['quire_visitor_claims', 'quire_share', 'quire_visitor']);
    for (const cookie of cookies) expect(cookie.split('; ').slice(1)).toEqual([expect.stringMatching(/^Path=\/sites\//), 'HttpOnly', 'SameSite=Lax', 'Secure']);
  });
});
