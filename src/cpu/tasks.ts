/**
 * The CPU-heavy work that runs on the container's worker threads (src/cpu/pool.ts), by name: content work, and long
 * SQLite reads. Each task takes and returns plain data (what structured clone copies: no functions, no class
 * instances), so the same function runs in a worker or, for a test, inline. Adding a task: a line here, then
 * `ctx.cpu.run('name', input)` at the call site.
 *
 * A thread loads this module and what it imports: pure code (src/content) and the store's search reads on the
 * thread's own connection (src/store/sql/thread-reads.ts), never the domain, whose modules bring the git store and
 * every SQL store with them (checked by .dependency-cruiser.cjs).
 */
import { parsePageFiles } from '../content/page.js';
import { parseSummaryInput } from '../content/summary-kept.js';
import { extractLinks, type RawLink } from '../content/links.js';
import { hitsFromPages, pageRows, rankFromTermLists, rankingBases, type PageHit, type SearchablePage } from '../content/search-ranking.js';
import { resultPages, type EngineQuery, type RankedPage, type RankPosition, type SearchPageRows } from '../store/sql/search.js';
import { termDocs, termLists } from '../store/sql/search-terms.js';
import type { PageSection, SearchLanguage, SearchTerms } from '../content/search-text.js';
import { pageHtml, type PageHtml } from '../content/page-html.js';
import { decidedCondition } from '../content/conditions.js';
import { conditionsOf } from '../content/adaptive-markdown.js';
import { markdownToDocument } from '../content/document.js';
import { jsonWithParts } from './json-parts.js';
import { documentLinks, linkLookupsFromPlain, type PlainLinkLookups } from '../content/links.js';
import { resolvedLinkAnswers, siteLinksFromPlain, sitePageLinks, type PlainSiteLinks, type ResolvedLinks } from '../content/site-links.js';
import { readOnThread, threadDatabase } from '../store/sql/thread-reads.js';
import { pageBlockDiff } from '../content/block-diff.js';
import { markdownLineDiff } from '../content/line-diff.js';

export const cpuTasks = {
  /** Page files -> their fields (src/content/page.ts), for buildRevision. */
  parsePages: parsePageFiles,
  /** A big SUMMARY.md -> its structure (src/content/summary.ts), for buildRevision. */
  parseSummary: parseSummaryInput,
  /**
   * The search rows of pages, their words stemmed in the space's language (src/content/search-ranking.ts pageRows;
   * pages alone: English).
   */
  searchRows: (input: SearchablePage[] | { pages: SearchablePage[]; language: SearchLanguage }): SearchPageRows[] => {
    const stems = new Map<string, string>();
    return Array.isArray(input) ? input.map((page) => pageRows(page, 'en', stems)) : input.pages.map((page) => pageRows(page, input.language, stems));
  },
  /**
   * The links written in markdown bodies (src/content/links.ts), each once (a link written 10,000 times resolves the
   * same every time: the event loop resolves it once); callers send what the index reads (indexedPart).
   */
  extractLinks: (bodies: string[]): RawLink[][] => bodies.map((body) => distinctLinks(extractLinks(body))),
  /**
   * A big page's HTML for a published site (src/content/page-html.ts), with where its links lead and what its
   * includes hold worked out beforehand by the caller (a function cannot cross to a thread).
   */
  pageHtml: (input: PooledPageHtml): PageHtml => {
    const outcomes = new Map(input.outcomes);
    return pageHtml(input.markdown, {
      ...resolvedLinkAnswers(input),
      variables: input.variables,
      condition: (expression) => decidedCondition(outcomes, expression),
    });
  },
  /**
   * Pages of a published site rendered ahead of their readers (src/http/routes/published/prerender.ts): their links
   * answered with the site's facts sent as plain data (src/content/site-links.ts), `{% if %}` blocks as for a reader
   * without claims; what a reader's request would render on the event loop, byte for byte. With `sections`, each
   * page's search sections from the same parse (page-html.ts `sections`).
   */
  sitePagesHtml: (input: SitePagesHtml): SitePageHtml[] => {
    const links = siteLinksFromPlain(input.links);
    return input.pages.map((page) => {
      let sections: PageSection[] | undefined;
      const html: SitePageHtml = pageHtml(page.markdown, {
        ...sitePageLinks(links, page),
        variables: { page: page.variables, space: input.spaceVariables },
        condition: (expression) => decidedCondition(NO_OUTCOMES, expression),
        ...(input.sections ? { sections: (found: PageSection[]) => void (sections = found) } : {}),
      });
      if (sections) html.sections = sections;
      return html;
    });
  },
  /**
   * A page's two versions rendered as a published site renders them and compared block by block
   * (src/content/block-diff.ts): the change-request page diff.
   */
  pageBlockDiff,
  /** A page's two markdown versions compared line by line, in hunks (src/content/line-diff.ts): the raw page diff. */
  markdownLineDiff,
  /**
   * The conditions of `{% if %}` blocks in markdown bodies (a page and what it may include), each once: what a
   * reader's claims can change of a published page (src/http/routes/published/variants.ts).
   */
  pageConditions: (bodies: string[]): string[] => [...new Set(bodies.flatMap(conditionsOf))],
  /**
   * A big page's JSONDocument (src/content/document.ts), as JSON text (the event loop sends it without walking it),
   * its links resolved with the lookups of its revision.
   */
  pageDocument: (input: { markdown: string; page: { id: string; gitPath: string }; lookups: PlainLinkLookups }): string =>
    JSON.stringify(markdownToDocument(input.markdown, documentLinks(linkLookupsFromPlain(input.lookups), input.page))),
  /**
   * A big answer's bytes (UTF-8 JSON, jsonWithParts): serializing and encoding megabytes of text takes the event loop
   * tens of milliseconds each.
   */
  answerBytes: (input: { value: unknown; prefix: string; parts: string[] }): Uint8Array => new TextEncoder().encode(jsonWithParts(input.value, input.prefix, input.parts)),
  /** A long read-only query on the thread's own SQLite connection (src/store/sql/thread-reads.ts). */
  readDatabase: readOnThread,
  /**
   * Spaces' best pages from their term lists, read on the thread's own SQLite connection
   * (src/domain/search/search-queries.ts rankByTermLists: 40% of an organization's spaces; rankWithTermLists there is
   * the same on the event loop); which of them have lists.
   */
  rankSpaces: async (input: {
    file: string;
    spaces: ReadonlyArray<{ spaceId: string; key: number }>;
    query: EngineQuery;
    k: number;
    after?: RankPosition;
  }): Promise<{ rows: RankedPage[]; spaces: string[] }> => {
    const db = threadDatabase(input.file);
    const bases = rankingBases(await termDocs(db, input.spaces.map((space) => space.spaceId)));
    const lists = await termLists(db, input.spaces.map((space) => space.spaceId).filter((spaceId) => bases.has(spaceId)), input.query);
    return { rows: await rankFromTermLists(input.spaces, bases, lists, input.query, input.k, input.after), spaces: [...bases.keys()] };
  },
  /**
   * Results of pages found, made on the thread's own SQLite connection (src/domain/search/search-queries.ts
   * withSections; hitsOf there is the same on the event loop).
   */
  searchHits: async (input: { file: string; ranked: ReadonlyArray<{ spaceId: string; docs: readonly number[] }>; terms: Map<string, SearchTerms> }): Promise<Map<number, PageHit>> =>
    hitsFromPages(await resultPages(threadDatabase(input.file), input.ranked.flatMap(({ docs }) => docs)), input.ranked, input.terms),
};

export interface SitePagesHtml {
  links: PlainSiteLinks;
  spaceVariables: Record<string, string>;
  pages: Array<{ id: string; gitPath: string; markdown: string; variables: Record<string, string> }>;
  /** Whether each page's search sections are wanted too. */
  sections?: boolean;
}

/** A page rendered by sitePagesHtml, with its search sections when they were asked for. */
export interface SitePageHtml extends PageHtml {
  sections?: PageSection[];
}

const NO_OUTCOMES: ReadonlyMap<string, boolean> = new Map();

/** A page and its link answers (`hrefs`: site URLs), for the thread that renders it. */
export interface PooledPageHtml extends ResolvedLinks {
  markdown: string;
  variables: { page?: Record<string, string>; space?: Record<string, string> };
  /** The outcomes of the `{% if %}` conditions decided for the reader (any other: as for a reader without claims). */
  outcomes: Array<[string, boolean]>;
}

function distinctLinks(links: RawLink[]): RawLink[] {
  const seen = new Set<string>();
  return links.filter((link) => {
    const key = `${link.relation}\0${link.href}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export type CpuTasks = typeof cpuTasks;
export type CpuTaskName = keyof CpuTasks;
