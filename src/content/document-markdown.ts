/**
 * A JSONDocument as GitBook-flavoured markdown: the reverse of src/content/document.ts, for a
 * comment or a reply sent as a document, and for documents a migration meets. The document becomes the tree of
 * src/content/gitbook-markdown.ts, which remark-stringify writes; markdown -> document -> markdown -> document
 * gives the same document again (test/content/document-markdown.test.ts, and scripts/document-roundtrip.ts over
 * real repositories).
 *
 * Unknown kinds are written as their text; an input that is not a document at all gives ''. A ref becomes an
 * href through the caller (ReverseContext): a page's path, a file's path, a URL.
 */
import type { BlockContent, List, ListItem, Paragraph, PhrasingContent, Root, RootContent, Table, TableCell, TableRow } from 'mdast';
import remarkStringify from 'remark-stringify';
import type { Join } from 'mdast-util-to-markdown';
import { gitbookMarkdownWriter, type GitbookNode, type LiquidBlock, type LiquidTag } from './gitbook-markdown.js';
import { markKey, type ContentRef } from './document-nodes.js';
import { escapeHtml } from './html-text.js';
import { writeHtmlTable } from './html-table.js';

export interface ReverseContext {
  /** The href that points at `ref` from the page being written. */
  hrefOf(ref: ContentRef): string;
}

/** URLs as they are; other refs by what they name (a context that knows the revision does better). */
export const PLAIN_HREFS: ReverseContext = {
  hrefOf(ref) {
    switch (ref.kind) {
      case 'url':
        return ref.url;
      case 'anchor':
        return `#${ref.anchor}`;
      case 'page':
        return ref.page;
      case 'file':
        return ref.file;
      default:
        return '';
    }
  },
};

interface AnyNode {
  object?: string;
  type?: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- GitBook's JSON: each node type keeps its own fields in `data`, read one by one below.
  data?: Record<string, any>;
  nodes?: AnyNode[];
  leaves?: Array<{ text?: string; marks?: Array<{ type?: string }> }>;
  fragments?: Array<{ fragment?: string; type?: string; nodes?: AnyNode[] }>;
}

const MARK_NODES: Record<string, 'strong' | 'emphasis' | 'delete'> = { bold: 'strong', italic: 'emphasis', strikethrough: 'delete' };
const HTML_TAGS: Record<string, string> = { keyboard: 'kbd', superscript: 'sup', subscript: 'sub' };

/** The opening and closing HTML of a mark written as HTML (its key, see markKey), or undefined. */
function htmlTags(key: string): [string, string] | undefined {
  if (HTML_TAGS[key]) return [`<${HTML_TAGS[key]}>`, `</${HTML_TAGS[key]}>`];
  const color = /^color:([^:]*):([^:]*)$/.exec(key);
  if (!color) return undefined;
  const style = [color[1] !== 'default' ? `color:${color[1]};` : '', color[2] !== 'default' ? `background-color:${color[2]};` : ''].join('');
  return [`<mark style="${style}">`, '</mark>'];
}
// A document does not say whether a list is tight, so items are written tight; but a table cannot interrupt a
// paragraph, so within an item it gets its blank line, or it would read back as the text of the paragraph before it
// (or of the last paragraph of the list before it).
const tableInItem: Join = (_left, right, parent) => (parent.type === 'listItem' && right.type === 'table' ? 1 : undefined);
const writer = gitbookMarkdownWriter().use(remarkStringify, { bullet: '*', fences: true, rule: '-', listItemIndent: 'one', emphasis: '_', join: [tableInItem] });

const quote = (value: string) => `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
const tag = (value: string): LiquidTag => ({ type: 'liquidTag', value });
const block = (name: string, args: string, children: GitbookNode[]): LiquidBlock => ({ type: 'liquidBlock', name, args, attributes: {}, children });

class Writer {
  constructor(private readonly context: ReverseContext) {}

  // ---- inlines

  /**
   * Leaves with marks as nested mdast: consecutive leaves sharing a mark share its node (bold, italic,
   * strikethrough) or its HTML tags (keyboard, superscript, subscript, color). Code is innermost: markdown's code
   * span holds no other mark.
   */
  private leaves(leaves: Array<{ text: string; marks: string[] }>): PhrasingContent[] {
    const out: PhrasingContent[] = [];
    for (let i = 0; i < leaves.length; ) {
      const leaf = leaves[i];
      const mark = leaf.marks.find((key) => MARK_NODES[key] || htmlTags(key));
      if (!mark) {
        out.push(leaf.marks.includes('code') ? { type: 'inlineCode', value: leaf.text } : { type: 'text', value: leaf.text });
        i++;
        continue;
      }
      let end = i;
      while (end < leaves.length && leaves[end].marks.includes(mark)) end++;
      const inner = this.leaves(leaves.slice(i, end).map((one) => ({ text: one.text, marks: one.marks.filter((key) => key !== mark) })));
      const tags = htmlTags(mark);
      if (tags) out.push({ type: 'html', value: tags[0] }, ...inner, { type: 'html', value: tags[1] });
      else out.push({ type: MARK_NODES[mark], children: inner } as PhrasingContent);
      i = end;
    }
    return out;
  }

  inlines(nodes: AnyNode[] = []): PhrasingContent[] {
    const out: PhrasingContent[] = [];
    let pending: Array<{ text: string; marks: string[] }> = [];
    const flush = () => {
      out.push(...this.leaves(pending));
      pending = [];
    };
    for (const node of nodes) {
      if (node.object === 'text') {
        for (const leaf of node.leaves ?? []) pending.push({ text: leaf.text ?? '', marks: (leaf.marks ?? []).map((mark) => markKey(mark as never)) });
        continue;
      }
      flush();
      out.push(...this.inline(node));
    }
    flush();
    return out;
  }

  private inline(node: AnyNode): PhrasingContent[] {
    const data = node.data ?? {};
    switch (node.type) {
      case 'link':
        return [{ type: 'link', url: this.href(data.ref), children: this.inlines(node.nodes) }];
      case 'inline-image':
        return [{ type: 'image', url: this.href(data.ref), alt: data.caption ?? '' }];
      case 'expression':
        return [{ type: 'liquidExpression', value: String(data.expression ?? '') } as unknown as PhrasingContent];
      case 'emoji': {
        // The platform's own form, which reads back as this emoji (a bare character would read back as text).
        const code = String(data.code ?? '');
        if (!/^[0-9a-f]+(-[0-9a-f]+)*$/i.test(code)) return [{ type: 'text', value: code }];
        return [{ type: 'html', value: `<span data-gb-custom-inline data-tag="emoji" data-code="${code}">` }, { type: 'text', value: emojiOf(code) }, { type: 'html', value: '</span>' }];
      }
      case 'inline-math':
        return [{ type: 'inlineMath', value: String(data.formula ?? '') } as unknown as PhrasingContent];
      case 'button': {
        const kind = data.kind === 'secondary' ? 'secondary' : 'primary';
        return [{ type: 'html', value: `<a href="${escapeHtml(this.href(data.ref))}" class="button ${kind}">` }, { type: 'text', value: String(data.label ?? '') }, { type: 'html', value: '</a>' }];
      }
      case 'mention':
        return [{ type: 'link', url: this.href(data.ref), children: [{ type: 'text', value: this.href(data.ref) }] }];
      default:
        return this.inlines(node.nodes);
    }
  }

  private href(ref: ContentRef | undefined): string {
    return ref ? this.context.hrefOf(ref) : '';
  }

  // ---- blocks

  blocks(nodes: AnyNode[] = []): GitbookNode[] {
    return nodes.flatMap((node) => this.block(node));
  }

  private paragraph(nodes: AnyNode[] | undefined): Paragraph {
    return { type: 'paragraph', children: this.inlines(nodes) };
  }

  private block(node: AnyNode): GitbookNode[] {
    const data = node.data ?? {};
    const type = node.type ?? '';
    if (/^heading-[1-6]$/.test(type)) return [{ type: 'heading', depth: Number(type.slice(8)) as 1 | 2 | 3, children: this.inlines(node.nodes) }];
    switch (type) {
      case 'paragraph': {
        // What the document kept as text of a paragraph because it has no kind for it, written back as it was:
        // raw HTML (a table, a figure), or a tag line of a block not built yet.
        const only = node.nodes?.length === 1 && node.nodes[0].object === 'text' && node.nodes[0].leaves?.length === 1 ? node.nodes[0].leaves[0] : undefined;
        const raw = only && (only.marks ?? []).length === 0 ? (only.text ?? '') : undefined;
        if (raw !== undefined && /^<[A-Za-z!/]/.test(raw)) return [{ type: 'html', value: raw }];
        if (raw !== undefined && /^\{%[^\n]*%\}$/.test(raw)) return [tag(raw.slice(2, -2).trim())];
        return [this.paragraph(node.nodes)];
      }
      case 'divider':
        return [{ type: 'thematicBreak' }];
      case 'blockquote':
        return [{ type: 'blockquote', children: this.blocks(node.nodes) as BlockContent[] }];
      case 'list-ordered':
      case 'list-unordered':
      case 'list-tasks': {
        const items: ListItem[] = (node.nodes ?? []).map((item) => ({
          type: 'listItem',
          spread: false,
          checked: type === 'list-tasks' ? item.data?.checked === true : null,
          children: this.blocks(item.nodes) as BlockContent[],
        }));
        const list: List = { type: 'list', ordered: type === 'list-ordered', spread: false, children: items };
        if (type === 'list-ordered' && typeof data.start === 'number') list.start = data.start;
        return [list];
      }
      case 'code': {
        const lines = (node.nodes ?? []).map((line) => this.inlines(line.nodes).map(textOf).join(''));
        const fence: RootContent = { type: 'code', lang: data.syntax ?? null, meta: null, value: lines.join('\n') };
        const options = [
          data.title ? `title=${quote(String(data.title))}` : '',
          data.overflow ? `overflow=${quote(String(data.overflow))}` : '',
          typeof data.lineNumbers === 'boolean' ? `lineNumbers=${quote(String(data.lineNumbers))}` : '',
          typeof data.fullWidth === 'boolean' ? `fullWidth=${quote(String(data.fullWidth))}` : '',
        ].filter(Boolean);
        return options.length > 0 ? [block('code', options.join(' '), [fence])] : [fence];
      }
      case 'hint':
        return [block('hint', `style=${quote(String(data.style ?? 'info'))}`, this.blocks(node.nodes))];
      case 'tabs':
        return [block('tabs', '', (node.nodes ?? []).map((item) => block('tab', `title=${quote(String(item.data?.title ?? ''))}`, this.blocks(item.nodes))))];
      case 'stepper':
        return [block('stepper', '', (node.nodes ?? []).map((item) => block('step', '', this.blocks(item.nodes))))];
      case 'columns':
        return [block('columns', '', (node.nodes ?? []).map((item) => block('column', '', this.blocks(item.nodes))))];
      case 'if':
        return [block('if', String(data.expression ?? ''), this.blocks(node.nodes))];
      case 'content-ref': {
        const href = this.href(data.ref);
        return [block('content-ref', `url=${quote(href)}`, [{ type: 'paragraph', children: [{ type: 'link', url: href, children: [{ type: 'text', value: href }] }] }])];
      }
      case 'embed':
        return [tag(`embed url=${quote(String(data.url ?? ''))}`)];
      case 'file':
        return [tag(`file src=${quote(this.href(data.ref))}`)];
      case 'swagger':
        return [block('openapi', `src=${quote(this.href(data.ref))} path=${quote(String(data.path ?? ''))} method=${quote(String(data.method ?? ''))}`, [])];
      case 'openapi-operation':
        return [block('openapi-operation', `spec=${quote(String(data.ref?.spec ?? ''))} path=${quote(String(data.path ?? ''))} method=${quote(String(data.method ?? ''))}`, [])];
      case 'reusable-content':
        return [tag(`include ${quote(this.href(data.ref))}`)];
      case 'images':
      case 'image': {
        const images = type === 'image' ? [node] : (node.nodes ?? []);
        // An image with a caption or a width is the platform's figure; others are markdown images.
        if (images.some((image) => captionOf(image) || typeof image.data?.width === 'number')) return images.map((image) => this.figure(image));
        return [{ type: 'paragraph', children: images.flatMap((image, i) => [...(i > 0 ? [{ type: 'text' as const, value: ' ' }] : []), this.image(image)]) }];
      }
      case 'table':
        return [this.table(node)];
      case 'math':
        return [{ type: 'math', value: String(data.formula ?? '') } as unknown as GitbookNode];
      case 'expandable': {
        const title = node.fragments?.find((fragment) => fragment.fragment === 'expandable-title' || fragment.type === 'expandable-title');
        const body = node.fragments?.find((fragment) => fragment.fragment === 'expandable-body' || fragment.type === 'expandable-body');
        const summary = (title?.nodes ?? []).flatMap((one) => this.inlines(one.nodes)).map(textOf).join('');
        return [{ type: 'details', summary, children: this.blocks(body?.nodes) }];
      }
      default:
        // A kind not written yet: its text, as paragraphs, so nothing is lost.
        if (node.nodes?.some((child) => child.object === 'block')) return this.blocks(node.nodes);
        return [this.paragraph(node.nodes)];
    }
  }

  /**
   * A table: a GFM table when markdown's tables can hold it (a grid with its header shown, text columns only,
   * paragraphs in its cells), else the platform's HTML table (cards, hidden columns, links and covers, lists or
   * headings in a cell). The columns of its definition in order, the records by their order index.
   */
  private table(node: AnyNode): GitbookNode {
    const data = node.data ?? {};
    const view = (data.view ?? {}) as { type?: string; columns?: string[]; hideHeader?: boolean; cardSize?: string; targetDefinition?: string; coverDefinition?: string };
    const definition = (data.definition ?? {}) as Record<string, { title?: string; type?: string; textAlignment?: string }>;
    const fragments = new Map((node.fragments ?? []).map((fragment) => [fragment.fragment, fragment.nodes ?? []]));
    const records = Object.values((data.records ?? {}) as Record<string, { orderIndex?: string; values?: Record<string, unknown> }>).sort((a, b) =>
      String(a.orderIndex) < String(b.orderIndex) ? -1 : 1,
    );
    const shown: string[] = view.columns ?? [];
    const ids = [...Object.keys(definition), ...shown.filter((id) => !(id in definition))];
    const cellNodes = (value: unknown) => (typeof value === 'string' ? fragments.get(value) : undefined);
    const markdownCan =
      view.type !== 'cards' &&
      view.hideHeader !== true &&
      ids.every((id) => shown.includes(id) && (definition[id]?.type ?? 'text') === 'text') &&
      records.every((record) => shown.every((id) => (cellNodes(record.values?.[id]) ?? []).every((one) => one.type === 'paragraph')));
    if (!markdownCan) return this.htmlTable(view, definition, ids, records, fragments);

    // A cell of several paragraphs holds them as HTML (`<p>...</p><p>...</p>`), which reads back as paragraphs.
    const cell = (nodes: AnyNode[]): TableCell => ({
      type: 'tableCell',
      // (A pipe in it is escaped: GFM splits cells at every unescaped one, HTML or not.)
      children:
        nodes.length > 1
          ? [{ type: 'html', value: nodes.map((one) => `<p>${phrasingHtml(this.inlines(one.nodes))}</p>`).join('').replace(/\|/g, '\\|') }]
          : this.inlines(nodes[0]?.nodes),
    });
    const rows: TableRow[] = [
      { type: 'tableRow', children: shown.map((column) => ({ type: 'tableCell', children: [{ type: 'text', value: definition[column]?.title ?? '' }] })) },
      ...records.map((record) => ({
        type: 'tableRow' as const,
        children: shown.map((column) => {
          const value = record.values?.[column];
          return cellNodes(value) ? cell(cellNodes(value)!) : { type: 'tableCell' as const, children: value === undefined ? [] : [{ type: 'text' as const, value: String(value) }] };
        }),
      })),
    ];
    const align = shown.map((column) => {
      const alignment = definition[column]?.textAlignment;
      return alignment === 'left' || alignment === 'right' || alignment === 'center' ? alignment : null;
    });
    return { type: 'table', align, children: rows } as Table;
  }

  private htmlTable(
    view: { type?: string; columns?: string[]; hideHeader?: boolean; cardSize?: string; targetDefinition?: string; coverDefinition?: string },
    definition: Record<string, { title?: string; type?: string; textAlignment?: string }>,
    ids: string[],
    records: Array<{ values?: Record<string, unknown> }>,
    fragments: Map<string | undefined, AnyNode[]>,
  ): GitbookNode {
    const link = (ref: ContentRef) => {
      const href = this.href(ref);
      return `<a href="${escapeHtml(href)}">${escapeHtml(href)}</a>`;
    };
    const cellHtml = (id: string, value: unknown): string => {
      const type = definition[id]?.type ?? 'text';
      if (type === 'content-ref') return value && typeof value === 'object' && !Array.isArray(value) ? link(value as ContentRef) : '';
      if (type === 'files') return Array.isArray(value) ? value.map((file) => link({ kind: 'file', file: String(file) })).join('') : '';
      const nodes = typeof value === 'string' ? fragments.get(value) : undefined;
      if (!nodes) return value === undefined ? '' : escapeHtml(String(value));
      const paragraphs = nodes.map((one) => phrasingHtml(this.inlines(one.object === 'block' && one.type !== 'paragraph' ? [{ object: 'text', leaves: [{ text: blockText(one) }] }] : one.nodes)));
      return paragraphs.length === 1 ? paragraphs[0] : paragraphs.map((one) => `<p>${one}</p>`).join('');
    };
    const align = (value: string | undefined) => (value === 'right' || value === 'center' || value === 'left' ? value : undefined);
    const html = writeHtmlTable(
      {
        view: view.type === 'cards' ? 'cards' : 'grid',
        cardSize: view.cardSize === 'large' ? 'large' : 'medium',
        headerHidden: view.type !== 'cards' && view.hideHeader === true,
        columns: ids.map((id) => ({
          title: definition[id]?.title ?? '',
          hidden: !(view.columns ?? []).includes(id),
          cardTarget: view.targetDefinition === id,
          cardCover: view.coverDefinition === id,
          ...(definition[id]?.type && definition[id].type !== 'text' ? { type: definition[id].type } : {}),
          ...(align(definition[id]?.textAlignment) ? { align: align(definition[id]?.textAlignment) } : {}),
        })),
      },
      records.map((record) => ids.map((id) => cellHtml(id, record.values?.[id]))),
    );
    return { type: 'html', value: html };
  }

  private figure(image: AnyNode): GitbookNode {
    const width = typeof image.data?.width === 'number' ? ` width="${image.data.width}"` : '';
    const caption = escapeHtml(captionOf(image));
    return {
      type: 'html',
      value: `<figure><img src="${escapeHtml(this.href(image.data?.ref))}" alt="${escapeHtml(String(image.data?.alt ?? ''))}"${width}><figcaption>${caption ? `<p>${caption}</p>` : ''}</figcaption></figure>`,
    };
  }

  private image(image: AnyNode): PhrasingContent {
    return { type: 'image', url: this.href(image.data?.ref), alt: image.data?.alt ?? '' };
  }
}

/** The text of an image's caption fragment ('' without one). */
function captionOf(image: AnyNode): string {
  const caption = image.fragments?.find((fragment) => fragment.fragment === 'caption');
  return (caption?.nodes ?? []).map((paragraph) => (paragraph.nodes ?? []).map((node) => (node.leaves ?? []).map((leaf) => leaf.text ?? '').join('')).join('')).join(' ');
}

/** The text of a block and what it holds (a heading or list where a table cell takes paragraphs only). */
function blockText(node: AnyNode): string {
  if (node.object === 'text') return (node.leaves ?? []).map((leaf) => leaf.text ?? '').join('');
  return (node.nodes ?? []).map(blockText).join(node.type?.startsWith('list') ? ' ' : '');
}

const HTML_ELEMENTS: Record<string, string> = { strong: 'strong', emphasis: 'em', delete: 's' };

/** Phrasing content as HTML (a cell of an HTML table): marks as elements, links, images, the emoji span. */
function phrasingHtml(nodes: PhrasingContent[]): string {
  return nodes
    .map((node): string => {
      switch (node.type) {
        case 'text':
          return escapeHtml(node.value).replace(/\n/g, '<br>');
        case 'inlineCode':
          return `<code>${escapeHtml(node.value)}</code>`;
        case 'strong':
        case 'emphasis':
        case 'delete':
          return `<${HTML_ELEMENTS[node.type]}>${phrasingHtml(node.children)}</${HTML_ELEMENTS[node.type]}>`;
        case 'link':
          return `<a href="${escapeHtml(node.url)}">${phrasingHtml(node.children)}</a>`;
        case 'image':
          return `<img src="${escapeHtml(node.url)}" alt="${escapeHtml(node.alt ?? '')}">`;
        case 'html':
          return node.value;
        case 'break':
          return '<br>';
        default:
          if ((node as { type: string }).type === 'liquidExpression') return escapeHtml(`{{ ${textOf(node)} }}`);
          return escapeHtml(textOf(node));
      }
    })
    .join('');
}

/** The text of phrasing content, as written (for code lines). */
function textOf(node: PhrasingContent): string {
  if ('value' in node) return node.value;
  if ('children' in node) return node.children.map(textOf).join('');
  return '';
}

/** An emoji's code point(s) in hex (`1f680`, `1f1eb-1f1f7`) as the character(s). */
function emojiOf(code: string): string {
  const points = code.split('-').map((hex) => Number.parseInt(hex, 16));
  return points.every((point) => Number.isInteger(point) && point > 0 && point <= 0x10ffff) ? String.fromCodePoint(...points) : code;
}

/** A JSONDocument as GitBook-flavoured markdown ('' for anything that is not a document). */
export function documentToMarkdown(document: unknown, context: ReverseContext = PLAIN_HREFS): string {
  const nodes = (document as AnyNode | undefined)?.nodes;
  if (!Array.isArray(nodes)) return '';
  const root: Root = { type: 'root', children: new Writer(context).blocks(nodes) as RootContent[] };
  return writer.stringify(root as never);
}
