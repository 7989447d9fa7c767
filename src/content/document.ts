/**
 * GitBook-flavoured markdown as the reference's `JSONDocument`: the tree of
 * src/content/gitbook-markdown.ts, block by block, in the kinds of the reference schema. Pure: what a link points at
 * comes from the caller (DocumentContext), which knows the revision.
 *
 * Where the schema does not let a block stand (a code block in a hint, a table in a quote), it is fitted: a
 * container gives its children to the parent, anything else becomes paragraphs of its text. Nothing written is
 * lost: an unknown or unbalanced tag is a paragraph holding the tag as written.
 *
 * Built now: paragraph, heading-1..3 (deeper headings are heading-3), lists ordered, unordered and of tasks,
 * blockquote, divider, code with code-lines and the `{% code %}` options, images (a paragraph of images alone, and
 * the platform's `<figure>` with its width and caption),
 * hint, tabs, stepper, content-ref, embed, file, reusable-content (`{% include %}`), GFM tables as grid tables,
 * the platform's HTML tables as cards or grids (src/content/html-table.ts), math, expandables (`<details>`); inline
 * link, inline-image, expression, inline-math, emoji (the platform's emoji span); marks bold, italic, code,
 * strikethrough, keyboard, superscript, subscript and color (`<kbd>`, `<sup>`, `<sub>`, `<mark style=...>`);
 * buttons (`<a href class="button primary">`).
 * OpenAPI blocks (`{% openapi src= path= method= %}` as `swagger`, `{% openapi-operation spec= %}`). Not yet (kept
 * as text): updates, the old `{% swagger %}` blocks with their parts, annotations, mentions.
 */
import type { Nodes, PhrasingContent, Root, Table, TableCell } from 'mdast';
import { toString } from 'mdast-util-to-string';
import { decodeEntities, htmlAttributes, htmlText } from './html-text.js';
import { parseGitbookMarkdown, parseTagArguments, splitTag, type GitbookNode, type LiquidBlock } from './gitbook-markdown.js';
import { EMOJI_DATA, htmlToMdast, parseHtmlTable, type HtmlTable } from './html-table.js';
import { boundedParagraphs, convertedParts } from './bounded-markdown.js';

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

type Mark = {
  object: 'mark';
  type: 'bold' | 'italic' | 'code' | 'strikethrough' | 'keyboard' | 'superscript' | 'subscript' | 'color';
  data?: { text: string; background: string };
};
type Leaf = { object: 'leaf'; text: string; marks: Mark[] };
type Text = { object: 'text'; leaves: Leaf[] };
type Inline = { object: 'inline'; type: string; isVoid?: boolean; data: Record<string, unknown>; nodes?: Array<Text | Inline> };
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

// Which blocks each container takes (the reference schema's oneOf lists).
const ESSENTIALS = ['paragraph', 'heading-1', 'heading-2', 'heading-3', 'list-ordered', 'list-unordered', 'list-tasks', 'divider'];
const CONTAINED = [...ESSENTIALS, 'content-ref', 'code', 'embed', 'file', 'images', 'hint', 'blockquote', 'math'];
// Columns and conditions are blocks of the reference, but no document of schema 0.130 may hold them anywhere: their
// contents stand in their place.
const TOP_LEVEL = [...CONTAINED, 'tabs', 'reusable-content', 'stepper', 'table', 'expandable', 'swagger', 'openapi-operation'];
const ALLOWED: Record<string, string[]> = {
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

const HINT_STYLES = new Set(['info', 'warning', 'danger', 'success']);

function text(value: string, marks: Mark[] = []): Text {
  return { object: 'text', leaves: [{ object: 'leaf', text: value, marks }] };
}

function paragraph(nodes: Array<Text | Inline>): DocumentBlock {
  const merged = mergeTexts(nodes);
  return { object: 'block', type: 'paragraph', data: {}, nodes: merged.length > 0 ? merged : [text('')] };
}

/** A paragraph of nothing (an HTML comment, an empty tag's leftovers): left out, as markdown shows nothing. */
function isEmptyParagraph(block: DocumentBlock): boolean {
  return block.type === 'paragraph' && (block.nodes ?? []).every((node) => node.object === 'text' && node.leaves.every((leaf) => leaf.text.trim() === ''));
}

/** A mark's identity: its type, and for a color its two colors. */
export const markKey = (mark: Pick<Mark, 'type' | 'data'>) => (mark.data ? `${mark.type}:${mark.data.text}:${mark.data.background}` : mark.type);
const sameMarks = (a: Mark[], b: Mark[]) => a.length === b.length && a.every((mark, i) => markKey(mark) === markKey(b[i]));
/** `marks` with `mark` added, unless it is there already (a mark applies once: `*a *b**` is still italic). */
const withMark = (marks: Mark[], mark: Mark) => (marks.some((one) => markKey(one) === markKey(mark)) ? marks : [...marks, mark]);

/**
 * The platform's figure, one HTML block: `<figure><img src="..." alt="..." width="375"><figcaption><p>Caption</p>
 * </figcaption></figure>`; undefined for any other HTML.
 */
export function parseFigure(html: string): { src: string; alt: string; width?: number; caption: string } | undefined {
  const figure = /^<figure>\s*<img\s([^>]*?)\/?>\s*(?:<figcaption>([\s\S]*?)<\/figcaption>)?\s*<\/figure>\s*$/i.exec(html.trim());
  if (!figure) return undefined;
  const attributes = htmlAttributes(figure[1]);
  if (!attributes.src) return undefined;
  const width = Number(attributes.width);
  const caption = htmlText(figure[2] ?? '');
  return { src: attributes.src, alt: attributes.alt ?? '', ...(Number.isFinite(width) && width > 0 ? { width } : {}), caption };
}

/** `<a href="..." class="button primary">` (the platform's button; `secondary` too). */
const BUTTON = /^<a\s+href="([^"]*)"\s+class="button\s+(primary|secondary)"[^>]*>$/i;

/** HTML that text reads inline (marks, breaks, buttons, the emoji span, and their ends). */
const INLINE_HTML = /^<\/?(kbd|sup|sub|mark|br|span|a\s[^>]*class="button)[\s>/]/i;

/** The opening tag of the platform's emoji span; its code point(s) in hex. */
const EMOJI_SPAN = /^<span\s+data-gb-custom-inline\s+data-tag="emoji"\s+data-code="([0-9a-f]+(?:-[0-9a-f]+)*)"\s*>$/i;

function emoji(code: string): Inline {
  return { object: 'inline', type: 'emoji', isVoid: true, data: { code } };
}

const COLORS = new Set(['default', 'green', 'blue', 'red', 'orange', 'yellow', 'purple', '$primary', '$info', '$success', '$warning', '$danger']);
const HTML_MARKS: Record<string, Mark['type']> = { kbd: 'keyboard', sup: 'superscript', sub: 'subscript' };

/**
 * The mark an opening HTML tag within text stands for: `<kbd>`, `<sup>`, `<sub>`, and `<mark style="color:red;">` /
 * `<mark style="background-color:green;">` with the platform's colors; undefined for any other HTML.
 */
function htmlMark(html: string): { tag: string; mark: Mark } | undefined {
  const simple = /^<(kbd|sup|sub)>$/i.exec(html.trim());
  if (simple) return { tag: simple[1].toLowerCase(), mark: { object: 'mark', type: HTML_MARKS[simple[1].toLowerCase()] } };
  const colored = /^<mark\s+style="([^"]*)"\s*>$/i.exec(html.trim());
  if (!colored) return undefined;
  const style = Object.fromEntries(
    colored[1]
      .split(';')
      .map((rule) => rule.split(':').map((part) => part.trim().toLowerCase()))
      .filter((pair) => pair.length === 2),
  );
  const text = style.color ?? 'default';
  const background = style['background-color'] ?? 'default';
  if (!COLORS.has(text) || !COLORS.has(background)) return undefined;
  return { tag: 'mark', mark: { object: 'mark', type: 'color', data: { text, background } } };
}

/** Adjacent text nodes as one, adjacent leaves with the same marks as one leaf (how the reference writes them). */
function mergeTexts(nodes: Array<Text | Inline>): Array<Text | Inline> {
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

class Converter {
  private readonly definitions = new Map<string, string>();
  /** Within `{% raw %}` ... `{% endraw %}`: Liquid is text there. */
  private raw = false;

  constructor(
    private readonly context: DocumentContext,
    root: Root,
    private readonly source: string,
  ) {
    const collect = (node: Nodes) => {
      if (node.type === 'definition' && !this.definitions.has(node.identifier)) this.definitions.set(node.identifier, node.url);
      if ('children' in node) for (const child of node.children) collect(child as Nodes);
    };
    collect(root);
  }

  // ---- inlines

  inlines(nodes: PhrasingContent[], marks: Mark[] = []): Array<Text | Inline> {
    // HTML tags that stand for marks open and close around the nodes between them (`<kbd>`, text, `</kbd>`).
    const open: Array<{ tag: string; mark: Mark }> = [];
    const out: Array<Text | Inline> = [];
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i];
      if (node.type === 'html') {
        // A button: `<a href="..." class="button primary">Label</a>`, the label as plain text between.
        const button = BUTTON.exec(node.value.trim());
        const label = nodes[i + 1];
        const close = nodes[i + 2];
        if (button && label?.type === 'text' && close?.type === 'html' && /^<\/a>$/i.test(close.value.trim())) {
          out.push({ object: 'inline', type: 'button', isVoid: true, data: { ref: this.context.resolveLink(decodeEntities(button[1])), label: label.value, kind: button[2].toLowerCase() } });
          i += 2;
          continue;
        }
        // The platform's emoji: `<span data-gb-custom-inline data-tag="emoji" data-code="1f680">🚀</span>`.
        const emojiSpan = EMOJI_SPAN.exec(node.value.trim());
        if (emojiSpan && close?.type === 'html' && /^<\/span>$/i.test(close.value.trim()) && label?.type === 'text') {
          out.push(emoji(emojiSpan[1]));
          i += 2;
          continue;
        }
        const opening = htmlMark(node.value);
        if (opening) {
          open.push(opening);
          continue;
        }
        const closing = /^<\/(kbd|sup|sub|mark)>$/i.exec(node.value.trim());
        if (closing && open.length > 0 && open[open.length - 1].tag === closing[1].toLowerCase()) {
          open.pop();
          continue;
        }
        if (/^<br\s*\/?>$/i.test(node.value.trim())) {
          out.push(text('\n', open.reduce((all, one) => withMark(all, one.mark), marks)));
          continue;
        }
      }
      out.push(...this.inline(node as GitbookNode, open.reduce((all, one) => withMark(all, one.mark), marks)));
    }
    return mergeTexts(out);
  }

  private inline(node: GitbookNode, marks: Mark[]): Array<Text | Inline> {
    const mark = (type: Mark['type']) => withMark(marks, { object: 'mark', type });
    switch (node.type) {
      case 'text':
        return [text(this.rawMarkers(node.value), marks)];
      case 'strong':
        return this.inlines(node.children, mark('bold'));
      case 'emphasis':
        return this.inlines(node.children, mark('italic'));
      case 'delete':
        return this.inlines(node.children, mark('strikethrough'));
      case 'inlineCode':
        return [text(node.value, mark('code'))];
      case 'break':
        return [text('\n', marks)];
      case 'link':
        // An HTML anchor (`<a id="x"></a>`, read from an HTML table) points nowhere and shows nothing.
        if (node.url === '' && toString(node) === '') return [];
        return [this.link(node.url, node.children, marks)];
      case 'linkReference': {
        const url = this.definitions.get(node.identifier);
        return url === undefined ? this.inlines(node.children, marks) : [this.link(url, node.children, marks)];
      }
      case 'image': {
        const code = (node.data as Record<string, unknown> | undefined)?.[EMOJI_DATA];
        return [typeof code === 'string' ? emoji(code) : this.inlineImage(node.url, node.alt ?? '')];
      }
      case 'imageReference': {
        const url = this.definitions.get(node.identifier);
        return url === undefined ? [text(node.alt ?? '', marks)] : [this.inlineImage(url, node.alt ?? '')];
      }
      case 'liquidExpression':
        if (this.raw) return [text(this.written(node) ?? `{{ ${node.value} }}`, marks)];
        return [{ object: 'inline', type: 'expression', isVoid: true, data: { expression: node.value } }];
      case 'inlineMath':
        return [{ object: 'inline', type: 'inline-math', isVoid: true, data: { formula: node.value } }];
      case 'html':
        return [text(node.value, marks)];
      case 'footnoteReference':
        return [text(`[^${node.label ?? node.identifier}]`, marks)];
      default:
        return [text(toString(node as Nodes), marks)];
    }
  }

  /** A paragraph's inlines: a `{% raw %}` opened in it and never closed ends with it. */
  private paragraphInlines(nodes: PhrasingContent[]): Array<Text | Inline> {
    const outer = this.raw;
    const converted = this.inlines(nodes);
    this.raw = outer;
    return converted;
  }

  /** `{% raw %}` and `{% endraw %}` within text switch raw mode and are left out: they are syntax, not content. */
  private rawMarkers(value: string): string {
    if (!value.includes('raw %}')) return value;
    return value.replace(/\{%-?\s*(end)?raw\s*-?%\}/g, (_, end: string | undefined) => {
      this.raw = !end;
      return '';
    });
  }

  /** A node's text as the markdown writes it. */
  private written(node: GitbookNode): string | undefined {
    const start = node.position?.start.offset;
    const end = node.position?.end.offset;
    return start !== undefined && end !== undefined ? this.source.slice(start, end) : undefined;
  }

  private link(href: string, children: PhrasingContent[], marks: Mark[]): Inline {
    const nodes = this.inlines(children, marks).filter((node) => node.object === 'text' || node.type === 'inline-image');
    return { object: 'inline', type: 'link', data: { ref: this.context.resolveLink(href) }, nodes: nodes.length > 0 ? nodes : [text(href, marks)] };
  }

  /** An image's ref: a file of the revision, else its URL (the schema takes no other kind). */
  private imageRef(src: string): ContentRef {
    const ref = this.context.resolveLink(src);
    return ref.kind === 'file' ? ref : { kind: 'url', url: src };
  }

  private inlineImage(src: string, alt: string): Inline {
    return { object: 'inline', type: 'inline-image', isVoid: true, data: { ref: this.imageRef(src), ...(alt ? { caption: alt } : {}) } };
  }

  // ---- blocks

  blocks(nodes: GitbookNode[], container: string): DocumentBlock[] {
    return fit(nodes.flatMap((node) => this.block(node)), ALLOWED[container] ?? TOP_LEVEL).filter((block) => !isEmptyParagraph(block));
  }

  private block(node: GitbookNode): DocumentBlock[] {
    switch (node.type) {
      case 'paragraph': {
        const onlyImages = node.children.length > 0 && node.children.every((child) => child.type === 'image' || (child.type === 'text' && child.value.trim() === ''));
        if (onlyImages) {
          const images = node.children.filter((child) => child.type === 'image').map((image) => this.image(image.url, image.alt ?? ''));
          return [{ object: 'block', type: 'images', isVoid: false, data: {}, nodes: images }];
        }
        return [paragraph(this.paragraphInlines(node.children))];
      }
      case 'heading':
        return [{ object: 'block', type: `heading-${Math.min(node.depth, 3)}`, data: {}, nodes: this.paragraphInlines(node.children) }];
      case 'thematicBreak':
        return [{ object: 'block', type: 'divider', isVoid: true, data: {} }];
      case 'blockquote':
        return [{ object: 'block', type: 'blockquote', data: {}, nodes: this.blocks(node.children as GitbookNode[], 'blockquote') }];
      case 'list': {
        const tasks = node.children.some((item) => typeof item.checked === 'boolean');
        const items = node.children.map((item) => ({
          object: 'block' as const,
          type: 'list-item',
          data: tasks ? { checked: item.checked === true } : {},
          nodes: this.blocks(item.children as GitbookNode[], 'list-item'),
        }));
        if (tasks) return [{ object: 'block', type: 'list-tasks', data: {}, nodes: items }];
        if (node.ordered) return [{ object: 'block', type: 'list-ordered', data: node.start != null && node.start !== 1 ? { start: node.start } : {}, nodes: items }];
        return [{ object: 'block', type: 'list-unordered', data: {}, nodes: items }];
      }
      case 'code':
        return [codeBlock(node.value, node.lang ?? undefined, {})];
      case 'math':
        return [{ object: 'block', type: 'math', isVoid: true, data: { formula: node.value } }];
      case 'html': {
        const figure = parseFigure(node.value);
        if (figure) {
          const image = this.image(figure.src, figure.alt, figure.width);
          if (figure.caption) image.fragments = [{ object: 'fragment', fragment: 'caption', nodes: [paragraph([text(figure.caption)])] }];
          return [{ object: 'block', type: 'images', isVoid: false, data: {}, nodes: [image] }];
        }
        const table = parseHtmlTable(node.value);
        if (table) return [this.htmlTable(table)];
        return [paragraph([text(node.value)])];
      }
      case 'definition':
        return [];
      case 'table':
        return [this.table(node)];
      case 'details': {
        const body = this.blocks(node.children, 'expandable-body');
        return [
          {
            object: 'block',
            type: 'expandable',
            isVoid: true,
            data: {},
            fragments: [
              { object: 'fragment', fragment: 'expandable-title', type: 'expandable-title', nodes: [paragraph([text(node.summary)])] },
              { object: 'fragment', fragment: 'expandable-body', type: 'expandable-body', nodes: body.length > 0 ? body : [paragraph([])] },
            ],
          },
        ];
      }
      case 'liquidTag': {
        // A tag without an end tag: embed, file, include, content-ref written alone; anything else kept as written.
        const { name, args } = splitTag(node.value);
        return [this.tagBlock(name, args) ?? paragraph([text(`{% ${node.value} %}`)])];
      }
      case 'liquidBlock':
        return this.liquidBlock(node);
      default:
        return [paragraph([text(toString(node as Nodes))])];
    }
  }

  /**
   * A GFM table as a grid table: one text column per header cell (its text the column's title), one record per
   * row, each cell a fragment holding a paragraph. Ids are made from positions (`c0`, `r0`, `r0c0`), so the same
   * table always gives the same document.
   */
  private table(node: Table): DocumentBlock {
    const [header, ...rows] = node.children;
    const columns = (header?.children ?? []).map((_, i) => `c${i}`);
    const definition = Object.fromEntries(
      columns.map((id, i) => [id, { id, title: toString(header.children[i]), type: 'text', textAlignment: node.align?.[i] ?? 'left' }]),
    );
    const fragments: unknown[] = [];
    const records = Object.fromEntries(
      rows.map((row, r) => {
        const values: Record<string, string> = {};
        columns.forEach((column, c) => {
          const fragment = `r${r}${column}`;
          values[column] = fragment;
          fragments.push({ object: 'fragment', fragment, nodes: this.cell(row.children[c]) });
        });
        return [`r${r}`, { orderIndex: String(r).padStart(6, '0'), values }];
      }),
    );
    return { object: 'block', type: 'table', isVoid: true, data: { view: { type: 'grid', columns, hideHeader: false }, records, definition }, fragments };
  }

  /**
   * A GFM table cell: its inlines; or, when it holds HTML other than the marks, breaks, buttons and emoji read in
   * text (`<p>...<br><br>...</p>`, `<a href>`), the cell read as HTML, as the platform's HTML tables are.
   */
  private cell(cell: TableCell | undefined): DocumentBlock[] {
    const children = cell?.children ?? [];
    const html = children.some((child) => child.type === 'html' && !INLINE_HTML.test(child.value.trim()));
    const start = cell?.position?.start.offset;
    const end = cell?.position?.end.offset;
    if (!html || start === undefined || end === undefined) return [paragraph(this.inlines(children))];
    const source = this.source.slice(start, end).replace(/^\s*\|/, '').replace(/\|\s*$/, '').replace(/\\\|/g, '|');
    const blocks = this.blocks(htmlToMdast(source).children as GitbookNode[], 'table-cell');
    return blocks.length > 0 ? blocks : [paragraph([])];
  }

  /**
   * The platform's HTML table (src/content/html-table.ts) as a table of the view it names: cards (hidden columns
   * give each card's link, a content-ref, and cover, files) or a grid. Text cells become fragments as in GFM tables;
   * ids come from positions the same way.
   */
  private htmlTable(table: HtmlTable): DocumentBlock {
    const ids = table.columns.map((_, i) => `c${i}`);
    const definition = Object.fromEntries(
      table.columns.map((column, i) => {
        const base = { id: ids[i], title: column.title };
        if (column.type === 'content-ref' || column.type === 'files') return [ids[i], { ...base, type: column.type }];
        return [ids[i], { ...base, type: 'text', textAlignment: column.align ?? 'left' }];
      }),
    );
    const columns = ids.filter((_, i) => !table.columns[i].hidden);
    const target = ids.find((_, i) => table.columns[i].cardTarget && table.columns[i].type === 'content-ref');
    const cover = ids.find((_, i) => table.columns[i].cardCover && table.columns[i].type === 'files');
    const view =
      table.view === 'cards'
        ? {
            type: 'cards',
            columns,
            cardSize: table.cardSize,
            ...(target ? { targetDefinition: target } : {}),
            ...(cover ? { coverDefinition: cover } : {}),
            hideColumnTitle: table.columns.every((column) => column.title === ''),
          }
        : { type: 'grid', columns, hideHeader: table.headerHidden };
    const fragments: unknown[] = [];
    const records = Object.fromEntries(
      table.rows.map((row, r) => {
        const values: Record<string, unknown> = {};
        row.forEach((cell, c) => {
          const type = table.columns[c].type;
          if (type === 'content-ref') {
            if (cell.hrefs.length > 0) values[ids[c]] = this.context.resolveLink(cell.hrefs[0]);
          } else if (type === 'files') {
            const files = cell.hrefs.map((href) => this.context.resolveLink(href)).flatMap((ref) => (ref.kind === 'file' ? [ref.file] : []));
            if (files.length > 0) values[ids[c]] = files;
          } else {
            const fragment = `r${r}${ids[c]}`;
            const nodes = this.blocks(cell.content.children as GitbookNode[], 'table-cell');
            values[ids[c]] = fragment;
            fragments.push({ object: 'fragment', fragment, nodes: nodes.length > 0 ? nodes : [paragraph([])] });
          }
        });
        return [`r${r}`, { orderIndex: String(r).padStart(6, '0'), values }];
      }),
    );
    return { object: 'block', type: 'table', isVoid: true, data: { view, records, definition }, fragments };
  }

  private image(src: string, alt: string, width?: number): DocumentBlock {
    return { object: 'block', type: 'image', isVoid: true, data: { ref: this.imageRef(src), ...(alt ? { alt } : {}), ...(width ? { width } : {}) }, fragments: [] };
  }

  /** The block a tag of one of these kinds stands for (alone, or around what the platform writes with it). */
  private tagBlock(name: string, args: string): DocumentBlock | undefined {
    const attributes = parseTagArguments(args);
    const url = attributes.url ?? attributes.src;
    if (name === 'embed' && url) return { object: 'block', type: 'embed', isVoid: true, data: { url } };
    if (name === 'content-ref' && url) return { object: 'block', type: 'content-ref', isVoid: true, data: { ref: this.context.resolveLink(url) } };
    if (name === 'file' && url) {
      const ref = this.context.resolveLink(url);
      return ref.kind === 'file' ? { object: 'block', type: 'file', isVoid: true, data: { ref } } : undefined;
    }
    if (name === 'openapi' && attributes.src && attributes.path && attributes.method) {
      // The platform's older OpenAPI block: a spec file or URL, and one operation of it.
      const ref = this.context.resolveLink(attributes.src);
      const spec = ref.kind === 'file' ? ref : { kind: 'url', url: attributes.src };
      return { object: 'block', type: 'swagger', isVoid: true, data: { ref: spec, path: attributes.path, method: attributes.method } };
    }
    if (name === 'openapi-operation' && attributes.spec && attributes.path && attributes.method) {
      return { object: 'block', type: 'openapi-operation', isVoid: true, data: { ref: { kind: 'openapi', spec: attributes.spec }, path: attributes.path, method: attributes.method } };
    }
    if (name === 'include') {
      const path = /"([^"]+)"/.exec(args)?.[1];
      const id = path === undefined ? undefined : this.context.resolveInclude?.(path);
      if (id) return { object: 'block', type: 'reusable-content', isVoid: true, data: { ref: { kind: 'reusable-content', reusableContent: id } } };
    }
    return undefined;
  }


  private liquidBlock(node: LiquidBlock): DocumentBlock[] {
    const children = node.children;
    if (node.name === 'raw') {
      // What it holds, with Liquid as text; the tags themselves are syntax.
      const outer = this.raw;
      this.raw = true;
      const blocks = children.flatMap((child) => this.block(child));
      this.raw = outer;
      return blocks;
    }
    const container = (type: string, data: Record<string, unknown>) => [{ object: 'block' as const, type, data, nodes: this.blocks(children, type) }];
    switch (node.name) {
      case 'hint': {
        const style = HINT_STYLES.has(node.attributes.style ?? '') ? node.attributes.style : 'info';
        return container('hint', { style });
      }
      case 'tabs':
        return [{ object: 'block', type: 'tabs', data: {}, nodes: this.itemsOf(children, 'tab', 'tabs-item', (block) => ({ title: block.attributes.title ?? '' })) }];
      case 'stepper':
        return [{ object: 'block', type: 'stepper', data: {}, nodes: this.itemsOf(children, 'step', 'stepper-step', () => ({})) }];
      case 'columns':
        return [{ object: 'block', type: 'columns', isVoid: false, data: {}, nodes: this.itemsOf(children, 'column', 'column', () => ({})) }];
      case 'code': {
        const fence = children.find((child) => child.type === 'code');
        if (!fence || fence.type !== 'code') break;
        const { title, overflow, lineNumbers, fullWidth } = node.attributes;
        const options = {
          ...(title ? { title } : {}),
          ...(overflow === 'wrap' || overflow === 'scroll' ? { overflow } : {}),
          ...(lineNumbers ? { lineNumbers: lineNumbers === 'true' } : {}),
          ...(fullWidth ? { fullWidth: fullWidth === 'true' } : {}),
        };
        return [codeBlock(fence.value, fence.lang ?? undefined, options)];
      }
      case 'content-ref':
      case 'embed':
      case 'file':
      case 'openapi':
      case 'openapi-operation': {
        const made = this.tagBlock(node.name, node.args);
        if (made) return [made];
        break;
      }
      case 'if':
        return container('if', { expression: node.args });
    }
    // Not built yet, or not as the schema wants it: the tags as written, and what they hold.
    return [paragraph([text(`{% ${node.name}${node.args ? ` ${node.args}` : ''} %}`)]), ...this.blocks(children, 'document'), paragraph([text(`{% end${node.name} %}`)])];
  }

  /** The items of tabs, a stepper or columns: their `item` blocks; anything else between them is left out as items. */
  private itemsOf(children: GitbookNode[], item: string, type: string, data: (block: LiquidBlock) => Record<string, unknown>): DocumentBlock[] {
    return children
      .filter((child): child is LiquidBlock => child.type === 'liquidBlock' && child.name === item)
      .map((block) => ({ object: 'block', type, data: data(block), nodes: this.blocks(block.children, type) }));
  }
}

function codeBlock(value: string, syntax: string | undefined, options: Record<string, unknown>): DocumentBlock {
  return {
    object: 'block',
    type: 'code',
    data: { ...(syntax ? { syntax } : {}), ...options },
    nodes: value.split('\n').map((line) => ({ object: 'block' as const, type: 'code-line', data: {}, nodes: [text(line)] })),
  };
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
function fit(blocks: DocumentBlock[], allowed: string[]): DocumentBlock[] {
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

/**
 * A page body (GitBook-flavoured markdown) as a JSONDocument, in time linear in its length: paragraphs are bounded
 * for the parser, and past its first megabyte a page is paragraphs of plain text (src/content/bounded-markdown.ts).
 */
export function markdownToDocument(markdown: string, context: DocumentContext = PLAIN_LINKS): JSONDocument {
  const { markup, plain } = convertedParts(markdown);
  const source = boundedParagraphs(markup).text;
  const root = parseGitbookMarkdown(source);
  const converter = new Converter(context, root, source);
  const nodes = converter.blocks(root.children as GitbookNode[], 'document');
  for (const paragraphText of plain) nodes.push(paragraph([text(paragraphText)]));
  return { object: 'document', data: { schemaVersion: 1 }, nodes };
}
