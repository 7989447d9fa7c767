/**
 * The "not found" page of a site the reader may read (404): the site's frame (header, search, theme switch), the
 * table of contents of the space the address points into, and the pages nearest to the address asked for, found by
 * how many of its letter pairs their paths and titles share (Dice's coefficient over bigrams). Both the address and
 * each candidate are cut to a bounded length and at most MAX_CANDIDATES pages are scored, so one 404 costs time
 * linear in the site's pages, whatever the address.
 *
 * A static export has one "not found" page for every address (`404.html`): there, the reader's browser finds the
 * nearest pages from the export's index with the same code (BROWSER_PARTS, written into the export's script by
 * export-search.ts; they name only this module's own bindings, escapeHtml too).
 */
import { escapeHtml as escapeHtmlText } from '../../../content/html-text.js';
import { siteShell, sidebarHtml, type SiteFrame } from './layout.js';

const escapeHtml = escapeHtmlText;

/** Characters of the address and of each candidate that are compared. */
const MAX_COMPARED = 200;
/** Pages scored: the first ones of the site's order (a site larger than this rarely has its match past them). */
const MAX_CANDIDATES = 20_000;
/** Pages shown. */
export const NEAREST_SHOWN = 5;
/** The least similarity shown: below it, a page shares little more than common letters with the address. */
const MIN_SCORE = 0.25;

export interface Candidate {
  title: string;
  /** The page's path on the site (siteBase included). */
  href: string;
  /** Its path as written in the address (siteBase left out), what the address is compared with. */
  path: string;
  /** Where it is (section and space), shown under its title. */
  place?: string;
}

/** The letter pairs of `text` (lowercased letters and digits; anything else separates words), with their counts. */
function bigrams(text: string): Map<string, number> {
  const pairs = new Map<string, number>();
  const letters = text
    .slice(0, MAX_COMPARED)
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
  for (let i = 0; i + 1 < letters.length; i++) {
    if (letters[i] === ' ' || letters[i + 1] === ' ') continue;
    const pair = letters.slice(i, i + 2);
    pairs.set(pair, (pairs.get(pair) ?? 0) + 1);
  }
  return pairs;
}

function dice(wanted: Map<string, number>, wantedSize: number, text: string): number {
  const own = bigrams(text);
  let size = 0;
  let shared = 0;
  for (const [pair, count] of own) {
    size += count;
    shared += Math.min(count, wanted.get(pair) ?? 0);
  }
  return size + wantedSize === 0 ? 0 : (2 * shared) / (size + wantedSize);
}

/**
 * The pages nearest to `asked` (the address's path below the site, decoded), best first: each scored by its path and
 * by its title, the better of the two.
 */
export function nearestPages(asked: string, candidates: readonly Candidate[], shown = NEAREST_SHOWN): Candidate[] {
  const wanted = bigrams(asked);
  let wantedSize = 0;
  for (const count of wanted.values()) wantedSize += count;
  if (wantedSize === 0) return [];
  const scored: Array<{ candidate: Candidate; score: number }> = [];
  for (const candidate of candidates.slice(0, MAX_CANDIDATES)) {
    const score = Math.max(dice(wanted, wantedSize, candidate.path), dice(wanted, wantedSize, candidate.title));
    if (score < MIN_SCORE) continue;
    // Kept sorted and at most `shown` long: a constant amount of work per candidate.
    const at = scored.findIndex((entry) => entry.score < score);
    if (at === -1) {
      if (scored.length < shown) scored.push({ candidate, score });
      continue;
    }
    scored.splice(at, 0, { candidate, score });
    if (scored.length > shown) scored.pop();
  }
  return scored.map((entry) => entry.candidate);
}

/** The list of the nearest pages ('' for none), shown before the page's search box. */
export function nearestHtml(nearest: readonly Candidate[]): string {
  return nearest.length
    ? `<h2>Perhaps you were looking for</h2><ul class="nearest">${nearest
        .map((page) => `<li><a href="${escapeHtml(page.href)}">${escapeHtml(page.title)}${page.place ? `<small>${escapeHtml(page.place)}</small>` : ''}</a></li>`)
        .join('')}</ul>`
    : '';
}

/** The site's 404 page: its frame, a table of contents (when one is given), the nearest pages and a search box. */
export function renderSiteNotFound(frame: SiteFrame, input: { nearest: Candidate[]; toc?: string }): string {
  const nearest = nearestHtml(input.nearest);
  const search = `<form class="search search-again" role="search" aria-label="Search the site" action="${escapeHtml(frame.searchHref)}" method="get"><input type="search" name="q" aria-label="Search the site" placeholder="Search the site…"></form>`;
  const sidebar = input.toc ? sidebarHtml([], input.toc) : '';
  const body = `<div class="layout${input.toc ? '' : ' single'}">${sidebar}<main id="content" class="not-found"><article><h1>Page not found</h1><p>There is no page at this address. It may have moved, or the link that led here may be mistyped.</p>${nearest}${search}<p><a href="${escapeHtml(frame.siteHref || '/')}">Go to the home page</a></p></article></main></div>`;
  return siteShell(frame, { title: `Page not found | ${frame.siteTitle}`, head: '\n<meta name="robots" content="noindex">', body, sidebar: Boolean(input.toc) });
}

/** What a browser runs of this module (see the top of this file), by the names its functions use. */
export const BROWSER_PARTS = { escapeHtml, MAX_COMPARED, MAX_CANDIDATES, NEAREST_SHOWN, MIN_SCORE, bigrams, dice, nearestPages, nearestHtml };
