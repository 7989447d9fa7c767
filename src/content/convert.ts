/**
 * Conversion of other formats into Quire's markdown (content imports). Pure: text in, markdown trees out.
 *
 * HTML -> markdown goes through unified: rehype-parse (a browser-grade HTML parser), the main content picked out of
 * the page, rehype-remark (hast -> mdast: headings, lists, code with its language, tables, links, images), then
 * remark-stringify with remark-gfm (tables, strikethrough, task lists) when the tree is written out.
 *
 * Decisions:
 * - The main content is the first `<main>`, else the first `<article>`, else the element with `role="main"`, else
 *   `<body>`. Inside it, `nav`, `header`, `footer`, `aside[role=navigation]`, scripts, styles, forms and embedded
 *   frames are dropped, as are elements marked `hidden`.
 * - Title: the first `<h1>` of the main content outside the dropped parts (it is removed from the body: a page's
 *   title is its H1, written once), else the first `<h1>` anywhere in the main content, else `<title>`.
 * - Description: `<meta name="description">`.
 * - URLs are kept as written (relative ones too): the importer resolves them against `baseUrl` (the page's URL,
 *   or its `<base href>`) and rewrites them with mapUrls once it knows where everything went.
 * - A table without header cells gets its first row as the header (markdown tables need one).
 * - Heading permalinks (`<a href="#id">¶</a>` inside a heading, as Sphinx, MkDocs and many generators add) are
 *   dropped: they are decoration, and would end up as `[¶](#id)` in every heading.
 */
import type { Element, ElementContent, Root as HastRoot, RootContent as HastContent } from 'hast';
import type { Nodes, Parent, Root, RootContent } from 'mdast';
import rehypeParse from 'rehype-parse';
import rehypeRemark from 'rehype-remark';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkStringify from 'remark-stringify';
import { unified } from 'unified';

const htmlParser = unified().use(rehypeParse);
const htmlToMdast = unified().use(rehypeRemark);
const markdownParser = unified().use(remarkParse).use(remarkGfm);
const markdownWriter = unified().use(remarkGfm).use(remarkStringify, { bullet: '*', fences: true, rule: '-', listItemIndent: 'one' });

export interface ConvertedDocument {
  /** The page title (see the decisions above); undefined when the page has none. */
  title?: string;
  description?: string;
  /** The body as markdown (mdast), without the title heading. URLs as written in the source. */
  body: Root;
  /** What the body's relative URLs are relative to: the page's URL or its `<base href>`. */
  baseUrl: string;
  /**
   * Every link target of the whole page as written, navigation included, in document order (what a crawler
   * follows: many sites link their pages only from a sidebar).
   */
  links: string[];
}

const DROPPED = new Set(['script', 'style', 'noscript', 'template', 'nav', 'header', 'footer', 'iframe', 'object', 'embed', 'form', 'button', 'select', 'textarea', 'input', 'dialog', 'svg', 'canvas', 'link', 'meta']);

function isElement(node: HastContent | ElementContent | HastRoot): node is Element {
  return node.type === 'element';
}

function childrenOf(node: HastRoot | Element): Array<HastContent | ElementContent> {
  return node.children as Array<HastContent | ElementContent>;
}

function findFirst(node: HastRoot | Element, test: (element: Element) => boolean, skip?: (element: Element) => boolean): Element | undefined {
  for (const child of childrenOf(node)) {
    if (!isElement(child)) continue;
    if (skip?.(child)) continue;
    if (test(child)) return child;
    const inner = findFirst(child, test, skip);
    if (inner) return inner;
  }
  return undefined;
}

/** The text of an element, whitespace collapsed. */
function textOf(node: HastRoot | Element | ElementContent): string {
  const parts: string[] = [];
  const walk = (n: HastRoot | Element | ElementContent | HastContent): void => {
    if (n.type === 'text') parts.push(n.value);
    else if (n.type === 'element' || n.type === 'root') {
      if (n.type === 'element' && (n.tagName === 'script' || n.tagName === 'style')) return;
      for (const child of n.children as Array<ElementContent>) walk(child);
    }
  };
  walk(node);
  return parts.join('').replace(/\s+/g, ' ').trim();
}

function attribute(element: Element, name: string): string | undefined {
  const value = element.properties?.[name];
  if (value === undefined || value === null || value === false) return undefined;
  return Array.isArray(value) ? value.join(' ') : String(value);
}

function isDropped(element: Element): boolean {
  if (DROPPED.has(element.tagName)) return true;
  if (element.properties?.hidden !== undefined && element.properties.hidden !== false) return true;
  const role = attribute(element, 'role');
  return role === 'navigation' || role === 'banner' || role === 'contentinfo';
}

/** Removes, in place, every element `remove` says so of (and what is inside it). */
function prune(node: HastRoot | Element, remove: (element: Element) => boolean): void {
  const kept: Array<HastContent | ElementContent> = [];
  for (const child of childrenOf(node)) {
    if (isElement(child)) {
      if (remove(child)) continue;
      prune(child, remove);
    }
    kept.push(child);
  }
  (node as { children: unknown[] }).children = kept;
}

const HEADING = /^h[1-6]$/;

/** A permalink inside a heading: an in-page anchor whose text is a symbol (¶, #, §, 🔗) or nothing. */
function isPermalink(element: Element, inHeading: boolean): boolean {
  if (!inHeading || element.tagName !== 'a') return false;
  const href = attribute(element, 'href');
  return href !== undefined && href.startsWith('#') && !/[\p{L}\p{N}]/u.test(textOf(element));
}

function dropPermalinks(node: HastRoot | Element, inHeading = false): void {
  prune(node, (element) => isPermalink(element, inHeading));
  for (const child of childrenOf(node)) {
    if (isElement(child)) dropPermalinks(child, inHeading || HEADING.test(child.tagName));
  }
}

/**
 * Markdown tables always have a header row. A table without header cells (Word's, most hand-written ones) has its
 * first row taken as the header, rather than an empty one being made up.
 */
function headerRows(node: HastRoot | Element): void {
  for (const child of childrenOf(node)) {
    if (!isElement(child)) continue;
    if (child.tagName === 'table' && !findFirst(child, (e) => e.tagName === 'th', (e) => e.tagName === 'table')) {
      const firstRow = findFirst(child, (e) => e.tagName === 'tr', (e) => e.tagName === 'table');
      for (const cell of firstRow ? childrenOf(firstRow) : []) if (isElement(cell) && cell.tagName === 'td') cell.tagName = 'th';
    }
    headerRows(child);
  }
}

/**
 * An HTML page (or fragment) as markdown: its main content, title and description (see the decisions above).
 * `url` is where the page came from; relative URLs in the body stay as written, relative to `baseUrl`.
 */
export function convertHtml(html: string, options: { url: string }): ConvertedDocument {
  const tree = htmlParser.parse(html) as HastRoot;
  const head = findFirst(tree, (e) => e.tagName === 'head');
  const titleElement = head ? findFirst(head, (e) => e.tagName === 'title') : undefined;
  const baseElement = head ? findFirst(head, (e) => e.tagName === 'base' && attribute(e, 'href') !== undefined) : undefined;
  const metaDescription = head ? findFirst(head, (e) => e.tagName === 'meta' && attribute(e, 'name')?.toLowerCase() === 'description') : undefined;
  let baseUrl = options.url;
  if (baseElement) {
    try {
      baseUrl = new URL(attribute(baseElement, 'href')!, options.url).toString();
    } catch {
      // A base that is not a URL is ignored, as browsers do.
    }
  }
  const body = findFirst(tree, (e) => e.tagName === 'body');
  const container = body ?? tree;
  const links = new Set<string>();
  const collect = (node: HastRoot | Element): void => {
    for (const child of childrenOf(node)) {
      if (!isElement(child)) continue;
      const href = child.tagName === 'a' || child.tagName === 'area' ? attribute(child, 'href') : undefined;
      if (href !== undefined && href.trim() !== '') links.add(href.trim());
      collect(child);
    }
  };
  collect(container);
  const main =
    findFirst(container, (e) => e.tagName === 'main') ??
    findFirst(container, (e) => e.tagName === 'article') ??
    findFirst(container, (e) => attribute(e, 'role') === 'main') ??
    container;

  dropPermalinks(main);
  // The title: an H1 of the content proper, else one in a header of the content, else <title>.
  let title: string | undefined;
  const contentH1 = findFirst(main, (e) => e.tagName === 'h1', isDropped);
  if (contentH1 && textOf(contentH1) !== '') {
    title = textOf(contentH1);
    prune(main, (e) => e === contentH1);
  } else {
    const anyH1 = findFirst(main, (e) => e.tagName === 'h1');
    if (anyH1 && textOf(anyH1) !== '') {
      title = textOf(anyH1);
      prune(main, (e) => e === anyH1);
    } else if (titleElement && textOf(titleElement) !== '') {
      title = textOf(titleElement);
    }
  }
  prune(main, isDropped);
  headerRows(main);

  const root: HastRoot = { type: 'root', children: main.type === 'root' ? main.children : [main] };
  const mdast = htmlToMdast.runSync(root) as Root;
  const description = metaDescription ? attribute(metaDescription, 'content')?.replace(/\s+/g, ' ').trim() : undefined;
  return { title, description: description || undefined, body: mdast, baseUrl, links: [...links] };
}

/** Markdown text (GitHub-flavoured: tables, strikethrough, task lists) as a tree. */
export function parseMarkdown(text: string): Root {
  return markdownParser.parse(text) as Root;
}

/** A markdown tree as text: `*` bullets, fenced code, GFM tables; ends with a newline (empty for an empty tree). */
export function stringifyMarkdown(root: Root): string {
  if (root.children.length === 0) return '';
  return markdownWriter.stringify(root);
}

export type UrlKind = 'link' | 'image';

/**
 * Rewrites every URL of the tree in place: links, images and link definitions (`[x]: url`). `rewrite` returns the
 * new URL, or null to drop it: a link becomes its text, an image disappears (its alt text stays, as text).
 */
export function mapUrls(root: Root, rewrite: (url: string, kind: UrlKind) => string | null): void {
  const visit = (parent: Parent): void => {
    const out: RootContent[] = [];
    for (const node of parent.children as RootContent[]) {
      if (node.type === 'link' || node.type === 'image' || node.type === 'definition') {
        const next = rewrite(node.url, node.type === 'image' ? 'image' : 'link');
        if (next === null) {
          if (node.type === 'link') {
            visit(node);
            out.push(...(node.children as RootContent[]));
          } else if (node.type === 'image' && node.alt) {
            out.push({ type: 'text', value: node.alt });
          }
          continue;
        }
        node.url = next;
      }
      if ('children' in node) visit(node as Parent);
      out.push(node);
    }
    (parent as { children: RootContent[] }).children = out;
  };
  visit(root);
}

/** Every URL of the tree as written, by kind (links include link definitions); in document order, repeated ones once. */
export function urlsOf(root: Root): { links: string[]; images: string[] } {
  const links = new Set<string>();
  const images = new Set<string>();
  const visit = (node: Nodes): void => {
    if (node.type === 'link' || node.type === 'definition') links.add(node.url);
    else if (node.type === 'image') images.add(node.url);
    if ('children' in node) for (const child of node.children) visit(child as Nodes);
  };
  visit(root);
  return { links: [...links], images: [...images] };
}

/** An HTML page as `{title, markdown}`, URLs as written (for a quick conversion without an importer around it). */
export function htmlToMarkdown(html: string, url = 'http://localhost/'): { title?: string; description?: string; markdown: string } {
  const converted = convertHtml(html, { url });
  return { title: converted.title, description: converted.description, markdown: stringifyMarkdown(converted.body) };
}
