/**
 * A page's markdown as one reader may read it: each `{% if %}` block replaced by the markdown of the branch shown to
 * them (src/content/page-html.ts shows the same branch as HTML), so that the markdown views of a published site
 * (`PAGE.md`, `llms-full.txt`, a static export's `.md` files) never hold what the reader's claims hide. The rest of
 * the page stays byte for byte as written.
 */
import type { Position } from 'unist';
import { ifBranches, parseGitbookMarkdown, shownIfBranch, type GitbookNode, type LiquidBlock } from './gitbook-markdown.js';
import { boundedParagraphs } from './bounded-markdown.js';

// Cheap test first: most pages have no condition and are not parsed here.
const MAY_HAVE_IF = /\{%-?\s*if\s/;

/** Whether `markdown` may hold an `{% if %}` block (false: it certainly holds none). */
export const mayHaveConditions = (markdown: string): boolean => MAY_HAVE_IF.test(markdown);

/**
 * Every condition of the `{% if %}` / `{% elif %}` blocks of `markdown`, nested ones included, each once, as the
 * renderers are asked about them (src/content/page-html.ts, adaptedMarkdown): what a reader's claims can change.
 */
export function conditionsOf(markdown: string): string[] {
  if (!mayHaveConditions(markdown)) return [];
  const found = new Set<string>();
  const walk = (nodes: GitbookNode[]) => {
    for (const node of nodes) {
      if (node.type === 'liquidBlock' && node.name === 'if') {
        for (const branch of ifBranches(node as LiquidBlock)) if (branch.condition !== undefined) found.add(branch.condition);
      }
      if ('children' in node && Array.isArray(node.children)) walk(node.children as GitbookNode[]);
    }
  };
  // Bounded paragraphs, as adaptedMarkdown parses: linear time, and the same blocks found.
  walk(parseGitbookMarkdown(boundedParagraphs(markdown).text).children as GitbookNode[]);
  return [...found];
}

export function adaptedMarkdown(markdown: string, holds: (condition: string) => boolean): string {
  if (!mayHaveConditions(markdown)) return markdown;
  const cuts: Array<{ start: number; end: number; text: string }> = [];
  // Parsed with bounded paragraphs (linear time); positions are mapped back to the text as written.
  const bounded = boundedParagraphs(markdown);
  const offsets = (position: Position | undefined): { start: number; end: number } | undefined => {
    const start = position?.start.offset;
    const end = position?.end.offset;
    return start === undefined || end === undefined ? undefined : { start: bounded.originalOffset(start), end: bounded.originalOffset(end) };
  };
  const walk = (nodes: GitbookNode[]) => {
    for (const node of nodes) {
      if (node.type === 'liquidBlock' && node.name === 'if') {
        const at = offsets(node.position);
        if (!at) continue;
        const shown = shownIfBranch(node as LiquidBlock, holds);
        const first = offsets(shown[0]?.position);
        const last = offsets(shown[shown.length - 1]?.position);
        // The shown branch's own text, its nested conditions adapted in turn.
        const text = first && last ? adaptedMarkdown(markdown.slice(first.start, last.end), holds) : '';
        cuts.push({ ...at, text });
      } else if ('children' in node && Array.isArray(node.children)) walk(node.children as GitbookNode[]);
    }
  };
  walk(parseGitbookMarkdown(bounded.text).children as GitbookNode[]);
  let out = '';
  let from = 0;
  for (const cut of cuts) {
    out += markdown.slice(from, cut.start) + cut.text;
    from = cut.end;
  }
  return out + markdown.slice(from);
}
