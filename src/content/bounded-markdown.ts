/**
 * Limits on what the markdown parser (remark / micromark) is given, so that no page can make parsing slow (issue 12
 * item 6). Pure: no I/O.
 *
 * - micromark takes ~1-2 s per MB of prose at best, and more than linear time on a long paragraph (one line of
 *   megabytes, or thousands of lines without a blank one): brackets, emphasis and lines are matched back across the
 *   whole paragraph. `boundedParagraphs` ends every paragraph after at most MAX_PARAGRAPH characters (a blank line
 *   at a line break, or at a space of an overlong line), which keeps parsing linear. Only text longer than that
 *   without a blank line changes: a link or emphasis spanning the break reads as plain text, which search and links
 *   can afford on such pages; anything shorter is given to the parser unchanged.
 * - Search and the link index read the first MAX_INDEXED_TEXT characters of a page (`indexedPart`); the page itself
 *   reads whole. buildRevision warns about a page longer than that, so a push says it is cut.
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
  return `${megabytes(length)} of text: search and the link index read only its first ${megabytes(MAX_INDEXED_TEXT)}`;
}

function megabytes(characters: number): string {
  return `${(characters / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MB`;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * `markdown` with a blank line put wherever a paragraph (text without a blank line) would grow past `max`
 * characters, and `originalOffset`, which maps an offset in the result back to `markdown` (for the title split).
 * Linear time; the text itself is unchanged (only line breaks are added).
 */
export function boundedParagraphs(markdown: string, max = MAX_PARAGRAPH): { text: string; originalOffset: (offset: number) => number } {
  // Offsets in the result where a break was put (each adds BREAK.length characters).
  const breaks: number[] = [];
  if (markdown.length <= max) return { text: markdown, originalOffset: (offset) => offset };
  const out: string[] = [];
  let length = 0;
  let run = 0;
  const put = (piece: string) => {
    out.push(piece);
    length += piece.length;
  };
  const addBreak = () => {
    breaks.push(length);
    put(BREAK);
    run = 0;
  };
  for (let start = 0; start < markdown.length; ) {
    const newline = markdown.indexOf('\n', start);
    const end = newline < 0 ? markdown.length : newline + 1;
    let line = markdown.slice(start, end);
    start = end;
    if (line.trim() === '') {
      put(line);
      run = 0;
      continue;
    }
    if (run > 0 && run + line.length > max) addBreak();
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
