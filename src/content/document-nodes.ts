/**
 * The reference's `JSONDocument` as types (blocks, inlines, texts with their leaves and marks), what a link in it
 * points at (ContentRef, resolved by the caller's DocumentContext), and the constructors every part of the
 * conversion (./document.ts) uses. Apart so that the inline and block conversion and the writing back
 * (./document-markdown.ts) share them without importing one another.
 */

export type ContentRef =
  | { kind: 'url'; url: string }
  | { kind: 'file'; file: string }
  | { kind: 'page'; page: string }
  | { kind: 'anchor'; anchor: string; page?: string }
  | { kind: 'reusable-content'; reusableContent: string };

export interface DocumentContext {
  /** What a link's href points at (a page, a page at an anchor, a file, a URL). */
  resolveLink(href: string): ContentRef;
  /** What an include's path points at, or undefined when it is not a reusable content of the revision. */
  resolveInclude?(path: string): string | undefined;
}

/** A URL is a URL; anything else, unresolved, is kept as the URL it was written as. */
export const PLAIN_LINKS: DocumentContext = { resolveLink: (href) => ({ kind: 'url', url: href }) };

export type Mark = {
  object: 'mark';
  type: 'bold' | 'italic' | 'code' | 'strikethrough' | 'keyboard' | 'superscript' | 'subscript' | 'color';
  data?: { text: string; background: string };
};
export type Leaf = { object: 'leaf'; text: string; marks: Mark[] };
export type Text = { object: 'text'; leaves: Leaf[] };
export type Inline = { object: 'inline'; type: string; isVoid?: boolean; data: Record<string, unknown>; nodes?: Array<Text | Inline> };
export type DocumentBlock = {
  object: 'block';
  type: string;
  isVoid?: boolean;
  data: Record<string, unknown>;
  nodes?: Array<DocumentBlock | Text | Inline>;
  fragments?: unknown[];
};
export interface JSONDocument {
  object: 'document';
  data: { schemaVersion: number };
  nodes: DocumentBlock[];
}

export function text(value: string, marks: Mark[] = []): Text {
  return { object: 'text', leaves: [{ object: 'leaf', text: value, marks }] };
}

export function paragraph(nodes: Array<Text | Inline>): DocumentBlock {
  const merged = mergeTexts(nodes);
  return { object: 'block', type: 'paragraph', data: {}, nodes: merged.length > 0 ? merged : [text('')] };
}

/** A mark's identity: its type, and for a color its two colors. */
export const markKey = (mark: Pick<Mark, 'type' | 'data'>) => (mark.data ? `${mark.type}:${mark.data.text}:${mark.data.background}` : mark.type);
const sameMarks = (a: Mark[], b: Mark[]) => a.length === b.length && a.every((mark, i) => markKey(mark) === markKey(b[i]));
/** `marks` with `mark` added, unless it is there already (a mark applies once: `*a *b**` is still italic). */
export const withMark = (marks: Mark[], mark: Mark) => (marks.some((one) => markKey(one) === markKey(mark)) ? marks : [...marks, mark]);

/** Adjacent text nodes as one, adjacent leaves with the same marks as one leaf (how the reference writes them). */
export function mergeTexts(nodes: Array<Text | Inline>): Array<Text | Inline> {
  const merged: Array<Text | Inline> = [];
  for (const node of nodes) {
    if (node.object !== 'text') {
      merged.push(node);
      continue;
    }
    let last = merged[merged.length - 1];
    if (last?.object !== 'text') merged.push((last = { object: 'text', leaves: [] }));
    for (const leaf of node.leaves) {
      // An empty leaf (empty inline code) says nothing, and could not be written back.
      if (leaf.text === '') continue;
      const previous = last.leaves[last.leaves.length - 1];
      if (previous && sameMarks(previous.marks, leaf.marks)) previous.text += leaf.text;
      else last.leaves.push({ ...leaf, marks: [...leaf.marks] });
    }
  }
  return merged;
}
