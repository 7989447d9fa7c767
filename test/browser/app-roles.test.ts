/**
 * The app walked as each organization role and as another organization's member, in one Chromium with a context per
 * walker, on both databases: the space, a page, its history, the change requests, a change request and a page of its
 * diff, and the account's settings. Each sees what the API lets it read (an outsider: a not-found view, no title of
 * the space leaked), is offered the write controls of a change request (comment, review, merge, close) only where the
 * API allows them, and is refused by the API, with its own session, where it is not offered them.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WALK_ON_POSTGRES } from '../helpers/databases.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { launchBrowser } from '../helpers/browser.js';
import { AppBrowser } from '../helpers/app-browser.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { ROLES, type Role } from '../../src/domain/roles.js';
import { spacePermissions } from '../../src/domain/permissions.js';

/** Words of the space's content: none may reach a walker who does not read it. */
const SECRETS = ['Handbook', 'Explain upgrades', 'Run the installer', 'then restart', 'Welcome'];

/** What a walker may do to a change request, as the API's permission rules give it (one place: src/domain/permissions.ts). */
interface Allowed {
  read: boolean;
  comment: boolean;
  review: boolean;
  merge: boolean;
  close: boolean;
}

const allowedFor = (role: Role | null): Allowed => {
  const flags = spacePermissions(role);
  return { read: flags.view, comment: flags.comment, review: flags.review, merge: flags.merge, close: flags.edit };
};

describe.each(WALK_ON_POSTGRES)('the app walked as each role (%s)', (kind) => {
  let t: TestApp;
  let web: AppBrowser;
  let server: string;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let spaceId: string;
  let installId: string;

  /** A walker signed in from the sign-in page itself, wherever the app then leads them: each walk visits its own paths. */
  async function signedIn(user: TestUser): Promise<Page> {
    await web.withPassword(user);
    const page = await web.newPage();
    await page.goto(`${server}/app/sign-in`);
    await web.signIn(page, user);
    await page.waitForURL((url) => !url.pathname.includes('sign-in'));
    return page;
  }

  /** A write to the change request with the page's own session (its cookie and its CSRF token): the answer's status. */
  async function writeAs(page: Page, method: string, path: string, body?: unknown): Promise<number> {
    return page.evaluate(
      async ({ method, path, body }) => {
        const session = await (await fetch('/v1/user/session')).json();
        const response = await fetch(path, {
          method,
          headers: { 'content-type': 'application/json', 'x-csrf-token': session.csrfToken },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return response.status;
      },
      { method, path, body },
    );
  }

  beforeAll(async () => {
    t = await startTestApp(kind);
    server = await t.listen();
    web = new AppBrowser(await launchBrowser(), server, t);
    org = await t.organization('Handbook Co');
    spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Handbook' } })).body.id;
    const checkout = await Checkout.clone(spaceRemote(server, org.admin.token, spaceId));
    await checkout.write('README.md', '# Welcome\n\nStart with [installing](guide/install.md).\n');
    await checkout.write('guide/install.md', '# Install\n\nRun the installer.\n\nRun it again.\n');
    await checkout.write('SUMMARY.md', '# Summary\n\n* [Welcome](README.md)\n* [Install](guide/install.md)\n');
    await checkout.commitAndPush('Handbook');
    await t.request('POST', `/v1/spaces/${spaceId}/change-requests`, { token: org.admin.token, body: { subject: 'Explain upgrades' } });
    await checkout.git('fetch', '--quiet', 'origin');
    await checkout.git('checkout', '--quiet', '-b', 'change-requests/1', 'origin/change-requests/1');
    await checkout.write('guide/install.md', '# Install\n\nRun the installer.\n\nRun it again, then restart.\n');
    await checkout.commitAndPush('Explain upgrades');
    await checkout.dispose();
    installId = (await t.request('GET', `/v1/spaces/${spaceId}/content/path/guide/install`, { token: org.admin.token })).body.id;
  });

  afterAll(async () => {
    await web?.close();
    await t?.close();
  });

  it("shows each role what the API lets it read and offers only the writes the API allows; another organization's member finds nothing", { timeout: 240_000 }, async () => {
    const other = await t.organization('Elsewhere Inc');
    const walkers: Array<[string, TestUser, Allowed]> = [];
    for (const role of ROLES) walkers.push([role, await t.member(org.id, role), allowedFor(role)]);
    walkers.push(["another organization's admin", other.admin, allowedFor(null)]);
    // The permission rules give the walk what it must tell apart: a reader, a commenter, an editor, reviewers.
    expect(new Set(walkers.map(([, , allowed]) => JSON.stringify(allowed))).size).toBe(5);

    const cr = `/v1/spaces/${spaceId}/change-requests/1`;
    for (const [who, user, allowed] of walkers) {
      const page = await signedIn(user);
      const visit = async (path: string) => page.goto(`${server}/app${path}`);
      const body = async () => (await page.locator('main').innerText()) + (await page.title());
      if (allowed.read) {
        await visit(`/s/${spaceId}`);
        await page.getByRole('heading', { name: 'Welcome', level: 1 }).waitFor();
        await visit(`/s/${spaceId}/guide/install`);
        await page.getByText('Run the installer.').waitFor();
        await visit(`/s/${spaceId}/~/revisions`);
        await page.locator('.history li', { hasText: 'Handbook' }).waitFor();
        await visit(`/s/${spaceId}/~/changes`);
        await page.getByRole('link', { name: '#1 Explain upgrades' }).waitFor();
        await visit(`/s/${spaceId}/~/changes/1?page=${installId}`);
        await page.locator('ins.diff-after', { hasText: 'then restart' }).waitFor();
        await visit(`/s/${spaceId}/~/changes/1`);
        await page.getByRole('heading', { name: '#1 Explain upgrades' }).waitFor();
        // Every section has answered before the controls are counted.
        await page.getByRole('region', { name: 'Comments' }).getByText('No comments yet.').waitFor();
        await page.getByRole('region', { name: 'Reviews' }).getByText('No reviews yet.').waitFor();
        await page.getByRole('region', { name: 'Changes' }).getByRole('link', { name: 'Install', exact: true }).waitFor();
        const offered = {
          comment: await page.getByLabel('Add a comment').count(),
          review: await page.getByRole('button', { name: 'Approve' }).count(),
          merge: await page.getByRole('button', { name: 'Merge' }).count(),
          close: await page.getByRole('button', { name: 'Close' }).count(),
        };
        expect(offered, who).toEqual({ comment: +allowed.comment, review: +allowed.review, merge: +allowed.merge, close: +allowed.close });
      } else {
        for (const path of [`/s/${spaceId}`, `/s/${spaceId}/guide/install`, `/s/${spaceId}/~/revisions`, `/s/${spaceId}/~/changes`, `/s/${spaceId}/~/changes/1`, `/s/${spaceId}/~/changes/1?page=${installId}`]) {
          await visit(path);
          await page.getByRole('alert').or(page.getByRole('heading', { name: 'Page not found' })).first().waitFor();
          for (const secret of SECRETS) expect(await body(), `${who} at ${path}`).not.toContain(secret);
          expect(await page.getByRole('button', { name: /^(Comment|Approve|Merge|Close)$/ }).count(), `${who} at ${path}`).toBe(0);
        }
      }
      await visit('/settings');
      await page.getByRole('heading', { name: 'API tokens' }).waitFor();

      // The API refuses what the app did not offer, with this walker's session: 403 for a member, 404 for an outsider.
      const refusal = allowed.read ? 403 : 404;
      if (!allowed.comment) expect(await writeAs(page, 'POST', `${cr}/comments`, { body: { markdown: 'Let me in.' } }), `${who} comments`).toBe(refusal);
      if (!allowed.review) expect(await writeAs(page, 'POST', `${cr}/reviews`, { status: 'approved' }), `${who} reviews`).toBe(refusal);
      if (!allowed.merge) expect(await writeAs(page, 'POST', `${cr}/merge`), `${who} merges`).toBe(refusal);
      if (!allowed.close) expect(await writeAs(page, 'PATCH', cr, { status: 'archived' }), `${who} closes`).toBe(refusal);
      await page.context().close();
    }
    // Nothing a refused walker tried took effect.
    const after = (await t.request('GET', cr, { token: org.admin.token })).body;
    expect(after.status).toBe('open');
    expect((await t.request('GET', `${cr}/comments`, { token: org.admin.token })).body.items).toEqual([]);
    expect((await t.request('GET', `${cr}/reviews`, { token: org.admin.token })).body.items).toEqual([]);
    expect(web.problems).toEqual([]);
  });
});
