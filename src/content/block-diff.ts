/**
 * A page compared block by block between two revisions (the change-request page diff, a Quire extension): each
 * version rendered as a published site renders it (src/content/page-html.ts, with link answers worked out by
 * ./site-links.ts resolvePageLinks), cut into its top-level blocks, and the two lists of blocks aligned. Pure: the
 * CPU pool runs it (src/cpu/tasks.ts `pageBlockDiff`).
 *
 * The alignment is a longest common subsequence of the blocks (./alignment.ts; equal blocks are equal HTML), after
 * the blocks both versions start and end with are set aside. A run of removed blocks next to a run of added ones is
 * paired as changed blocks, in order; what is left over is removed or added. Past MAX_DIFFED_BLOCKS blocks on a side
 * of what differs, the middle is one changed block (the before and after HTML of all of it).
 */
import { align } from './alignment.js';
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

/** Aligns two lists of blocks (see the module's comment). */
export function diffBlocks(before: readonly string[], after: readonly string[], maxBlocks = MAX_DIFFED_BLOCKS): BlockChange[] {
  const out: BlockChange[] = [];
  for (const step of align(before, after, maxBlocks)) {
    if (step.kind === 'same') {
      out.push({ change: 'unchanged', before: before[step.before], after: after[step.after] });
      continue;
    }
    const removed = before.slice(...step.before);
    const added = after.slice(...step.after);
    if (step.unaligned) {
      out.push({ change: 'changed', before: removed.join(''), after: added.join('') });
      continue;
    }
    // Each run of removed blocks is paired, in order, with the run of added ones beside it as changed blocks.
    const both = Math.min(removed.length, added.length);
    for (let i = 0; i < both; i++) out.push({ change: 'changed', before: removed[i], after: added[i] });
    for (let i = both; i < removed.length; i++) out.push({ change: 'removed', before: removed[i] });
    for (let i = both; i < added.length; i++) out.push({ change: 'added', after: added[i] });
  }
  return out;
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
