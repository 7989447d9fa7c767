/**
 * A page file (docs/git-format.md "A page file"): front matter keys -> DocumentPage fields, the first `# H1` -> title,
 * the rest -> markdown; and back (writePageFile), keeping what Quire did not change byte for byte.
 *
 * Title (the hosted platform's "Content configuration": in SUMMARY.md `* [Page main title](page.md "Page link
 * title")`, the link text is the page's title and the quoted text its title in the sidebar): the SUMMARY.md link
 * text when there is one (`summaryTitle`); else the body's title heading; else the file name (a folder's README: the
 * folder's name). The title heading is the first depth-1 heading (ATX `# T` or setext `T\n===`) that is a top-level
 * block of the body, as remark reads it (so a `#` line inside a code fence, a list or a quote is not a title).
 *
 * `markdown` is the body without its title heading when that heading is the title: with no SUMMARY.md title, or
 * when it reads the same as the SUMMARY.md title (sameTitle: whitespace, Unicode normalization and emoji variation
 * selectors aside). Text before the heading, if any, is kept in front of the rest (`before\n\nafter`). When SUMMARY.md
 * gives another title, the heading is not the title and stays in `markdown` as written, so no text is lost and
 * writing the page back (writePageFile) gives the same bytes. Leading blank lines are trimmed either way.
 *
 * Front matter: a key set to null (`description:` with nothing after it) counts as absent. Any other value of the
 * wrong type is a problem, never silently dropped.
 */
import type { Heading, Nodes, Root } from 'mdast';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { frontMatterKeyLine, parseFrontMatter, stringifyFrontMatter, type FrontMatter } from './frontmatter.js';
import type { ContentProblem, DocumentPage, PageCover, PageLayout } from './model.js';
import { ContentError } from './problems.js';
import { boundedParagraphs, MAX_PARAGRAPH } from './bounded-markdown.js';
import { atxHeading } from './atx-heading.js';
import { decodePath, folderOf, isUnder, isUrl, resolvePath } from './paths.js';

const markdownParser = unified().use(remarkParse);

export const DEFAULT_LAYOUT: Readonly<PageLayout> = Object.freeze({
  width: 'default',
  cover: true,
  coverSize: 'hero',
  title: true,
  description: true,
  tableOfContents: true,
  outline: true,
  pagination: true,
  metadata: true,
});

/** Layout flags kept as `layout.<key>.visible`, in the order they are written. */
export const LAYOUT_FLAGS = ['cover', 'title', 'description', 'tableOfContents', 'outline', 'pagination', 'metadata'] as const;

const ID_PATTERN = /^[a-zA-Z0-9_-]+$/;

// ---------------------------------------------------------------------------------------------------------------
// Title

export interface TitleSplit {
  /** The H1 text; undefined when the body has no title heading. */
  title?: string;
  /** The body without the heading, leading blank lines trimmed. */
  markdown: string;
}

const CANDIDATE_ATX = /^ {0,3}#(?:[ \t]|$)/;
const CANDIDATE_SETEXT = /^ {0,3}=+[ \t]*$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;

function trimLeadingBlankLines(text: string): string {
  return text.replace(/^(?:[ \t]*\r?\n)+/, '');
}

function inlineText(node: Nodes): string {
  if (node.type === 'html') return '';
  if ('value' in node && typeof node.value === 'string') return node.value;
  if ('children' in node) return (node.children as Nodes[]).map(inlineText).join('');
  if (node.type === 'break') return ' ';
  return '';
}

function firstH1(root: Root): Heading | undefined {
  for (const child of root.children) if (child.type === 'heading' && child.depth === 1) return child;
  return undefined;
}

function lineEndAfter(text: string, offset: number): number {
  const newline = text.indexOf('\n', offset);
  return newline < 0 ? text.length : newline + 1;
}

function splitAt(body: string, title: string, start: number, end: number): TitleSplit {
  const before = body.slice(0, start);
  const after = trimLeadingBlankLines(body.slice(lineEndAfter(body, end)));
  const kept = before.trimEnd();
  const markdown = kept === '' ? after : after === '' ? `${kept}\n` : `${kept}\n\n${after}`;
  return { title: title.replace(/\s+/g, ' ').trim(), markdown };
}

/** The title split at the first H1 remark finds in `text` (a prefix of `body`, read with bounded paragraphs). */
function parsedTitle(body: string, text: string): TitleSplit | undefined {
  const bounded = boundedParagraphs(text);
  const heading = firstH1(markdownParser.parse(bounded.text));
  if (!heading?.position) return undefined;
  const start = bounded.originalOffset(heading.position.start.offset ?? 0);
  const end = bounded.originalOffset(heading.position.end.offset ?? 0);
  // `end` is the end of the heading's last line (before its newline).
  return splitAt(body, inlineText(heading), start, Math.max(start, end - 1));
}

/**
 * The first `# H1` of a markdown body and the body without it. Parses as little as it can: a plain first-line H1
 * needs no parser; otherwise remark parses the body up to each candidate line (a few at most), then all of it.
 */
export function splitTitle(body: string): TitleSplit {
  return splitTitles([body])[0];
}

/**
 * splitTitle for many bodies at once, as fast as it can be: plain first-line H1s need no parser, first-line H1s with
 * inline markup (`# Install *the* CLI`) are parsed by remark together in one document (ATX headings are one line
 * each and cannot affect one another when separated by blank lines), the rest one by one.
 */
export function splitTitles(bodies: string[]): TitleSplit[] {
  const results: TitleSplit[] = new Array(bodies.length);
  const batch: { index: number; line: string; offset: number; end: number }[] = [];
  bodies.forEach((body, index) => {
    const trimmed = trimLeadingBlankLines(body);
    const newline = trimmed.indexOf('\n');
    const lineEnd = newline < 0 ? trimmed.length : newline + 1;
    const line = trimmed.slice(0, newline > 0 && trimmed[newline - 1] === '\r' ? newline - 1 : newline < 0 ? trimmed.length : newline);
    // A very long heading line is read by the bounded parse of splitTitleSlowly.
    const first = lineEnd > MAX_PARAGRAPH ? undefined : atxHeading(line);
    if (first?.level !== 1) {
      results[index] = splitTitleSlowly(body);
      return;
    }
    const offset = body.length - trimmed.length;
    const end = offset + lineEnd - 1;
    const plain = inlinePlainText(first.text);
    if (plain !== undefined) results[index] = splitAt(body, plain, offset, end);
    else batch.push({ index, line, offset, end });
  });
  if (batch.length > 0) {
    const tree = markdownParser.parse(batch.map((item) => item.line).join('\n\n'));
    const headings = tree.children;
    const aligned =
      headings.length === batch.length &&
      headings.every((node, i) => node.type === 'heading' && node.depth === 1 && node.position?.start.line === i * 2 + 1);
    batch.forEach((item, i) => {
      const body = bodies[item.index];
      results[item.index] = aligned
        ? splitAt(body, inlineText(headings[i]), item.offset, item.end)
        : splitTitleSlowly(body);
    });
  }
  return results;
}

const UNICODE_WHITESPACE = /[\p{Zs}\t\n\f\r]/u;
const UNICODE_PUNCTUATION = /[\p{P}\p{S}]/u;
const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/;
const CHARACTER_REFERENCE = /&(?:#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z][a-zA-Z0-9]{1,31});/;

interface DelimiterRun {
  char: '*' | '_';
  count: number;
  length: number;
  canOpen: boolean;
  canClose: boolean;
}

/**
 * The text of a heading's inline content, as remark would give it, for content without links, images, HTML,
 * autolinks or character references (undefined for those: remark must read them). Handles backslash escapes, code
 * spans and `*`/`_` emphasis with CommonMark's delimiter rules (flanking, the rule of three).
 */
export function inlinePlainText(content: string): string | undefined {
  if (content.includes('[') || content.includes('<') || CHARACTER_REFERENCE.test(content)) return undefined;
  const parts: (string | DelimiterRun)[] = [];
  const runs: DelimiterRun[] = [];
  const isSpace = (c: string | undefined): boolean => c === undefined || UNICODE_WHITESPACE.test(c);
  const isPunct = (c: string | undefined): boolean => c !== undefined && UNICODE_PUNCTUATION.test(c);
  let i = 0;
  while (i < content.length) {
    const c = content[i];
    if (c === '\\' && i + 1 < content.length && ASCII_PUNCTUATION.test(content[i + 1])) {
      parts.push(content[i + 1]);
      i += 2;
    } else if (c === '`') {
      let n = 1;
      while (content[i + n] === '`') n++;
      let close = -1;
      for (let j = i + n; j < content.length; ) {
        if (content[j] !== '`') {
          j++;
          continue;
        }
        let m = 1;
        while (content[j + m] === '`') m++;
        if (m === n) {
          close = j;
          break;
        }
        j += m;
      }
      if (close < 0) {
        parts.push('`'.repeat(n));
      } else {
        let code = content.slice(i + n, close);
        if (code.length >= 2 && code.startsWith(' ') && code.endsWith(' ') && code.trim() !== '') code = code.slice(1, -1);
        parts.push(code);
      }
      i = close < 0 ? i + n : close + n;
    } else if (c === '*' || c === '_') {
      let n = 1;
      while (content[i + n] === c) n++;
      const before = content[i - 1];
      const after = content[i + n];
      const left = !isSpace(after) && (!isPunct(after) || isSpace(before) || isPunct(before));
      const right = !isSpace(before) && (!isPunct(before) || isSpace(after) || isPunct(after));
      const run: DelimiterRun = {
        char: c,
        count: n,
        length: n,
        canOpen: c === '*' ? left : left && (!right || isPunct(before)),
        canClose: c === '*' ? right : right && (!left || isPunct(after)),
      };
      parts.push(run);
      runs.push(run);
      i += n;
    } else {
      parts.push(c);
      i++;
    }
  }
  // CommonMark "process emphasis": match closers with the nearest eligible opener; matched delimiters vanish.
  const stack = [...runs];
  for (let k = 0; k < stack.length; ) {
    const closer = stack[k];
    if (!closer.canClose) {
      k++;
      continue;
    }
    let o = k - 1;
    for (; o >= 0; o--) {
      const opener = stack[o];
      if (opener.char !== closer.char || !opener.canOpen) continue;
      const oddMatch =
        (opener.canClose || closer.canOpen) && (opener.length + closer.length) % 3 === 0 && !(opener.length % 3 === 0 && closer.length % 3 === 0);
      if (!oddMatch) break;
    }
    if (o < 0) {
      if (!closer.canOpen) stack.splice(k, 1);
      else k++;
      continue;
    }
    const opener = stack[o];
    const used = opener.count >= 2 && closer.count >= 2 ? 2 : 1;
    opener.count -= used;
    closer.count -= used;
    stack.splice(o + 1, k - o - 1);
    k = o + 1;
    if (opener.count === 0) {
      stack.splice(o, 1);
      k = o;
    }
    if (closer.count === 0) stack.splice(k, 1);
  }
  return parts.map((part) => (typeof part === 'string' ? part : part.char.repeat(part.count))).join('');
}

function splitTitleSlowly(body: string): TitleSplit {
  // Candidate lines outside fenced code; remark decides (lists, quotes, HTML blocks, indented code).
  let fence: { char: string; length: number } | undefined;
  let offset = 0;
  let tries = 0;
  while (offset < body.length) {
    const end = lineEndAfter(body, offset);
    const line = body.slice(offset, end).replace(/\r?\n$/, '');
    const fenceMatch = FENCE.exec(line);
    if (fence) {
      if (fenceMatch && fenceMatch[1][0] === fence.char && fenceMatch[1].length >= fence.length && fenceMatch[2].trim() === '') {
        fence = undefined;
      }
    } else if (fenceMatch && !(fenceMatch[1][0] === '`' && fenceMatch[2].includes('`'))) {
      fence = { char: fenceMatch[1][0], length: fenceMatch[1].length };
    } else if (CANDIDATE_ATX.test(line) || CANDIDATE_SETEXT.test(line)) {
      if (++tries > 3) break;
      const found = parsedTitle(body, body.slice(0, end));
      if (found) return found;
    }
    offset = end;
  }
  if (tries > 3) {
    const found = parsedTitle(body, body);
    if (found) return found;
  }
  return { markdown: trimLeadingBlankLines(body) };
}

// ---------------------------------------------------------------------------------------------------------------
// Front matter fields

/** The DocumentPage fields a page file gives, before ids, slugs and timestamps are assigned. */
/** The optional page fields that come straight from front matter. */
type FrontMatterFields = Pick<DocumentPage, 'description' | 'emoji' | 'icon' | 'hidden' | 'noIndex' | 'noRobotsIndex' | 'variables'>;

export interface PageFields extends FrontMatterFields {
  /** Front matter `id`, when written. */
  id?: string;
  type: 'document' | 'computed';
  /** The SUMMARY.md title, else the body's title heading, else the file name. */
  title: string;
  /** True when the body's title heading is the title (and so is not part of `markdown`). */
  titleInBody: boolean;
  markdown: string;
  layout: PageLayout;
  /** `cover` / `coverDark` as written (relative to the page) and `coverY`. */
  coverPath?: string;
  coverDarkPath?: string;
  coverY: number;
  /** Resolved cover (file ids), when `fileIdOf` was given. */
  cover?: PageCover;
  computed?: Record<string, unknown>;
  computedSeed?: string;
  frontMatter: Record<string, unknown>;
}

export interface ParsePageOptions {
  /** Path of the file from the repository root. */
  gitPath: string;
  /** Content root ('' or a prefix ending with '/'): cover paths starting with `/` resolve against it. */
  root?: string;
  /** The SUMMARY.md link text of the page: its title, whatever its body's heading says. */
  summaryTitle?: string;
  /**
   * File id by path from the repository root; when given, `cover`/`coverDark` should name an existing file (a
   * warning otherwise: the hosted platform shows the page without its cover).
   */
  fileIdOf?: (gitPath: string) => string | undefined;
}

/**
 * The page as far as it could be read (a value of the wrong type is left out, front matter that does not parse
 * leaves the whole file as the body), and its problems; `ok` when there are none.
 */
export interface ParsedPage {
  ok: boolean;
  page: PageFields;
  problems: ContentProblem[];
  /**
   * The file ids the parse looked up (cover images), by path (null: no such file), when it looked any up: the
   * parse holds for another revision only where they are the same (see ParsedPageStore).
   */
  fileLookups?: Record<string, string | null>;
}

/** Title text compared as people read it: Unicode normalization, emoji variation selectors and whitespace aside. */
export function sameTitle(a: string, b: string): boolean {
  const norm = (text: string): string => text.normalize('NFKC').replace(/[\uFE0E\uFE0F\u200B-\u200D\u2060\uFEFF]/g, '').replace(/\s+/g, ' ').trim();
  return norm(a) === norm(b);
}

/**
 * The title and markdown of a body (see the title rules at the top of this file): `split` is splitTitle of `body`,
 * `summaryTitle` the SUMMARY.md link text, if any. `titleInBody` tells whether the body's heading is the title.
 */
export function pageTitle(body: string, split: TitleSplit, summaryTitle: string | undefined, fileTitle: string): { title: string; markdown: string; titleInBody: boolean } {
  const heading = split.title !== undefined && split.title !== '' ? split.title : undefined;
  const summary = summaryTitle?.replace(/\s+/g, ' ').trim();
  if (summary === undefined || summary === '') {
    return heading !== undefined ? { title: heading, markdown: split.markdown, titleInBody: true } : { title: fileTitle, markdown: split.markdown, titleInBody: false };
  }
  if (heading !== undefined && sameTitle(heading, summary)) return { title: summary, markdown: split.markdown, titleInBody: true };
  return { title: summary, markdown: trimLeadingBlankLines(body), titleInBody: false };
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  if (typeof value === 'object') return 'a mapping';
  return `${typeof value} ${JSON.stringify(value)}`;
}

/** Reads the known keys of front matter `data`; problems for wrong types (line of the top-level key). */
export function readFrontMatterFields(
  frontMatter: FrontMatter,
  path: string,
  problems: ContentProblem[],
): Omit<PageFields, 'title' | 'titleInBody' | 'markdown' | 'cover'> {
  const data = frontMatter.data;
  const wrong = (key: string, expected: string, value: unknown, shownKey = key): void => {
    problems.push({
      path,
      line: frontMatterKeyLine(frontMatter, key),
      message: `front matter \`${shownKey}\` must be ${expected}, found ${describe(value)}`,
    });
  };
  const get = (key: string): unknown => (data[key] === null ? undefined : data[key]);
  const string = (key: string, opts: { integers?: boolean } = {}): string | undefined => {
    const value = get(key);
    if (value === undefined || typeof value === 'string') return value;
    if (opts.integers && typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
    wrong(key, 'a string', value);
    return undefined;
  };
  const boolean = (key: string): boolean | undefined => {
    const value = get(key);
    if (value === undefined || typeof value === 'boolean') return value;
    wrong(key, 'true or false', value);
    return undefined;
  };

  const fields: Omit<PageFields, 'title' | 'titleInBody' | 'markdown' | 'cover'> = {
    type: 'document',
    layout: { ...DEFAULT_LAYOUT },
    coverY: 0,
    frontMatter: data,
  };
  const id = string('id', { integers: true });
  if (id !== undefined) {
    if (ID_PATTERN.test(id)) fields.id = id;
    else problems.push({ path, line: frontMatterKeyLine(frontMatter, 'id'), message: 'front matter `id` may hold only letters, digits, `_` and `-`' });
  }
  const set = <K extends keyof typeof fields>(key: K, value: (typeof fields)[K] | undefined): void => {
    if (value !== undefined) fields[key] = value;
  };
  set('description', string('description'));
  set('emoji', string('emoji', { integers: true }));
  set('icon', string('icon'));
  set('hidden', boolean('hidden'));
  set('noIndex', boolean('noIndex'));
  set('noRobotsIndex', boolean('noRobotsIndex'));
  set('coverPath', string('cover'));
  set('coverDarkPath', string('coverDark'));
  set('computedSeed', string('computedSeed'));

  const coverY = get('coverY');
  if (coverY !== undefined) {
    if (typeof coverY === 'number' && Number.isFinite(coverY)) fields.coverY = coverY;
    else wrong('coverY', 'a number', coverY);
  }

  const vars = get('vars');
  if (vars !== undefined) {
    if (!isMapping(vars)) wrong('vars', 'a mapping of names to strings', vars);
    else {
      const variables: Record<string, string> = {};
      for (const [name, value] of Object.entries(vars)) {
        if (typeof value === 'string') variables[name] = value;
        else if (typeof value === 'boolean' || (typeof value === 'number' && Number.isSafeInteger(value))) variables[name] = String(value);
        else wrong('vars', 'a string (quote numbers such as 3.10 to keep them as written)', value, `vars.${name}`);
      }
      fields.variables = variables;
    }
  }

  const computed = get('computed');
  if (computed !== undefined) {
    if (isMapping(computed)) {
      fields.computed = computed;
      fields.type = 'computed';
    } else wrong('computed', 'a mapping', computed);
  }

  const layout = get('layout');
  if (layout !== undefined) {
    if (!isMapping(layout)) wrong('layout', 'a mapping', layout);
    else {
      for (const key of LAYOUT_FLAGS) {
        const entry = layout[key];
        if (entry === undefined || entry === null) continue;
        if (!isMapping(entry)) {
          wrong('layout', 'a mapping such as `{visible: true}`', entry, `layout.${key}`);
          continue;
        }
        const visible = entry.visible;
        if (visible !== undefined && visible !== null) {
          if (typeof visible === 'boolean') fields.layout[key] = visible;
          else wrong('layout', 'true or false', visible, `layout.${key}.visible`);
        }
        if (key === 'cover' && entry.size !== undefined && entry.size !== null) {
          const size = entry.size;
          if (size === 'hero' || size === 'full') fields.layout.coverSize = size;
          else if (size === 'background') fields.layout.coverSize = 'full';
          else wrong('layout', '`hero`, `full` or `background`', size, 'layout.cover.size');
        }
      }
      const width = layout.width;
      if (width !== undefined && width !== null) {
        if (width === 'default' || width === 'wide') fields.layout.width = width;
        else wrong('layout', '`default` or `wide`', width, 'layout.width');
      }
    }
  }
  return fields;
}

function resolveCover(
  written: string,
  key: string,
  frontMatter: FrontMatter,
  options: ParsePageOptions,
  problems: ContentProblem[],
): string | undefined {
  if (!options.fileIdOf) return undefined;
  const root = options.root ?? '';
  const candidates = [written, decodePath(written)];
  for (const candidate of candidates) {
    const gitPath = candidate.startsWith('/')
      ? resolvePath(root, candidate.replace(/^\/+/, ''))
      : resolvePath(folderOf(options.gitPath), candidate);
    if (gitPath === undefined || !isUnder(gitPath, root)) continue;
    const id = options.fileIdOf(gitPath);
    if (id !== undefined) return id;
  }
  problems.push({
    path: options.gitPath,
    line: frontMatterKeyLine(frontMatter, key),
    severity: 'warning',
    message: isUrl(written)
      ? `front matter \`${key}\` must be the path of an image in the repository, not a URL (${written})`
      : `front matter \`${key}\` names ${written}, which is not a file of the content (paths are relative to the page)`,
  });
  return undefined;
}

/** The title of a page without SUMMARY.md title or heading: the file name without `.md`, a README's folder name. */
export function fileTitle(gitPath: string): string {
  const parts = gitPath.split('/');
  const name = parts[parts.length - 1];
  if (name.toLowerCase() === 'readme.md' && parts.length > 1) return parts[parts.length - 2];
  return name.replace(/\.md$/i, '');
}

/** Parses a page file into its fields. */
export function parsePage(text: string, options: ParsePageOptions): ParsedPage {
  return parsePages([{ text, options }])[0];
}

/**
 * parsePage for many files, with their titles found in one pass (splitTitles). A file whose front matter does not
 * parse is read as a page without front matter (its whole text is the body), with that problem.
 */
export function parsePages(files: { text: string; options: ParsePageOptions }[]): ParsedPage[] {
  const problems: ContentProblem[][] = files.map(() => []);
  const frontMatters = files.map((file, i): FrontMatter => {
    const split = parseFrontMatter(file.text, file.options.gitPath);
    if (split.ok) return split.value;
    problems[i].push(split.problem);
    const body = file.text.charCodeAt(0) === 0xfeff ? file.text.slice(1) : file.text;
    return { data: {}, present: false, body, bodyLine: 1, yamlText: '' };
  });
  const titles = splitTitles(frontMatters.map((frontMatter) => frontMatter.body));
  return files.map((file, i) => pageFromParts(frontMatters[i], titles[i], file.options, problems[i]));
}

/** Page files as plain data (for a worker thread): `fileIds` is the file id by path that `fileIdOf` would give. */
export interface PageFilesInput {
  files: { text: string; options: PageFileOptions }[];
  fileIds: Record<string, string>;
}

export type PageFileOptions = Omit<ParsePageOptions, 'fileIdOf'>;

/** parsePages of plain data (see PageFilesInput), with the file ids each page looked up. */
export function parsePageFiles(input: PageFilesInput): ParsedPage[] {
  const lookups = input.files.map((): Record<string, string | null> => ({}));
  const parsed = parsePages(
    input.files.map((file, i) => ({
      text: file.text,
      options: {
        ...file.options,
        fileIdOf: (gitPath: string) => {
          const id = Object.hasOwn(input.fileIds, gitPath) ? input.fileIds[gitPath] : undefined;
          lookups[i][gitPath] = id ?? null;
          return id;
        },
      },
    })),
  );
  return parsed.map((page, i) => (Object.keys(lookups[i]).length > 0 ? { ...page, fileLookups: lookups[i] } : page));
}

/**
 * Parsed pages kept across builds (by a server: the container's cache): a page whose blob and options are the same
 * is the same parse, unless a cover it names became, or stopped being, a file (`fileLookups`).
 */
export interface ParsedPageStore {
  get(key: string): ParsedPage | undefined;
  set(key: string, page: ParsedPage): void;
}

/** The key of a page's parse in a ParsedPageStore: everything the parse reads but the file ids. */
export function parsedPageKey(blobOid: string, options: PageFileOptions): string {
  return `${blobOid}\n${options.gitPath}\n${options.root ?? ''}\n${options.summaryTitle === undefined ? '\u0000' : `=${options.summaryTitle}`}`;
}

/** True when a kept parse holds with these file ids. */
export function parseHolds(page: ParsedPage, fileIds: ReadonlyMap<string, string>): boolean {
  if (!page.fileLookups) return true;
  return Object.entries(page.fileLookups).every(([gitPath, id]) => (fileIds.get(gitPath) ?? null) === id);
}

function pageFromParts(frontMatter: FrontMatter, titleSplit: TitleSplit, options: ParsePageOptions, problems: ContentProblem[]): ParsedPage {
  const fields = readFrontMatterFields(frontMatter, options.gitPath, problems);
  const page: PageFields = {
    ...fields,
    ...pageTitle(frontMatter.body, titleSplit, options.summaryTitle, fileTitle(options.gitPath)),
  };
  if (fields.coverPath !== undefined || fields.coverDarkPath !== undefined) {
    const cover: PageCover = { yPos: fields.coverY };
    if (fields.coverPath !== undefined) {
      const file = resolveCover(fields.coverPath, 'cover', frontMatter, options, problems);
      if (file !== undefined) cover.file = file;
    }
    if (fields.coverDarkPath !== undefined) {
      const file = resolveCover(fields.coverDarkPath, 'coverDark', frontMatter, options, problems);
      if (file !== undefined) cover.fileDark = file;
    }
    page.cover = cover;
  }
  return { ok: problems.length === 0, page, problems };
}

// ---------------------------------------------------------------------------------------------------------------
// Writing

/** What Quire writes for a page: the fields a person edits through the API. */
export interface PageWrite extends FrontMatterFields {
  title: string;
  markdown: string;
  /** Written as front matter `id` (Quire's own commits); undefined keeps whatever the file had. */
  id?: string;
  layout?: Partial<PageLayout>;
  /** Cover image paths relative to the page's folder, and the vertical offset. */
  cover?: { path?: string; pathDark?: string; yPos?: number };
  computed?: Record<string, unknown>;
  computedSeed?: string;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The text of a page file. With `original` (the file as it is), only what differs from it changes: unknown keys
 * and the order of keys are kept, a key whose value did not change is left as written, and when nothing changed
 * the original is returned byte for byte. Timestamps are never written.
 *
 * `summaryTitle` is the original's SUMMARY.md title, read as parsePage reads it. When the original's body has no
 * heading that is its title (SUMMARY.md gives another, or none is written), the title lives in SUMMARY.md only and
 * the body is written as `markdown` alone: no heading is added (the caller writes a new title to SUMMARY.md).
 * Otherwise the body is `# title` followed by `markdown`, as the seen files have it.
 */
export function writePageFile(page: PageWrite, original?: string, options: { summaryTitle?: string } = {}): string {
  let base: FrontMatter = { data: {}, present: false, body: '', bodyLine: 1, yamlText: '' };
  if (original !== undefined) {
    const split = parseFrontMatter(original, 'page');
    if (!split.ok) throw new ContentError([split.problem]);
    base = split.value;
  }
  const old = readFrontMatterFields(base, 'page', []);
  const data: Record<string, unknown> = { ...base.data };

  const scalar = (key: string, desired: unknown, current: unknown, isDefault: (v: unknown) => boolean): void => {
    if (same(desired ?? null, current ?? null) || (isDefault(desired) && isDefault(current))) return;
    if (isDefault(desired)) delete data[key];
    else data[key] = desired;
  };
  const absent = (v: unknown): boolean => v === undefined;
  const falsy = (v: unknown): boolean => v === undefined || v === false;

  if (page.id !== undefined) scalar('id', page.id, old.id, absent);
  scalar('description', page.description, old.description, absent);
  scalar('emoji', page.emoji, old.emoji, absent);
  scalar('icon', page.icon, old.icon, absent);
  scalar('cover', page.cover?.path, old.coverPath, absent);
  scalar('coverDark', page.cover?.pathDark, old.coverDarkPath, absent);
  scalar('coverY', page.cover?.yPos ?? 0, old.coverY, (v) => v === undefined || v === 0);
  scalar('hidden', page.hidden, old.hidden, falsy);
  scalar('noIndex', page.noIndex, old.noIndex, falsy);
  scalar('noRobotsIndex', page.noRobotsIndex, old.noRobotsIndex, falsy);
  const emptyVars = (v: unknown): boolean => v === undefined || (isMapping(v) && Object.keys(v).length === 0);
  scalar('vars', page.variables, old.variables, emptyVars);

  if (page.layout) {
    const desired: PageLayout = { ...DEFAULT_LAYOUT, ...page.layout };
    let layout: Record<string, unknown> | undefined;
    const layoutObject = (): Record<string, unknown> => {
      layout ??= isMapping(data.layout) ? { ...data.layout } : {};
      return layout;
    };
    if (desired.width !== old.layout.width) layoutObject().width = desired.width;
    for (const key of LAYOUT_FLAGS) {
      const coverSizeChanged = key === 'cover' && desired.coverSize !== old.layout.coverSize;
      if (desired[key] === old.layout[key] && !coverSizeChanged) continue;
      const target = layoutObject();
      const entry: Record<string, unknown> = isMapping(target[key]) ? { ...(target[key] as Record<string, unknown>) } : {};
      if (desired[key] !== old.layout[key]) entry.visible = desired[key];
      if (coverSizeChanged) entry.size = desired.coverSize;
      target[key] = entry;
    }
    if (layout) data.layout = layout;
  }
  scalar('computed', page.computed, old.computed, absent);
  scalar('computedSeed', page.computedSeed, old.computedSeed, absent);

  const titleLine = `# ${page.title.replace(/\s+/g, ' ').trim()}`;
  const previous = pageTitle(base.body, splitTitle(base.body), options.summaryTitle, page.title);
  const bodyUnchanged = original !== undefined && previous.title === page.title && previous.markdown === page.markdown;
  // With SUMMARY.md's title and no title heading in the body, the body is the markdown alone.
  const headingless = original !== undefined && options.summaryTitle !== undefined && !previous.titleInBody;
  const markdown = page.markdown === '' || page.markdown.endsWith('\n') ? page.markdown : `${page.markdown}\n`;
  // Blank lines between the front matter and the title: as the file had them; one for a new file (the seen files).
  const leading = original !== undefined ? /^(?:[ \t]*\r?\n)*/.exec(base.body)![0] : Object.keys(data).length > 0 ? '\n' : '';
  const body = bodyUnchanged ? base.body : headingless ? `${leading}${markdown}` : `${leading}${titleLine}\n${markdown === '' ? '' : `\n${markdown}`}`;

  if (original !== undefined && same(data, base.data) && Object.keys(data).join() === Object.keys(base.data).join()) {
    if (bodyUnchanged) return original;
    return original.slice(0, original.length - base.body.length) + body;
  }
  return stringifyFrontMatter(data, body);
}

