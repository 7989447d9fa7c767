/**
 * SUMMARY.md, the table of contents of a space (docs/git-format.md "SUMMARY.md"), read the way the hosted
 * platform writes it and tolerates it:
 *
 *   # Table of contents                       <- a first H1 (any text; optional)
 *
 *   * [Introduction](README.md)               <- a page: `[Title](path "Sidebar title")`
 *     * [Install](install.md "Install it")    <- nested by indentation (2 or 4 spaces, or tabs)
 *   * [Status](https://status.example.com)    <- a URL or an `#anchor`: a link page
 *   * [Install again](install.md#linux)       <- a file listed again: a link page to the first listing's page
 *   * ```yaml                                 <- a fenced YAML block: a computed page (`type: builtin:openapi`)
 *     type: builtin:openapi
 *     ```
 *
 *   ## Reference <a href="#ref" id="ref"></a>  <- any other heading: a group of the items that follow
 *   * [API](api.md)
 *
 * Link text is the page's title, the quoted link title its sidebar title (the hosted platform's "page link title").
 * Paths are relative to the SUMMARY.md's folder (`/` = the content root), backslash escapes and percent escapes
 * (`%20`) decoded, optionally written `<...>`; a path ending with `/`, or naming a folder that has a README.md,
 * means that README.md. Blank lines, HTML comments and thematic breaks (`---`) are ignored.
 *
 * What the hosted platform tolerates is a warning, never a reason to refuse: text that is not an item, an item that
 * is not a link (its nested items take its place), a target outside the content root or that is not a `.md` file,
 * a listed file that does not exist (skipped, its nested items take its place), a file listed again (a link page).
 * The only error is a fenced YAML item that does not parse (YAML Quire must read).
 *
 * This module is the grammar; SUMMARY.md is written back by ./summary-writing.ts, and parses are kept across builds
 * by ./summary-kept.ts.
 */
import yaml from 'js-yaml';
import type { ContentProblem } from './model.js';
import { atxHeading } from './atx-heading.js';
import { referencedCharacter, withoutTags } from './html-text.js';
import { decodePath, folderOf, isUnder, isUrl, relativePath, resolvePath } from './paths.js';
import { isAllowedUrl, urlScheme } from './url-scheme.js';

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
  /** The `#anchor` written after the path, if any (kept so the item is written back as it was). */
  anchor?: string;
  /** 1-based line in SUMMARY.md (set by parseSummary). */
  line?: number;
  children: SummaryItem[];
}

export interface SummaryLinkItem {
  type: 'link';
  title: string;
  tocTitle?: string;
  /** The URL, `#anchor` or path, as written. */
  href: string;
  /** For a file listed again: its path from the repository root (its first listing is the page), and the anchor. */
  pageGitPath?: string;
  anchor?: string;
  line?: number;
  children: SummaryItem[];
}

/** A fenced YAML block as an item: a computed page (`type: builtin:openapi`, `props`, `dependencies`). */
export interface SummaryComputedItem {
  type: 'computed';
  /** The block's `title`, else the name of the spec it depends on, else its `type`. */
  title: string;
  /** The parsed mapping. */
  source: Record<string, unknown>;
  /** The YAML text as written, without the item's indentation (written back unchanged). */
  yaml?: string;
  line?: number;
  children: SummaryItem[];
}

export type SummaryItem = SummaryPageItem | SummaryLinkItem | SummaryComputedItem;

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
  /**
   * Whether a blob exists at a path from the repository root. When given, a listed file that does not exist is
   * skipped (a warning), and a target without `.md` may name a folder with a README.md.
   */
  exists?: (gitPath: string) => boolean;
}

export interface ParsedSummary {
  structure: SummaryStructure;
  problems: ContentProblem[];
}

export const DEFAULT_SUMMARY_TITLE = 'Table of contents';

const FENCE_START = /^(`{3,}|~{3,})([^`]*)$/;
const LIST_ITEM = /^([ \t]*)(?:[*+-]|\d{1,9}[.)])(?:[ \t]+(.*))?$/;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;

/** Indentation width of leading whitespace: a tab advances to the next multiple of 4. */
function indentWidth(whitespace: string): number {
  let width = 0;
  for (const char of whitespace) width = char === '\t' ? width + 4 - (width % 4) : width + 1;
  return width;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/**
 * Backslash escapes of ASCII punctuation, numeric character references (CommonMark's 1-6 hex or 1-7 decimal
 * digits; one that names no character is U+FFFD) and the common HTML entities, as markdown reads them.
 */
function unescapeMarkdown(text: string): string {
  return text
    .replace(/\\([!-/:-@[-`{-~])/g, '$1')
    .replace(/&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z][a-zA-Z0-9]{0,31});/g, (whole, name: string) => {
      if (name[1] === 'x' || name[1] === 'X') return referencedCharacter(parseInt(name.slice(2), 16));
      if (name[0] === '#') return referencedCharacter(parseInt(name.slice(1), 10));
      return ENTITIES[name] ?? whole;
    });
}

/** Heading text without HTML tags (the hosted platform appends `<a href="#x" id="x"></a>` anchors). */
function headingText(raw: string): string {
  return unescapeMarkdown(withoutTags(raw)).replace(/\s+/g, ' ').trim();
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
  const warn = (line: number, message: string): void => void problems.push({ path, line, message, severity: 'warning' });
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
    const heading = atxHeading(line);
    if (heading) {
      stack = [];
      const title = headingText(heading.text);
      if (!seenContent && heading.level === 1) {
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
      warn(lineNo, `not an item of the table of contents (\`* [Title](page.md)\` or a \`## Group\` heading), ignored: "${line.trim()}"`);
      continue;
    }
    const indent = indentWidth(listItem[1]);
    const content = listItem[2] ?? '';
    while (stack.length > 0 && stack[stack.length - 1].indent >= indent) stack.pop();
    let item: SummaryItem | undefined;
    const fence = FENCE_START.exec(content.trim());
    if (fence) {
      // The block's lines are indented to the item's content; they end at a closing fence (or the end of the file).
      const contentColumn = line.length - content.length;
      const body: string[] = [];
      let closed = false;
      for (index++; index < lines.length; index++) {
        const inner = lines[index];
        const trimmed = inner.trim();
        if (/^(`+|~+)$/.test(trimmed) && trimmed[0] === fence[1][0] && trimmed.length >= fence[1].length) {
          closed = true;
          break;
        }
        const strip = Math.min(contentColumn, /^[ \t]*/.exec(inner)![0].length);
        body.push(inner.slice(strip));
      }
      if (!closed) index = lines.length;
      item = computedItem(body.join('\n'), lineNo);
    } else {
      const link = parseMarkdownLink(content);
      if (!link) {
        warn(lineNo, `an item is a link \`[Title](page.md)\`, found "${content.trim()}": its nested items are shown in its place`);
        continue;
      }
      item = makeItem(link, lineNo);
    }
    if (!item) continue;
    const parent = stack[stack.length - 1];
    if (parent) parent.item.children.push(item);
    else if (group) group.items.push(item);
    else structure.entries.push(item);
    stack.push({ indent, item });
  }
  return { structure, problems };

  function computedItem(source: string, lineNo: number): SummaryComputedItem | undefined {
    let data: unknown;
    try {
      data = yaml.load(source, { schema: yaml.CORE_SCHEMA });
    } catch (error) {
      const e = error as yaml.YAMLException;
      problems.push({ path, line: lineNo + 1 + (e.mark ? e.mark.line : 0), message: `the YAML block of this item does not parse: ${e.reason ?? e.message}` });
      return undefined;
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data) || typeof (data as Record<string, unknown>).type !== 'string') {
      warn(lineNo, 'a YAML block item is a mapping with a `type` (such as `builtin:openapi`): ignored');
      return undefined;
    }
    const mapping = data as Record<string, unknown>;
    return { type: 'computed', title: computedTitle(mapping), source: mapping, yaml: source, line: lineNo, children: [] };
  }

  function makeItem(link: ParsedLink, lineNo: number): SummaryItem | undefined {
    const base = { title: link.text, ...(link.title !== undefined ? { tocTitle: link.title } : {}), line: lineNo, children: [] };
    const destination = link.destination.trim();
    if (destination === '') {
      warn(lineNo, `the link "${link.text}" has no target: ignored, its nested items are shown in its place`);
      return undefined;
    }
    if (!isAllowedUrl(destination)) {
      warn(lineNo, `the link "${link.text}" leads to a ${urlScheme(destination)}: URL: ignored (a link leads to a page, an http(s) or a mailto URL), its nested items are shown in its place`);
      return undefined;
    }
    if (isUrl(destination) || destination.startsWith('#')) return { type: 'link', ...base, href: destination };
    const hash = destination.indexOf('#');
    const written = hash < 0 ? destination : destination.slice(0, hash);
    const anchor = hash < 0 || hash === destination.length - 1 ? undefined : destination.slice(hash + 1);
    const gitPath = resolveTarget(written);
    if (gitPath === undefined) return undefined;
    const earlier = listed.get(gitPath);
    if (earlier !== undefined) {
      warn(lineNo, `${gitPath} is already listed on line ${earlier}: shown as a link to that page`);
      return { type: 'link', ...base, href: destination, pageGitPath: gitPath, ...(anchor !== undefined ? { anchor } : {}) };
    }
    listed.set(gitPath, lineNo);
    return { type: 'page', ...base, path: relativePath(folder, gitPath), gitPath, ...(anchor !== undefined ? { anchor } : {}) };

    /** The listed file's path from the repository root, or undefined (with a warning) when it names none. */
    function resolveTarget(target: string): string | undefined {
      const candidates = [...new Set([decodePath(target), target])].map((written) => {
        const file = written.endsWith('/') ? `${written}README.md` : written;
        return resolvePath(target.startsWith('/') ? root : folder, file.replace(/^\/+/, ''));
      });
      const inside = candidates.filter((c): c is string => c !== undefined && c !== '' && isUnder(c, root));
      if (inside.length === 0) {
        warn(lineNo, `${target} points outside the content root: ignored`);
        return undefined;
      }
      const { exists } = options;
      for (const candidate of inside) {
        if (/\.md$/i.test(candidate) && (!exists || exists(candidate))) return candidate;
        // A folder named without its trailing slash: its README.md.
        if (exists && exists(`${candidate}/README.md`)) return `${candidate}/README.md`;
      }
      if (!/\.md$/i.test(inside[0])) warn(lineNo, `${target} is not a markdown file (an item points at a .md file, a URL or an #anchor): ignored`);
      else warn(lineNo, `the listed file ${inside[0]} does not exist: ignored, its nested items are shown in its place`);
      return undefined;
    }
  }
}

/** The title of a computed item: its `title`, else the spec it depends on, else its `type`. */
function computedTitle(source: Record<string, unknown>): string {
  if (typeof source.title === 'string' && source.title.trim() !== '') return source.title.trim();
  const dependencies = source.dependencies as { spec?: { ref?: { spec?: unknown } } } | undefined;
  const spec = dependencies?.spec?.ref?.spec;
  if (typeof spec === 'string' && spec !== '') return spec;
  return String(source.type);
}
