/**
 * A page's markdown compared line by line between two revisions, in hunks with a few lines of context (the raw view
 * of the change-request page diff, a Quire extension). Pure: the CPU pool runs it (src/cpu/tasks.ts
 * `markdownLineDiff`).
 *
 * The lines are aligned as ./block-diff.ts aligns blocks (./alignment.ts): past MAX_DIFFED_LINES lines on a side of
 * what differs, the middle is all removed, then all added.
 */
import { align } from './alignment.js';

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

/** Every line of both versions, aligned (./alignment.ts); in each run of changes, removals come before additions. */
export function diffLines(before: readonly string[], after: readonly string[], maxLines = MAX_DIFFED_LINES): LineChange[] {
  const out: LineChange[] = [];
  for (const step of align(before, after, maxLines)) {
    if (step.kind === 'same') {
      out.push({ change: 'unchanged', text: before[step.before] });
      continue;
    }
    for (let i = step.before[0]; i < step.before[1]; i++) out.push({ change: 'removed', text: before[i] });
    for (let j = step.after[0]; j < step.after[1]; j++) out.push({ change: 'added', text: after[j] });
  }
  return out;
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
