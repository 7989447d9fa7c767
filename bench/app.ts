/**
 * The app's first view in headless Chromium: a space of PAGES (1,000) pages opened signed in, in a fresh browser
 * context each round (nothing cached), until its page tree and its first page are shown; against the same space's
 * first page on its published site, rendered by the server, in rounds alternated with it. Also: the JavaScript the
 * first view ships (compressed, as sent), and a change request of CHANGED (50) changed pages until the app lists them
 * all, and until one page's block diff is shown. `ROUNDS` (default 5).
 *
 * `npx tsx bench/app.ts` (needs `npm run build` for the app's bundle, and Debian's chromium).
 */
import { chromium } from 'playwright-core';
import { machine, pageFile, spaceWithPages, startBenchServer } from './lib.js';
import { median, msWithRounds } from './stats.js';
import { createPasswordLink, setPasswordWithLink } from '../src/domain/identity/sessions.js';

const PAGES = Number(process.env.PAGES ?? 1000);
const CHANGED = Number(process.env.CHANGED ?? 50);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const PASSWORD = 'a bench password';

const server = await startBenchServer();
const { ctx } = server.container;
const { spaceId, checkout } = await spaceWithPages(server, PAGES, { files: { 'README.md': '# Home\n\nWelcome to the bench space.\n' } });
const user = await ctx.db.selectFrom('users').selectAll().executeTakeFirstOrThrow();
const { token } = await createPasswordLink(ctx, user.email);
await setPasswordWithLink(ctx, { token, password: PASSWORD }, { address: '127.0.0.1' });

/** What the bench reads of the API's answers. */
interface Answer {
  id: string;
  urls: { published: string };
}

const api = async (method: string, path: string, body?: unknown): Promise<Answer> => {
  const res = await fetch(`${server.url}/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${server.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<Answer>;
};
const site = await api('POST', `/orgs/${server.organizationId}/sites`, { title: 'Bench docs', spaces: [spaceId] });
await api('PATCH', `/orgs/${server.organizationId}/sites/${site.id}`, { visibility: 'public' });
const published = new URL(site.urls.published).pathname;

// A change request changing CHANGED pages, pushed with git.
await api('POST', `/spaces/${spaceId}/change-requests`, { subject: 'Bench changes' });
await checkout.git('fetch', '--quiet', 'origin');
await checkout.git('checkout', '--quiet', '-b', 'change-requests/1', 'origin/change-requests/1');
for (let i = 0; i < CHANGED; i++) await checkout.write(pageFile(i), `# Page ${i}\n\nRewritten paragraph ${i}.\n\nAnother new paragraph.\n`);
await checkout.commitAndPush('Bench changes');
const firstChanged = (await api('GET', `/spaces/${spaceId}/content/path/${pageFile(0).replace(/\.md$/, '')}`)).id;

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
const signIn = await fetch(`${server.url}/v1/auth/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: user.email, password: PASSWORD }) });
const secret = /quire_session=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')![1];

/** Milliseconds from navigation until `ready` holds, in a fresh context (no cache), and the script bytes it received. */
async function timed(url: string, ready: (page: import('playwright-core').Page) => Promise<unknown>): Promise<{ ms: number; scriptBytes: number }> {
  const context = await browser.newContext();
  await context.addCookies([{ name: 'quire_session', value: secret, url: server.url }]);
  const page = await context.newPage();
  let scriptBytes = 0;
  page.on('response', async (response) => {
    if (response.request().resourceType() === 'script') scriptBytes += Number((await response.allHeaders())['content-length'] ?? (await response.body()).length);
  });
  const started = performance.now();
  await page.goto(url);
  await ready(page).catch(async (error) => {
    console.error(`not ready at ${page.url()}: ${(await page.locator('body').innerText()).slice(0, 500)}`);
    throw error;
  });
  const ms = performance.now() - started;
  await context.close();
  return { ms, scriptBytes };
}

const app: number[] = [];
const site_: number[] = [];
const crList: number[] = [];
const crDiff: number[] = [];
let scriptBytes = 0;
for (let round = 0; round < ROUNDS; round++) {
  const first = await timed(`${server.url}/app/s/${spaceId}`, async (page) => {
    await page.locator('article.page-article h1').waitFor();
    await page.locator('.page-tree a').nth(PAGES).waitFor({ state: 'attached' });
  });
  app.push(first.ms);
  scriptBytes = first.scriptBytes;
  site_.push((await timed(`${server.url}${published}`, (page) => page.locator('article h1').waitFor())).ms);
  crList.push((await timed(`${server.url}/app/s/${spaceId}/~/changes/1`, (page) => page.locator('.changes li').nth(CHANGED - 1).waitFor())).ms);
  crDiff.push((await timed(`${server.url}/app/s/${spaceId}/~/changes/1?page=${firstChanged}`, (page) => page.locator('ins.diff-after').first().waitFor())).ms);
}

console.log(`machine: ${machine()}, ${PAGES} pages, ${ROUNDS} rounds, ${new Date().toISOString().slice(0, 10)}`);
console.log(`first view of the space in the app (tree of ${PAGES} pages and the first page shown): ${msWithRounds(app)}  target < 1500 ms`);
console.log(`baseline, the same first page on its published site (server-rendered): ${msWithRounds(site_)}  ratio ${(median(app) / median(site_)).toFixed(2)}`);
console.log(`JavaScript of the first view, as sent (compressed): ${(scriptBytes / 1024).toFixed(1)} KB  target < 200 KB`);
console.log(`change request of ${CHANGED} changed pages, all listed: ${msWithRounds(crList)}  target < 1000 ms`);
console.log(`one changed page's block diff shown: ${msWithRounds(crDiff)}`);
await browser.close();
await checkout.dispose();
await server.close();
