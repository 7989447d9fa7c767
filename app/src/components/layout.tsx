import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, appHref } from '../api.js';
import { useSession } from '../session.js';
import { applyTheme, storedTheme, type Theme } from '../theme.js';

export interface Crumb {
  label: string;
  href?: string;
}

const NEXT_THEME: Record<Theme, Theme> = { system: 'dark', dark: 'light', light: 'system' };
const THEME_LABEL: Record<Theme, string> = { system: 'Theme: system', dark: 'Theme: dark', light: 'Theme: light' };

function ThemeButton() {
  const [theme, setTheme] = useState<Theme>(storedTheme());
  return (
    <button
      type="button"
      class="button button-quiet"
      onClick={() => {
        const next = NEXT_THEME[theme];
        applyTheme(next);
        setTheme(next);
      }}
    >
      {THEME_LABEL[theme]}
    </button>
  );
}

function UserMenu() {
  const session = useSession();
  const { route } = useLocation();
  if (!session.current) return null;
  const signOut = async () => {
    await api('/auth/sign-out', { method: 'POST' }).catch(() => undefined);
    session.signedOut();
    route(appHref('/sign-in'));
  };
  return (
    <div class="user-menu">
      <a href={appHref('/settings')} class="button button-quiet">
        {session.current.user.displayName}
      </a>
      <button type="button" class="button button-quiet" onClick={signOut}>
        Sign out
      </button>
    </div>
  );
}

/** Every view's frame: a skip link, the header (home, where you are, theme, account) and the main region. */
export function Layout({ title, crumbs = [], wide = false, children }: { title: string; crumbs?: Crumb[]; wide?: boolean; children: ComponentChildren }) {
  if (typeof document !== 'undefined') document.title = `${title} · Quire`;
  return (
    <>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={appHref('/')}>
          <span class="brand-mark" aria-hidden="true" />
          Quire
        </a>
        {crumbs.length > 0 && (
          <nav aria-label="Breadcrumb" class="crumbs">
            <ol>
              {crumbs.map((crumb, i) => (
                <li key={i}>{crumb.href && i < crumbs.length - 1 ? <a href={crumb.href}>{crumb.label}</a> : <span aria-current={i === crumbs.length - 1 ? 'page' : undefined}>{crumb.label}</span>}</li>
              ))}
            </ol>
          </nav>
        )}
        <div class="top-actions">
          <ThemeButton />
          <UserMenu />
        </div>
      </header>
      <main id="main" tabIndex={-1} class={wide ? 'main main-wide' : 'main'}>
        {children}
      </main>
    </>
  );
}
