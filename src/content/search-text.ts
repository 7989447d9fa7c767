/**
 * The text of pages as full-text search sees it (issue 5): sections and terms. Pure: no SQL.
 *
 * Sections: a page body is split at its headings (any level; the page's own `# H1` is its title, already taken out
 * of the body). Section 0 is the text before the first heading (anchor ''); every other section is a heading and the
 * blocks up to the next heading, its id the heading's anchor as GitHub makes it (github-slugger, one slugger per
 * page, so a repeated heading gets `-1`, `-2`), also inside GitBook's blocks (a heading in a step or a tab). Text is
 * plain: markdown syntax, raw HTML and GitBook's `{% … %}` tags are dropped; code is kept (people search for commands and names).
 *
 * Terms: runs of letters and digits of any script, lower-cased, with the accents of Latin letters dropped
 * (`Café` -> `cafe`), so `Install`, `install` and `INSTALL` match. Terms longer than 64 characters are left out.
 */
import GithubSlugger from 'github-slugger';
import type { Heading, Root } from 'mdast';
import { toString } from 'mdast-util-to-string';
import { boundedParagraphs } from './bounded-markdown.js';
import { gitbookMarkdownParser, type GitbookNode } from './gitbook-markdown.js';

export interface PageSection {
  /** 0 for the text before the first heading, then 1, 2, … in page order. */
  position: number;
  /** The heading's anchor ('' for section 0). */
  anchor: string;
  /** The heading's text ('' for section 0). */
  title: string;
  /** Plain text of the section's blocks. */
  body: string;
}

const parser = gitbookMarkdownParser().freeze();

const TEMPLATE_TAG = /\{%[^%]*%\}/g;

function plain(node: GitbookNode): string {
  if (node.type === 'html' || node.type === 'definition' || node.type === 'liquidTag') return '';
  return toString(node, { includeHtml: false }).replace(TEMPLATE_TAG, ' ');
}

/** The page's blocks in order, GitBook's blocks and expandables opened (a heading in a step still starts a section). */
function* blocks(nodes: GitbookNode[]): Generator<GitbookNode> {
  for (const node of nodes) {
    if (node.type === 'liquidBlock') yield* blocks(node.children);
    else if (node.type === 'details') {
      yield { type: 'paragraph', children: [{ type: 'text', value: node.summary }] };
      yield* blocks(node.children);
    } else yield node;
  }
}

/** A page body split at its headings (see the top of this file). */
export function pageSections(markdown: string): PageSection[] {
  const tree = parser.runSync(parser.parse(boundedParagraphs(markdown).text)) as Root;
  const slugger = new GithubSlugger();
  const sections: PageSection[] = [{ position: 0, anchor: '', title: '', body: '' }];
  const parts: string[][] = [[]];
  for (const node of blocks(tree.children as GitbookNode[])) {
    if (node.type === 'heading') {
      const title = plain(node as Heading).replace(/\s+/g, ' ').trim();
      sections.push({ position: sections.length, anchor: slugger.slug(title), title, body: '' });
      parts.push([]);
      continue;
    }
    const text = plain(node).trim();
    if (text) parts[parts.length - 1].push(text);
  }
  sections.forEach((section, i) => (section.body = parts[i].join('\n')));
  return sections;
}

const WORD = /[\p{L}\p{N}]+/gu;
const MAX_TERM = 64;
const ASCII = /^[\x00-\x7f]*$/;
const ASCII_WORD = /[a-z0-9]+/g;

/** One word as a term: lower case, Latin accents dropped. */
export function normalizeTerm(word: string): string {
  const lower = word.toLowerCase();
  // Plain ASCII (the common case) needs no Unicode normalization.
  if (ASCII.test(lower)) return lower;
  return lower.normalize('NFKD').replace(/(\p{Script=Latin})\p{M}+/gu, '$1').normalize('NFC');
}

/** The terms of a text, in order, repeats kept. */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  for (const { term } of termsWithOffsets(text)) terms.push(term);
  return terms;
}

/** Each term of a text with the offset of its word in the text (for excerpts). */
export function* termsWithOffsets(text: string): Generator<{ term: string; offset: number; length: number }> {
  // Plain ASCII (the common case): the same words, found by a cheaper expression on the lowercased text, and no
  // normalization (lowercasing is all it would do). Three to four times faster, which search excerpts need.
  const ascii = ASCII.test(text);
  const source = ascii ? text.toLowerCase() : text;
  for (const match of source.matchAll(ascii ? ASCII_WORD : WORD)) {
    if (match[0].length > MAX_TERM) continue;
    yield { term: ascii ? match[0] : normalizeTerm(match[0]), offset: match.index, length: match[0].length };
  }
}

/** Term frequencies of a text. */
export function termCounts(text: string, into: Map<string, number> = new Map()): Map<string, number> {
  for (const term of tokenize(text)) into.set(term, (into.get(term) ?? 0) + 1);
  return into;
}

// Words too common to tell pages apart; left out of a query that has other words.
const STOP_WORDS = new Set(
  'a an and are as at be but by for from how i if in into is it its of on or that the their then there these this to was what when where which who why will with you your'.split(' '),
);

/** What a query searches for: terms matched exactly, and the last word matched as a prefix of terms. */
export interface SearchTerms {
  exact: string[];
  /** The last word (two characters or more), matched as the start of a term. */
  prefix?: string;
}

/**
 * A query as search terms: its words as terms (duplicates dropped, stop words dropped unless nothing else is left);
 * the last word, when it has two characters or more, also matches longer terms that start with it.
 */
export function queryTerms(query: string): SearchTerms {
  const words = [...new Set(tokenize(query))];
  const kept = words.filter((w) => !STOP_WORDS.has(w));
  const terms = kept.length > 0 ? kept : words;
  if (terms.length === 0) return { exact: [] };
  const last = terms[terms.length - 1];
  if (last.length < 2) return { exact: terms };
  return { exact: terms.slice(0, -1), prefix: last };
}

/** Which query term (its index: exact terms first, then the prefix) `term` matches; -1 for none. */
export function matchTerm(terms: SearchTerms, term: string): number {
  const exact = terms.exact.indexOf(term);
  if (exact >= 0) return exact;
  return terms.prefix !== undefined && term.startsWith(terms.prefix) ? terms.exact.length : -1;
}

/** Where the query's terms occur in a text: which (numbered as matchTerm numbers them), how often, the first offset. */
export interface TermsFound {
  matched: Set<number>;
  occurrences: number;
  first?: number;
}

const isAsciiWordChar = (code: number) => (code >= 48 && code <= 57) || (code >= 97 && code <= 122);

/**
 * The query's terms in `text`, counted as tokenizing it and matching each term would count them. Plain ASCII text
 * (the common case) is searched for each query word with indexOf instead: search results do this for every section
 * of every page they show, and tokenizing whole sections was most of their cost.
 */
export function findTerms(text: string, terms: SearchTerms): TermsFound {
  const found: TermsFound = { matched: new Set(), occurrences: 0 };
  const count = (q: number, offset: number) => {
    found.matched.add(q);
    found.occurrences += 1;
    if (found.first === undefined || offset < found.first) found.first = offset;
  };
  const needles = terms.prefix !== undefined ? [...terms.exact, terms.prefix] : terms.exact;
  if (!ASCII.test(text) || !needles.every((needle) => ASCII.test(needle))) {
    for (const { term, offset } of termsWithOffsets(text)) {
      const q = matchTerm(terms, term);
      if (q >= 0) count(q, offset);
    }
    return found;
  }
  const lower = text.toLowerCase();
  needles.forEach((needle, q) => {
    for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + 1)) {
      if (at > 0 && isAsciiWordChar(lower.charCodeAt(at - 1))) continue;
      let end = at + needle.length;
      while (end < lower.length && isAsciiWordChar(lower.charCodeAt(end))) end += 1;
      // The whole word is the term; it counts under this needle only if matchTerm gives it this needle's number
      // (a word equal to an exact term counts as that term, not as the prefix).
      if (end - at <= MAX_TERM && matchTerm(terms, lower.slice(at, end)) === q) count(q, at);
      at = end - 1;
    }
  });
  return found;
}

/** The number of query terms (exact terms, and the prefix) of a search. */
export function termCount(terms: SearchTerms): number {
  return terms.exact.length + (terms.prefix !== undefined ? 1 : 0);
}
