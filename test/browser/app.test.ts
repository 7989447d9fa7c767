/**
 * The app in a real headless Chromium, as its users go: a reader sent to sign in and back to the page they asked for,
 * reading a space (pages rendered as on published sites, search as they type, back and forward), a reviewer and an
 * author on a change request pushed with git (its changes, a comment, an approval from a second browser, the merge),
 * their account (a token made and revoked, signing out). No script breaks the CSP, axe-core finds no serious
 * violation on any view in light and dark, and every view is screenshot (light, dark, phone) in test-artifacts/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WALK_ON_SQLITE } from '../helpers/databases.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { launchBrowser, screenshot, seriousAccessibilityViolations } from '../helpers/browser.js';
import { AppBrowser, PASSWORD } from '../helpers/app-browser.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { tinyPng } from '../helpers/content.js';

describe.each(WALK_ON_SQLITE)('the app in Chromium (%s)', (kind) => {
  let t: TestApp;
  let web: AppBrowser;
  let server: string;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let reviewer: TestUser;
  let spaceId: string;

  beforeAll(async () => {
    t = await startTestApp(kind);
    server = await t.listen();
    web = new AppBrowser(await launchBrowser(), server, t);
    org = await t.organization('Handbook Co');
    reviewer = await t.member(org.id, 'review');
    await web.withPassword(org.admin);
    await web.withPassword(reviewer);
    spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Handbook' } })).body.id;
    const checkout = await Checkout.clone(spaceRemote(server, org.admin.token, spaceId));
    await checkout.write('README.md', '# Welcome\n\nStart with [installing](guide/install.md).\n');
    await checkout.write(
      'guide/install.md',
      '# Install\n\nRun the installer.\n\n{% hint style="warning" %}\nBack up your data first.\n{% endhint %}\n\n## Check\n\nOpen the dashboard.\n\n## Upgrade\n\nRun it again.\n',
    );
    await checkout.write('guide/configure.md', '# Configure\n\nSet the options.\n');
    await checkout.write('SUMMARY.md', '# Summary\n\n* [Welcome](README.md)\n\n## Guide\n\n* [Install](guide/install.md)\n* [Configure](guide/configure.md)\n');
    await checkout.write('guide/diagram.png', tinyPng(4, 3));
    await checkout.commitAndPush('Handbook');
    // A change request, its branch pushed with git as writers do.
    await t.request('POST', `/v1/spaces/${spaceId}/change-requests`, { token: org.admin.token, body: { subject: 'Explain upgrades' } });
    await checkout.git('fetch', '--quiet', 'origin');
    await checkout.git('checkout', '--quiet', '-b', 'change-requests/1', 'origin/change-requests/1');
    await checkout.write('guide/install.md', (await checkout.read('guide/install.md')).replace('Run it again.', 'Run it again, then restart.'));
    await checkout.write('guide/upgrade.md', '# Upgrade\n\nRead the release notes.\n');
    await checkout.write('SUMMARY.md', (await checkout.read('SUMMARY.md')).replace('* [Configure]', '* [Upgrade](guide/upgrade.md)\n* [Configure]'));
    await checkout.commitAndPush('Explain upgrades');
    // A second change request, never merged: a page renamed, one removed, one added, an image replaced.
    await t.request('POST', `/v1/spaces/${spaceId}/change-requests`, { token: org.admin.token, body: { subject: 'Tidy the guide' } });
    await checkout.git('fetch', '--quiet', 'origin');
    await checkout.git('checkout', '--quiet', '-b', 'change-requests/2', 'origin/change-requests/2');
    await checkout.write('guide/install.md', (await checkout.read('guide/install.md')).replace('# Install', '# Installing'));
    await checkout.write('SUMMARY.md', (await checkout.read('SUMMARY.md')).replace('* [Install]', '* [Installing]').replace('* [Configure](guide/configure.md)\n', ''));
    await checkout.remove('guide/configure.md');
    await checkout.write('guide/faq.md', '# FAQ\n\nAsk away.\n');
    await checkout.write('SUMMARY.md', (await checkout.read('SUMMARY.md')).replace('* [Installing](guide/install.md)\n', '* [Installing](guide/install.md)\n* [FAQ](guide/faq.md)\n'));
    await checkout.write('guide/diagram.png', tinyPng(40, 30));
    await checkout.commitAndPush('Tidy the guide');
    await checkout.dispose();
  });

  afterAll(async () => {
    await web?.close();
    await t?.close();
  });

  it('leads / to the app, sends a reader to sign in and back to the page asked for, rendered as on published sites', async () => {
    const page = await web.newPage();
    await page.goto(`${server}/`);
    await page.waitForURL(/\/app\/sign-in\?next=/);
    await page.goto(`${server}/app/s/${spaceId}/guide/install`);
    await page.waitForURL(/\/app\/sign-in\?next=/);
    await web.signIn(page, org.admin);
    await page.waitForURL(`${server}/app/s/${spaceId}/guide/install`);
    const article = page.locator('article.page-article');
    await article.getByRole('heading', { name: 'Install', level: 1 }).waitFor();
    // The published sites' block renderer: the hint is theirs, and the outline lists the headings.
    expect(await article.locator('.hint.hint-warning').textContent()).toContain('Back up your data first.');
    expect(await page.getByRole('navigation', { name: 'On this page' }).getByRole('link').allTextContents()).toEqual(['Check', 'Upgrade']);
    expect(await page.getByRole('navigation', { name: 'Pages of this space' }).getByRole('link', { name: 'Install' }).getAttribute('aria-current')).toBe('page');
  });

  it('reads a space: follows a link in a page, goes back and forward, and searches as the reader types', { timeout: 60_000 }, async () => {
    const page = await web.signedIn(org.admin, `/s/${spaceId}`);
    await page.getByRole('heading', { name: 'Welcome', level: 1 }).waitFor();
    await page.locator('article.page-article').getByRole('link', { name: 'installing' }).click();
    await page.waitForURL(`${server}/app/s/${spaceId}/guide/install`);
    await page.getByRole('heading', { name: 'Install', level: 1 }).waitFor();
    await page.getByRole('navigation', { name: 'Pages of this space' }).getByRole('link', { name: 'Configure' }).click();
    await page.getByRole('heading', { name: 'Configure', level: 1 }).waitFor();
    await page.goBack();
    await page.getByRole('heading', { name: 'Install', level: 1 }).waitFor();
    await page.goForward();
    await page.getByRole('heading', { name: 'Configure', level: 1 }).waitFor();
    await page.getByRole('searchbox', { name: 'Search this space' }).fill('dashboard');
    const hit = page.locator('.hits a', { hasText: 'Install' });
    await hit.waitFor();
    await hit.click();
    await page.getByRole('heading', { name: 'Install', level: 1 }).waitFor();
  });

  it('reviews a change request: its changes, a comment, an approval from a second browser, the merge', { timeout: 120_000 }, async () => {
    const author = await web.signedIn(org.admin, `/s/${spaceId}/~/changes`);
    await author.getByRole('link', { name: '#1 Explain upgrades' }).click();
    await author.getByRole('heading', { name: '#1 Explain upgrades' }).waitFor();
    const changes = author.getByRole('region', { name: 'Changes' });
    await changes.getByRole('link', { name: 'Upgrade', exact: true }).waitFor();
    expect(await changes.locator('li').allTextContents()).toEqual(expect.arrayContaining([expect.stringMatching(/^Added\s+Upgrade/), expect.stringMatching(/^Changed\s+Install/)]));
    // The changed page, block by block as its site renders it: inline, then side by side.
    await changes.getByRole('link', { name: 'Install', exact: true }).click();
    await author.locator('ins.diff-after', { hasText: 'Run it again, then restart.' }).waitFor();
    expect(await author.locator('del.diff-before').allTextContents()).toEqual(['Run it again.']);
    expect(await author.locator('.diff-block.diff-unchanged .hint').count()).toBe(1);
    await author.getByRole('link', { name: 'Side by side' }).click();
    await author.locator('.diff-sides .diff-after', { hasText: 'then restart' }).waitFor();
    // The markdown, line by line, one click away.
    await author.getByRole('link', { name: 'Markdown' }).click();
    const markdown = author.getByRole('article', { name: 'Changed lines of the markdown' });
    await markdown.locator('.line-added', { hasText: 'Run it again, then restart.' }).waitFor();
    expect((await markdown.locator('.line-removed').allTextContents()).map((text) => text.trim())).toEqual(['− removed: Run it again.']);
    await author.goBack();
    await author.goBack();
    await author.goBack();
    await author.getByRole('heading', { name: '#1 Explain upgrades' }).waitFor();
    await author.getByLabel('Add a comment').fill('Ready for review.');
    await author.getByRole('button', { name: 'Comment' }).click();
    await author.locator('.comment-body', { hasText: 'Ready for review.' }).waitFor();
    // Ask the reviewer for a review.
    await author.getByLabel('Ask for a review from').selectOption({ label: reviewer.user.display_name });
    await author.getByRole('button', { name: 'Request review' }).click();
    await author.getByRole('region', { name: 'Requested reviewers' }).getByText(reviewer.user.display_name, { exact: true }).waitFor();
    // The author may not approve their own change request: the app says why.
    await author.getByRole('button', { name: 'Approve' }).click();
    await author.getByRole('alert').getByText(/its author cannot approve it/).waitFor();

    // A merge rule of one approval: the Merge button is off and says which rule blocks it.
    const rules = await t.request('PUT', `/v1/spaces/${spaceId}/merge-rules`, { token: org.admin.token, body: { requiredApprovals: 1 } });
    expect(rules.status).toBe(200);
    await author.reload();
    await author.locator('#merge-blocked').getByText(/^1 approval is required, 0 given/).waitFor();
    expect(await author.getByRole('button', { name: 'Merge' }).isDisabled()).toBe(true);

    const review = await web.signedIn(reviewer, `/s/${spaceId}/~/changes/1`);
    await review.locator('.comment-body', { hasText: 'Ready for review.' }).waitFor();
    await review.getByRole('button', { name: 'Approve' }).click();
    await review.getByRole('region', { name: 'Reviews' }).getByText('Approved', { exact: true }).waitFor();

    await author.reload();
    await author.getByRole('region', { name: 'Reviews' }).getByText('Approved', { exact: true }).waitFor();
    await author.locator('#merge-blocked').waitFor({ state: 'detached' });
    await author.getByRole('button', { name: 'Merge' }).click();
    await author.locator('.badge-merged').waitFor();
    const main = await t.request('GET', `/v1/spaces/${spaceId}/content/path/guide/upgrade`, { token: org.admin.token });
    expect(main.status).toBe(200);
  });

  it("shows a change request's table of contents as one tree, its marks in words, and its images before and after", { timeout: 60_000 }, async () => {
    const page = await web.signedIn(org.admin, `/s/${spaceId}/~/changes/2`);
    const tree = page.getByRole('region', { name: 'Table of contents' });
    await tree.locator('li.tree-removed').waitFor();
    const entries = (await tree.locator('li').evaluateAll((items) => items.map((item) => item.firstChild && item.textContent))).map((text) => text?.replace(/\s+/g, ' ').trim());
    expect(entries).toEqual(expect.arrayContaining(['✎Installing (renamed from “Install”)', '+FAQ (added)', '−Configure (removed)']));
    // The branches it leaves alone are counted, not listed.
    expect(await tree.locator('li.tree-unchanged').allTextContents()).toEqual(['1 unchanged page']);
    expect(await tree.getByText('Welcome').count()).toBe(0);
    expect(await tree.locator('li.tree-removed del').allTextContents()).toEqual(['Configure']);
    const files = page.getByRole('region', { name: 'Files' });
    await files.getByText('Changed', { exact: true }).waitFor();
    const before = files.getByRole('img', { name: 'diagram.png, before' });
    const after = files.getByRole('img', { name: 'diagram.png, after' });
    // Both versions load through the API's downloads, with the session's cookie.
    await page.waitForFunction(() => [...document.querySelectorAll<HTMLImageElement>('.changed-files img')].every((img) => img.complete && img.naturalWidth > 0));
    expect([await before.evaluate((img: HTMLImageElement) => img.naturalWidth), await after.evaluate((img: HTMLImageElement) => img.naturalWidth)]).toEqual([4, 40]);
    await page.context().close();
  });

  it('shows the history of the space and of a page, and reads an old revision as it was', { timeout: 60_000 }, async () => {
    const page = await web.signedIn(org.admin, `/s/${spaceId}/guide/install`);
    await page.getByRole('link', { name: 'History of this page' }).click();
    await page.getByRole('heading', { name: 'History of a page' }).waitFor();
    await page.locator('.history li').first().waitFor();
    // The commits that wrote the page, as `git log -- <file>` simplifies them: the change request's, then the first push.
    const messages = await page.locator('.history .history-message').allTextContents();
    expect(messages).toEqual(['Explain upgrades', 'Handbook']);
    await page.locator('.history').getByRole('link', { name: 'Handbook', exact: true }).click();
    await page.getByText(/An old revision/).waitFor();
    // As it was then: no Upgrade page, and Install without the change request's words (the tree is read beside the
    // page, and may come second).
    await page.getByRole('navigation', { name: 'Pages of this space' }).getByRole('link').first().waitFor();
    expect(await page.getByRole('navigation', { name: 'Pages of this space' }).getByRole('link').allTextContents()).toEqual(['Welcome', 'Install', 'Configure']);
    await page.getByRole('navigation', { name: 'Pages of this space' }).getByRole('link', { name: 'Install' }).click();
    await page.locator('article.page-article', { hasText: 'Run it again.' }).waitFor();
    expect(await page.locator('article.page-article').textContent()).not.toContain('restart');
    await page.goBack();
    await page.goBack();
    await page.getByRole('heading', { name: 'History of a page' }).waitFor();
  });

  it('sends an anonymous reader of a members\' site to sign in and back to the page; a stranger signed in still finds nothing', { timeout: 60_000 }, async () => {
    const site = (await t.request('POST', `/v1/orgs/${org.id}/sites`, { token: org.admin.token, body: { title: 'Internal docs', spaces: [spaceId] } })).body;
    expect(site.visibility).toBe('share-link');
    const pageUrl = `${new URL(site.urls.published).pathname}/guide/install`;
    // Tools that do not ask for HTML get the plain 404 they always had.
    expect((await t.request('GET', pageUrl, { unchecked: true })).status).toBe(404);
    const page = await web.newPage();
    await page.goto(`${server}${pageUrl}`);
    await page.waitForURL(/\/app\/sign-in\?next=/);
    await web.signIn(page, reviewer);
    await page.waitForURL(`${server}${pageUrl}`);
    await page.getByRole('heading', { name: 'Install', level: 1 }).waitFor();
    const stranger = await t.user();
    await web.withPassword(stranger);
    const other = await web.newPage();
    await other.goto(`${server}${pageUrl}`);
    await other.waitForURL(/\/app\/sign-in\?next=/);
    await web.signIn(other, stranger);
    await other.waitForURL(`${server}${pageUrl}`);
    await other.getByRole('heading', { name: 'Page not found' }).waitFor();
  });

  it('shows each role what the API lets it read, and another organization\'s member nothing', { timeout: 120_000 }, async () => {
    const other = await t.organization('Elsewhere Inc');
    const walkers: Array<[string, TestUser, boolean]> = [
      ['read', await t.member(org.id, 'read'), true],
      ['comment', await t.member(org.id, 'comment'), true],
      ['edit', await t.member(org.id, 'edit'), true],
      ['guest without a grant', await t.member(org.id, null), false],
      ['another organization\'s admin', other.admin, false],
    ];
    for (const [role, user, reads] of walkers) {
      await web.withPassword(user);
      const page = await web.signedIn(user, `/s/${spaceId}`);
      if (reads) {
        await page.getByRole('heading', { name: 'Welcome', level: 1 }).waitFor();
        await page.goto(`${server}/app/s/${spaceId}/~/changes/1`);
        await page.getByRole('heading', { name: '#1 Explain upgrades' }).waitFor();
      } else {
        await page.getByRole('alert').getByText(/no space/).waitFor();
        expect(await page.locator('article').count(), role).toBe(0);
        await page.goto(`${server}/app/s/${spaceId}/~/changes/1`);
        await page.getByRole('alert').first().waitFor();
        expect(await page.getByText('Explain upgrades').count(), role).toBe(0);
        await page.goto(`${server}/app/o/${org.id}`);
        await page.getByRole('heading', { level: 1 }).waitFor();
        expect(await page.getByRole('link', { name: 'Handbook' }).count(), role).toBe(0);
      }
      await page.context().close();
    }
  });

  it('opens an invite link after signing in, and joins', { timeout: 60_000 }, async () => {
    const invite = (await t.request('POST', `/v1/orgs/${org.id}/link-invites`, { token: org.admin.token, body: { role: 'comment' } })).body;
    const newcomer = await t.user();
    await web.withPassword(newcomer);
    const page = await web.newPage();
    await page.goto(invite.urls.app.replace('http://quire.test', server));
    await page.waitForURL(/\/app\/sign-in\?next=/);
    await web.signIn(page, newcomer);
    await page.getByText('This link makes you a member with the role "comment".').waitFor();
    await page.getByRole('button', { name: 'Join' }).click();
    await page.getByRole('heading', { name: 'Handbook Co', level: 1 }).waitFor();
    const member = await t.request('GET', `/v1/orgs/${org.id}/members/${newcomer.user.id}`, { token: org.admin.token });
    expect(member.body.role).toBe('comment');
  });

  it('makes and revokes a token, and signs out', { timeout: 60_000 }, async () => {
    const page = await web.signedIn(org.admin, '/settings');
    await page.getByLabel('What is it for?').fill('CI deploys');
    await page.getByRole('button', { name: 'Make a token' }).click();
    const token = (await page.locator('code.token').textContent())!;
    expect(token).toMatch(/^qt_/);
    expect((await t.request('GET', '/v1/user', { token })).status).toBe(200);
    await page.getByRole('button', { name: 'Revoke CI deploys' }).click();
    await page.locator('.rows li', { hasText: 'CI deploys' }).waitFor({ state: 'detached' });
    expect((await t.request('GET', '/v1/user', { token })).status).toBe(401);
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(/\/app\/sign-in/);
    await page.goto(`${server}/app/settings`);
    await page.waitForURL(/\/app\/sign-in\?next=/);
  });

  it('lists where one is signed in shortly: this browser first, the newest others, each browser by its name', { timeout: 60_000 }, async () => {
    const reader = await t.member(org.id, 'read');
    await web.withPassword(reader);
    const elsewhere = [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
      'curl/8.5.0',
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
    ];
    for (const userAgent of elsewhere) {
      const signIn = await t.request('POST', '/v1/auth/sign-in', { body: { email: reader.user.email, password: PASSWORD }, headers: { 'user-agent': userAgent } });
      expect(signIn.status).toBe(200);
    }
    const page = await web.signedIn(reader, '/settings');
    const rows = page.locator('.sessions li');
    await rows.first().waitFor();
    expect(await rows.count()).toBe(3);
    expect(await rows.first().textContent()).toMatch(/^Chrome \d+ on Linux \(this browser\)/);
    // The newest others: the last two signed in, newest first.
    expect(await rows.nth(1).textContent()).toMatch(/^Safari 18 on macOS/);
    expect(await rows.nth(2).textContent()).toMatch(/^curl 8\.5\.0/);
    expect(await rows.nth(2).locator('[title]').getAttribute('title')).toBe('curl/8.5.0');
    // Six: setting the password through its link signed in too (with no browser named).
    await page.getByRole('button', { name: 'Show all 6 sessions' }).click();
    await rows.nth(5).waitFor();
    expect(await rows.count()).toBe(6);
    expect(await page.locator('.sessions').textContent()).toContain('Unknown browser');
    expect(await page.locator('.sessions').textContent()).toContain('Safari 18 on iPhone');
    await page.context().close();
  });

  it('opens the view of every urls.app the API hands out', { timeout: 60_000 }, async () => {
    const space = (await t.request('GET', `/v1/spaces/${spaceId}`, { token: org.admin.token })).body;
    const organization = (await t.request('GET', `/v1/orgs/${org.id}`, { token: org.admin.token })).body;
    const changeRequest = (await t.request('GET', `/v1/spaces/${spaceId}/change-requests/1`, { token: org.admin.token })).body;
    const page = await web.signedIn(org.admin, '/');
    for (const [url, heading] of [
      [organization.urls.app, 'Handbook Co'],
      [space.urls.app, 'Welcome'],
      [changeRequest.urls.app, '#1 Explain upgrades'],
    ]) {
      await page.goto(url.replace('http://quire.test', server));
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
    }
  });

  it('has no serious accessibility violations on any view, light and dark, and leaves screenshots of each', { timeout: 240_000 }, async () => {
    const signInPage = await web.newPage();
    await signInPage.goto(`${server}/app/sign-in`);
    await signInPage.getByRole('heading', { name: 'Sign in to Quire' }).waitFor();
    expect(await seriousAccessibilityViolations(signInPage)).toEqual([]);
    await screenshot(signInPage, 'app-sign-in');
    await web.lookAt(org.admin, '/', 'app-organizations', (page) => page.getByRole('link', { name: 'Handbook Co' }).waitFor());
    await web.lookAt(org.admin, `/o/${org.id}`, 'app-organization', (page) => page.getByRole('link', { name: 'Handbook' }).waitFor());
    await web.lookAt(org.admin, `/s/${spaceId}/guide/install`, 'app-page', (page) => page.locator('.hint').waitFor());
    await web.lookAt(org.admin, `/s/${spaceId}/~/changes?status=merged`, 'app-change-requests', (page) => page.getByRole('link', { name: '#1 Explain upgrades' }).waitFor());
    await web.lookAt(org.admin, `/s/${spaceId}/~/changes/1`, 'app-change-request', (page) => page.locator('.comment-body').first().waitFor());
    const install = (await t.request('GET', `/v1/spaces/${spaceId}/content/path/guide/install`, { token: org.admin.token })).body.id;
    await web.lookAt(org.admin, `/s/${spaceId}/~/changes/1?page=${install}&layout=split`, 'app-page-changes', (page) => page.locator('.diff-sides .diff-after').first().waitFor());
    await web.lookAt(org.admin, `/s/${spaceId}/~/changes/1?page=${install}&layout=markdown`, 'app-page-markdown-changes', (page) => page.locator('.line-added').first().waitFor());
    await web.lookAt(org.admin, `/s/${spaceId}/~/changes/2`, 'app-change-request-tree-files', (page) => page.locator('.changed-files img').first().waitFor());
    await web.lookAt(org.admin, `/s/${spaceId}/~/revisions`, 'app-history', (page) => page.locator('.history li').first().waitFor());
    await web.lookAt(org.admin, '/settings', 'app-account', (page) => page.getByRole('heading', { name: 'API tokens' }).waitFor());
    expect(web.problems).toEqual([]);
  });
});
