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
 *
 * This module converts the blocks; the node types are in ./document-nodes.ts, the inlines in ./document-inlines.ts
 * and the schema's containment rules, with the fitting, in ./document-fit.ts.
 */
import type { Nodes, Table, TableCell } from 'mdast';
import { toString } from 'mdast-util-to-string';
import { htmlAttributes, htmlText } from './html-text.js';
import { parseGitbookMarkdown, parseTagArguments, splitTag, type GitbookNode, type LiquidBlock } from './gitbook-markdown.js';
import { htmlToMdast, parseHtmlTable, type HtmlTable } from './html-table.js';
import { boundedParagraphs, convertedParts } from './bounded-markdown.js';
import { paragraph, PLAIN_LINKS, text, type DocumentBlock, type DocumentContext, type JSONDocument } from './document-nodes.js';
import { ALLOWED, fit, isEmptyParagraph, TOP_LEVEL } from './document-fit.js';
import { InlineConverter } from './document-inlines.js';

const HINT_STYLES = new Set(['info', 'warning', 'danger', 'success']);

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

/** HTML that text reads inline (marks, breaks, buttons, the emoji span, and their ends). */
const INLINE_HTML = /^<\/?(kbd|sup|sub|mark|br|span|a\s[^>]*class="button)[\s>/]/i;

/** The block part of the conversion, on the inline part. */
class Converter extends InlineConverter {
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
