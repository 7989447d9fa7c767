/**
 * The app's browser suites' common ground: members with a password, fresh browsers whose script errors and CSP
 * violations are collected, the sign-in form, and each view looked at in light, dark and at phone width (screenshots
 * in test-artifacts/, axe-core in both themes). One per suite, made once the app listens; it closes the browser it is
 * given with the contexts it opened.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { TestApp, TestUser } from './app.js';
import { screenshot, seriousAccessibilityViolations } from './browser.js';
import { createPasswordLink, setPasswordWithLink } from '../../src/domain/identity/sessions.js';

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };
/** The password `withPassword` gives. */
export const PASSWORD = 'a long enough password';

export type ContextOptions = Parameters<Browser['newContext']>[0];
export type Variant = 'light' | 'dark' | 'phone';

const VARIANTS: ReadonlyArray<readonly [Variant, ContextOptions]> = [
  ['light', { colorScheme: 'light' }],
  ['dark', { colorScheme: 'dark' }],
  ['phone', { colorScheme: 'light', viewport: PHONE }],
];

/** Refusals of the API (4xx) are answers the app shows; anything else logged as an error is a fault. */
const REFUSED_RESOURCE = /Failed to load resource: the server responded with a status of 4\d\d/;

export class AppBrowser {
  /** What the pages reported that must never happen: CSP violations, script errors. */
  readonly problems: string[] = [];
  private readonly contexts: BrowserContext[] = [];
  /** The cookies of each user's last sign-in through the form (see signedIn). */
  private readonly sessions = new Map<string, Awaited<ReturnType<BrowserContext['storageState']>>>();

  constructor(
    private readonly browser: Browser,
    /** The app's server, as `t.listen()` gave it. */
    readonly server: string,
    private readonly t: TestApp,
  ) {}

  /** Sets `user`'s password to PASSWORD through a one-time link, as a member does. */
  async withPassword(user: TestUser): Promise<void> {
    const { token } = await createPasswordLink(this.t.container.ctx, user.user.email);
    await setPasswordWithLink(this.t.container.ctx, { token, password: PASSWORD }, { address: '127.0.0.1' });
  }

  /** A page in a fresh browser context (desktop size unless `options` say otherwise), its problems collected. */
  async newPage(options: ContextOptions = {}): Promise<Page> {
    const context = await this.browser.newContext({ viewport: DESKTOP, ...options });
    this.contexts.push(context);
    const page = await context.newPage();
    // Only Quire's pages answer to this suite: an identity provider's pages on the way are not its to judge.
    const ours = () => new URL(page.url()).origin === new URL(this.server).origin;
    page.on('pageerror', (error) => {
      if (ours()) this.problems.push(`page error: ${error.message}`);
    });
    page.on('console', (message) => {
      if (ours() && message.type() === 'error' && !REFUSED_RESOURCE.test(message.text())) this.problems.push(`console: ${message.text()}`);
    });
    return page;
  }

  /** Fills and sends the sign-in form the page shows. */
  async signIn(page: Page, user: TestUser): Promise<void> {
    await page.getByLabel('E-mail').fill(user.user.email);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  /**
   * A page of the app (`path` below /app), signed in as `user` in a fresh browser. The first time through the sign-in
   * form; then with the cookies that sign-in left (a fresh context given them), unless the app finds that session
   * gone (signed out), when the form signs in again. Every view looked at in three variants would otherwise sign in
   * three times, each a password hash on the server and a page more.
   */
  async signedIn(user: TestUser, path: string, options: ContextOptions = {}): Promise<Page> {
    const kept = this.sessions.get(user.user.id);
    const page = await this.newPage({ ...options, ...(kept ? { storageState: kept } : {}) });
    const target = `${this.server}/app${path}`;
    // The app asks for its session as it starts, and shows the sign-in form when there is none.
    const sessionFound = page.waitForResponse((response) => new URL(response.url()).pathname.endsWith('/user/session')).then(
      (response) => response.ok(),
      () => false,
    );
    await page.goto(target);
    if (!kept || !(await sessionFound)) {
      await this.signIn(page, user);
      await page.waitForURL(target);
      this.sessions.set(user.user.id, await page.context().storageState());
    }
    return page;
  }

  /**
   * A view opened by `open` in a fresh browser in light, dark and at phone width: screenshot as
   * `${name}-${variant}-${kind}`, with no serious accessibility violation in either theme. Each browser is closed after.
   */
  async inEveryTheme(name: string, open: (options: ContextOptions, variant: Variant) => Promise<Page>): Promise<void> {
    for (const [variant, options] of VARIANTS) {
      const page = await open(options, variant);
      await screenshot(page, `${name}-${variant}-${this.t.kind}`);
      if (variant !== 'phone') expect(await seriousAccessibilityViolations(page), `${name} (${variant})`).toEqual([]);
      await page.context().close();
    }
  }

  /** `inEveryTheme` for a page of the app signed in as `user`, once `ready` has seen it shown. */
  async lookAt(user: TestUser, path: string, name: string, ready: (page: Page) => Promise<unknown>): Promise<void> {
    await this.inEveryTheme(name, async (options) => {
      const page = await this.signedIn(user, path, options);
      await ready(page);
      return page;
    });
  }

  /** Closes every context it opened, then the browser. */
  async close(): Promise<void> {
    for (const context of this.contexts) await context.close().catch(() => undefined);
    await this.browser.close();
  }
}
