/**
 * Comment threads in the app, live, in a real headless Chromium: the author of a change request pushed with git opens
 * a changed page's block diff and comments on a block (with the keyboard); a reviewer, in a second browser with the
 * same view open, sees the comment appear without reloading and replies; the author sees the reply appear; reactions
 * and resolving reach the other browser the same way. No script breaks the CSP; the thread views are screenshot
 * (light, dark, phone) in test-artifacts/ and checked by axe-core in light and dark.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WALK_ON_SQLITE } from '../helpers/databases.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { launchBrowser, screenshot, seriousAccessibilityViolations } from '../helpers/browser.js';
import { AppBrowser } from '../helpers/app-browser.js';
import { Checkout, spaceRemote } from '../helpers/git.js';

describe.each(WALK_ON_SQLITE)('comment threads in the app, live (%s)', (kind) => {
  let t: TestApp;
  let web: AppBrowser;
  let server: string;
  let org: Awaited<ReturnType<TestApp['organization']>>;
  let reviewer: TestUser;
  let spaceId: string;
  let diffPath: string;

  /** Marks the document: a reload or a navigation would lose the mark, so its presence proves there was none. */
  const mark = (page: Page) => page.evaluate(() => ((window as unknown as { liveMark: number }).liveMark = 1));
  const stillMarked = (page: Page) => page.evaluate(() => (window as unknown as { liveMark?: number }).liveMark === 1);

  beforeAll(async () => {
    t = await startTestApp(kind);
    server = await t.listen();
    web = new AppBrowser(await launchBrowser(), server, t);
    org = await t.organization('Live Co');
    reviewer = await t.member(org.id, 'review');
    await web.withPassword(org.admin);
    await web.withPassword(reviewer);
    spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: org.admin.token, body: { title: 'Runbook' } })).body.id;
    const checkout = await Checkout.clone(spaceRemote(server, org.admin.token, spaceId));
    await checkout.write('README.md', '# Runbook\n\nWhat to do when things break.\n');
    await checkout.write('restart.md', '# Restart\n\nStop the service.\n\nStart it again.\n\nCheck the logs.\n');
    await checkout.write('SUMMARY.md', '# Summary\n\n* [Runbook](README.md)\n* [Restart](restart.md)\n');
    await checkout.commitAndPush('Runbook');
    await t.request('POST', `/v1/spaces/${spaceId}/change-requests`, { token: org.admin.token, body: { subject: 'Safer restarts' } });
    await checkout.git('fetch', '--quiet', 'origin');
    await checkout.git('checkout', '--quiet', '-b', 'change-requests/1', 'origin/change-requests/1');
    await checkout.write('restart.md', '# Restart\n\nDrain the traffic, then stop the service.\n\nStart it again.\n\nCheck the logs.\n');
    await checkout.commitAndPush('Drain first');
    await checkout.dispose();
    const page = (await t.request('GET', `/v1/spaces/${spaceId}/content/path/restart`, { token: org.admin.token })).body;
    diffPath = `/s/${spaceId}/~/changes/1?page=${encodeURIComponent(page.id)}`;
  });

  afterAll(async () => {
    await web?.close();
    await t?.close();
  });

  it('a comment on a block, a reply, a reaction and resolving reach the other browser without reloading', { timeout: 180_000 }, async () => {
    const author = await web.signedIn(org.admin, diffPath);
    const review = await web.signedIn(reviewer, diffPath);
    for (const page of [author, review]) {
      await page.locator('ins.diff-after', { hasText: 'Drain the traffic' }).waitFor();
      await mark(page);
    }
    const changedBlock = (page: Page) => page.locator('.diff-block.diff-changed');

    // The author comments on the changed block with the keyboard only.
    const toggle = changedBlock(author).getByRole('button', { name: /^Comment on block \d+$/ });
    await toggle.focus();
    await author.keyboard.press('Enter');
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    const field = changedBlock(author).getByLabel(/^Comment on block \d+$/);
    await field.waitFor();
    await field.focus();
    await author.keyboard.type('Should we say how long draining takes?');
    await author.keyboard.press('Tab');
    await author.keyboard.press('Enter');
    await changedBlock(author).locator('.comment-body', { hasText: 'how long draining takes' }).waitFor();

    // The reviewer sees it on the same block, without reloading, and replies.
    await changedBlock(review).locator('.comment-body', { hasText: 'how long draining takes' }).waitFor();
    const thread = (page: Page) => changedBlock(page).getByRole('article', { name: /^Comment from Admin/ });
    await thread(review).getByLabel('Reply to Admin').fill('About a minute; I will add it.');
    await thread(review).getByRole('button', { name: 'Reply', exact: true }).click();
    await thread(review).locator('.comment-reply .comment-body', { hasText: 'About a minute' }).waitFor();

    // The author sees the reply appear.
    await thread(author).locator('.comment-reply .comment-body', { hasText: 'About a minute' }).waitFor();

    // A reaction from the author: pressed for them, counted for the reviewer.
    const reactions = (page: Page) => thread(page).getByRole('group', { name: 'Reactions to the comment of Admin' });
    await reactions(author).getByRole('button', { name: 'thumbs up: 0' }).click();
    await reactions(author).getByRole('button', { name: 'thumbs up: 1, yours' }).waitFor();
    expect(await reactions(author).getByRole('button', { name: 'thumbs up: 1, yours' }).getAttribute('aria-pressed')).toBe('true');
    await reactions(review).getByRole('button', { name: 'thumbs up: 1', exact: true }).waitFor();

    // The reviewer resolves the thread; the author sees it resolved, and reopens it.
    await thread(review).getByRole('button', { name: 'Resolve the comment of Admin' }).click();
    await changedBlock(author).getByRole('article', { name: 'Comment from Admin, resolved' }).waitFor();
    await changedBlock(author).getByRole('button', { name: 'Reopen the comment of Admin' }).click();
    await changedBlock(review).getByRole('article', { name: 'Comment from Admin' }).getByRole('button', { name: 'Resolve the comment of Admin' }).waitFor();

    // A comment on the page itself, and the change request's own view lists both, live too.
    const overview = await web.signedIn(reviewer, `/s/${spaceId}/~/changes/1`);
    await overview.locator('.comment-body', { hasText: 'how long draining takes' }).waitFor();
    await mark(overview);
    await author.getByLabel('Comment on this page').fill('The title could say "safely".');
    await author.getByRole('region', { name: 'Comments on this page' }).getByRole('button', { name: 'Comment', exact: true }).click();
    await overview.locator('.comment-body', { hasText: 'could say "safely"' }).waitFor();
    await review.getByRole('region', { name: 'Comments on this page' }).locator('.comment-body', { hasText: 'could say "safely"' }).waitFor();

    for (const page of [author, review, overview]) expect(await stillMarked(page), 'the view was never reloaded').toBe(true);
    expect(web.problems).toEqual([]);
  });

  it('shows the threads accessibly in light and dark, and at phone width', { timeout: 180_000 }, async () => {
    await web.lookAt(org.admin, diffPath, 'app-comment-threads', (page) => page.locator('.diff-block.diff-changed .comment-reply .comment-body').waitFor());
    const overview = await web.signedIn(reviewer, `/s/${spaceId}/~/changes/1`, { colorScheme: 'dark' });
    await overview.locator('.comment-reply .comment-body').first().waitFor();
    await screenshot(overview, `app-change-request-threads-dark-${kind}`);
    expect(await seriousAccessibilityViolations(overview), 'change request threads (dark)').toEqual([]);
    expect(web.problems).toEqual([]);
  });
});
