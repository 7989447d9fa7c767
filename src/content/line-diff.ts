/**
 * A page's markdown compared line by line between two revisions, in hunks with a few lines of context (the raw view
 * of the change-request page diff, a Quire extension). Pure: the CPU pool runs it (src/cpu/tasks.ts
 * `markdownLineDiff`).
 *
 * Its work is bounded the way ./block-diff.ts bounds its own: the lines both versions start and end with are set
 * aside, and the rest is aligned by a longest common subsequence whose table is the product of the two middles;
 * past MAX_DIFFED_LINES lines on a side of what differs, the middle is all removed, then all added.
 */

export type LineChangeKind = 'added' | 'removed' | 'unchanged';

export interface LineChange {
  change: LineChangeKind;
  text: string;
}

export interface LineHunk {
  /** The first line of the hunk in each version (1-based; the line before it when the hunk holds none of it). */
  beforeStart: number;
  beforeLines: number;
  afterStart: number;
  afterLines: number;
  lines: LineChange[];
}

/** Lines on a side of the differing middle past which it is not aligned (the LCS table is the product). */
export const MAX_DIFFED_LINES = 2000;
/** Unchanged lines shown around each change. */
export const CONTEXT_LINES = 3;

/** A text's lines, without their ends (a last line ending with one adds no empty line). */
export function linesOf(text: string | undefined): string[] {
  if (!text) return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Every line of both versions, aligned (see the module's comment). */
export function diffLines(before: readonly string[], after: readonly string[], maxLines = MAX_DIFFED_LINES): LineChange[] {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let endBefore = before.length;
  let endAfter = after.length;
  while (endBefore > start && endAfter > start && before[endBefore - 1] === after[endAfter - 1]) {
    endBefore--;
    endAfter--;
  }
  const out: LineChange[] = [];
  for (let i = 0; i < start; i++) out.push({ change: 'unchanged', text: before[i] });
  const a = before.slice(start, endBefore);
  const b = after.slice(start, endAfter);
  if (a.length > 0 && b.length > 0 && a.length <= maxLines && b.length <= maxLines) middle(a, b, out);
  else {
    for (const text of a) out.push({ change: 'removed', text });
    for (const text of b) out.push({ change: 'added', text });
  }
  for (let i = endBefore; i < before.length; i++) out.push({ change: 'unchanged', text: before[i] });
  return out;
}

/** The LCS alignment of two short lists of lines that differ at both ends; removals come before additions. */
function middle(a: readonly string[], b: readonly string[], out: LineChange[]): void {
  // Each distinct line gets a number: the table compares numbers, not strings.
  const ids = new Map<string, number>();
  const idOf = (line: string) => {
    let id = ids.get(line);
    if (id === undefined) ids.set(line, (id = ids.size));
    return id;
  };
  const x = Int32Array.from(a, idOf);
  const y = Int32Array.from(b, idOf);
  const n = x.length;
  const m = y.length;
  const width = m + 1;
  // lcs[i * width + j]: the longest common subsequence of x[i..] and y[j..] (at most MAX_DIFFED_LINES: 16 bits).
  const lcs = new Uint16Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] = x[i] === y[j] ? lcs[(i + 1) * width + j + 1] + 1 : Math.max(lcs[(i + 1) * width + j], lcs[i * width + j + 1]);
    }
  }
  let added: LineChange[] = [];
  let i = 0;
  let j = 0;
  const flush = () => {
    out.push(...added);
    added = [];
  };
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) {
      flush();
      out.push({ change: 'unchanged', text: a[i] });
      i++;
      j++;
    } else if (j >= m || (i < n && lcs[(i + 1) * width + j] >= lcs[i * width + j + 1])) out.push({ change: 'removed', text: a[i++] });
    else added.push({ change: 'added', text: b[j++] });
  }
  flush();
}

/** The aligned lines cut into hunks: each run of changes with up to `context` unchanged lines around it. */
export function hunksOf(lines: readonly LineChange[], context = CONTEXT_LINES): LineHunk[] {
  const hunks: LineHunk[] = [];
  // Line numbers before each entry of `lines`, in each version.
  let beforeLine = 0;
  let afterLine = 0;
  const at: Array<[number, number]> = [];
  for (const line of lines) {
    at.push([beforeLine, afterLine]);
    if (line.change !== 'added') beforeLine++;
    if (line.change !== 'removed') afterLine++;
  }
  let i = 0;
  while (i < lines.length) {
    if (lines[i].change === 'unchanged') {
      i++;
      continue;
    }
    const from = Math.max(0, i - context);
    let to = i;
    // Extend past changes and gaps of unchanged lines short enough to be both hunks' context.
    for (;;) {
      while (to < lines.length && lines[to].change !== 'unchanged') to++;
      let gap = to;
      while (gap < lines.length && lines[gap].change === 'unchanged') gap++;
      if (gap < lines.length && gap - to <= 2 * context) to = gap;
      else {
        to = Math.min(lines.length, to + context);
        break;
      }
    }
    const slice = lines.slice(from, to);
    hunks.push({
      beforeStart: at[from][0] + 1,
      beforeLines: slice.filter((line) => line.change !== 'added').length,
      afterStart: at[from][1] + 1,
      afterLines: slice.filter((line) => line.change !== 'removed').length,
      lines: slice,
    });
    i = to;
  }
  return hunks;
}

/** The hunks of a page's markdown from `before` to `after` (either absent: the page is not in that revision). */
export function markdownLineDiff(input: { before?: string; after?: string; maxLines?: number }): LineHunk[] {
  return hunksOf(diffLines(linesOf(input.before), linesOf(input.after), input.maxLines));
}
