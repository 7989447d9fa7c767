/**
 * A page compared block by block between two revisions (the change-request page diff, a Quire extension): each
 * version rendered as a published site renders it (src/content/page-html.ts, with link answers worked out by
 * ./site-links.ts resolvePageLinks), cut into its top-level blocks, and the two lists of blocks aligned. Pure: the
 * CPU pool runs it (src/cpu/tasks.ts `pageBlockDiff`).
 *
 * The alignment is a longest common subsequence of the blocks (equal blocks are equal HTML, compared through ids
 * given to each distinct block), after the blocks both versions start and end with are set aside. A run of removed
 * blocks next to a run of added ones is paired as changed blocks, in order; what is left over is removed or added.
 * The table it takes is the product of the two middles: past MAX_DIFFED_BLOCKS blocks on a side of what differs, the
 * middle is one changed block (the before and after HTML of all of it).
 */
import { pageHtmlBlocks } from './page-html.js';
import { resolvedLinkAnswers, type ResolvedLinks } from './site-links.js';
import { decidedCondition } from './conditions.js';

export type BlockChangeKind = 'added' | 'removed' | 'unchanged' | 'changed';

export interface BlockChange {
  change: BlockChangeKind;
  /** The block's HTML in the earlier version (removed, unchanged, changed). */
  before?: string;
  /** The block's HTML in the later version (added, unchanged, changed). */
  after?: string;
}

/** Blocks on a side of the differing middle past which it is compared whole (the LCS table is the product). */
export const MAX_DIFFED_BLOCKS = 2000;

/** Pairs each run of removed blocks with the run of added ones beside it as changed blocks. */
function paired(removed: string[], added: string[], out: BlockChange[]): void {
  const both = Math.min(removed.length, added.length);
  for (let i = 0; i < both; i++) out.push({ change: 'changed', before: removed[i], after: added[i] });
  for (let i = both; i < removed.length; i++) out.push({ change: 'removed', before: removed[i] });
  for (let i = both; i < added.length; i++) out.push({ change: 'added', after: added[i] });
}

/** Aligns two lists of blocks (see the module's comment). */
export function diffBlocks(before: readonly string[], after: readonly string[], maxBlocks = MAX_DIFFED_BLOCKS): BlockChange[] {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let endBefore = before.length;
  let endAfter = after.length;
  while (endBefore > start && endAfter > start && before[endBefore - 1] === after[endAfter - 1]) {
    endBefore--;
    endAfter--;
  }
  const out: BlockChange[] = [];
  for (let i = 0; i < start; i++) out.push({ change: 'unchanged', before: before[i], after: after[i] });
  const a = before.slice(start, endBefore);
  const b = after.slice(start, endAfter);
  if (a.length === 0 || b.length === 0) paired(a, b, out);
  else if (a.length > maxBlocks || b.length > maxBlocks) out.push({ change: 'changed', before: a.join(''), after: b.join('') });
  else middle(a, b, out);
  for (let i = endBefore, j = endAfter; i < before.length; i++, j++) out.push({ change: 'unchanged', before: before[i], after: after[j] });
  return out;
}

/** The LCS alignment of two short lists that differ at both ends. */
function middle(a: readonly string[], b: readonly string[], out: BlockChange[]): void {
  // Each distinct block gets a number: the table compares numbers, not HTML.
  const ids = new Map<string, number>();
  const idOf = (block: string) => {
    let id = ids.get(block);
    if (id === undefined) ids.set(block, (id = ids.size));
    return id;
  };
  const x = Int32Array.from(a, idOf);
  const y = Int32Array.from(b, idOf);
  const n = x.length;
  const m = y.length;
  const width = m + 1;
  // lcs[i * width + j]: the longest common subsequence of x[i..] and y[j..] (at most MAX_DIFFED_BLOCKS: 16 bits).
  const lcs = new Uint16Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] = x[i] === y[j] ? lcs[(i + 1) * width + j + 1] + 1 : Math.max(lcs[(i + 1) * width + j], lcs[i * width + j + 1]);
    }
  }
  let removed: string[] = [];
  let added: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) {
      paired(removed, added, out);
      removed = [];
      added = [];
      out.push({ change: 'unchanged', before: a[i], after: b[j] });
      i++;
      j++;
    } else if (j >= m || (i < n && lcs[(i + 1) * width + j] >= lcs[i * width + j + 1])) removed.push(a[i++]);
    else added.push(b[j++]);
  }
  paired(removed, added, out);
}

/** One version of a page, with its link answers worked out beforehand (./site-links.ts resolvePageLinks). */
export interface PageVersion {
  markdown: string;
  links: ResolvedLinks;
  variables: { page: Record<string, string>; space: Record<string, string> };
}

const NO_OUTCOMES: ReadonlyMap<string, boolean> = new Map();

/** A version's blocks, rendered as a published site renders the page for a reader without claims. */
export function versionBlocks(version: PageVersion): string[] {
  return pageHtmlBlocks(version.markdown, {
    ...resolvedLinkAnswers(version.links),
    variables: version.variables,
    condition: (expression) => decidedCondition(NO_OUTCOMES, expression),
  });
}

/** The blocks of a page from `before` to `after` (either absent: the page is not in that revision). */
export function pageBlockDiff(input: { before?: PageVersion; after?: PageVersion; maxBlocks?: number }): BlockChange[] {
  const before = input.before ? versionBlocks(input.before) : [];
  const after = input.after ? versionBlocks(input.after) : [];
  return diffBlocks(before, after, input.maxBlocks);
}
