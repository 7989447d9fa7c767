/**
 * Limits on what the markdown parser (remark / micromark) is given, so that no page can make parsing slow: a page
 * is anyone's push, and one slow parse must not hold the server. Pure: no I/O.
 *
 * - micromark takes seconds per megabyte of prose at best (bench/README.md), and more than linear time on a long
 *   paragraph (one line of megabytes, or thousands of lines without a blank one): brackets, emphasis and lines are
 *   matched back across the whole paragraph. `boundedParagraphs` ends every paragraph after at most MAX_PARAGRAPH
 *   characters (a blank line at a line break, or at a space of an overlong line), which keeps parsing linear. Only text
 *   longer than that without a blank line changes: a link or emphasis spanning the break reads as plain text, which
 *   search and links can afford on such pages; anything shorter is given to the parser unchanged.
 * - Search and the link index read the first MAX_INDEXED_TEXT characters of a page (`indexedPart`); the page itself
 *   reads whole, and documents and published pages convert that part's markup, the rest as plain text
 *   (`convertedParts`). buildRevision warns about a page longer than that, so a push says it is cut.
 */

/** Characters of a page's markdown that search and the link index read. */
export const MAX_INDEXED_TEXT = 1024 * 1024;

/** Longest run of text without a blank line the parser is given. */
export const MAX_PARAGRAPH = 16 * 1024;

/** The part of a page's markdown search and links read: the first MAX_INDEXED_TEXT characters, at a line end if one is near. */
export function indexedPart(markdown: string): { text: string; cut: boolean } {
  if (markdown.length <= MAX_INDEXED_TEXT) return { text: markdown, cut: false };
  let end = MAX_INDEXED_TEXT;
  const newline = markdown.lastIndexOf('\n', end);
  if (newline > end - MAX_PARAGRAPH) end = newline;
  // Never between the two halves of a surrogate pair.
  else if (isHighSurrogate(markdown.charCodeAt(end - 1))) end -= 1;
  return { text: markdown.slice(0, end), cut: true };
}

/** The warning buildRevision gives for a page longer than search and links read. */
export function cutPageMessage(length: number): string {
  return `${megabytes(length)} of text: search and the link index read only its first ${megabytes(MAX_INDEXED_TEXT)}, and documents and published pages show the rest as plain text`;
}

/**
 * A page's markdown as a document or a published page converts it: its first MAX_INDEXED_TEXT characters
 * (indexedPart) with their markup, the rest as paragraphs of plain text (split at blank lines, never parsed). Even
 * bounded, parsing a megabyte of dense links and emphasis keeps a CPU thread busy for seconds; a page of 5 MB is
 * not one anybody reads for its markup.
 */
export function convertedParts(markdown: string): { markup: string; plain: string[] } {
  const { text, cut } = indexedPart(markdown);
  if (!cut) return { markup: markdown, plain: [] };
  const plain = markdown
    .slice(text.length)
    .split(/\n[ \t]*\n/)
    .map((paragraph) => paragraph.trim())
    .filter((paragraph) => paragraph !== '');
  return { markup: text, plain };
}

function megabytes(characters: number): string {
  return `${(characters / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MB`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * Longest run of lines without a blank line the parser is given, whatever they are (the blocks below included):
 * what keeps the parse linear if a line that looks like the start of a block is read as text after all.
 */
export const MAX_BLOCK_RUN = 64 * 1024;

// Lines that start a block of their own, each parsed apart (micromark's cost grows with a run of text, not with
// blocks): a list item (`-`, `*`, `+`, `1.`) indented 0-3 spaces, an ATX heading; and rows of a GFM table (after its
// delimiter row). A fenced code block is not parsed as text at all: never cut, and not counted.
const LIST_ITEM = /^ {0,3}(?:[-+*]|1[.)])[ \t]+\S/;
const ATX_HEADING = /^ {0,3}#{1,6}(?:[ \t]|$)/;
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;

/** A GFM table's delimiter row (`| --- | :-: |`): pipes, dashes, colons and spaces, at least one `|` and one `-`. */
function isDelimiterRow(line: string): boolean {
  let pipe = false;
  let dash = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '|') pipe = true;
    else if (c === '-') dash = true;
    else if (c !== ':' && c !== ' ' && c !== '\t') return false;
  }
  return pipe && dash;
}

/** The closing fence of `fence` (its character, at least as many): the line without its line ending. */
function closesFence(line: string, fence: string): boolean {
  const trimmed = line.trim();
  if (trimmed.length < fence.length || line.length - line.trimStart().length > 3) return false;
  for (let i = 0; i < trimmed.length; i++) if (trimmed[i] !== fence[0]) return false;
  return true;
}

/**
 * `markdown` with a blank line put wherever a paragraph (text without a blank line) would grow past `max`
 * characters, and `originalOffset`, which maps an offset in the result back to `markdown` (for the title split).
 * Linear time; the text itself is unchanged (only line breaks are added). Fenced code is left whole, and lines that
 * start blocks parsed apart (list items, headings, table rows) start a new count, up to MAX_BLOCK_RUN.
 */
export function boundedParagraphs(markdown: string, max = MAX_PARAGRAPH): { text: string; originalOffset: (offset: number) => number } {
  // Offsets in the result where a break was put (each adds BREAK.length characters).
  const breaks: number[] = [];
  if (markdown.length <= max) return { text: markdown, originalOffset: (offset) => offset };
  const out: string[] = [];
  let length = 0;
  /** Characters of text since the last blank line or block start; of any lines since the last blank line. */
  let run = 0;
  let block = 0;
  let fence: string | undefined;
  let inTable = false;
  let previous = '';
  const put = (piece: string) => {
    out.push(piece);
    length += piece.length;
  };
  const addBreak = () => {
    breaks.push(length);
    put(BREAK);
    run = 0;
    block = 0;
    inTable = false;
  };
  for (let start = 0; start < markdown.length; ) {
    const newline = markdown.indexOf('\n', start);
    const end = newline < 0 ? markdown.length : newline + 1;
    let line = markdown.slice(start, end);
    start = end;
    const bare = line.endsWith('\n') ? line.slice(0, line.endsWith('\r\n') ? -2 : -1) : line;
    if (fence !== undefined) {
      put(line);
      if (closesFence(bare, fence)) fence = undefined;
      continue;
    }
    if (bare.trim() === '') {
      put(line);
      run = 0;
      block = 0;
      inTable = false;
      previous = bare;
      continue;
    }
    const opening = FENCE_OPEN.exec(bare);
    if (opening && !(opening[1][0] === '`' && bare.slice(opening[0].length).includes('`'))) {
      put(line);
      fence = opening[1];
      run = 0;
      block = 0;
      inTable = false;
      continue;
    }
    if (!inTable && previous.includes('|') && isDelimiterRow(bare)) inTable = true;
    if (inTable || LIST_ITEM.test(bare) || ATX_HEADING.test(bare)) run = 0;
    previous = bare;
    if ((run > 0 && run + line.length > max) || (block > 0 && block + line.length > MAX_BLOCK_RUN)) addBreak();
    // An overlong line: cut at the last space before each `max` characters (anywhere when it has none).
    while (line.length > max) {
      let cut = line.lastIndexOf(' ', max);
      if (cut < max / 2) cut = isHighSurrogate(line.charCodeAt(max - 1)) ? max - 1 : max;
      put(line.slice(0, cut));
      addBreak();
      line = line.slice(cut);
    }
    put(line);
    run += line.length;
    block += line.length;
  }
  const text = out.join('');
  const originalOffset = (offset: number): number => {
    // Breaks at or before the offset, by binary search.
    let lo = 0;
    let hi = breaks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (breaks[mid] < offset) lo = mid + 1;
      else hi = mid;
    }
    return offset - lo * BREAK.length;
  };
  return { text, originalOffset };
}

const BREAK = '\n\n';
