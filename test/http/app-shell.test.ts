import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { all, parseHtml } from '../helpers/html.js';

// The app's page and assets as the server answers them (what the app does in a browser: test/browser/app.test.ts).
describe('the app as served', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('sqlite', { publicUrl: 'https://docs.example.com/quire' });
  });
  afterAll(async () => t?.close());

  const get = (url: string) => t.request('GET', url, { unchecked: true, urlsUnchecked: true });

  it('answers every urls.app path with the app\'s page: its own script and stylesheet, no inline script, a strict CSP', async () => {
    for (const path of ['/app', '/app/', '/app/s/SPACE/guide/install', '/app/s/SPACE/~/changes/3', '/app/o/ORG/sites/SITE', '/app/no/such/view']) {
      const answer = await get(path);
      expect(answer.status, path).toBe(200);
      expect(answer.headers['content-type']).toBe('text/html; charset=utf-8');
      const csp = String(answer.headers['content-security-policy']);
      expect(csp).toContain("script-src 'self';");
      expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
      expect(csp).toContain("frame-ancestors 'none'");
      const html = parseHtml(String(answer.body));
      const scripts = all(html, (e) => e.tagName === 'script');
      expect(scripts).toHaveLength(1);
      expect(scripts[0].children).toEqual([]);
      expect(String(scripts[0].properties.src)).toMatch(/^\/quire\/app\/assets\/app-[A-Z0-9]+\.js$/);
      // Served below /quire (QUIRE_PUBLIC_URL's path): the app calls the API and links there.
      expect(all(html, (e) => e.properties.id === 'app')[0].properties.dataBase).toBe('/quire');
    }
  });

  it('serves the bundle\'s files by their hashed names only, cached for a year', async () => {
    const page = parseHtml(String((await get('/app/')).body));
    const script = String(all(page, (e) => e.tagName === 'script')[0].properties.src).replace('/quire', '');
    const style = String(all(page, (e) => e.tagName === 'link' && String(e.properties.rel) === 'stylesheet')[0].properties.href).replace('/quire', '');
    const js = await get(script);
    expect(js.status).toBe(200);
    expect(js.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect((await get(style)).headers['content-type']).toBe('text/css; charset=utf-8');
    // Compressed for browsers that take it: the bytes decode to the same script.
    const br = await t.app.inject({ method: 'GET', url: script, headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.rawPayload).equals(Buffer.from(js.body as string))).toBe(true);
    expect(br.rawPayload.length).toBeLessThan(Buffer.byteLength(js.body as string) / 2);
    const gz = await t.app.inject({ method: 'GET', url: script, headers: { 'accept-encoding': 'gzip' } });
    expect(gunzipSync(gz.rawPayload).equals(Buffer.from(js.body as string))).toBe(true);
    for (const missing of ['/app/assets/app-NOPE.js', '/app/assets/..%2F..%2Fpackage.json', '/app/assets/manifest.json']) expect((await get(missing)).status, missing).toBe(404);
  });

  it('leads / to the app', async () => {
    const answer = await get('/');
    expect(answer.status).toBe(302);
    expect(answer.headers.location).toBe('/quire/app/');
  });
});
