/**
 * Code a grammar may choke on: runs of what opens a string, a comment, an interpolation or a group and never closes
 * it, long words, long runs of spaces and blank lines, digits, escapes. Highlighting such text took some of
 * highlight.js's grammars seconds to minutes per 200 KB (code-highlight.ts cuts it into pieces for that).
 */
const UNITS = ['a', 'a-', 'a.', '"', "'a", '(', '{', '${', '/*', '<', '\\', '1', 'a ', '#', '[[', 'a:', '`', '-', '*', ';a', '<a ', '%{', '$(', '=', 'a\t'];

/** About `bytes` of hostile code: each unit repeated on lines of 500 characters, then as one long line, in turns. */
export function hostileCode(bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const unit = UNITS[i % UNITS.length];
    const line = unit.repeat(Math.ceil(500 / unit.length)).slice(0, 500);
    const part = i % 2 === 0 ? `${line}\n`.repeat(8) : `${unit.repeat(Math.ceil(4000 / unit.length))}\n${' \n'.repeat(200)}`;
    parts.push(part);
    size += part.length;
  }
  return parts.join('').slice(0, bytes);
}
