/**
 * The text of pages as full-text search sees it: sections and terms. Pure: no SQL.
 *
 * Sections: a page body is split at its headings (any level; the page's own `# H1` is its title, already taken out
 * of the body). Section 0 is the text before the first heading (anchor ''); every other section is a heading and the
 * blocks up to the next heading, its id the heading's anchor as GitHub makes it (github-slugger, one slugger per
 * page, so a repeated heading gets `-1`, `-2`), also inside GitBook's blocks (a heading in a step or a tab). Text is
 * plain: markdown syntax, raw HTML and GitBook's `{% … %}` tags are dropped; code is kept (people search for commands
 * and names); blocks (list items, table cells, paragraphs) are apart, so the words at their edges stay words.
 *
 * Terms: runs of letters and digits of any script (with their combining marks), lower-cased, with the accents of Latin
 * letters dropped (`Café` -> `cafe`), so `Install`, `install` and `INSTALL` match. Runs of scripts written without
 * spaces (Chinese, Japanese, Thai, Lao, Khmer, Myanmar) are cut into words by `Intl.Segmenter` (ICU's dictionaries,
 * in Node's full ICU): `東京に行きます` is `東京 に 行き ます`, so `東京` finds it. Terms longer than 64 characters are
 * left out.
 *
 * Languages and stems: a space's language is one of SEARCH_LANGUAGES, found from its pages' text by counting the stop
 * words of each (languageVotes, detectLanguage; English when too few are found). Words of the language's script are
 * stemmed by its Snowball-family stemmer (@orama/stemmers, see README, Libraries), so `installing` and `installed`
 * share the stem `instal`. The engines index every word as itself and, when it differs, its stem (indexTokens):
 * whole words match by stem, and the last word of a query matches as the start of words as written (`configura`
 * finds `configuration`, whose stem `configur` it does not start). A query is stemmed in the language of the space
 * it searches; its stop words (the language's and English ones) are left out when other words remain.
 */
import GithubSlugger from 'github-slugger';
import { stemmer as stemDutch } from '@orama/stemmers/dutch';
import { stemmer as stemEnglish } from '@orama/stemmers/english';
import { stemmer as stemFrench } from '@orama/stemmers/french';
import { stemmer as stemGerman } from '@orama/stemmers/german';
import { stemmer as stemItalian } from '@orama/stemmers/italian';
import { stemmer as stemPortuguese } from '@orama/stemmers/portuguese';
import { stemmer as stemRussian } from '@orama/stemmers/russian';
import { stemmer as stemSpanish } from '@orama/stemmers/spanish';
import { stemmer as stemSwedish } from '@orama/stemmers/swedish';
import type { Heading, Root } from 'mdast';
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

// Nodes whose children are text of one line (phrasing content): their texts join as they are. The children of any
// other node (a list and its items, a table and its rows and cells, a quote, GitBook's blocks) are blocks apart.
const PHRASING_PARENTS = new Set(['paragraph', 'heading', 'tableCell', 'emphasis', 'strong', 'delete', 'link', 'linkReference']);

/** A node's text, its blocks apart (a line each): a list's items `one` and `two` are two words, not `onetwo`. */
function blockText(node: GitbookNode): string {
  if (node.type === 'definition' || node.type === 'liquidTag') return '';
  // Raw HTML is dropped, and parts words as a tag does (`lambda<br>mu`).
  if (node.type === 'html') return ' ';
  if (node.type === 'break') return '\n';
  if (node.type === 'image' || node.type === 'imageReference') return node.alt ?? '';
  if (node.type === 'details') return `${node.summary}\n${node.children.map(blockText).join('\n')}`;
  if ('children' in node) return (node.children as GitbookNode[]).map(blockText).join(PHRASING_PARENTS.has(node.type) ? '' : '\n');
  return 'value' in node && typeof node.value === 'string' ? node.value : '';
}

function plain(node: GitbookNode): string {
  return blockText(node).replace(TEMPLATE_TAG, ' ');
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
  return treeSections(parser.runSync(parser.parse(boundedParagraphs(markdown).text)) as Root);
}

/**
 * pageSections of a page's parsed markdown (its tree as gitbookMarkdownParser gives it, not yet changed): a page
 * rendered from the same text gives the same sections from its own parse (page-html.ts `sections`).
 */
export function treeSections(tree: Root): PageSection[] {
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

const WORD = /[\p{L}\p{N}][\p{L}\p{M}\p{N}]*/gu;
const MAX_TERM = 64;
const ASCII = /^[\x00-\x7f]*$/;
const ASCII_WORD = /[a-z0-9]+/g;
// Scripts written without spaces between words: their runs go through the segmenter.
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
// ICU's word rules use the same dictionaries (Chinese and Japanese share one) whatever the locale.
const segmenter = new Intl.Segmenter('und', { granularity: 'word' });

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

/** Each term of a text with the offset and length of its word in the text (for excerpts). */
export function* termsWithOffsets(text: string): Generator<{ term: string; offset: number; length: number }> {
  // Plain ASCII (the common case): the same words, found by a cheaper expression on the lowercased text, and no
  // normalization (lowercasing is all it would do). Several times faster, which search excerpts need.
  if (ASCII.test(text)) {
    for (const match of text.toLowerCase().matchAll(ASCII_WORD)) {
      if (match[0].length <= MAX_TERM) yield { term: match[0], offset: match.index, length: match[0].length };
    }
    return;
  }
  for (const match of text.matchAll(WORD)) {
    if (!UNSPACED.test(match[0])) {
      if (match[0].length <= MAX_TERM) yield { term: normalizeTerm(match[0]), offset: match.index, length: match[0].length };
      continue;
    }
    for (const segment of segmenter.segment(match[0])) {
      if (!segment.isWordLike || segment.segment.length > MAX_TERM) continue;
      yield { term: normalizeTerm(segment.segment), offset: match.index + segment.index, length: segment.segment.length };
    }
  }
}

/** Term frequencies of a text. */
export function termCounts(text: string, into: Map<string, number> = new Map()): Map<string, number> {
  for (const term of tokenize(text)) into.set(term, (into.get(term) ?? 0) + 1);
  return into;
}

// ---- languages

/** The languages whose words are stemmed (ISO 639-1). A space is in one of them; English when none is found. */
export const SEARCH_LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'pt', 'nl', 'sv', 'ru'] as const;
export type SearchLanguage = (typeof SEARCH_LANGUAGES)[number];

export function isSearchLanguage(value: string): value is SearchLanguage {
  return (SEARCH_LANGUAGES as readonly string[]).includes(value);
}

// The commonest function words of each language: counted to tell the language of a text, and left out of queries.
// English is today's list of query stop words (kept as it was: queries behave as before in English spaces).
const STOP_WORDS: Record<SearchLanguage, Set<string>> = Object.fromEntries(
  Object.entries({
    en: 'a an and are as at be but by for from how i if in into is it its of on or that the their then there these this to was what when where which who why will with you your',
    de: 'der die das und ist nicht ein eine einen einem einer den dem des mit sich auf für von zu im auch es sie wir ihr werden wird sind war oder aber wenn dass kann bei nach noch nur wie als um aus durch über zum zur diese dieser dieses ich du hier',
    fr: 'le la les des du un une et est que qui dans pour pas sur au aux avec ce cette ces il elle ils nous vous sont par plus ou mais se sa son ses leur ne être été à où comme tout',
    es: 'el la los las del y que en un una es por para con no se lo su sus al como más pero está este esto son ser hay muy también cuando donde puede desde',
    it: 'il lo la le gli di del della dei delle e che un una per con non si sono come ma anche nel nella questo questa al alla più essere ha da sul sulla è',
    pt: 'o a os as do da dos das e que em um uma para com não se por mais como mas ao aos no na nos nas seu sua são este esta isso ser tem é você',
    nl: 'de het een en van is dat die niet op te zijn met voor er aan ook als bij maar om dan wordt worden deze dit naar uit kan wat je u',
    sv: 'och att det som en ett är inte på med för av den till har de om jag vi du kan så men eller när från var också hur',
    ru: 'и в не на что с по как это к из у за от о для но же то все он она они мы вы так был было быть или есть если',
  }).map(([language, words]) => [language, new Set(words.split(' ').map(normalizeTerm))]),
) as Record<SearchLanguage, Set<string>>;

// Which languages each stop word is one of (many are several languages' words: `de`, `en`, `a`).
const STOP_WORD_LANGUAGES = new Map<string, SearchLanguage[]>();
for (const language of SEARCH_LANGUAGES) {
  for (const word of STOP_WORDS[language]) STOP_WORD_LANGUAGES.set(word, [...(STOP_WORD_LANGUAGES.get(word) ?? []), language]);
}

/** The words queries in `language` leave out (its stop words and English ones): a static export's search does too. */
export function queryStopWords(language: SearchLanguage): string[] {
  return [...new Set([...STOP_WORDS[language], ...STOP_WORDS.en])];
}

/** How many stop words of each language a text's terms have (languages with none are left out). */
export function languageVotes(terms: Iterable<string>, into: Map<SearchLanguage, number> = new Map()): Map<SearchLanguage, number> {
  for (const term of terms) {
    const languages = STOP_WORD_LANGUAGES.get(term);
    if (languages) for (const language of languages) into.set(language, (into.get(language) ?? 0) + 1);
  }
  return into;
}

/** Stop words of the language with the most (English on a tie), needed before a language is told. */
export const MIN_LANGUAGE_VOTES = 5;

/** The language with the most stop words, when it has a few; English otherwise. */
export function detectLanguage(votes: ReadonlyMap<string, number>): SearchLanguage {
  let best: SearchLanguage = 'en';
  for (const language of SEARCH_LANGUAGES) if ((votes.get(language) ?? 0) > (votes.get(best) ?? 0)) best = language;
  return (votes.get(best) ?? 0) >= MIN_LANGUAGE_VOTES ? best : 'en';
}

const STEMMERS: Record<SearchLanguage, { stem: (word: string) => string; script: RegExp }> = {
  en: { stem: stemEnglish, script: /^\p{Script=Latin}+$/u },
  de: { stem: stemGerman, script: /^\p{Script=Latin}+$/u },
  fr: { stem: stemFrench, script: /^\p{Script=Latin}+$/u },
  es: { stem: stemSpanish, script: /^\p{Script=Latin}+$/u },
  it: { stem: stemItalian, script: /^\p{Script=Latin}+$/u },
  pt: { stem: stemPortuguese, script: /^\p{Script=Latin}+$/u },
  nl: { stem: stemDutch, script: /^\p{Script=Latin}+$/u },
  sv: { stem: stemSwedish, script: /^\p{Script=Latin}+$/u },
  ru: { stem: stemRussian, script: /^\p{Script=Cyrillic}+$/u },
};

/**
 * The stem of a word (as written, or lower-cased) as a term: stemmed in the language with its accents (the stemmers
 * read them), then normalized like every term. Words of another script, or with digits, are their own stem.
 * `known`: stems already worked out in this language, kept by the caller (a batch of pages: their vocabulary is
 * small beside their word count).
 */
export function stemOf(word: string, language: SearchLanguage, known?: Map<string, string>): string {
  let stem = known?.get(word);
  if (stem === undefined) {
    const lower = word.toLowerCase();
    const stemmer = STEMMERS[language];
    stem = normalizeTerm(stemmer.script.test(lower) ? stemmer.stem(lower) : lower);
    known?.set(word, stem);
  }
  return stem;
}

/**
 * A text as the engines index it: its terms in order, separated by spaces, each followed by `/` and its stem when
 * that differs (`installing/instal`). Both engines see these tokens only (SQLite's FTS5 `ascii` tokenizer splits at
 * the spaces and slashes; PostgreSQL's tsvector is built from them, a stem at its word's position).
 */
export function indexTokens(text: string, language: SearchLanguage, votes?: Map<SearchLanguage, number>, stems?: Map<string, string>): string {
  const tokens: string[] = [];
  for (const { term, offset, length } of termsWithOffsets(text)) {
    const stem = stemOf(ASCII.test(term) ? term : text.slice(offset, offset + length), language, stems);
    tokens.push(stem === term ? term : `${term}/${stem}`);
    const languages = votes && STOP_WORD_LANGUAGES.get(term);
    if (languages) for (const language of languages) votes!.set(language, (votes!.get(language) ?? 0) + 1);
  }
  return tokens.join(' ');
}

// ---- queries

/** What a query searches for, in the language of the space searched. */
export interface SearchTerms {
  language: SearchLanguage;
  /** Words matched whole: as written, or by their stem. */
  exact: string[];
  /** The last word (two characters or more), matched as the start of words too. */
  prefix?: string;
  /** The stem of each word: those of `exact`, then the prefix's. */
  stems: string[];
}

/**
 * A query as search terms: its words as terms (duplicates dropped, stop words dropped unless nothing else is left);
 * the last word, when it has two characters or more, also matches longer words that start with it.
 */
export function queryTerms(query: string, language: SearchLanguage = 'en'): SearchTerms {
  const words = new Map<string, string>();
  for (const { term, offset, length } of termsWithOffsets(query)) if (!words.has(term)) words.set(term, query.slice(offset, offset + length));
  const all = [...words.keys()];
  const stop = (term: string) => STOP_WORDS[language].has(term) || STOP_WORDS.en.has(term);
  const kept = all.filter((w) => !stop(w));
  const terms = kept.length > 0 ? kept : all;
  const stems = terms.map((term) => stemOf(words.get(term)!, language));
  if (terms.length === 0) return { language, exact: [], stems: [] };
  const last = terms[terms.length - 1];
  if (last.length < 2) return { language, exact: terms, stems };
  return { language, exact: terms.slice(0, -1), prefix: last, stems };
}

/**
 * Which query term (its index: exact terms first, then the prefix) a word of a text matches; -1 for none. The same
 * rule as the engines': the word's tokens (itself and its stem) against the query's (each word and its stem; the
 * prefix as the start of a token). `word` is the word as written when it differs from its term (accents: the stem
 * is taken from it). `stems`: stems in the terms' language worked out before (stemOf's `known`).
 */
export function matchTerm(terms: SearchTerms, term: string, word: string = term, stems?: Map<string, string>): number {
  const exact = terms.exact.indexOf(term);
  if (exact >= 0) return exact;
  const stem = stemOf(word, terms.language, stems);
  for (let q = 0; q < terms.exact.length; q++) {
    if (terms.stems[q] === term || terms.stems[q] === stem || terms.exact[q] === stem) return q;
  }
  const prefix = terms.prefix;
  if (prefix === undefined) return -1;
  const q = terms.exact.length;
  return term.startsWith(prefix) || stem.startsWith(prefix) || terms.stems[q] === term || terms.stems[q] === stem ? q : -1;
}

/** Where the query's terms occur in a text: which (numbered as matchTerm numbers them), how often, the first offset. */
export interface TermsFound {
  matched: Set<number>;
  occurrences: number;
  first?: number;
}

const isAsciiWordChar = (code: number) => (code >= 48 && code <= 57) || (code >= 97 && code <= 122);

function commonStart(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return a.slice(0, i);
}

/**
 * What every word matching a query term starts with, as far as stemming goes: the start the word and its stem share,
 * less the stem's last letter when the stem is all of it (stemmers change a word's end: `happy` and `happiness`
 * share the stem `happi`, and the start `happ`). Undefined when there is no such start.
 */
function needleOf(word: string, stem: string): string | undefined {
  let needle = commonStart(word, stem);
  if (needle.length === stem.length && needle.length > 1) needle = needle.slice(0, -1);
  return needle.length > 0 ? needle : undefined;
}

/**
 * The query's terms in `text`, counted as tokenizing it and matching each term would count them. Plain ASCII text
 * (the common case) is searched with indexOf for the start each query term's words share: search results do this
 * for every section of every page they show, and tokenizing whole sections was most of their cost. `stems`: as
 * matchTerm's, shared by the caller across texts (the words of a page's sections, and of the pages shown, repeat).
 */
export function findTerms(text: string, terms: SearchTerms, stems: Map<string, string> = new Map()): TermsFound {
  return termFinder(terms, stems)(text);
}

/** findTerms for one query's terms, made once for many texts (see termFinder). */
export interface TermFinder {
  (text: string): TermsFound;
  /** Whether every start the query's words share is plain ASCII: then `scan` finds them in plain ASCII text. */
  readonly plain: boolean;
  /**
   * Each occurrence of a query term in `lower` (plain ASCII text in lower case, `plain` queries only), as its term's
   * number and its offset, term by term: what findTerms counts in that text.
   */
  scan(lower: string, visit: (q: number, offset: number) => void): void;
}

/** Whether a text is plain ASCII (findTerms searches it with indexOf). */
export const isAscii = (text: string): boolean => ASCII.test(text);

/**
 * findTerms for one query's terms, made once for many texts (the sections of the pages a search shows): what they
 * share (the start each term's words share, and whether the query is plain ASCII) is worked out here.
 */
export function termFinder(terms: SearchTerms, stems: Map<string, string> = new Map()): TermFinder {
  const words = terms.prefix !== undefined ? [...terms.exact, terms.prefix] : terms.exact;
  const needles = words.map((word, q) => needleOf(word, terms.stems[q]));
  const plain = needles.every((needle) => needle !== undefined && ASCII.test(needle)) && terms.stems.every((stem) => ASCII.test(stem));
  const scan = (lower: string, visit: (q: number, offset: number) => void) => {
    for (let q = 0; q < needles.length; q++) {
      const needle = needles[q]!;
      for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + 1)) {
        if (at > 0 && isAsciiWordChar(lower.charCodeAt(at - 1))) continue;
        let end = at + needle.length;
        while (end < lower.length && isAsciiWordChar(lower.charCodeAt(end))) end += 1;
        // The whole word is the term; it counts under this needle only if matchTerm gives it this needle's number
        // (a word equal to an exact term counts as that term, not as the prefix).
        if (end - at <= MAX_TERM && matchTerm(terms, lower.slice(at, end), undefined, stems) === q) visit(q, at);
        at = end - 1;
      }
    }
  };
  const find = (text: string) => {
    const found: TermsFound = { matched: new Set(), occurrences: 0 };
    const count = (q: number, offset: number) => {
      found.matched.add(q);
      found.occurrences += 1;
      if (found.first === undefined || offset < found.first) found.first = offset;
    };
    if (!plain || !ASCII.test(text)) {
      for (const { term, offset, length } of termsWithOffsets(text)) {
        const q = matchTerm(terms, term, text.slice(offset, offset + length), stems);
        if (q >= 0) count(q, offset);
      }
      return found;
    }
    scan(text.toLowerCase(), count);
    return found;
  };
  return Object.assign(find, { plain, scan });
}

/** The number of query terms (exact terms, and the prefix) of a search. */
export function termCount(terms: SearchTerms): number {
  return terms.exact.length + (terms.prefix !== undefined ? 1 : 0);
}
