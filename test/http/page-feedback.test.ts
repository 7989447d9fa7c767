/**
 * "Was this page helpful?" (a Quire extension), on a real server and both databases: readers send the form of a
 * published page (form-encoded, 303 back to the page) or JSON (204) to `{site}/~quire/feedback`; only a page they may
 * read takes their vote (public, share-link and visitor-auth sites, and sections their claims hide); one vote per
 * reader, page and day, a later one replacing it; the site's managers list the votes (paged, filtered) and their
 * counts per page; what is stored holds no address. The form itself is checked on its parsed HTML.
 */
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { all, parseHtml, text } from '../helpers/html.js';
import { PAGE_FEEDBACK_COMMENT_MAX, trimPageFeedback } from '../../src/domain/sites/page-feedback.js';
import { FEEDBACK_BODY_LIMIT } from '../../src/http/routes/published/feedback.js';
import { feedbackAction, feedbackHtml } from '../../src/http/routes/published/feedback-form.js';
import { SITE_CSS } from '../../src/http/routes/published/site-css.js';

const FORM = 'application/x-www-form-urlencoded';

/** A reader as the server tells them apart: their address and their browser. */
interface Reader {
  ip: string;
  agent: string;
  cookie?: string;
}

let readers = 0;
const newReader = (ip = `198.51.100.${(readers % 250) + 1}`): Reader => ({ ip, agent: `FeedbackTest/${++readers}` });

describe.each(DATABASE_KINDS)('page feedback (%s)', (kind) => {
  let t: TestApp;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let creator: TestUser;
  let reader: TestUser;
  let guest: TestUser;
  let guideId: string;
  let openSite: { id: string; base: string };
  let elsewhere: { id: string; base: string };
  let shared: { id: string; base: string; key: string };
  let portal: { id: string; base: string; key: string };
  const pages: Record<string, string> = {};

  const api = async (method: string, url: string, body?: unknown) => {
    const res = await t.request(method, url, { token: org.admin.token, body });
    expect(res.status, `${method} ${url}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
    return res.body;
  };
  const published = async (siteId: string) => new URL((await api('GET', `/v1/orgs/${org.id}/sites/${siteId}`)).urls.published).pathname;
  const feedbackUrl = (siteId: string, path = '') => `/v1/orgs/${org.id}/sites/${siteId}/insights/feedback${path}`;

  /** The id of the page titled `title` in the space's main. */
  async function pageId(spaceId: string, title: string): Promise<string> {
    const found: string[] = [];
    const visit = (list: Array<{ id: string; title: string; pages?: unknown[] }>) => {
      for (const page of list) {
        if (page.title === title) found.push(page.id);
        visit((page.pages ?? []) as typeof list);
      }
    };
    visit((await api('GET', `/v1/spaces/${spaceId}/content/pages`)).pages);
    expect(found, title).toHaveLength(1);
    return found[0];
  }

  /** Sends feedback to the site at `base` as `who`: form-encoded (as the page's form does) or as JSON. */
  async function send(base: string, who: Reader, fields: Record<string, string>, options: { json?: boolean; query?: string; raw?: string } = {}) {
    const response = await t.app.inject({
      method: 'POST',
      url: `${base}/~quire/feedback${options.query ?? ''}`,
      remoteAddress: who.ip,
      headers: { 'content-type': options.json ? 'application/json' : FORM, 'user-agent': who.agent, ...(who.cookie ? { cookie: who.cookie } : {}) },
      payload: options.raw ?? (options.json ? JSON.stringify(fields) : new URLSearchParams(fields).toString()),
    });
    const isJson = String(response.headers['content-type'] ?? '').includes('application/json');
    return { status: response.statusCode, headers: response.headers, body: isJson ? response.json() : response.body };
  }

  /** Every item of a list of the API, page by page (`limit` a page). */
  async function everyItem(url: string, token: string, query: Record<string, string | number> = {}, limit = 2): Promise<any[]> {
    const items: any[] = [];
    let page: string | undefined;
    do {
      const res = await t.request('GET', url, { token, query: { ...query, limit, ...(page ? { page } : {}) } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.count).toBe(res.body.items.length);
      expect(res.body.items.length).toBeLessThanOrEqual(limit);
      items.push(...res.body.items);
      page = res.body.next?.page;
    } while (page);
    return items;
  }

  const visitorToken = (claims: Record<string, unknown>) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuedAt()
      .setExpirationTime(Math.floor(Date.now() / 1000) + 600)
      .sign(new TextEncoder().encode(portal.key));

  beforeAll(async () => {
    t = await startTestApp(kind);
    org = await t.organization('Feedback Co');
    creator = await t.member(org.id, 'create');
    reader = await t.member(org.id, 'edit');
    guest = await t.member(org.id, null);
    const server = await t.listen();
    guideId = (await api('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Guide' })).id;
    const internalId = (await api('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Internal' })).id;
    const otherId = (await api('POST', `/v1/orgs/${org.id}/spaces`, { title: 'Other' })).id;
    const push = async (spaceId: string, files: Record<string, string>) => {
      const checkout = await Checkout.clone(spaceRemote(server, org.admin.token, spaceId));
      for (const [name, content] of Object.entries(files)) await checkout.write(name, content);
      await checkout.commitAndPush('Content');
      await checkout.dispose();
    };
    await push(guideId, {
      'README.md': '# Welcome\n\nStart here.\n',
      'setup.md': '# Setup\n\nInstall it.\n',
      'SUMMARY.md': '# Summary\n\n* [Welcome](README.md)\n* [Setup](setup.md)\n',
    });
    await push(internalId, { 'README.md': '# Runbook\n\nFor employees.\n' });
    await push(otherId, { 'README.md': '# Elsewhere\n\nAnother site.\n' });
    pages.welcome = await pageId(guideId, 'Welcome');
    pages.setup = await pageId(guideId, 'Setup');
    pages.runbook = await pageId(internalId, 'Runbook');
    pages.elsewhere = await pageId(otherId, 'Elsewhere');

    const open = await api('POST', `/v1/orgs/${org.id}/sites`, { title: 'Open docs', visibility: 'public', spaces: [guideId] });
    openSite = { id: open.id, base: await published(open.id) };
    const other = await api('POST', `/v1/orgs/${org.id}/sites`, { title: 'Other docs', visibility: 'public', spaces: [otherId] });
    elsewhere = { id: other.id, base: await published(other.id) };
    const partners = await api('POST', `/v1/orgs/${org.id}/sites`, { title: 'Partner docs', visibility: 'share-link', spaces: [guideId] });
    const link = await api('POST', `/v1/orgs/${org.id}/sites/${partners.id}/share-links`, { name: 'Partners' });
    shared = { id: partners.id, base: await published(partners.id), key: new URL(link.urls.published).searchParams.get('share')! };
    const gated = await api('POST', `/v1/orgs/${org.id}/sites`, { title: 'Portal', visibility: 'visitor-auth' });
    await api('PUT', `/v1/orgs/${org.id}/sites/${gated.id}/adaptive-schema`, {
      jsonSchema: { type: 'object', properties: { staff: { type: 'boolean', description: 'Employees' } }, additionalProperties: false },
    });
    await api('POST', `/v1/orgs/${org.id}/sites/${gated.id}/sections`, { spaceId: guideId, title: 'Guides' });
    const staffOnly = await api('POST', `/v1/orgs/${org.id}/sites/${gated.id}/sections`, { spaceId: internalId, title: 'Internal' });
    await api('PATCH', `/v1/orgs/${org.id}/sites/${gated.id}/sections/${staffOnly.id}`, { condition: 'visitor.claims.staff' });
    portal = { id: gated.id, base: await published(gated.id), key: (await api('GET', `/v1/orgs/${org.id}/sites/${gated.id}/visitor-key`)).key };
  });
  afterAll(async () => t?.close());

  it('takes the form (303 back to the page, at the thanks) and JSON (204); the site\'s managers list it and count it per page', async () => {
    const first = newReader();
    const form = await send(openSite.base, first, { pageId: pages.setup, rating: 'good', comment: 'Clear\r\nand short.' });
    expect(form.status, JSON.stringify(form.body)).toBe(303);
    expect(form.headers.location).toBe(`${openSite.base}/setup#feedback-thanks`);
    expect(form.headers['cache-control']).toBe('no-store');
    // Where it leads is the page, and the page reads, with the form of that page sent where feedback is taken.
    const page = await t.app.inject({ method: 'GET', url: String(form.headers.location).split('#')[0] });
    expect(page.statusCode).toBe(200);
    const [pageForm] = all(parseHtml(page.body), (e) => e.tagName === 'form' && e.properties.method === 'post');
    expect(pageForm.properties.action).toBe(feedbackAction(openSite.base));
    expect(all(pageForm, (e) => e.tagName === 'input')[0].properties.value).toBe(pages.setup);
    // The site's first page is the site's own URL.
    const home = await send(openSite.base, newReader(), { pageId: pages.welcome, rating: 'ok' });
    expect(home.headers.location).toBe(`${openSite.base}#feedback-thanks`);

    const json = await send(openSite.base, newReader(), { pageId: pages.setup, rating: 'bad', comment: '<b>Missing</b> a step & more' }, { json: true });
    expect(json.status, JSON.stringify(json.body)).toBe(204);
    expect(json.body).toBe('');

    const listed = await t.request('GET', feedbackUrl(openSite.id), { token: creator.token });
    expect(listed.status).toBe(200);
    expect(listed.body.items).toHaveLength(3);
    const [newest, , oldest] = listed.body.items;
    expect(newest).toEqual({
      object: 'page-feedback',
      id: expect.any(String),
      spaceId: guideId,
      pageId: pages.setup,
      page: { title: 'Setup', path: 'setup' },
      rating: 'bad',
      // Plain text, as written: nothing is escaped or rendered on the way in.
      comment: '<b>Missing</b> a step & more',
      createdAt: expect.any(String),
    });
    expect(oldest).toMatchObject({ pageId: pages.setup, rating: 'good', comment: 'Clear\nand short.' });
    expect(listed.body.items[1]).not.toHaveProperty('comment');
    for (const item of listed.body.items) expect(Object.keys(item).filter((key) => !['object', 'id', 'spaceId', 'pageId', 'page', 'rating', 'comment', 'createdAt'].includes(key))).toEqual([]);
    expect(JSON.stringify(listed.body)).not.toMatch(/198\.51\.100|FeedbackTest/);

    const summary = await t.request('GET', feedbackUrl(openSite.id, '/summary'), { token: org.admin.token });
    expect(summary.status).toBe(200);
    expect(summary.body.items).toEqual([
      { object: 'page-feedback-summary', spaceId: guideId, pageId: pages.setup, page: { title: 'Setup', path: 'setup' }, good: 1, ok: 0, bad: 1, total: 2 },
      { object: 'page-feedback-summary', spaceId: guideId, pageId: pages.welcome, page: { title: 'Welcome', path: 'readme' }, good: 0, ok: 1, bad: 0, total: 1 },
    ]);
  });

  it('records what the page\'s own form sends, as a browser sends it, at the form\'s action', async () => {
    const [form] = all(parseHtml(feedbackHtml(pages.setup, feedbackAction(openSite.base)), { fragment: true }), (e) => e.tagName === 'form');
    const fields = new URLSearchParams();
    for (const input of all(form, (e) => e.tagName === 'input')) fields.append(String(input.properties.name), String(input.properties.value));
    fields.append(String(all(form, (e) => e.tagName === 'textarea')[0].properties.name), 'Sent by the form.');
    const pressed = all(form, (e) => e.tagName === 'button' && e.properties.value === 'bad')[0];
    fields.append(String(pressed.properties.name), String(pressed.properties.value));
    const response = await t.app.inject({
      method: String(form.properties.method).toUpperCase() as 'POST',
      url: String(form.properties.action),
      remoteAddress: '198.51.100.250',
      headers: { 'content-type': FORM, 'user-agent': 'FormBrowser/1.0' },
      payload: fields.toString(),
    });
    expect(response.statusCode, response.body).toBe(303);
    expect(response.headers.location).toBe(`${openSite.base}/setup#feedback-thanks`);
    const sent = await everyItem(feedbackUrl(openSite.id), org.admin.token, { rating: 'bad', pageId: pages.setup }, 100);
    expect(sent.filter((item) => item.comment === 'Sent by the form.')).toHaveLength(1);
  });

  it('keeps one vote per reader, page and day: a second one replaces the first (same id); another reader adds one', async () => {
    const list = async () => (await t.request('GET', feedbackUrl(elsewhere.id), { token: org.admin.token, query: { pageId: pages.elsewhere } })).body.items as any[];
    const same = newReader('192.0.2.10');
    expect((await send(elsewhere.base, same, { pageId: pages.elsewhere, rating: 'good' })).status).toBe(303);
    const [before] = await list();
    expect(before).toMatchObject({ rating: 'good' });
    expect((await send(elsewhere.base, same, { pageId: pages.elsewhere, rating: 'bad', comment: 'On second thought' }, { json: true })).status).toBe(204);
    const after = await list();
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ id: before.id, rating: 'bad', comment: 'On second thought' });
    // The same address with another browser, and the same browser at another address, are other readers.
    await send(elsewhere.base, { ...same, agent: `${same.agent} other` }, { pageId: pages.elsewhere, rating: 'ok' });
    await send(elsewhere.base, { ...same, ip: '192.0.2.11' }, { pageId: pages.elsewhere, rating: 'ok' });
    expect(await list()).toHaveLength(3);
    const summary = (await t.request('GET', feedbackUrl(elsewhere.id, '/summary'), { token: org.admin.token })).body.items;
    expect(summary).toEqual([expect.objectContaining({ pageId: pages.elsewhere, good: 0, ok: 2, bad: 1, total: 3 })]);
  });

  it('stores an HMAC of the reader, never their address or browser', async () => {
    const who = { ip: '203.0.113.77', agent: 'UniqueBrowser/7.7 (raw agent)' };
    expect((await send(openSite.base, who, { pageId: pages.welcome, rating: 'good', comment: 'fine' })).status).toBe(303);
    const rows = await t.container.ctx.db.selectFrom('site_page_feedback').selectAll().where('site_id', '=', openSite.id).execute();
    expect(rows.length).toBeGreaterThan(0);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain('203.0.113.77');
    expect(stored).not.toContain('UniqueBrowser');
    expect(stored).not.toContain('198.51.100.');
    for (const row of rows) expect(row.client_key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The key holds the site: the same reader's vote on another site's page is keyed otherwise.
    expect((await send(elsewhere.base, who, { pageId: pages.elsewhere, rating: 'good' })).status).toBe(303);
    const keys = await t.container.ctx.db.selectFrom('site_page_feedback').select(['site_id', 'client_key']).where('comment', '=', 'fine').execute();
    const elsewhereKeys = await t.container.ctx.db.selectFrom('site_page_feedback').select('client_key').where('site_id', '=', elsewhere.id).execute();
    expect(elsewhereKeys.map((row) => row.client_key)).not.toContain(keys[0].client_key);
  });

  it('refuses a bad rating, an unknown page, a page of another site, a too-long comment, each naming the field', async () => {
    const who = newReader();
    const refused = async (fields: Record<string, string>, status: number, message: RegExp, options: { json?: boolean; raw?: string } = {}) => {
      const res = await send(openSite.base, who, fields, options);
      expect(res.status, JSON.stringify(res.body)).toBe(status);
      expect(res.body).toEqual({ error: { code: status, message: expect.stringMatching(message) } });
    };
    await refused({ pageId: pages.setup, rating: 'meh' }, 400, /^rating: must be one of: good, ok, bad$/);
    await refused({ pageId: pages.setup, rating: 'meh' }, 400, /^rating: /, { json: true });
    await refused({ pageId: pages.setup }, 400, /^rating: is required$/);
    await refused({ rating: 'good' }, 400, /^pageId: is required$/);
    await refused({ pageId: 'no-such-page', rating: 'good' }, 400, /^pageId: no page "no-such-page" is published on this site/);
    await refused({ pageId: pages.elsewhere, rating: 'good' }, 400, /^pageId: /);
    await refused({ pageId: pages.setup, rating: 'good', comment: 'x'.repeat(PAGE_FEEDBACK_COMMENT_MAX + 1) }, 400, /^comment: must be at most 512 characters$/);
    await refused({ pageId: pages.setup, rating: 'good', comment: '😀'.repeat(PAGE_FEEDBACK_COMMENT_MAX + 1) }, 400, /^comment: /, { json: true });
    await refused({}, 400, /^pageId: |^rating: |^body: /, { json: true, raw: '"good"' });
    await refused({}, 413, new RegExp(`^body: must be at most ${FEEDBACK_BODY_LIMIT} bytes$`), { raw: `pageId=${pages.setup}&rating=good&comment=${'x'.repeat(FEEDBACK_BODY_LIMIT)}` });
    // A comment at the bound counts its line breaks once, however the form sent them.
    const atBound = `${'y'.repeat(PAGE_FEEDBACK_COMMENT_MAX - 2)}\r\n!`;
    expect((await send(openSite.base, who, { pageId: pages.setup, rating: 'good', comment: atBound })).status).toBe(303);
    // Nothing refused was stored: this reader has the one vote.
    const rows = await t.container.ctx.db.selectFrom('site_page_feedback').selectAll().where('site_id', '=', openSite.id).where('page_id', '=', pages.setup).execute();
    expect(rows.filter((row) => row.comment?.startsWith('yyy'))).toHaveLength(1);
    // A site that is not there answers as one not published for the reader.
    const missing = await send(`/sites/${org.id}/no-such-site`, who, { pageId: pages.setup, rating: 'good' });
    expect(missing.status).toBe(404);
    expect(missing.body.error.message).toMatch(/^site: /);
  });

  it('takes votes only on pages the reader may read: share-link and visitor-auth sites, sections their claims hide', async () => {
    const who = newReader();
    // Share-link site: without the key the site is not there; with it (query, then the site's cookie), it is.
    const withoutKey = await send(shared.base, who, { pageId: pages.setup, rating: 'good' });
    expect(withoutKey.status).toBe(404);
    expect(withoutKey.body.error.message).toBe(`site: no published site "${shared.id}" here, or it is not published for you`);
    const withKey = await send(shared.base, who, { pageId: pages.setup, rating: 'good' }, { json: true, query: `?share=${encodeURIComponent(shared.key)}` });
    expect(withKey.status, JSON.stringify(withKey.body)).toBe(204);
    const cookie = String(withKey.headers['set-cookie']).split(';')[0];
    expect((await send(shared.base, { ...newReader(), cookie }, { pageId: pages.welcome, rating: 'ok' })).status).toBe(303);

    // Visitor-auth site: nothing without a valid visitor token, whatever the page.
    for (const pageId of [pages.setup, pages.runbook]) {
      const refused = await send(portal.base, who, { pageId, rating: 'bad' });
      expect(refused.status).toBe(404);
      expect(refused.body.error.message).toMatch(/^site: /);
    }
    const forged = await send(portal.base, who, { pageId: pages.setup, rating: 'bad' }, { query: `?jwt_token=${await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m').sign(new TextEncoder().encode('not the key'))}` });
    expect(forged.status).toBe(404);
    // A visitor opens the site as a reader does (the token once, then the site's cookie) and votes with the cookie.
    const opened = await t.app.inject({ method: 'GET', url: `${portal.base}?jwt_token=${await visitorToken({})}` });
    expect(opened.statusCode).toBe(200);
    const visitorCookie = ([] as string[]).concat(opened.headers['set-cookie'] ?? []).find((c) => c.startsWith('quire_visitor='))!.split(';')[0];
    const visitor = { ...newReader(), cookie: visitorCookie };
    expect((await send(portal.base, visitor, { pageId: pages.setup, rating: 'good' })).status).toBe(303);
    // The staff-only section is not theirs to read, so not theirs to rate.
    const hidden = await send(portal.base, visitor, { pageId: pages.runbook, rating: 'good' });
    expect(hidden.status).toBe(400);
    expect(hidden.body.error.message).toMatch(/^pageId: /);
    const staff = await send(portal.base, newReader(), { pageId: pages.runbook, rating: 'good' }, { json: true, query: `?jwt_token=${await visitorToken({ staff: true })}` });
    expect(staff.status, JSON.stringify(staff.body)).toBe(204);

    const portalVotes = await everyItem(feedbackUrl(portal.id), org.admin.token);
    expect(portalVotes.map((item) => [item.pageId, item.rating]).sort()).toEqual([[pages.runbook, 'good'], [pages.setup, 'good']].sort());
    const sharedVotes = await everyItem(feedbackUrl(shared.id), org.admin.token);
    expect(sharedVotes.map((item) => item.pageId).sort()).toEqual([pages.setup, pages.welcome].sort());
  });

  it('lets only those who manage the site read the feedback: others get 403, or 404 where they cannot see the site', async () => {
    for (const path of ['', '/summary']) {
      expect((await t.request('GET', feedbackUrl(openSite.id, path), { token: org.admin.token })).status).toBe(200);
      expect((await t.request('GET', feedbackUrl(openSite.id, path), { token: creator.token })).status).toBe(200);
      const member = await t.request('GET', feedbackUrl(openSite.id, path), { token: reader.token });
      expect(member.status).toBe(403);
      expect(member.body.error.message).toMatch(/"edit" permission/);
      expect((await t.request('GET', feedbackUrl(openSite.id, path), { token: guest.token })).status).toBe(404);
      expect((await t.request('GET', feedbackUrl(openSite.id, path), { token: (await t.user()).token })).status).toBe(404);
      expect((await t.request('GET', feedbackUrl(openSite.id, path), {})).status).toBe(401);
      expect((await t.request('GET', feedbackUrl('no-such-site', path), { token: org.admin.token })).status).toBe(404);
    }
  });

  it('pages the list newest first with signed cursors, filters by page and rating, and pages the summary', async () => {
    const site = await api('POST', `/v1/orgs/${org.id}/sites`, { title: 'Paged docs', visibility: 'public', spaces: [guideId] });
    const base = await published(site.id);
    const ratings = ['good', 'bad', 'ok', 'good', 'bad', 'good', 'good'];
    for (const [i, rating] of ratings.entries()) {
      expect((await send(base, newReader(), { pageId: i % 2 === 0 ? pages.setup : pages.welcome, rating, comment: `vote ${i}` }, { json: true })).status).toBe(204);
      // Distinct milliseconds, so that "newest first" is the order they were sent in.
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    const whole = (await t.request('GET', feedbackUrl(site.id), { token: org.admin.token, query: { limit: 100 } })).body;
    expect(whole.next).toBeUndefined();
    expect(whole.items.map((item: any) => item.comment)).toEqual(ratings.map((_, i) => `vote ${i}`).reverse());
    const paged = await everyItem(feedbackUrl(site.id), org.admin.token, {}, 2);
    expect(paged).toEqual(whole.items);
    expect(await everyItem(feedbackUrl(site.id), org.admin.token, {}, 3)).toEqual(whole.items);

    const good = await everyItem(feedbackUrl(site.id), org.admin.token, { rating: 'good' }, 1);
    expect(good.map((item) => item.comment)).toEqual(['vote 6', 'vote 5', 'vote 3', 'vote 0']);
    const setupBad = await everyItem(feedbackUrl(site.id), org.admin.token, { pageId: pages.setup, rating: 'bad' });
    expect(setupBad.map((item) => item.comment)).toEqual(['vote 4']);
    const welcome = await everyItem(feedbackUrl(site.id), org.admin.token, { pageId: pages.welcome });
    expect(welcome.map((item) => item.comment)).toEqual(['vote 5', 'vote 3', 'vote 1']);
    expect(await everyItem(feedbackUrl(site.id), org.admin.token, { pageId: 'no-such-page' })).toEqual([]);

    // A cursor of one list is refused by another (other filters), and an edited one by its own.
    const cursor = (await t.request('GET', feedbackUrl(site.id), { token: org.admin.token, query: { limit: 1, rating: 'good' } })).body.next.page as string;
    const elsewhereCursor = await t.request('GET', feedbackUrl(site.id), { token: org.admin.token, query: { limit: 1, page: cursor } });
    expect(elsewhereCursor.status).toBe(400);
    expect(elsewhereCursor.body.error.message).toMatch(/^page: /);
    const edited = await t.request('GET', feedbackUrl(site.id), { token: org.admin.token, query: { limit: 1, rating: 'good', page: `${cursor.slice(0, -2)}xx` } });
    expect(edited.status).toBe(400);
    const badRating = await t.request('GET', feedbackUrl(site.id), { token: org.admin.token, query: { rating: 'meh' } });
    expect(badRating.status).toBe(400);
    expect(badRating.body.error.message).toMatch(/^rating: /);

    const summary = await everyItem(feedbackUrl(site.id, '/summary'), org.admin.token, {}, 1);
    expect(summary.map((item) => [item.pageId, item.good, item.ok, item.bad, item.total])).toEqual([
      [pages.setup, 2, 1, 1, 4],
      [pages.welcome, 2, 0, 1, 3],
    ]);
  });

  it('keeps at most the bound of rows per site: past it, the oldest go', async () => {
    const site = await api('POST', `/v1/orgs/${org.id}/sites`, { title: 'Bounded docs', visibility: 'public', spaces: [guideId] });
    const base = await published(site.id);
    for (let i = 0; i < 5; i++) {
      await send(base, newReader(), { pageId: pages.setup, rating: 'good', comment: `row ${i}` }, { json: true });
      await new Promise((resolve) => setTimeout(resolve, 3));
    }
    expect(await trimPageFeedback(t.container.ctx, site.id, 3)).toBe(2);
    const kept = await everyItem(feedbackUrl(site.id), org.admin.token, {}, 10);
    expect(kept.map((item) => item.comment)).toEqual(['row 4', 'row 3', 'row 2']);
    expect(await trimPageFeedback(t.container.ctx, site.id, 3)).toBe(0);
    // Other sites' rows are not counted nor touched.
    expect((await everyItem(feedbackUrl(openSite.id), org.admin.token, {}, 100)).length).toBeGreaterThan(0);
  });
});

describe('the feedback form', () => {
  const form = (html: string) => parseHtml(html, { fragment: true });

  it('is a plain post form with a legend, a labelled comment and three rating buttons', () => {
    const tree = form(feedbackHtml('page-1', feedbackAction('/sites/org/docs')));
    const [element] = all(tree, (e) => e.tagName === 'form');
    expect(element.properties).toMatchObject({ method: 'post', action: '/sites/org/docs/~quire/feedback' });
    const [legend] = all(element, (e) => e.tagName === 'legend');
    expect(text(legend)).toBe('Was this page helpful?');
    expect(all(element, (e) => e.tagName === 'fieldset')).toHaveLength(1);
    const [hidden] = all(element, (e) => e.tagName === 'input');
    expect(hidden.properties).toMatchObject({ type: 'hidden', name: 'pageId', value: 'page-1' });
    const [textarea] = all(element, (e) => e.tagName === 'textarea');
    expect(textarea.properties).toMatchObject({ name: 'comment', maxLength: PAGE_FEEDBACK_COMMENT_MAX });
    const [label] = all(element, (e) => e.tagName === 'label');
    expect(label.properties.htmlFor).toEqual([textarea.properties.id]);
    const buttons = all(element, (e) => e.tagName === 'button');
    expect(buttons.map((b) => [b.properties.type, b.properties.name, b.properties.value, text(b).trim()])).toEqual([
      ['submit', 'rating', 'good', '👍 Yes'],
      ['submit', 'rating', 'ok', '😐 Partly'],
      ['submit', 'rating', 'bad', '👎 No'],
    ]);
    const thanks = all(tree, (e) => e.properties?.id === 'feedback-thanks');
    expect(thanks).toHaveLength(1);
    expect(SITE_CSS).toContain('.page-feedback-thanks:target');
  });

  it('escapes what it writes, and is left out where there is no server to send it to (a static export)', () => {
    const tree = form(feedbackHtml('a"><script>x</script>', '/s/"o"'));
    expect(all(tree, (e) => e.tagName === 'script')).toEqual([]);
    expect(all(tree, (e) => e.tagName === 'input')[0].properties.value).toBe('a"><script>x</script>');
    expect(all(tree, (e) => e.tagName === 'form')[0].properties.action).toBe('/s/"o"');
    expect(feedbackHtml('page-1', undefined)).toBe('');
  });
});
