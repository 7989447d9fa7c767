/**
 * Which blocks each container of a JSONDocument takes (the reference schema's oneOf lists), and how a block is fitted
 * where it may not stand: a container gives its children to the parent, a table becomes a paragraph per row,
 * anything else a paragraph of its text. Apart from the conversion (./document.ts): the schema's rules, applied to
 * blocks already made.
 */
import { paragraph, text, type DocumentBlock, type Inline, type Text } from './document-nodes.js';

// Which blocks each container takes (the reference schema's oneOf lists).
const ESSENTIALS = ['paragraph', 'heading-1', 'heading-2', 'heading-3', 'list-ordered', 'list-unordered', 'list-tasks', 'divider'];
const CONTAINED = [...ESSENTIALS, 'content-ref', 'code', 'embed', 'file', 'images', 'hint', 'blockquote', 'math'];
// Columns and conditions are blocks of the reference, but no document of schema 0.130 may hold them anywhere: their
// contents stand in their place.
export const TOP_LEVEL = [...CONTAINED, 'tabs', 'reusable-content', 'stepper', 'table', 'expandable', 'swagger', 'openapi-operation'];
export const ALLOWED: Record<string, string[]> = {
  document: TOP_LEVEL,
  if: TOP_LEVEL,
  hint: ESSENTIALS,
  blockquote: [...ESSENTIALS, 'blockquote'],
  'list-item': [...ESSENTIALS, 'code', 'hint', 'blockquote', 'math', 'table'],
  'expandable-body': [...ESSENTIALS, 'images', 'code', 'table', 'hint', 'blockquote', 'reusable-content'],
  'tabs-item': CONTAINED,
  // Paragraphs only: a GFM or HTML cell's list or heading is its text, which every form of table can hold again.
  'table-cell': ['paragraph'],
  'stepper-step': CONTAINED,
  column: CONTAINED,
};

/** A paragraph of nothing (an HTML comment, an empty tag's leftovers): left out, as markdown shows nothing. */
export function isEmptyParagraph(block: DocumentBlock): boolean {
  return block.type === 'paragraph' && (block.nodes ?? []).every((node) => node.object === 'text' && node.leaves.every((leaf) => leaf.text.trim() === ''));
}

/** The plain text of a converted block (for fitting one where the schema does not let it stand). */
function plainText(node: DocumentBlock | Text | Inline): string {
  if (node.object === 'text') return node.leaves.map((leaf) => leaf.text).join('');
  if (node.object === 'inline' && node.type === 'expression') return `{{ ${String(node.data.expression)} }}`;
  if (node.type === 'math' || node.type === 'inline-math') return `$$${String(node.data.formula)}$$`;
  const separator = node.object === 'block' && node.type === 'code' ? '\n' : '';
  return (node.nodes ?? []).map(plainText).join(separator);
}

/** A table where the schema takes none: a paragraph per row, its cells' text joined by ` | `. */
function tableRows(table: DocumentBlock): DocumentBlock[] {
  const data = table.data as { view: { columns: string[] }; records: Record<string, { orderIndex: string; values: Record<string, string> }> };
  const cells = new Map((table.fragments as Array<{ fragment: string; nodes: DocumentBlock[] }>).map((fragment) => [fragment.fragment, fragment.nodes.map(plainText).join(' ')]));
  return Object.values(data.records)
    .sort((a, b) => (a.orderIndex < b.orderIndex ? -1 : 1))
    .map((record) => paragraph([text(data.view.columns.map((column) => cells.get(record.values[column]) ?? '').join(' | '))]));
}

/** Blocks the container takes as they are; a container it does not take gives its children; others become text. */
export function fit(blocks: DocumentBlock[], allowed: string[]): DocumentBlock[] {
  const out: DocumentBlock[] = [];
  for (const block of blocks) {
    if (allowed.includes(block.type)) out.push(block);
    else if (block.type === 'table') out.push(...tableRows(block));
    else if (block.type === 'expandable') out.push(...fit((block.fragments as Array<{ nodes: DocumentBlock[] }>).flatMap((fragment) => fragment.nodes), allowed));
    else if (block.type === 'code') out.push(...block.nodes!.map((line) => paragraph([text(plainText(line), [{ object: 'mark', type: 'code' }])])));
    else if (block.nodes?.some((child) => child.object === 'block')) out.push(...fit(block.nodes.filter((child): child is DocumentBlock => child.object === 'block'), allowed));
    else out.push(paragraph([text(plainText(block))]));
  }
  return out;
}
