/**
 * GitBook-flavoured markdown's inlines as the reference's JSONDocument inlines and marks (./document.ts holds the
 * rules of the whole conversion). Apart from the blocks: a reading of text of its own, with the platform's inline
 * HTML (marks, buttons, the emoji span).
 */
import type { Nodes, PhrasingContent, Root } from 'mdast';
import { toString } from 'mdast-util-to-string';
import { decodeEntities } from './html-text.js';
import type { GitbookNode } from './gitbook-markdown.js';
import { EMOJI_DATA } from './html-table.js';
import { mergeTexts, text, withMark, type ContentRef, type DocumentContext, type Inline, type Mark, type Text } from './document-nodes.js';

/** `<a href="..." class="button primary">` (the platform's button; `secondary` too). */
const BUTTON = /^<a\s+href="([^"]*)"\s+class="button\s+(primary|secondary)"[^>]*>$/i;

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

/**
 * The inline part of the conversion: text, marks (markdown's and the platform's HTML ones), links, images, buttons,
 * emoji, expressions, inline math, with the state a page's conversion keeps (its link definitions, `{% raw %}`).
 * The block part (./document.ts) extends it.
 */
export class InlineConverter {
  private readonly definitions = new Map<string, string>();
  /** Within `{% raw %}` ... `{% endraw %}`: Liquid is text there. */
  protected raw = false;

  constructor(
    protected readonly context: DocumentContext,
    root: Root,
    protected readonly source: string,
  ) {
    const collect = (node: Nodes) => {
      if (node.type === 'definition' && !this.definitions.has(node.identifier)) this.definitions.set(node.identifier, node.url);
      if ('children' in node) for (const child of node.children) collect(child as Nodes);
    };
    collect(root);
  }

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
  protected paragraphInlines(nodes: PhrasingContent[]): Array<Text | Inline> {
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
  protected imageRef(src: string): ContentRef {
    const ref = this.context.resolveLink(src);
    return ref.kind === 'file' ? ref : { kind: 'url', url: src };
  }

  private inlineImage(src: string, alt: string): Inline {
    return { object: 'inline', type: 'inline-image', isVoid: true, data: { ref: this.imageRef(src), ...(alt ? { caption: alt } : {}) } };
  }
}
