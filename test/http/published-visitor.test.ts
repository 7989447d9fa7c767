/**
 * Visitor-auth sites and adaptive content: the site's visitor signing key (a Quire extension,
 * admins only), visitor tokens (`?jwt_token=`, HS256 with the site's key) remembered in a cookie, what anything
 * else gets (404), and the claims deciding `{% if %}` blocks, sections and unsigned claims (`?visitor.NAME=`).
 * Pages shown for claims are never served to another reader. Checked on the parsed HTML, not on strings.
 */
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { all, hasClass, parseHtml, text } from '../helpers/html.js';
import { readPublishedPage, readPublishedSite } from '../../src/domain/sites/published.js';
import { KEPT_VARIANTS } from '../../src/http/routes/published/variants.js';
import { VISITOR_TOKEN_MAX_SECONDS } from '../../src/domain/sites/visitor-auth.js';
import { keepAnswer, keptAnswer, keptAnswerKeys } from '../../src/http/answer-cache.js';

const README = [
  '# Welcome',
  '',
  'Everyone reads this.',
  '',
  '{% if visitor.claims.beta %}',
  'Beta features are on.',
  '{% elif visitor.claims.staff %}',
  'Staff preview.',
  '{% else %}',
  'Join the beta.',
  '{% endif %}',
  '',
  '{% if visitor.claims.unsigned.lang == "fr" %}',
  'Bonjour.',
  '{% endif %}',
  '',
].join('\n');

/** A page with more conditions on unsigned claims than variants of a page are kept. */
const OPTIONS = Array.from({ length: KEPT_VARIANTS + 4 }, (_, i) => i);
const MANY = ['# Options', '', 'Pick one.', '', ...OPTIONS.flatMap((i) => [`{% if visitor.claims.unsigned.option == "${i}" %}`, `Option ${i}.`, '{% endif %}', ''])].join('\n');

const SCHEMA = {
  type: 'object',
  properties: {
    beta: { type: 'boolean', description: 'Beta testers' },
    staff: { type: 'boolean', description: 'Employees' },
  },
  additionalProperties: false,
};

describe.each(DATABASE_KINDS)('visitor-auth sites and adaptive content (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let creator: TestUser;
  let siteId: string;
  let base: string;
  let publicBase: string;
  let openId: string;
  let key: string;

  const keyUrl = () => `/v1/orgs/${org.id}/sites/${siteId}/visitor-key`;

  const get = async (url: string, options: { cookie?: string; query?: Record<string, string> } = {}) => {
    const res = await t.request('GET', url, { headers: options.cookie ? { cookie: options.cookie } : {}, query: options.query, unchecked: true });
    return { ...res, html: parseHtml(String(res.body ?? '')) };
  };

  /** The paragraphs of the page's article (its content), as text. */
  const paragraphs = (html: ReturnType<typeof parseHtml>) =>
    all(html, (e) => e.tagName === 'article').flatMap((article) => all(article, (e) => e.tagName === 'p' && !hasClass('updated')(e)).map((p) => text(p).trim()));

  const sections = (html: ReturnType<typeof parseHtml>) => all(html, (e) => e.tagName === 'nav' && hasClass('sections')(e)).flatMap((nav) => all(nav, (e) => e.tagName === 'a').map(text));

  /** A visitor token: issued now and expiring in 10 minutes unless told otherwise (`null`: without that claim). */
  const sign = (claims: Record<string, unknown>, options: { secret?: string; expiresAt?: number | null; issuedAt?: number | null } = {}) => {
    const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' });
    if (options.issuedAt !== null) jwt.setIssuedAt(options.issuedAt);
    if (options.expiresAt !== null) jwt.setExpirationTime(options.expiresAt ?? Math.floor(Date.now() / 1000) + 600);
    return jwt.sign(new TextEncoder().encode(options.secret ?? key));
  };

  const cookieOf = (headers: Record<string, unknown>, name: string) => {
    const all = ([] as string[]).concat((headers['set-cookie'] as string | string[] | undefined) ?? []);
    return all.find((cookie) => cookie.startsWith(`${name}=`));
  };

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.organization('Adaptive Co');
    creator = await t.member(org.id, 'create');
    const server = await t.listen();
    const token = org.admin.token;
    const api = async (method: string, url: string, body?: unknown) => {
      const res = await t.request(method, url, { token, body });
      expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
      return res.body;
    };
    const guideId = (await api('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Guide' })).id;
    const internalId = (await api('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Internal' })).id;
    const guide = await Checkout.clone(spaceRemote(server, token, guideId));
    await guide.write('README.md', README);
    await guide.write('setup.md', '# Setup\n\nInstall it.\n');
    await guide.write('many.md', MANY);
    await guide.write('SUMMARY.md', '# Summary\n\n* [Welcome](README.md)\n* [Setup](setup.md)\n* [Options](many.md)\n');
    await guide.commitAndPush('Guide');
    await guide.dispose();
    const internal = await Checkout.clone(spaceRemote(server, token, internalId));
    await internal.write('README.md', '# Runbook\n\nFor employees.\n');
    await internal.commitAndPush('Internal');
    await internal.dispose();

    const site = await api('POST', `/v1/orgs/${org.id}/sites`, { title: 'Portal', visibility: 'visitor-auth' });
    siteId = site.id;
    await api('PUT', `/v1/orgs/${org.id}/sites/${siteId}/adaptive-schema`, { jsonSchema: SCHEMA });
    await api('POST', `/v1/orgs/${org.id}/sites/${siteId}/sections`, { spaceId: guideId, title: 'Guides' });
    const staffOnly = await api('POST', `/v1/orgs/${org.id}/sites/${siteId}/sections`, { spaceId: internalId, title: 'Internal' });
    await api('PATCH', `/v1/orgs/${org.id}/sites/${siteId}/sections/${staffOnly.id}`, { condition: 'visitor.claims.staff' });
    base = new URL((await api('GET', `/v1/orgs/${org.id}/sites/${siteId}`)).urls.published).pathname;

    const open = await api('POST', `/v1/orgs/${org.id}/sites`, { title: 'Open docs', visibility: 'public' });
    openId = open.id;
    await api('POST', `/v1/orgs/${org.id}/sites/${open.id}/site-spaces`, { spaceId: guideId });
    publicBase = new URL((await api('GET', `/v1/orgs/${org.id}/sites/${open.id}`)).urls.published).pathname;
  });
  afterAll(async () => t?.close());

  it('shows the visitor signing key to admins only, made once and the same until rotated', async () => {
    const first = await t.request('GET', keyUrl(), { token: org.admin.token });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ object: 'site-visitor-key', key: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), createdAt: expect.any(String) });
    expect((await t.request('GET', keyUrl(), { token: org.admin.token })).body.key).toBe(first.body.key);
    key = first.body.key;
    // A member who manages sites sees the site but not its key (403); someone outside the organization sees nothing.
    expect((await t.request('GET', keyUrl(), { token: creator.token })).status).toBe(403);
    expect((await t.request('POST', keyUrl(), { token: creator.token })).status).toBe(403);
    const stranger = await t.user();
    expect((await t.request('GET', keyUrl(), { token: stranger.token })).status).toBe(404);
    expect((await t.request('GET', keyUrl(), {})).status).toBe(401);
  });

  it('answers 404 without a token, with a bad signature, an expired token or a token that is not a JWT', async () => {
    expect((await get(base)).status).toBe(404);
    expect((await get(base, { query: { jwt_token: await sign({ beta: true }, { secret: 'not-the-key' }) } })).status).toBe(404);
    expect((await get(base, { query: { jwt_token: await sign({ beta: true }, { expiresAt: Math.floor(Date.now() / 1000) - 3600 }) } })).status).toBe(404);
    expect((await get(base, { query: { jwt_token: 'not.a.jwt' } })).status).toBe(404);
    // A token must expire, within VISITOR_TOKEN_MAX_SECONDS (30 days) of its issue and of now.
    const now = Math.floor(Date.now() / 1000);
    const day = 24 * 3600;
    expect((await get(base, { query: { jwt_token: await sign({}, { expiresAt: null }) } })).status).toBe(404);
    expect((await get(base, { query: { jwt_token: await sign({}, { expiresAt: now + 31 * day }) } })).status).toBe(404);
    expect((await get(base, { query: { jwt_token: await sign({}, { expiresAt: now + 31 * day, issuedAt: null }) } })).status).toBe(404);
    expect((await get(base, { query: { jwt_token: await sign({}, { expiresAt: now + 20 * day, issuedAt: now - 20 * day }) } })).status).toBe(404);
    expect(VISITOR_TOKEN_MAX_SECONDS).toBe(30 * day);
    expect((await get(base, { query: { jwt_token: await sign({}, { expiresAt: now + 29 * day }) } })).status).toBe(200);
    expect((await get(base, { query: { jwt_token: await sign({}, { expiresAt: now + 29 * day, issuedAt: null }) } })).status).toBe(200);
    // A bad token is never remembered, not even for a member who reads the site anyway.
    const member = await t.request('GET', base, { token: creator.token, query: { jwt_token: 'not.a.jwt' }, unchecked: true });
    expect(member.status).toBe(200);
    expect(cookieOf(member.headers, 'quire_visitor')).toBeUndefined();
    // The same page as for a site that does not exist (nothing leaks).
    const missing = await get(`/sites/${org.id}/no-such-site`);
    expect(missing.status).toBe(404);
    expect(text(all((await get(base)).html, (e) => e.tagName === 'h1')[0])).toBe(text(all(missing.html, (e) => e.tagName === 'h1')[0]));
  });

  it('opens the site with a valid token, then with its cookie alone on another page; members read it with their API token', async () => {
    const opened = await get(base, { query: { jwt_token: await sign({}) } });
    expect(opened.status).toBe(200);
    expect(text(all(opened.html, (e) => e.tagName === 'h1')[0])).toBe('Welcome');
    const setCookie = cookieOf(opened.headers, 'quire_visitor')!;
    expect(setCookie).toContain(`Path=${base}`);
    expect(setCookie).toContain('HttpOnly');
    // Served over http here (QUIRE_PUBLIC_URL): a Secure cookie would never come back (published-origin.test.ts: https).
    expect(setCookie).not.toContain('Secure');
    const cookie = setCookie.split(';')[0];
    const setup = await get(`${base}/setup`, { cookie });
    expect(setup.status).toBe(200);
    expect(text(all(setup.html, (e) => e.tagName === 'h1')[0])).toBe('Setup');
    const member = await t.request('GET', `${base}/setup`, { token: creator.token, unchecked: true });
    expect(member.status).toBe(200);
  });

  it('shows the {% if %} branch the claims choose, and no other reader gets a page rendered for claims', async () => {
    const beta = await get(base, { query: { jwt_token: await sign({ beta: true }) } });
    expect(paragraphs(beta.html)).toEqual(['Everyone reads this.', 'Beta features are on.']);
    expect(beta.headers['cache-control']).toBe('private, no-store');
    const staff = await get(base, { query: { jwt_token: await sign({ beta: false, staff: true }) } });
    expect(paragraphs(staff.html)).toEqual(['Everyone reads this.', 'Staff preview.']);
    // Right after, a reader whose token carries no claim gets the page as for no claims: the `else` branch.
    const plain = await get(base, { query: { jwt_token: await sign({}) } });
    expect(paragraphs(plain.html)).toEqual(['Everyone reads this.', 'Join the beta.']);
    // A member without claims, after the claim-rendered pages: the same, and cacheable for them.
    const member = await t.request('GET', base, { token: creator.token, unchecked: true });
    expect(paragraphs(parseHtml(String(member.body)))).toEqual(['Everyone reads this.', 'Join the beta.']);
    expect(member.headers['cache-control']).toBe('private, no-cache');
    const again = await get(base, { query: { jwt_token: await sign({ beta: true }) } });
    expect(paragraphs(again.html)).toEqual(['Everyone reads this.', 'Beta features are on.']);
  });

  it('keeps what the claims hide out of the markdown views too (the page as .md, llms-full.txt)', async () => {
    const staffToken = await sign({ staff: true });
    const markdown = String((await t.request('GET', `${base}/setup.md`, { query: { jwt_token: staffToken }, unchecked: true })).body);
    expect(markdown).toMatch(/^> The index of this documentation, for agents and tools: \S+\/llms\.txt\n\n# Setup\n\nInstall it\.\n$/);
    const full = String((await t.request('GET', `${base}/llms-full.txt`, { query: { jwt_token: staffToken }, unchecked: true })).body);
    expect(full).toContain('Everyone reads this.\n\nStaff preview.\n\n');
    for (const hidden of ['Beta features are on.', 'Join the beta.', 'Bonjour.', '{% if', '{% else', '{% endif']) expect(full).not.toContain(hidden);
    const french = String((await t.request('GET', `${base}/llms-full.txt`, { query: { jwt_token: await sign({ beta: true }), 'visitor.lang': 'fr' }, unchecked: true })).body);
    expect(french).toContain('Everyone reads this.\n\nBeta features are on.\n\nBonjour.\n');
  });

  it('leaves a section out for visitors its condition is false for: not in the navigation, its URLs 404', async () => {
    const staffToken = await sign({ staff: true });
    const staff = await get(base, { query: { jwt_token: staffToken } });
    expect(sections(staff.html)).toEqual(['Guides', 'Internal']);
    const runbook = await get(`${base}/internal`, { query: { jwt_token: staffToken } });
    expect(runbook.status).toBe(200);
    expect(paragraphs(runbook.html)).toEqual(['For employees.']);

    const betaToken = await sign({ beta: true });
    const beta = await get(base, { query: { jwt_token: betaToken } });
    expect(beta.status).toBe(200);
    // One section left: no section navigation at all.
    expect(sections(beta.html)).toEqual([]);
    expect((await get(`${base}/internal`, { query: { jwt_token: betaToken } })).status).toBe(404);
    // Without claims (a member's reading), the condition is false too.
    expect((await t.request('GET', `${base}/internal`, { token: creator.token, unchecked: true })).status).toBe(404);
  });

  it('takes unsigned claims from ?visitor.NAME=, on any site, remembered in a cookie, and never shares the page', async () => {
    const french = await get(publicBase, { query: { 'visitor.lang': 'fr' } });
    expect(french.status).toBe(200);
    expect(paragraphs(french.html)).toEqual(['Everyone reads this.', 'Join the beta.', 'Bonjour.']);
    expect(french.headers['cache-control']).toBe('private, no-store');
    const cookie = cookieOf(french.headers, 'quire_visitor_claims')!.split(';')[0];
    expect(paragraphs((await get(publicBase, { cookie })).html)).toContain('Bonjour.');
    // An unsigned claim named like a signed one is no signed claim: `visitor.claims.beta` stays missing.
    const spoofed = await get(publicBase, { query: { 'visitor.beta': 'true' } });
    expect(paragraphs(spoofed.html)).toEqual(['Everyone reads this.', 'Join the beta.']);
    // The next reader, without claims: no "Bonjour", and the page may be kept for such readers.
    const next = await get(publicBase);
    expect(paragraphs(next.html)).toEqual(['Everyone reads this.', 'Join the beta.']);
    expect(next.headers['cache-control']).toBe('private, no-cache');
    // On the visitor-auth site, unsigned claims alone open nothing; with a token they add to its claims.
    expect((await get(base, { query: { 'visitor.lang': 'fr' } })).status).toBe(404);
    const both = await get(base, { query: { jwt_token: await sign({ beta: true }), 'visitor.lang': 'fr' } });
    expect(paragraphs(both.html)).toEqual(['Everyone reads this.', 'Beta features are on.', 'Bonjour.']);
  });

  /** The whole pages kept with the revision of the open site's page at `path` (by key). */
  const keptPages = async (path: string[]) => {
    const target = await readPublishedPage(t.container.ctx, await readPublishedSite(t.container.ctx, {}, org.id, openId), path);
    if (target.kind !== 'page') throw new Error(`no page at ${path.join('/')}`);
    const keys = () => keptAnswerKeys(target.content).filter((k) => k.startsWith('published-page:') && k.includes(`:${target.page.id}:`) && !/:(br|gzip)$/.test(k));
    /** The key of the page kept with `text`. */
    const keyOf = (text: string) => keys().find((k) => String(keptAnswer(target.content, k)) === text);
    /** Marks the bytes kept under `key`: an answer holding the mark was served from the cache, not rendered again. */
    const mark = (k: string, label: string) => keepAnswer(target.content, k, Buffer.concat([keptAnswer(target.content, k) as Buffer, Buffer.from(`<!-- kept ${label} -->`)]), 0);
    return { keys, keyOf, mark };
  };

  it('serves claims nothing reads the page kept for everyone, and keeps one page per outcome of its conditions', async () => {
    const plain = String((await get(publicBase)).body);
    const { keys, keyOf, mark } = await keptPages([]);
    const shared = keyOf(plain)!;
    expect(shared).toBeDefined();
    mark(shared, 'shared');
    const kept = keys();
    // Claims no condition reads, or that decide every condition as no claims do (`lang` is not "fr"), change nothing:
    // the kept bytes, no rendering.
    for (const query of [{ 'visitor.anything': '1' } as Record<string, string>, { 'visitor.anything': '2', 'visitor.x': 'y' }, { 'visitor.lang': 'en' }, { 'visitor.beta': 'true' }]) {
      const res = await get(publicBase, { query });
      expect(res.status).toBe(200);
      expect(String(res.body), JSON.stringify(query)).toBe(`${plain}<!-- kept shared -->`);
    }
    expect(keys()).toEqual(kept);
    // A claim a condition reads makes the page theirs: rendered for that outcome, kept, and served to every reader
    // with the same outcome (other claims beside it or not).
    const french = await get(publicBase, { query: { 'visitor.lang': 'fr' } });
    expect(paragraphs(french.html)).toEqual(['Everyone reads this.', 'Join the beta.', 'Bonjour.']);
    const variant = keyOf(String(french.body))!;
    expect(variant).toBeDefined();
    expect(variant).not.toBe(shared);
    mark(variant, 'french');
    const other = await get(publicBase, { query: { 'visitor.lang': 'fr', 'visitor.anything': '3' } });
    expect(String(other.body)).toBe(`${String(french.body)}<!-- kept french -->`);
    expect(other.headers['cache-control']).toBe('private, no-store');
    expect(String((await get(publicBase)).body)).toBe(`${plain}<!-- kept shared -->`);
  });

  it('keeps at most KEPT_VARIANTS variants of a page, and still shows each reader their own beyond them', async () => {
    const { keys } = await keptPages(['many']);
    for (const i of OPTIONS) {
      const res = await get(`${publicBase}/many`, { query: { 'visitor.option': String(i) } });
      expect(res.status).toBe(200);
      expect(paragraphs(res.html)).toEqual(['Pick one.', `Option ${i}.`]);
    }
    expect(keys()).toHaveLength(KEPT_VARIANTS);
    // The page for readers without claims is kept even so (it never counts among the variants).
    expect(paragraphs((await get(`${publicBase}/many`)).html)).toEqual(['Pick one.']);
    expect(keys()).toHaveLength(KEPT_VARIANTS + 1);
  });

  it('a rotated key ends the tokens signed with the old one, cookies included', async () => {
    const old = await get(base, { query: { jwt_token: await sign({}) } });
    expect(old.status).toBe(200);
    const cookie = cookieOf(old.headers, 'quire_visitor')!.split(';')[0];
    const rotated = await t.request('POST', keyUrl(), { token: org.admin.token });
    expect(rotated.status).toBe(200);
    expect(rotated.body.key).not.toBe(key);
    expect((await t.request('GET', keyUrl(), { token: org.admin.token })).body.key).toBe(rotated.body.key);
    expect((await get(`${base}/setup`, { cookie })).status).toBe(404);
    expect((await get(base, { query: { jwt_token: await sign({}) } })).status).toBe(404);
    key = rotated.body.key;
    expect((await get(base, { query: { jwt_token: await sign({}) } })).status).toBe(200);
  });
});
