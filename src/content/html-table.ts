/**
 * The platform's HTML tables in markdown, both ways: `<table data-view="cards">` (cards, with hidden columns that
 * hold each card's link and cover) and plain HTML tables (grids, `data-header-hidden` when the header is hidden),
 * as GitBook writes them in Git Sync repositories (one line, `<thead>` of `<th>` with `data-hidden`,
 * `data-card-target`, `data-card-cover`, `data-type`; `<tbody>` of `<td>`).
 *
 * Parsed with rehype-parse (a real HTML parser: entities, unclosed tags and attribute forms as browsers read them);
 * a cell's content becomes mdast through rehype-remark, the platform's emoji span
 * (`<span data-gb-custom-inline data-tag="emoji" data-code="1f680">🚀</span>`) an image marked in its `data`. Written back
 * by hand, in the platform's form, so that reading it again gives the same table.
 */
import type { Element, ElementContent, Root as HastRoot } from 'hast';
import type { Root } from 'mdast';
import rehypeParse from 'rehype-parse';
import rehypeRemark from 'rehype-remark';
import { unified } from 'unified';
import { escapeHtml } from './html-text.js';

export interface HtmlTableColumn {
  title: string;
  hidden: boolean;
  cardTarget: boolean;
  cardCover: boolean;
  /** `data-type`: `content-ref`, `files`, ... (absent: text). */
  type?: string;
  align?: 'left' | 'right' | 'center';
}

export interface HtmlTableCell {
  /** The cell's content as mdast (paragraphs of phrasing). */
  content: Root;
  /** The hrefs of the cell's links, in order (what a content-ref or files column holds). */
  hrefs: string[];
}

export interface HtmlTable {
  view: 'cards' | 'grid';
  cardSize: 'medium' | 'large';
  headerHidden: boolean;
  columns: HtmlTableColumn[];
  rows: HtmlTableCell[][];
}

/** The key of an mdast image's `data` that makes it the platform's emoji (its code points in hex). */
export const EMOJI_DATA = 'gitbookEmoji';

const parser = unified().use(rehypeParse, { fragment: true });
const toMdast = unified().use(rehypeRemark, {
  handlers: {
    span(state, node: Element) {
      const props = node.properties ?? {};
      // Phrasing mdast can hold (so it stays in its paragraph), marked as the emoji it is (EMOJI_DATA).
      if (props.dataTag === 'emoji' && typeof props.dataCode === 'string') {
        return { type: 'image', url: '', alt: node.children.map(textOf).join(''), data: { [EMOJI_DATA]: props.dataCode } } as never;
      }
      return state.all(node) as never;
    },
  },
});

const elements = (children: Array<ElementContent | HastRoot['children'][number]>): Element[] => children.filter((child): child is Element => child.type === 'element');
const textOf = (node: ElementContent): string => (node.type === 'text' ? node.value : node.type === 'element' ? node.children.map(textOf).join('') : '');
const flag = (element: Element, name: string) => element.properties?.[name] !== undefined && element.properties[name] !== false;

function hrefsOf(node: ElementContent): string[] {
  if (node.type !== 'element') return [];
  const own = node.tagName === 'a' && typeof node.properties?.href === 'string' ? [node.properties.href] : [];
  return [...own, ...node.children.flatMap(hrefsOf)];
}

/** HTML written in markdown (a GFM table cell's `<p>...<br>...</p>`) as mdast, read as a browser reads it. */
export function htmlToMdast(html: string): Root {
  return toMdast.runSync(parser.parse(html) as HastRoot) as Root;
}

/** An HTML block that is one table (nothing else but whitespace), read; undefined for any other HTML. */
export function parseHtmlTable(html: string): HtmlTable | undefined {
  if (!/^\s*<table[\s>]/i.test(html) || !/<\/table>\s*$/i.test(html)) return undefined;
  const root = parser.parse(html) as HastRoot;
  const top = root.children.filter((child) => !(child.type === 'text' && child.value.trim() === '') && child.type !== 'comment');
  if (top.length !== 1 || top[0].type !== 'element' || top[0].tagName !== 'table') return undefined;
  const table = top[0];
  const sections = elements(table.children);
  const rowsOf = (tag: string) => sections.filter((s) => s.tagName === tag).flatMap((s) => elements(s.children).filter((row) => row.tagName === 'tr'));
  const headerRow = rowsOf('thead')[0];
  const bodyRows = [...rowsOf('tbody'), ...sections.filter((s) => s.tagName === 'tr')];
  const headerCells = headerRow ? elements(headerRow.children).filter((cell) => cell.tagName === 'th' || cell.tagName === 'td') : [];
  const width = Math.max(headerCells.length, ...bodyRows.map((row) => elements(row.children).filter((cell) => cell.tagName === 'td' || cell.tagName === 'th').length));
  if (width === 0) return undefined;
  const columns: HtmlTableColumn[] = Array.from({ length: width }, (_, i) => {
    const th = headerCells[i];
    const align = th?.properties?.align;
    return {
      title: th ? th.children.map(textOf).join('').trim() : '',
      hidden: th ? flag(th, 'dataHidden') : false,
      cardTarget: th ? flag(th, 'dataCardTarget') : false,
      cardCover: th ? flag(th, 'dataCardCover') : false,
      ...(typeof th?.properties?.dataType === 'string' ? { type: th.properties.dataType } : {}),
      ...(align === 'left' || align === 'right' || align === 'center' ? { align } : {}),
    };
  });
  const rows = bodyRows.map((row) => {
    const cells = elements(row.children).filter((cell) => cell.tagName === 'td' || cell.tagName === 'th');
    return columns.map((_, i): HtmlTableCell => {
      const cell = cells[i];
      if (!cell) return { content: { type: 'root', children: [] }, hrefs: [] };
      const content = toMdast.runSync({ type: 'root', children: cell.children } as HastRoot) as Root;
      return { content, hrefs: cell.children.flatMap(hrefsOf) };
    });
  });
  const size = table.properties?.dataCardSize;
  return {
    view: table.properties?.dataView === 'cards' ? 'cards' : 'grid',
    cardSize: size === 'large' ? 'large' : 'medium',
    headerHidden: flag(table, 'dataHeaderHidden'),
    columns,
    rows,
  };
}

/** A table in the platform's HTML form; `cells[r][c]` is each cell's HTML, written by the caller. */
export function writeHtmlTable(table: Omit<HtmlTable, 'rows'>, cells: string[][]): string {
  const attributes = [table.view === 'cards' ? ' data-view="cards"' : '', table.view === 'cards' && table.cardSize === 'large' ? ' data-card-size="large"' : '', table.headerHidden ? ' data-header-hidden' : ''].join('');
  const header = table.columns
    .map((column) => {
      const attrs = [
        column.hidden ? ' data-hidden' : '',
        column.cardTarget ? ' data-card-target' : '',
        column.cardCover ? ' data-card-cover' : '',
        column.type ? ` data-type="${escapeHtml(column.type)}"` : '',
        column.align && column.align !== 'left' ? ` align="${column.align}"` : '',
      ].join('');
      return `<th${attrs}>${escapeHtml(column.title)}</th>`;
    })
    .join('');
  const body = cells.map((row) => `<tr>${row.map((cell) => `<td>${cell}</td>`).join('')}</tr>`).join('');
  return `<table${attributes}><thead><tr>${header}</tr></thead><tbody>${body}</tbody></table>`;
}
