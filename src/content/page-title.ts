/**
 * A page's title (docs/git-format.md "A page file"), and its markdown without the title heading.
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
 * writing the page back (writePageFile, ./page-writing.ts) gives the same bytes. Leading blank lines are trimmed
 * either way.
 *
 * Apart from the rest of a page file's reading (./page.ts): finding the heading is a reading of markdown of its own,
 * made fast for many pages at once, and page writes (src/domain/change-requests) use it without parsing a page.
 */
import type { Heading, Nodes, Root } from 'mdast';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { boundedParagraphs, MAX_PARAGRAPH } from './bounded-markdown.js';
import { atxHeading } from './atx-heading.js';

const markdownParser = unified().use(remarkParse);

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

/** The title of a page without SUMMARY.md title or heading: the file name without `.md`, a README's folder name. */
export function fileTitle(gitPath: string): string {
  const parts = gitPath.split('/');
  const name = parts[parts.length - 1];
  if (name.toLowerCase() === 'readme.md' && parts.length > 1) return parts[parts.length - 2];
  return name.replace(/\.md$/i, '');
}
