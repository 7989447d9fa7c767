/** Cookies: reading a request's, and the one that carries a browser session (HttpOnly, SameSite, Secure on https). */
import type { Urls } from './urls.js';

/** The cookie of a signed-in browser (src/domain/identity/sessions.ts). */
export const SESSION_COOKIE = 'quire_session';
/** The header a cookie-authenticated write must carry: the session's CSRF token. */
export const CSRF_HEADER = 'x-csrf-token';

/** The value of the cookie `name` in a Cookie header, or undefined. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) {
      try {
        return decodeURIComponent(value.join('='));
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** `; Secure` when Quire is served over https (QUIRE_PUBLIC_URL): its cookies must then never travel over http. */
export function secureAttribute(urls: Urls): string {
  return urls.base('').startsWith('https:') ? '; Secure' : '';
}

/**
 * The session cookie: for the whole origin (the app, the API, private sites), never readable by scripts, and sent
 * with top-level navigations from elsewhere (SameSite=Lax: a link to a page opens it signed in) but not with
 * cross-site writes.
 */
export function sessionCookie(urls: Urls, secret: string, expiresAt: string): string {
  return `${SESSION_COOKIE}=${secret}; Path=/; Expires=${new Date(expiresAt).toUTCString()}; HttpOnly; SameSite=Lax${secureAttribute(urls)}`;
}

export function clearedSessionCookie(urls: Urls): string {
  return `${SESSION_COOKIE}=; Path=/; Expires=Thu, 01 Jan 1970 00:00:00 GMT; HttpOnly; SameSite=Lax${secureAttribute(urls)}`;
}
