/**
 * The files published pages load from Quire's own origin: their scripts (site-scripts.ts, live-search.ts) and
 * Quire's default icon. Each is named by a hash of its content (`/~quire/site.1a2b3c4d5e.js`), so it is cached for a
 * year and a new version of Quire is a new name; the server answers them (index.ts) and a static export writes them
 * at the same paths (export.ts), so a page's `<script src>` is the same in both.
 */
import { createHash } from 'node:crypto';
import { LIVE_SEARCH_SCRIPT } from './live-search.js';
import { SITE_SCRIPT, THEME_SCRIPT } from './site-scripts.js';

/** Where the assets are, below the root of the server (or of an export). */
export const ASSETS_PREFIX = '/~quire/';

export interface Asset {
  /** The path pages use: ASSETS_PREFIX + the hashed name. */
  path: string;
  body: string;
  type: string;
}

/** A file of Quire's at ASSETS_PREFIX, named by its content (export-search.ts makes the export's own this way too). */
export function asset(name: string, extension: string, body: string, type: string): Asset {
  const hash = createHash('sha256').update(body).digest('hex').slice(0, 10);
  return { path: `${ASSETS_PREFIX}${name}.${hash}.${extension}`, body, type };
}

/**
 * Quire's icon: a page with a folded corner and lines of text, in the accent colour of the light theme (light on the
 * dark theme's tabs too, where the white page keeps it visible).
 */
export const DEFAULT_ICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="#0969da"/><path d="M20 12h17l11 11v27a3 3 0 0 1-3 3H20a3 3 0 0 1-3-3V15a3 3 0 0 1 3-3Z" fill="#fff"/><path d="M37 12v8a3 3 0 0 0 3 3h8" fill="#b6d7ff"/><path d="M23 31h18M23 38h18M23 45h11" stroke="#0969da" stroke-width="3.5" stroke-linecap="round"/></svg>
`;

export const ASSETS = {
  theme: asset('theme', 'js', THEME_SCRIPT, 'text/javascript; charset=utf-8'),
  site: asset('site', 'js', SITE_SCRIPT, 'text/javascript; charset=utf-8'),
  search: asset('search', 'js', LIVE_SEARCH_SCRIPT, 'text/javascript; charset=utf-8'),
  icon: asset('icon', 'svg', DEFAULT_ICON_SVG, 'image/svg+xml'),
} as const;

const BY_PATH = new Map<string, Asset>(Object.values(ASSETS).map((entry) => [entry.path, entry]));

/** The asset at `path` (ASSETS_PREFIX + name), if it is one of the current ones. */
export function assetAt(path: string): Asset | undefined {
  return BY_PATH.get(path);
}
