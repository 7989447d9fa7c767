/**
 * The search of a static export (export.ts), which has no server to ask: an index of the site's pages written at
 * export time (`~search/index.json`, SEARCH_INDEX_PATH) and a script of Quire's own origin (EXPORT_SCRIPT, at a hashed
 * path under `~quire/` as the other assets) that every exported page loads in place of the served pages' live search.
 * In the reader's browser it
 * - searches as the reader types in the header's box (live-search.ts's code, its results taken from the index);
 * - fills the results page (`~search/index.html`, the served results page with no query) from `?q=` and `&section=`;
 * - adds the nearest pages to the "not found" page (`404.html`, which static hosts answer for any missing address).
 *
 * One code for the server and the browser: the results page's content (search-page.ts), its excerpts (the search's
 * `excerpt`) and the nearest pages (not-found.ts) run in the browser as the same functions the
 * server runs, written into the script from their compiled source (each module's BROWSER_PARTS / EXCERPT_PARTS, by
 * the names their code uses them). So do this module's own functions (INDEX_PARTS), which also run on the server in
 * tests. Such a function names only bindings of its own module (imports are taken into local constants first):
 * test runners rewrite references to imports, which a function's source would then carry.
 *
 * The index holds each page's sections as the server's search indexing extracts them (pageRows: plain text, no markdown
 * or Liquid, split at headings, the description first), from the page's markdown as a reader without claims reads it
 * (the `{% if %}` branches the exported HTML shows): taken from the parse that rendered the page when that was the
 * same text, else through the CPU pool's `searchRows` task.
 * The browser matches words as the results page marks them (search-page.ts `matches`: the same word, or one begins the
 * other from three letters), the query's last word also as the start of longer words from two letters; there is no
 * stemming, and the stop words of the site's language are left out of queries as the server leaves them out. Pages
 * are ranked as the server ranks them: a query word in the title first, then in a heading, then in the text only;
 * within each, a bm25-like score with the server's field weights (title 10, headings 5, text 1).
 */
import type { Context } from '../../../domain/context.js';
import { documentPages, type PublishedSpace, type PublishedTree } from '../../../domain/sites/published.js';
import { EXCERPT_PARTS, SECTIONS_PER_PAGE, SITE_RESULTS, type SearchablePage } from '../../../domain/search/search-queries.js';
import { sectionRows } from '../../../content/search-ranking.js';
import type { DocumentPage } from '../../../content/model.js';
import { detectLanguage, isSearchLanguage, queryStopWords, type PageSection, type SearchLanguage } from '../../../content/search-text.js';
import type { SearchPageRows } from '../../../store/sql/search.js';
import { BROWSER_PARTS as SEARCH_PAGE_PARTS, type SearchFilter, type SearchResult } from './search-page.js';
import { BROWSER_PARTS as NOT_FOUND_PARTS, type Candidate } from './not-found.js';
import { liveSearchScript } from './live-search.js';
import { asset } from './site-assets.js';
import { pageUrls, readerMarkdown, siteFrame } from './render.js';
import { placeOf, searchFilters } from './site-reads.js';

/** Where the index is, below the export's root. */
export const SEARCH_INDEX_PATH = '/~search/index.json';

/**
 * A page of the index: its title, URL, place on the site (a number of `places`, -1 for none), section (a number of
 * `filters`, 0 for none: the first filter is "All sections"), whether it is hidden (from the table of contents: not
 * offered as a nearest page), and its sections as anchor, title and text, three strings each: first the text before
 * its first heading (searched, but not shown as a section of the page, as the served results show none), then one
 * per heading.
 */
export type IndexedPage = [title: string, url: string, place: number, section: number, hidden: 0 | 1, sections: string[]];

/** The export's search index (`~search/index.json`). */
export interface ExportIndex {
  /** The format of the index. */
  v: 1;
  /** The site's title (the results page's title ends with it). */
  site: string;
  /** Words queries leave out (the site's language's stop words and English ones), unless nothing else is left. */
  stop: string[];
  /** The section filters of the results page, as the served page has them (site-reads.ts searchFilters). */
  filters: SearchFilter[];
  /** Where pages are on a site of several spaces (site-reads.ts placeOf), each once. */
  places: string[];
  pages: IndexedPage[];
}

/** Pages read by one task on the CPU pool (several run at once). */
const ROWS_PER_TASK = 100;

/**
 * The index of the site's spaces (`spaces`: publishedSpaces of `tree`), its pages in the site's order: every document
 * page, as the served site's search finds every page of its spaces. `rendered`: pages' sections from the parse that
 * rendered them (render.ts renderSpacePages), taken for a page whose markdown for a reader without claims is the one
 * rendered (no `{% if %}`: the same text, so the same parse); the others are parsed again on the CPU pool.
 */
export async function exportIndex(ctx: Context, tree: PublishedTree, spaces: readonly PublishedSpace[], rendered: ReadonlyMap<DocumentPage, PageSection[]> = new Map()): Promise<ExportIndex> {
  const frame = siteFrame(tree, '', { currentSection: null });
  const filters = searchFilters(tree, frame);
  const places: string[] = [];
  const pages: IndexedPage[] = [];
  const votes = new Map<SearchLanguage, number>();
  for (const space of spaces) {
    const urlOf = pageUrls('', space);
    const place = placeOf(tree, space);
    if (place !== undefined && !places.includes(place)) places.push(place);
    const section = space.section ? filters.findIndex((filter) => filter.id === space.section!.id) : 0;
    const documents = documentPages(space.content.revision.pages);
    const rows: Array<ReturnType<typeof sectionRows> | undefined> = documents.map((page) => {
      const sections = rendered.get(page);
      return sections && readerMarkdown(page) === page.markdown ? sectionRows(page, sections) : undefined;
    });
    const parsed = documents.filter((_, i) => rows[i] === undefined);
    const searchable: SearchablePage[] = parsed.map((page) => ({ id: page.id, title: page.title, path: page.path, blobOid: page.blobOid, markdown: readerMarkdown(page), description: page.description }));
    const tasks: Array<Promise<SearchPageRows[]>> = [];
    for (let at = 0; at < searchable.length; at += ROWS_PER_TASK) tasks.push(ctx.cpu.run('searchRows', searchable.slice(at, at + ROWS_PER_TASK)));
    const parsedRows = (await Promise.all(tasks)).flat();
    let next = 0;
    documents.forEach((page, i) => {
      if (rows[i] === undefined) {
        const { sections, page: row } = parsedRows[next++];
        rows[i] = { sections, language: row.language as SearchLanguage | '', stop_words: row.stop_words };
      }
      const { sections, ...row } = rows[i]!;
      if (row.language && isSearchLanguage(row.language)) votes.set(row.language, (votes.get(row.language) ?? 0) + row.stop_words);
      const texts = sections.flatMap((s) => [s.anchor, s.title, s.body]);
      pages.push([page.title, urlOf(page), place === undefined ? -1 : places.indexOf(place), Math.max(section, 0), page.hidden ? 1 : 0, texts]);
    });
  }
  return { v: 1, site: tree.site.title, stop: queryStopWords(detectLanguage(votes)), filters, places, pages };
}

// ---- what runs in the browser too (see the top of this file): only names of this module below.

const { queryWords, matches, WORD, MIN_PREFIX } = SEARCH_PAGE_PARTS;
const { excerpt } = EXCERPT_PARTS;
const RESULTS = SITE_RESULTS;
const SECTIONS_SHOWN = SECTIONS_PER_PAGE;
/** The server's field weights: a word in the title counts as ten in the text, in a heading as five. */
const TITLE_WEIGHT = 10;
const HEADING_WEIGHT = 5;
/** bm25's saturation of a word's count (its k1). */
const SATURATION = 1.2;

/**
 * How many times each word of `wanted` (by its number) is in `text`, and the offset of the first one (-1: none). A
 * word of the text counts as a query word the results page marks (matches), or, for the last query word of two
 * letters or more, when it begins with it.
 */
function wordsIn(text: string, wanted: readonly string[]): { counts: number[]; first: number } {
  const counts = wanted.map(() => 0);
  let first = -1;
  const last = wanted.length - 1;
  for (const match of text.matchAll(WORD)) {
    const word = match[0].toLowerCase();
    let q = wanted.findIndex((query) => matches(word, [query]));
    if (q < 0 && wanted[last].length >= 2 && word.startsWith(wanted[last])) q = last;
    if (q < 0) continue;
    counts[q] += 1;
    if (first < 0) first = match.index ?? 0;
  }
  return { counts, first };
}

/** The lower-case text of each page (title and sections), made once for every search of the page. */
const lowered = new WeakMap<IndexedPage, string>();

/** The pages of `index` that `query` finds, best first, at most `limit`, as the results page shows them. */
function searchIndex(index: ExportIndex, query: string, limit = RESULTS): SearchResult[] {
  const words = queryWords(query);
  const stop = new Set(index.stop);
  const kept = words.filter((word) => !stop.has(word));
  const wanted = kept.length > 0 ? kept : words;
  if (wanted.length === 0) return [];
  // What a text must hold to have a query word (the start every word matching it shares): pages without any are
  // passed over without reading their words.
  const needles = wanted.map((word) => word.slice(0, MIN_PREFIX));
  const found: Array<{ order: number; tier: number; weights: number[] }> = [];
  const pagesWith = wanted.map(() => 0);
  index.pages.forEach((page, order) => {
    let lower = lowered.get(page);
    if (lower === undefined) lowered.set(page, (lower = [page[0], ...page[5]].join('\n').toLowerCase()));
    if (!needles.some((needle) => lower.includes(needle))) return;
    const title = wordsIn(page[0], wanted).counts;
    const headings = wanted.map(() => 0);
    const body = wanted.map(() => 0);
    for (let at = 0; at < page[5].length; at += 3) {
      wordsIn(page[5][at + 1], wanted).counts.forEach((n, q) => (headings[q] += n));
      wordsIn(page[5][at + 2], wanted).counts.forEach((n, q) => (body[q] += n));
    }
    const weights = wanted.map((_, q) => TITLE_WEIGHT * title[q] + HEADING_WEIGHT * headings[q] + body[q]);
    if (weights.every((weight) => weight === 0)) return;
    weights.forEach((weight, q) => (pagesWith[q] += weight > 0 ? 1 : 0));
    const tier = title.some((n) => n > 0) ? 0 : headings.some((n) => n > 0) ? 1 : 2;
    found.push({ order, tier, weights });
  });
  const total = index.pages.length;
  const rarity = pagesWith.map((n) => Math.log(1 + (total - n + 0.5) / (n + 0.5)));
  const scored = found.map((hit) => ({ ...hit, score: hit.weights.reduce((sum, weight, q) => sum + (rarity[q] * weight) / (weight + SATURATION), 0) }));
  scored.sort((a, b) => a.tier - b.tier || b.score - a.score || a.order - b.order);
  return scored.slice(0, limit).map(({ order }) => {
    const [title, url, place, section, , texts] = index.pages[order];
    // The page's sections with a query word, best first, as the server shows them: words in the heading, then more
    // query words, more occurrences, then the page's order.
    const hits: Array<{ at: number; inTitle: number; matched: number; occurrences: number; first: number }> = [];
    for (let at = 3; at < texts.length; at += 3) {
      const heading = wordsIn(texts[at + 1], wanted).counts;
      const text = wordsIn(texts[at + 2], wanted);
      const matched = wanted.filter((_, q) => heading[q] > 0 || text.counts[q] > 0).length;
      if (matched === 0) continue;
      const inTitle = heading.filter((n) => n > 0).length;
      hits.push({ at, inTitle, matched, occurrences: text.counts.reduce((sum, n) => sum + n, 0), first: Math.max(text.first, 0) });
    }
    hits.sort((a, b) => b.inTitle - a.inTitle || b.matched - a.matched || b.occurrences - a.occurrences || a.at - b.at);
    const filter = index.filters[section];
    return {
      title,
      href: url,
      ...(place >= 0 ? { place: index.places[place] } : {}),
      ...(section > 0 && filter?.id !== undefined ? { sectionId: filter.id } : {}),
      sections: hits.slice(0, SECTIONS_SHOWN).map((hit) => ({ title: texts[hit.at + 1], href: `${url}#${texts[hit.at]}`, body: excerpt(texts[hit.at + 2], hit.first) })),
    };
  });
}

/** The pages a "not found" page may offer (not-found.ts nearestPages): those the table of contents shows. */
function indexCandidates(index: ExportIndex): Candidate[] {
  return index.pages
    .filter((page) => page[4] === 0)
    .map(([title, url, place]) => ({ title, href: url, path: url.slice(1), ...(place >= 0 ? { place: index.places[place] } : {}) }));
}

/** What a browser runs of this module, by the names its functions use. */
const INDEX_PARTS = { queryWords, matches, WORD, MIN_PREFIX, excerpt, RESULTS, SECTIONS_SHOWN, TITLE_WEIGHT, HEADING_WEIGHT, SATURATION, wordsIn, lowered, searchIndex, indexCandidates };

export { searchIndex, indexCandidates };

// ---- the script

/**
 * A value as the source of a script's constant: a function's compiled source, a regular expression's literal, a cache
 * (a WeakMap) as a new one, anything else as JSON.
 */
function sourceOf(name: string, value: unknown): string {
  if (typeof value === 'function' || value instanceof RegExp) return String(value);
  if (value instanceof WeakMap) return 'new WeakMap()';
  if (value === undefined || typeof value === 'symbol' || typeof value === 'bigint') throw new Error(`export-search: "${name}" cannot be written into a script`);
  return JSON.stringify(value);
}

/** `const NAME = VALUE;` for each of `parts` (a name given twice must be the same value, written once). */
function declarations(...parts: Array<Record<string, unknown>>): string {
  const declared = new Map<string, unknown>();
  const lines: string[] = [];
  for (const part of parts) {
    for (const [name, value] of Object.entries(part)) {
      if (declared.has(name)) {
        if (declared.get(name) !== value) throw new Error(`export-search: two different values named "${name}"`);
        continue;
      }
      declared.set(name, value);
      lines.push(`const ${name} = ${sourceOf(name, value)};`);
    }
  }
  // Run through tsx (the command line in development and tests), esbuild keeps functions' names by wrapping them in a
  // helper of the module (`__name(fn, "name")`): here one that only gives the function back.
  if (lines.some((line) => line.includes('__name('))) lines.unshift('const __name = (target) => target;');
  return lines.join('\n');
}

/** The functions and constants the script declares, first (exported for tests, which run them as the browser does). */
export const SCRIPT_DECLARATIONS = declarations(SEARCH_PAGE_PARTS, NOT_FOUND_PARTS, EXCERPT_PARTS, INDEX_PARTS);

/** The longest query the results page takes (the served one answers a longer one 400). */
const MAX_QUERY = 512;

/** The export's script (see the top of this file). */
export const EXPORT_SCRIPT = `(() => {
'use strict';
${SCRIPT_DECLARATIONS}

let loading;
/** The index, read once (read again after a failure). */
const loadIndex = () => {
  loading ??= fetch(${JSON.stringify(SEARCH_INDEX_PATH)}).then((response) => {
    if (!response.ok) throw new Error('the search index answered ' + response.status);
    return response.json();
  });
  loading.catch(() => { loading = undefined; });
  return loading;
};

// The header's box searches as the reader types, from the index.
${liveSearchScript('async (query) => ({ query, results: searchIndex(await loadIndex(), query) })')}

// The results page: the served page's content for ?q= (and &section=), made here.
const results = document.querySelector('main.search-page');
if (results) void (async () => {
  const params = new URLSearchParams(location.search);
  const query = (params.get('q') || '').trim().slice(0, ${MAX_QUERY});
  if (!query) return;
  const form = document.querySelector('form.search');
  const box = form && form.querySelector('input[name=q]');
  if (box) box.value = query;
  let index;
  try {
    index = await loadIndex();
  } catch {
    results.querySelector('p').textContent = 'The search index could not be read.';
    return;
  }
  const asked = params.get('section');
  const section = index.filters.some((filter) => filter.id !== undefined && filter.id === asked) ? asked : undefined;
  const all = searchIndex(index, query);
  const input = { query, results: section ? all.filter((result) => result.sectionId === section) : all, filters: index.filters };
  if (section) input.section = section;
  results.innerHTML = searchContent(form ? form.getAttribute('action') : '/~search', input);
  document.title = searchTitle(query, index.site);
})();

// The "not found" page: the pages nearest to the address asked for, before its search box.
const missing = document.querySelector('main.not-found');
if (missing) void (async () => {
  let asked = location.pathname;
  try { asked = decodeURIComponent(asked); } catch { /* as it is */ }
  const index = await loadIndex().catch(() => undefined);
  const again = missing.querySelector('form.search-again');
  if (!index || !again) return;
  again.insertAdjacentHTML('beforebegin', nearestHtml(nearestPages(asked.split('/').filter(Boolean).join('/'), indexCandidates(index))));
})();
})();
`;

/** The script as the export writes it (site-assets.ts names it by its content). */
export const EXPORT_SEARCH_ASSET = asset('export-search', 'js', EXPORT_SCRIPT, 'text/javascript; charset=utf-8');
