/**
 * What a repository should show, read from the repository itself without any of Quire's code: `.gitbook.yaml`
 * (`root`, `structure.summary`) and SUMMARY.md, parsed here on purpose (a bug in Quire's parser must not hide
 * itself by being reused). Simple rules, the hosted platform's as its documentation and real repositories show them:
 *
 * - A list item (`*`, `-` or `+`, any indentation) holding a link `[text](target "optional sidebar title")` is a
 *   page; its title is the link text (backslash escapes removed). The target may be written `<...>`, carry
 *   backslash escapes and percent-escapes, and an `#anchor` (dropped). A target ending with `/` is that folder's
 *   README.md; one starting with `/` is from the content root, any other from the SUMMARY.md's folder.
 * - An item whose target has a scheme (`https:`) or is an `#anchor` is a URL item (a link page); one whose text starts a
 *   fenced ```` ```yaml ```` block is a computed page.
 * - The first heading, when it is a `#` heading before any item, is the table's title; every other heading is a
 *   group (its `<a ...></a>` anchors and closing `#`s dropped).
 * - Anything else (blank lines, comments, prose) is ignored.
 */
import { normalizePath } from '../../src/content/paths.js';
import yaml from 'js-yaml';

export interface SummaryListing {
  /** Path of the target from the repository's top (root included). */
  gitPath: string;
  /** The link text, unescaped and trimmed. */
  title: string;
  line: number;
}

export interface ExpectedSummary {
  /** Every listing of a `.md` target, in order (a file may be listed more than once). */
  listings: SummaryListing[];
  /** Group headings, in order. */
  groups: string[];
  /** Items whose target is a URL or an `#anchor` (link pages). */
  urlItems: number;
  /** Fenced ```yaml blocks listed as items. */
  computedItems: number;
  /** Targets that are neither `.md` files nor URLs (`folder/page.html`), as written. */
  otherTargets: string[];
}

export interface RepositoryLayout {
  /** Content root: '' or a folder ending with '/'. */
  root: string;
  /** The SUMMARY.md's path from the repository's top. */
  summaryPath: string;
}

/** Characters the hosted platform's editors leave around YAML keys (zero-width space, byte order mark). */
const INVISIBLE = /[\u200B\uFEFF]/g;


/** The content root and SUMMARY.md path a `.gitbook.yaml` (or its absence: undefined) gives. */
export function layoutOf(configText: string | undefined): RepositoryLayout {
  let data: unknown;
  try {
    data = configText === undefined ? undefined : yaml.load(configText.replace(INVISIBLE, ''));
  } catch {
    data = undefined;
  }
  const config = typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : {};
  const structure = typeof config.structure === 'object' && config.structure !== null ? (config.structure as Record<string, unknown>) : {};
  const rootText = typeof config.root === 'string' ? normalizePath(config.root.trim()) ?? '' : '';
  const root = rootText === '' ? '' : `${rootText}/`;
  const summary = typeof structure.summary === 'string' ? normalizePath(structure.summary.trim()) ?? 'SUMMARY.md' : 'SUMMARY.md';
  return { root, summaryPath: root + summary };
}

/** Removes markdown backslash escapes (`\_`, `\[`, `\(`). */
function unescapeMarkdown(text: string): string {
  return text.replace(/\\([!-/:-@[-`{-~])/g, '$1');
}

function percentDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Index just past the `]` that closes the `[` at `open` (nested brackets and escapes allowed), or -1. */
function closingBracket(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '[') depth++;
    else if (c === ']' && --depth === 0) return i + 1;
  }
  return -1;
}

/** The target of a link destination starting at `start` (just after `(`): `<a b.md>` or `a\(1\).md`. */
function destination(text: string, start: number): string | undefined {
  let i = start;
  while (text[i] === ' ') i++;
  if (text[i] === '<') {
    const end = text.indexOf('>', i);
    return end < 0 ? undefined : text.slice(i + 1, end);
  }
  let depth = 0;
  let out = '';
  for (; i < text.length; i++) {
    const c = text[i];
    if (c === '\\' && i + 1 < text.length) {
      out += c + text[++i];
      continue;
    }
    if (c === ' ' || (c === ')' && depth === 0)) return out;
    if (c === '(') depth++;
    if (c === ')') depth--;
    out += c;
  }
  return undefined;
}

/** The first `[text](target)` of a list item's text. */
function firstLink(text: string): { title: string; target: string } | undefined {
  const open = text.indexOf('[');
  if (open < 0) return undefined;
  const close = closingBracket(text, open);
  if (close < 0 || text[close] !== '(') return undefined;
  const target = destination(text, close + 1);
  if (target === undefined) return undefined;
  return { title: unescapeMarkdown(text.slice(open + 1, close - 1)).trim(), target };
}

/** Resolves a SUMMARY.md target to a path from the repository's top; undefined when it leaves the root. */
function resolveTarget(target: string, layout: RepositoryLayout): string | undefined {
  const withoutAnchor = target.replace(/(?<!\\)#.*$/, '');
  let path = percentDecode(unescapeMarkdown(withoutAnchor));
  if (path === '' || path.endsWith('/')) path += 'README.md';
  const folder = layout.summaryPath.slice(0, layout.summaryPath.lastIndexOf('/') + 1);
  const resolved = path.startsWith('/') ? normalizePath(layout.root + path) : normalizePath(folder + path);
  return resolved !== undefined && resolved.startsWith(layout.root) ? resolved : undefined;
}

/** Reads SUMMARY.md by the rules at the top of this file. */
export function parseExpectedSummary(text: string, layout: RepositoryLayout): ExpectedSummary {
  const expected: ExpectedSummary = { listings: [], groups: [], urlItems: 0, computedItems: 0, otherTargets: [] };
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  let seenContent = false;
  let fence: string | undefined;
  let inComment = false;
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    if (fence !== undefined) {
      if (line.trim() === fence) fence = undefined;
      continue;
    }
    if (inComment) {
      if (line.includes('-->')) inComment = false;
      continue;
    }
    if (/^\s*<!--/.test(line)) {
      inComment = !line.includes('-->');
      continue;
    }
    const heading = /^\s{0,3}(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      const title = heading[2]
        .replace(/<a\b[^>]*>\s*<\/a>/gi, '')
        .replace(/\s#+\s*$/, '')
        .trim();
      if (!seenContent && heading[1] === '#') {
        seenContent = true;
        continue;
      }
      seenContent = true;
      expected.groups.push(unescapeMarkdown(title));
      continue;
    }
    const item = /^\s*[*+-]\s+(.*)$/.exec(line);
    if (!item) continue;
    seenContent = true;
    const body = item[1];
    const fenceOpen = /^(`{3,}|~{3,})\s*yaml\b/i.exec(body);
    if (fenceOpen) {
      expected.computedItems++;
      fence = fenceOpen[1];
      continue;
    }
    const link = firstLink(body);
    if (!link) continue;
    if (/^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(link.target) || link.target.startsWith('//') || link.target.startsWith('#')) {
      expected.urlItems++;
      continue;
    }
    const gitPath = resolveTarget(link.target, layout);
    if (gitPath === undefined || !/\.md$/i.test(gitPath)) {
      expected.otherTargets.push(link.target);
      continue;
    }
    expected.listings.push({ gitPath, title: link.title, line: index + 1 });
  }
  return expected;
}

/** The `.md` files that are pages when there is no SUMMARY.md: all under the root, outside folders named `.x`. */
export function pagesWithoutSummary(blobPaths: readonly string[], layout: RepositoryLayout): string[] {
  return blobPaths.filter(
    (path) => path.startsWith(layout.root) && /\.md$/i.test(path) && !path.slice(layout.root.length).split('/').some((segment) => segment.startsWith('.')),
  );
}
