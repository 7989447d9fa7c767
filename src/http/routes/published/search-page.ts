/**
 * The site's search results page (`.../~search?q=`, what the search box sends without JavaScript), in the site's
 * frame: each page found with its place on the site (section and space), its matching sections and their excerpts,
 * the query's words marked (`<mark>`) in titles and excerpts; and, on a site of several sections, links that keep
 * the results of one section (`&section=PATH`).
 *
 * The page's content (searchContent) is built by the same code on the server and, in a static export, in the reader's
 * browser from the export's prebuilt index: export-search.ts writes the functions of BROWSER_PARTS into its script.
 * They name only this module's own bindings (escapeHtml too, below), which the script declares under the same names.
 */
import { escapeHtml as escapeHtmlText } from '../../../content/html-text.js';
import { siteShell, type SiteFrame } from './layout.js';

const escapeHtml = escapeHtmlText;

export interface SearchResult {
  title: string;
  href: string;
  /** Where the page is on the site: its section's title and its space's, when the site has more than one. */
  place?: string;
  /** The id of the page's site section (the section filter's value), when the site has sections. */
  sectionId?: string;
  /** Sections of the page that match, with an excerpt. */
  sections: Array<{ title: string; href: string; body: string }>;
}

/** A section filter of the results page. */
export interface SearchFilter {
  title: string;
  /** The section's id (`?section=`), or undefined for "all sections". */
  id?: string;
}

/** Words of a query that get marked: at most this many, each at most this long (the query is at most 512 characters). */
const MAX_MARKED_WORDS = 12;
const MAX_WORD = 64;
/** A word's shortest beginning that counts as a match of a longer word ("inst" marks "install"; "in" marks nothing). */
const MIN_PREFIX = 3;

const WORD = /[\p{L}\p{N}_]+/gu;

/** The words of a query, lowercased, as the excerpts are searched for them. */
export function queryWords(query: string): string[] {
  const words = new Set<string>();
  for (const match of query.toLowerCase().matchAll(WORD)) {
    if (words.size >= MAX_MARKED_WORDS) break;
    words.add(match[0].slice(0, MAX_WORD));
  }
  return [...words];
}

/** Whether `word` (lowercased) is one the query asked for: the same, or one begins the other (stems and prefixes). */
function matches(word: string, wanted: readonly string[]): boolean {
  return wanted.some((query) => word === query || (Math.min(word.length, query.length) >= MIN_PREFIX && (word.startsWith(query) || query.startsWith(word))));
}

/**
 * `text` as HTML with the words `wanted` asks for in `<mark>`: every piece escaped, marks only around whole words of
 * the text, so nothing of the text (or the query) is ever read as markup. Linear in the text (times the dozen words).
 */
export function markedText(text: string, wanted: readonly string[]): string {
  if (wanted.length === 0) return escapeHtml(text);
  let html = '';
  let from = 0;
  for (const match of text.matchAll(WORD)) {
    const at = match.index ?? 0;
    if (!matches(match[0].toLowerCase(), wanted)) continue;
    html += `${escapeHtml(text.slice(from, at))}<mark>${escapeHtml(match[0])}</mark>`;
    from = at + match[0].length;
  }
  return html + escapeHtml(text.slice(from));
}

function resultHtml(result: SearchResult, wanted: readonly string[]): string {
  const place = result.place ? ` <span class="result-section">${escapeHtml(result.place)}</span>` : '';
  const sections = result.sections
    .map((section) => `<li><a href="${escapeHtml(section.href)}">${markedText(section.title, wanted)}</a><p>${markedText(section.body, wanted)}</p></li>`)
    .join('');
  return `<li><a class="result-title" href="${escapeHtml(result.href)}">${markedText(result.title, wanted)}</a>${place}${sections ? `<ul>${sections}</ul>` : ''}</li>`;
}

export interface SearchInput {
  query: string;
  results: SearchResult[];
  filters?: SearchFilter[];
  /** The section the results are filtered to (a filter's id). */
  section?: string;
}

/** The results page's title. */
export function searchTitle(query: string, siteTitle: string): string {
  return `Search${query ? `: ${query}` : ''} | ${siteTitle}`;
}

/** What the results page shows in its `<main>`: its heading, the section filters, the results; `searchHref`: the page's URL. */
export function searchContent(searchHref: string, input: SearchInput): string {
  const wanted = queryWords(input.query);
  const filters = input.query !== '' && input.filters && input.filters.length > 2 ? input.filters : [];
  const filterHref = (filter: SearchFilter) => `${searchHref}?q=${encodeURIComponent(input.query)}${filter.id ? `&section=${encodeURIComponent(filter.id)}` : ''}`;
  const filterNav = filters.length
    ? `<nav aria-label="Filter by section"><ul class="filters">${filters
        .map((filter) => `<li><a href="${escapeHtml(filterHref(filter))}"${(filter.id ?? '') === (input.section ?? '') ? ' aria-current="page"' : ''}>${escapeHtml(filter.title)}</a></li>`)
        .join('')}</ul></nav>`
    : '';
  const count = input.results.length === 1 ? '1 page' : `${input.results.length} pages`;
  const summary =
    input.query === ''
      ? '<p>Type words to search this site.</p>'
      : input.results.length === 0
        ? `<p>No results for “${escapeHtml(input.query)}”.</p>`
        : `<p class="result-count">${count} for “${escapeHtml(input.query)}”</p><ol class="results">${input.results.map((result) => resultHtml(result, wanted)).join('')}</ol>`;
  return `<h1>Search</h1>${filterNav}${summary}`;
}

/** The results page of the search box (works without JavaScript); with no query, the page a static export fills in. */
export function renderSearch(frame: SiteFrame, input: SearchInput): string {
  const body = `<div class="layout single"><main id="content" class="search-page">${searchContent(frame.searchHref, input)}</main></div>`;
  return siteShell(frame, { title: searchTitle(input.query, frame.siteTitle), head: '\n<meta name="robots" content="noindex">', body, query: input.query });
}

/** What a browser runs of this module (see the top of this file), by the names its functions use. */
export const BROWSER_PARTS = { escapeHtml, MAX_MARKED_WORDS, MAX_WORD, MIN_PREFIX, WORD, queryWords, matches, markedText, resultHtml, searchTitle, searchContent };
