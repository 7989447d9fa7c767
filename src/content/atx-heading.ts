/**
 * One line read as an ATX heading (`## Title ##`), as CommonMark reads it, in one pass over the line. A regular
 * expression of the obvious shape (`#+[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$`) backtracks over every run of spaces for
 * every character before it: a line of 200 KB took minutes, on the event loop for SUMMARY.md.
 */

export interface AtxHeading {
  /** 1 to 6: the number of `#`. */
  level: number;
  /** The text between the opening `#`s and the closing sequence, without the spaces around it. */
  text: string;
}

const isSpaceOrTab = (code: number) => code === 0x20 || code === 0x09;
const HASH = 0x23;

/** `line` (without its line ending) as an ATX heading: up to 3 spaces, 1-6 `#`, then a space, a tab or nothing. */
export function atxHeading(line: string): AtxHeading | undefined {
  let start = 0;
  while (start < 3 && line.charCodeAt(start) === 0x20) start++;
  let level = 0;
  while (line.charCodeAt(start + level) === HASH) level++;
  if (level < 1 || level > 6) return undefined;
  let from = start + level;
  if (from < line.length && !isSpaceOrTab(line.charCodeAt(from))) return undefined;
  let to = line.length;
  while (from < to && isSpaceOrTab(line.charCodeAt(from))) from++;
  while (to > from && isSpaceOrTab(line.charCodeAt(to - 1))) to--;
  // A closing sequence: `#`s at the end, alone or after a space or a tab (`# C#` keeps its `#`).
  let hashes = to;
  while (hashes > from && line.charCodeAt(hashes - 1) === HASH) hashes--;
  if (hashes < to && (hashes === from || isSpaceOrTab(line.charCodeAt(hashes - 1)))) {
    to = hashes;
    while (to > from && isSpaceOrTab(line.charCodeAt(to - 1))) to--;
  }
  return { level, text: line.slice(from, to) };
}
