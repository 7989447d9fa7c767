/**
 * What search works out from pages and from its index, as pure code: the rows of a page (indexing), the best pages
 * of spaces from their term lists (./term-ranking.ts), and results with their sections and excerpts. It runs on the
 * event loop (src/domain/search/search-queries.ts, which reads the index and keeps rankings) and on CPU threads
 * (src/cpu/tasks.ts, which read on their own connection): so it takes what was read as plain data, and loads neither
 * the store nor the domain. See src/domain/search/search-indexing.ts and search-queries.ts for the rules of indexing, ranking and sections.
 */
import type { DocumentPage } from './model.js';
import { indexedPart } from './bounded-markdown.js';
import { indexTokens, isAscii, languageVotes, pageSections, termFinder, tokenize, type PageSection, type SearchLanguage, type SearchTerms, type TermsFound } from './search-text.js';
import { DOCS_PER_SPACE, packedSections, pageTerms, sectionOf, unpackSections, type Pairs, type StoredSection } from './search-format.js';
import { RankingBase, SpaceRanker } from './term-ranking.js';
import type { EngineQuery, RankedPage, RankPosition, ResultPage, SearchPageRows } from '../store/sql/search.js';

export interface SectionHit {
  /** The heading's anchor. */
  id: string;
  title: string;
  /** The page's path, `#`, the anchor. */
  path: string;
  /** An excerpt of the section's text around the first match. */
  body: string;
}

export interface PageHit {
  spaceId: string;
  id: string;
  title: string;
  path: string;
  sections: SectionHit[];
}

const MAX_SECTION_TEXT = 20_000;
/** Sections shown per page found (a static export's search shows as many). */
export const SECTIONS_PER_PAGE = 5;
const EXCERPT = 200;

// ---- indexing

/** What the stored row of a page says of what it was made from: a page whose signature is the same needs no new rows. */
export function signatureOf(page: Pick<DocumentPage, 'blobOid' | 'title'>): string {
  return `${page.blobOid} ${page.title}`;
}

/** What pageRows reads of a page (plain data, for the CPU pool). */
export type SearchablePage = Pick<DocumentPage, 'id' | 'title' | 'path' | 'blobOid' | 'markdown' | 'description'>;

/**
 * The search rows of one page, its words stemmed in `language`: its sections, the tokens of its title, headings and
 * text, and its stop-word count (the language most of them are of). Only the first MAX_INDEXED_TEXT characters of
 * its markdown are read (src/content/bounded-markdown.ts). `stems`: stems worked out before (stemOf), shared by a
 * batch of pages.
 */
export function pageRows(page: SearchablePage, language: SearchLanguage = 'en', stems = new Map<string, string>()): SearchPageRows {
  const sections = withDescription(pageSections(indexedPart(page.markdown).text), page.description);
  const votes = new Map<SearchLanguage, number>();
  const tokens = {
    title: indexTokens(page.title, language, votes, stems),
    headings: sections.map((s) => indexTokens(s.title, language, votes, stems)).filter(Boolean).join(' '),
    body: sections.map((s) => indexTokens(s.body, language, votes, stems)).filter(Boolean).join(' '),
  };
  const top = topLanguage(votes);
  return {
    page: { page_id: page.id, title: page.title, path: page.path, signature: signatureOf(page), language: top, stop_words: top ? votes.get(top)! : 0 },
    sections: storedSections(sections),
    tokens,
    terms: pageTerms(tokens),
  };
}

/** A page's sections with its description first in the text before its first heading (a copy of that section). */
function withDescription(sections: PageSection[], description: string | undefined): PageSection[] {
  if (!description) return sections;
  const [first, ...rest] = sections;
  return [{ ...first, body: first.body ? `${description}\n${first.body}` : description }, ...rest];
}

/** The language with the most of a page's stop words ('' for none; the first counted on a tie). */
function topLanguage(votes: ReadonlyMap<SearchLanguage, number>): SearchLanguage | '' {
  let top: SearchLanguage | '' = '';
  for (const [candidate, n] of votes) if (top === '' || n > votes.get(top)!) top = candidate;
  return top;
}

/** Sections as the index stores them: each text flat and bounded. */
function storedSections(sections: PageSection[]): PageSection[] {
  return sections.map((s) => ({ ...s, body: flatText(s.body).slice(0, MAX_SECTION_TEXT) }));
}

/**
 * What pageRows gives of a page's sections and language, from its sections (pageSections of its markdown, or the same
 * from a render's parse: search-text.ts treeSections), without its tokens: a static export's search index.
 */
export function sectionRows(page: Pick<SearchablePage, 'title' | 'description'>, parsed: PageSection[]): Pick<SearchPageRows, 'sections'> & { language: SearchLanguage | ''; stop_words: number } {
  const sections = withDescription(parsed, page.description);
  // Counted in pageRows' order (title, headings, texts): a tie goes to the language counted first.
  const votes = new Map<SearchLanguage, number>();
  for (const text of [page.title, ...sections.map((s) => s.title), ...sections.map((s) => s.body)]) languageVotes(tokenize(text), votes);
  const top = topLanguage(votes);
  return { sections: storedSections(sections), language: top, stop_words: top ? votes.get(top)! : 0 };
}

// ---- sections and excerpts

// White space that flatText changes: a run, a character other than a space, a space at either end.
const NOT_FLAT = /\s\s|[^\S ]|^ | $/;

/**
 * `text` with each run of white space as one space and none at its ends: a section's text as the index stores it
 * (pageRows) and excerpts show it. A text already flat is returned as it is (results take excerpts of 2,500 texts,
 * and looking costs less than replacing).
 */
export function flatText(text: string): string {
  return NOT_FLAT.test(text) ? text.replace(/\s+/g, ' ').trim() : text;
}

/** An excerpt of at most about EXCERPT characters of `text`, starting a little before `offset`. */
export function excerpt(text: string, offset = 0): string {
  if (text.length <= EXCERPT) return flatText(text);
  let start = Math.max(0, offset - 60);
  if (start > 0) {
    const space = text.indexOf(' ', start);
    if (space >= 0 && space < offset) start = space + 1;
  }
  let end = Math.min(text.length, start + EXCERPT);
  if (end < text.length) {
    const space = text.lastIndexOf(' ', end);
    if (space > start + EXCERPT / 2) end = space;
  }
  return `${start > 0 ? '…' : ''}${flatText(text.slice(start, end))}${end < text.length ? '…' : ''}`;
}

/**
 * excerpt and what it uses, by the names it uses them: a static export's search makes its excerpts in the reader's
 * browser with this same code (src/http/routes/published/export-search.ts writes it into its script).
 */
export const EXCERPT_PARTS = { EXCERPT, NOT_FLAT, flatText, excerpt };

/**
 * The sections of a page that have a query term, best first (see the top of src/domain/search/search-queries.ts); `packed`:
 * its sections (packSections). `stems`: as findTerms'. A page in plain ASCII (and a query whose words' starts are) is
 * searched whole, in one pass: only its sections where a term occurs are read further. Results look into the
 * sections of 500 pages, most of which have no query word, and finding terms section by section (a lower-case copy
 * of each) was most of making them.
 */
export function sectionHits(pagePath: string, packed: string, terms: SearchTerms, stems: Map<string, string> = new Map()): SectionHit[] {
  const scored: Array<{ section: StoredSection; inTitle: number; matched: number; occurrences: number; first?: number }> = [];
  const find = termFinder(terms, stems);
  const score = (section: StoredSection, inTitle: ReadonlySet<number>, inBody: TermsFound) => {
    let matched = inBody.matched.size;
    for (const q of inTitle) if (!inBody.matched.has(q)) matched += 1;
    if (matched > 0) scored.push({ section, inTitle: inTitle.size, matched, occurrences: inBody.occurrences, first: inBody.first });
  };
  if (find.plain && isAscii(packed)) {
    // Occurrences over the whole page (offset, term), in page order; then section by section.
    const found: Array<[number, number]> = [];
    find.scan(packed.toLowerCase(), (q, at) => found.push([at, q]));
    found.sort((a, b) => a[0] - b[0]);
    let next = 0;
    for (const at of packedSections(packed)) {
      while (next < found.length && found[next][0] < at.title) next += 1;
      if (next === found.length) break;
      if (found[next][0] >= at.end) continue;
      const inTitle = new Set<number>();
      const inBody: TermsFound = { matched: new Set(), occurrences: 0 };
      for (; next < found.length && found[next][0] < at.end; next += 1) {
        const [offset, q] = found[next];
        if (offset < at.body) inTitle.add(q);
        else {
          inBody.matched.add(q);
          inBody.occurrences += 1;
          inBody.first ??= offset - at.body;
        }
      }
      score(sectionOf(packed, at), inTitle, inBody);
    }
  } else {
    for (const section of unpackSections(packed)) score(section, find(section.title).matched, find(section.body));
  }
  scored.sort((a, b) => b.inTitle - a.inTitle || b.matched - a.matched || b.occurrences - a.occurrences || a.section.position - b.section.position);
  return scored.slice(0, SECTIONS_PER_PAGE).map(({ section, first }) => ({
    id: section.anchor,
    title: section.title,
    path: `${pagePath}#${section.anchor}`,
    body: excerpt(section.body, first),
  }));
}

// ---- ranking and results

/**
 * Lets the requests that came in meanwhile run: a search's parts (SQLite's reads are synchronous, and a promise of
 * one yields to nothing but other promises) would otherwise hold the event loop for the whole search, 30-40 ms for
 * an organization of 100,000 pages, and every request beside it would wait as long.
 */
export const otherRequestsFirst = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Spaces ranked, or made into results, between two turns of the event loop (a few milliseconds). */
const SPACES_PER_TURN = 25;

/** The bases of spaces' rankings, from their live pages as the term lists hold them (termDocs). */
export function rankingBases(docs: ReadonlyMap<string, Pairs>): Map<string, RankingBase> {
  const bases = new Map<string, RankingBase>();
  for (const [spaceId, pages] of docs) bases.set(spaceId, new RankingBase(pages));
  return bases;
}

/**
 * The best `k` pages of each space from its term lists (./term-ranking.ts); `bases`: the spaces' live pages (a space
 * without one has no lists, and is left out); `lists`: the query's term lists of the spaces that have a base
 * (termLists); `after`: only pages ranked after that place.
 */
export async function rankFromTermLists(
  spaces: ReadonlyArray<{ spaceId: string; key: number }>,
  bases: ReadonlyMap<string, RankingBase>,
  lists: ReadonlyMap<string, ReadonlyMap<string, Uint8Array>>,
  query: EngineQuery,
  k: number,
  after?: RankPosition,
): Promise<RankedPage[]> {
  await otherRequestsFirst();
  const found: RankedPage[] = [];
  const ranker = new SpaceRanker();
  for (const [index, { spaceId, key }] of spaces.entries()) {
    if (index > 0 && index % SPACES_PER_TURN === 0) await otherRequestsFirst();
    const base = bases.get(spaceId);
    // A place after: its doc as a page number of this space (for the space's pages, the same order as docs).
    const from = after && { tier: after.tier, score: after.score, n: after.doc - key * DOCS_PER_SPACE };
    if (base) for (const { n, tier, score } of ranker.rank(base, lists.get(spaceId)!, query, k, from)) found.push({ space_id: spaceId, doc: key * DOCS_PER_SPACE + n, tier, score });
  }
  return found;
}

/**
 * The results of pages found, by their numbers (doc): each page with its sections that hold a query word
 * (sectionHits); `pages`: the pages of those numbers as results show them (resultPages). A page gone since it was
 * ranked (its space indexed again meanwhile) has none.
 */
export async function hitsFromPages(
  pages: ReadonlyMap<number, ResultPage>,
  ranked: ReadonlyArray<{ spaceId: string; docs: readonly number[] }>,
  terms: ReadonlyMap<string, SearchTerms>,
): Promise<Map<number, PageHit>> {
  await otherRequestsFirst();
  // Stems worked out once per search and language (spaces of one language share one terms object).
  const stems = new Map<SearchTerms, Map<string, string>>();
  const stemsOf = (spaceTerms: SearchTerms) => stems.get(spaceTerms) ?? stems.set(spaceTerms, new Map()).get(spaceTerms)!;
  const out = new Map<number, PageHit>();
  for (const [index, { spaceId, docs }] of ranked.entries()) {
    if (index > 0 && index % SPACES_PER_TURN === 0) await otherRequestsFirst();
    const spaceTerms = terms.get(spaceId)!;
    for (const doc of docs) {
      const page = pages.get(doc);
      if (page) out.set(doc, { spaceId, id: page.page_id, title: page.title, path: page.path, sections: sectionHits(page.path, page.sections, spaceTerms, stemsOf(spaceTerms)) });
    }
  }
  return out;
}
