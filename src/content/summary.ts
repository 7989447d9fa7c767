/**
 * SUMMARY.md, the table of contents of a space (git-format.md "SUMMARY.md grammar"):
 *
 *   # Table of contents                       <- an H1 first line (any text; optional here)
 *
 *   * [Introduction](README.md)               <- a page: `[Title](path "optional toc title")`
 *     * [Install](install.md "Install it")    <- nested by indentation (2 or 4 spaces, or tabs)
 *   * [Status](https://status.example.com)    <- a URL or an `#anchor`: a link page
 *
 *   ## Reference                              <- a top-level heading: a group of the items that follow
 *   * [API](api.md)
 *
 * Paths are relative to the SUMMARY.md's folder, percent-decoded (`%20`), optionally written `<...>`; a path ending
 * with `/` means that folder's README.md. Blank lines, HTML comments and thematic breaks (`---`) are ignored. Any
 * other text is a problem, as is an item that is not a link, a target outside the content root, a file listed
 * twice, a target that is not a `.md` file, and a listed file that does not exist.
 */
import type { ContentProblem } from './model.js';
import { decodePath, folderOf, isUnder, isUrl, relativePath, resolvePath } from './paths.js';

export interface SummaryPageItem {
  type: 'page';
  /** The link text. */
  title: string;
  /** The quoted link title: the title shown in the table of contents. */
  tocTitle?: string;
  /** Path of the page's file relative to the SUMMARY.md's folder (decoded, normalized). */
  path: string;
  /** Path of the page's file from the repository root (set by parseSummary). */
  gitPath?: string;
  /** 1-based line in SUMMARY.md (set by parseSummary). */
  line?: number;
  children: SummaryItem[];
}

export interface SummaryLinkItem {
  type: 'link';
  title: string;
  tocTitle?: string;
  /** The URL or `#anchor`, as written. */
  href: string;
  line?: number;
  children: SummaryItem[];
}

export type SummaryItem = SummaryPageItem | SummaryLinkItem;

export interface SummaryGroup {
  type: 'group';
  title: string;
  line?: number;
  items: SummaryItem[];
}

export type SummaryEntry = SummaryItem | SummaryGroup;

export interface SummaryStructure {
  /** The H1 text ('Table of contents' when there is none). */
  title: string;
  /** Items before the first group, and groups, in order. */
  entries: SummaryEntry[];
}

export interface ParseSummaryOptions {
  /** Path of SUMMARY.md from the repository root (problems name it; targets resolve against its folder). */
  path: string;
  /** Content root ('' or a folder prefix ending with '/'): targets may not leave it. */
  root?: string;
  /** Whether a blob exists at a path from the repository root; when given, listed files must exist. */
  exists?: (gitPath: string) => boolean;
}

export interface ParsedSummary {
  structure: SummaryStructure;
  problems: ContentProblem[];
}

export const DEFAULT_SUMMARY_TITLE = 'Table of contents';

const HEADING = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const LIST_ITEM = /^([ \t]*)(?:[*+-]|\d{1,9}[.)])(?:[ \t]+(.*))?$/;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;

/** Indentation width of leading whitespace: a tab advances to the next multiple of 4. */
function indentWidth(whitespace: string): number {
  let width = 0;
  for (const char of whitespace) width = char === '\t' ? width + 4 - (width % 4) : width + 1;
  return width;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Backslash escapes of ASCII punctuation and the common HTML entities, as markdown reads them. */
function unescapeMarkdown(text: string): string {
  return text
    .replace(/\\([!-/:-@[-`{-~])/g, '$1')
    .replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, name: string) => {
      if (name.startsWith('#x') || name.startsWith('#X')) return String.fromCodePoint(parseInt(name.slice(2), 16));
      if (name.startsWith('#')) return String.fromCodePoint(parseInt(name.slice(1), 10));
      return ENTITIES[name] ?? whole;
    });
}

/** Heading text without HTML tags (the hosted platform appends `<a href="#x" id="x"></a>` anchors). */
function headingText(raw: string): string {
  return unescapeMarkdown(raw.replace(/<[^>]*>/g, '')).replace(/\s+/g, ' ').trim();
}

interface ParsedLink {
  text: string;
  destination: string;
  title?: string;
}

/** `[text](destination "title")` filling the whole of `input`, or undefined. */
export function parseMarkdownLink(input: string): ParsedLink | undefined {
  const s = input.trim();
  if (!s.startsWith('[')) return undefined;
  let i = 1;
  let depth = 1;
  for (; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[') depth++;
    else if (c === ']' && --depth === 0) break;
  }
  if (depth !== 0) return undefined;
  const text = s.slice(1, i);
  i++;
  if (s[i] !== '(') return undefined;
  i++;
  while (s[i] === ' ' || s[i] === '\t') i++;
  let destination: string;
  if (s[i] === '<') {
    const end = s.indexOf('>', i + 1);
    if (end < 0) return undefined;
    destination = s.slice(i + 1, end);
    i = end + 1;
  } else {
    const start = i;
    let parens = 0;
    for (; i < s.length; i++) {
      const c = s[i];
      if (c === '\\') {
        i++;
        continue;
      }
      if (c === ' ' || c === '\t') break;
      if (c === '(') parens++;
      else if (c === ')') {
        if (parens === 0) break;
        parens--;
      }
    }
    destination = s.slice(start, i);
  }
  while (s[i] === ' ' || s[i] === '\t') i++;
  let title: string | undefined;
  const open = s[i];
  if (open === '"' || open === "'" || open === '(') {
    const close = open === '(' ? ')' : open;
    let j = i + 1;
    for (; j < s.length; j++) {
      if (s[j] === '\\') {
        j++;
        continue;
      }
      if (s[j] === close) break;
    }
    if (j >= s.length) return undefined;
    title = unescapeMarkdown(s.slice(i + 1, j));
    i = j + 1;
    while (s[i] === ' ' || s[i] === '\t') i++;
  }
  if (s[i] !== ')' || i !== s.length - 1) return undefined;
  return { text: unescapeMarkdown(text).trim(), destination: unescapeMarkdown(destination), title };
}

/** Parses SUMMARY.md. Problems carry the line; the structure holds every item that could be read. */
export function parseSummary(text: string, options: ParseSummaryOptions): ParsedSummary {
  const path = options.path;
  const root = options.root ?? '';
  const folder = folderOf(path);
  const problems: ContentProblem[] = [];
  const structure: SummaryStructure = { title: DEFAULT_SUMMARY_TITLE, entries: [] };
  const listed = new Map<string, number>();

  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const lines = text.split(/\r?\n/);
  let seenContent = false;
  let group: SummaryGroup | undefined;
  /** Open items by indentation: an item is a child of the nearest one indented less. */
  let stack: { indent: number; item: SummaryItem }[] = [];
  let inComment = false;

  for (let index = 0; index < lines.length; index++) {
    const lineNo = index + 1;
    const line = lines[index];
    if (inComment) {
      if (line.includes('-->')) inComment = false;
      continue;
    }
    if (line.trim() === '') continue;
    if (/^\s*<!--/.test(line)) {
      if (!line.includes('-->')) inComment = true;
      continue;
    }
    if (THEMATIC_BREAK.test(line)) {
      stack = [];
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      stack = [];
      const title = headingText(heading[2] ?? '');
      if (!seenContent && heading[1].length === 1) {
        structure.title = title;
      } else {
        group = { type: 'group', title, line: lineNo, items: [] };
        structure.entries.push(group);
      }
      seenContent = true;
      continue;
    }
    seenContent = true;
    const listItem = LIST_ITEM.exec(line);
    if (!listItem) {
      problems.push({ path, line: lineNo, message: `expected a list item \`* [Title](page.md)\` or a \`## Group\` heading, found "${line.trim()}"` });
      continue;
    }
    const indent = indentWidth(listItem[1]);
    const content = listItem[2] ?? '';
    const link = parseMarkdownLink(content);
    while (stack.length > 0 && stack[stack.length - 1].indent >= indent) stack.pop();
    if (!link) {
      problems.push({ path, line: lineNo, message: `a list item must be a link \`[Title](page.md)\`, found "${content.trim()}"` });
      continue;
    }
    const item = makeItem(link, lineNo);
    if (!item) continue;
    const parent = stack[stack.length - 1];
    if (parent) parent.item.children.push(item);
    else if (group) group.items.push(item);
    else structure.entries.push(item);
    stack.push({ indent, item });
  }
  return { structure, problems };

  function makeItem(link: ParsedLink, lineNo: number): SummaryItem | undefined {
    const base = { title: link.text, ...(link.title !== undefined ? { tocTitle: link.title } : {}), line: lineNo, children: [] };
    const destination = link.destination.trim();
    if (destination === '') {
      problems.push({ path, line: lineNo, message: `the link "${link.text}" has no target` });
      return undefined;
    }
    if (isUrl(destination) || destination.startsWith('#')) return { type: 'link', ...base, href: destination };
    let decoded = decodePath(destination);
    if (decoded.endsWith('/')) decoded += 'README.md';
    const gitPath = resolvePath(destination.startsWith('/') ? root : folder, decoded.replace(/^\/+/, ''));
    if (gitPath === undefined || !isUnder(gitPath, root) || gitPath === '') {
      problems.push({ path, line: lineNo, message: `${destination} points outside the content root` });
      return undefined;
    }
    if (!/\.md$/i.test(gitPath)) {
      problems.push({ path, line: lineNo, message: `${destination} is not a markdown file: an item points at a .md file, a URL or an #anchor` });
      return undefined;
    }
    const earlier = listed.get(gitPath);
    if (earlier !== undefined) {
      problems.push({ path, line: lineNo, message: `${gitPath} is already listed on line ${earlier}: a file may be listed once` });
      return undefined;
    }
    listed.set(gitPath, lineNo);
    if (options.exists && !options.exists(gitPath)) {
      problems.push({ path, line: lineNo, message: `the listed file ${gitPath} does not exist` });
      return undefined;
    }
    return { type: 'page', ...base, path: relativePath(folder, gitPath), gitPath };
  }
}

function escapeLinkText(text: string): string {
  return text.replace(/[\\[\]]/g, '\\$&');
}

function encodeDestination(path: string): string {
  return path.replace(/[%\s()<>]/g, (c) => encodeURIComponent(c).replace(/[()]/g, (p) => (p === '(' ? '%28' : '%29')));
}

function serializeItems(items: SummaryItem[], depth: number, out: string[]): void {
  for (const item of items) {
    const destination = item.type === 'link' ? item.href : encodeDestination(item.path);
    const title = item.tocTitle !== undefined ? ` "${item.tocTitle.replace(/[\\"]/g, '\\$&')}"` : '';
    out.push(`${'  '.repeat(depth)}* [${escapeLinkText(item.title)}](${destination}${title})`);
    serializeItems(item.children, depth + 1, out);
  }
}

/**
 * The lines of SUMMARY.md entries in the seen format: `* ` items nested by two spaces, each group as a blank line,
 * `## Title`, a blank line and its items. Items that follow a group in `entries` are written after it (and so read
 * back as its items).
 */
export function serializeSummaryEntries(entries: SummaryEntry[]): string[] {
  const out: string[] = [];
  let pendingItems: SummaryItem[] = [];
  const flush = (): void => {
    if (pendingItems.length > 0) serializeItems(pendingItems, 0, out);
    pendingItems = [];
  };
  for (const entry of entries) {
    if (entry.type === 'group') {
      flush();
      if (out.length > 0 && out[out.length - 1] !== '') out.push('');
      out.push(`## ${entry.title}`, '');
      serializeItems(entry.items, 0, out);
    } else {
      pendingItems.push(entry);
    }
  }
  flush();
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out;
}

/**
 * SUMMARY.md text in the seen format: `# Title`, a blank line, then the entries (serializeSummaryEntries). Page
 * paths are written relative to the SUMMARY.md's folder (`path`), with spaces and parentheses percent-encoded.
 */
export function serializeSummary(structure: SummaryStructure): string {
  const out: string[] = [`# ${structure.title || DEFAULT_SUMMARY_TITLE}`, '', ...serializeSummaryEntries(structure.entries)];
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return `${out.join('\n')}\n`;
}
