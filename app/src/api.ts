/**
 * The app's only way to Quire: the /v1 API, with the browser's session cookie. Every write carries the session's
 * CSRF token (from signing in, or GET /v1/user/session).
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const root = document.getElementById('app');
/** Where Quire is served below its origin ('' at the root). */
export const BASE = root?.dataset.base ?? '';

let csrfToken: string | undefined;

export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

/** Called when the API says the session has ended, so that the app asks to sign in again. */
let onSignedOut: (() => void) | undefined;
export function whenSignedOut(handler: () => void): void {
  onSignedOut = handler;
}

export interface Options {
  method?: string;
  body?: unknown;
  query?: Record<string, string | number | undefined>;
  signal?: AbortSignal;
}

export async function api<T>(path: string, options: Options = {}): Promise<T> {
  const method = options.method ?? 'GET';
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(options.query ?? {})) if (value !== undefined && value !== '') query.set(key, String(value));
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  const response = await fetch(`${BASE}/v1${path}${query.size > 0 ? `?${query}` : ''}`, {
    method,
    headers,
    credentials: 'same-origin',
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  if (response.status === 204 || response.status === 205) return undefined as T;
  const data = (await response.json().catch(() => undefined)) as { error?: { message?: string } } | undefined;
  if (!response.ok) {
    if (response.status === 401 && !path.startsWith('/auth/')) onSignedOut?.();
    throw new ApiError(response.status, data?.error?.message ?? response.statusText);
  }
  return data as T;
}

/** A path of the app (below /app), with Quire's base path. */
/** `api` for a resource that may not exist (a provider not set yet): null on 404, other failures as `api`'s. */
export function apiOrNone<T>(path: string, options: Options = {}): Promise<T | null> {
  return api<T>(path, options).catch((error: Error) => {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  });
}

export const appHref = (path: string) => `${BASE}/app${path}`;

export const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');
