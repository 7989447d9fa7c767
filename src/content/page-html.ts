/**
 * A page's GitBook-flavoured markdown as safe HTML for a published site: the tree of
 * src/content/gitbook-markdown.ts through mdast-util-to-hast, with a handler per GitBook block, the HTML the
 * markdown carries parsed in place (hast-util-raw), then sanitized (hast-util-sanitize, GitHub's schema plus the
 * few classes and form elements the blocks need): no script, event handler or `javascript:` URL from a page ever
 * reaches a reader. Pure: where links lead comes from the caller.
 *
 * Blocks: hints (by style), tabs that switch without JavaScript (radio inputs and labels), code with its title,
 * steppers, columns, content-refs as cards, embeds as links, files as download cards, expandables (`<details>`),
 * includes with their reusable content, OpenAPI operations from the specs the caller found
 * (src/content/openapi-html.ts), conditions (`{% if %}`, with `{% elif %}` / `{% elsif %}` and `{% else %}`) shown as
 * the caller evaluates them, math as MathML (KaTeX, on the server: browsers draw MathML themselves, so no script or
 * stylesheet is needed), cards tables (`<table data-view="cards">`) as a grid of cards, expressions with the page's
 * and space's variables. Code is highlighted here (code-highlight.ts: highlight.js's grammars through lowlight,
 * output as hast, so it is sanitized like the rest), under a header with its title and language, with line numbers
 * when asked.
 */
import GithubSlugger from 'github-slugger';
import type { Element, ElementContent, Root as HastRoot } from 'hast';
import katex from 'katex';
import { raw } from 'hast-util-raw';
import { toHtml } from 'hast-util-to-html';
import type { Nodes, Root } from 'mdast';
import { defaultHandlers, toHast, type Handler, type State } from 'mdast-util-to-hast';
import { toString } from 'mdast-util-to-string';
import { parseGitbookMarkdown, parseTagArguments, shownIfBranch, splitTag, type Details, type LiquidBlock, type LiquidExpression, type LiquidTag } from './gitbook-markdown.js';
import { EMOJI_DATA, parseHtmlTable, type HtmlTable } from './html-table.js';
import { boundedParagraphs, convertedParts } from './bounded-markdown.js';
import { treeSections, type PageSection } from './search-text.js';
import { escapeHtml, HTML_URL_ATTRIBUTES, srcsetCandidate, srcsetCandidates } from './html-text.js';
import { sanitizePage } from './page-sanitizing.js';
import { highlightCode, languageName, PAGE_HIGHLIGHT_BUDGET, type HighlightBudget } from './code-highlight.js';
import { openApiRef, operationElement, type OpenApiOperation, type OpenApiRef } from './openapi-html.js';

export interface PageHtmlOptions {
  /** Where a link or image written in the page leads on the site (undefined: as written). */
  resolveHref(href: string): string | undefined;
  /** `{{ page.vars.x }}` / `{{ space.vars.x }}` values. */
  variables?: { page?: Record<string, string>; space?: Record<string, string> };
  /**
   * Whether an href leads nowhere (a relative link to no page or file of the revision, as the link index counts it):
   * the link is shown as broken (`class="broken-link"`, `rel="nofollow"`), the image as `class="broken-image"`.
   */
  isBroken?(href: string): boolean;
  /** The title of the page an href leads to (a content-ref card shows it), when it leads to one. */
  linkTitle?(href: string): string | undefined;
  /** The markdown of the reusable content an `{% include %}` path names, when it is one of the revision's. */
  include?(path: string): string | undefined;
  /**
   * The operation an OpenAPI block names, from the organization's specs (loaded by the caller before rendering:
   * rendering is synchronous and never fetches); undefined when the spec or the operation is not there.
   */
  openapiOperation?(ref: OpenApiRef): OpenApiOperation | undefined;
  /**
   * Whether the condition of an `{% if %}` / `{% elif %}` holds for the reader (the published site evaluates it over
   * the visitor's claims, src/domain/sites/conditions.ts). Absent: no condition holds (only `{% else %}` shows).
   */
  condition?(expression: string): boolean;
  /**
   * Told the page's search sections (search-text.ts treeSections) from the render's own parse, before its links are
   * rewritten: what search would take from a second parse of the same markdown (a static export's search index).
   */
  sections?(sections: PageSection[]): void;
}

export interface PageHtml {
  html: string;
  /** Headings of the page (levels 1-3) with their anchors, for the "on this page" outline. */
  outline: Array<{ depth: number; text: string; id: string }>;
}

/** The hints' styles, and the word that says each to a screen reader (sighted readers see its icon). */
const HINT_LABELS: Record<string, string> = { info: 'Info', warning: 'Warning', danger: 'Danger', success: 'Success' };

const element = (tagName: string, properties: Element['properties'], children: ElementContent[]): Element => ({ type: 'element', tagName, properties, children });
const textNode = (value: string): ElementContent => ({ type: 'text', value });

/** How deep includes may nest (a reusable content including itself stops there). */
export const INCLUDE_DEPTH = 3;

class Renderer {
  private tabsCount = 0;
  private includeDepth = 0;
  private inOpenApi = false;

  constructor(private readonly options: PageHtmlOptions) {}

  /** An include: the reusable content's markdown rendered in place (its links resolved as the page's). */
  private include(args: string): Element | undefined {
    const path = /"([^"]+)"/.exec(args)?.[1];
    const markdown = path === undefined ? undefined : this.options.include?.(path);
    if (markdown === undefined || this.includeDepth >= INCLUDE_DEPTH) return undefined;
    this.includeDepth += 1;
    try {
      const { tree, plain } = boundedTree(markdown);
      rewriteLinks(tree, this.options);
      const hast = toHast(tree, { allowDangerousHtml: true, handlers: this.handlers }) as HastRoot;
      return element('div', { className: ['include'] }, [...(hast.children as ElementContent[]), ...plain.map((text) => element('p', {}, [textNode(text)]))]);
    } finally {
      this.includeDepth -= 1;
    }
  }

  readonly handlers: Record<string, Handler> = {
    liquidBlock: (state, node: LiquidBlock) => this.block(state, node),
    liquidTag: (state, node: LiquidTag) => this.tag(state, node),
    liquidExpression: (_state, node: LiquidExpression) => textNode(this.expression(node.value)),
    details: (state, node: Details) => element('details', { className: ['expandable'] }, [element('summary', {}, [textNode(node.summary)]), ...this.all(state, node)]),
    math: (_state, node: { value: string }) => mathElement(node.value, true),
    inlineMath: (_state, node: { value: string }) => mathElement(node.value, false),
    html: (state, node: { value: string }) => {
      const table = /^\s*<table[^>]*data-view/i.test(node.value) ? parseHtmlTable(node.value) : undefined;
      return table?.view === 'cards' ? this.cards(table) : defaultHandlers.html(state, node as never);
    },
    // The platform's emoji (read from a cards table's cell) is its character, not an image.
    image: (state, node: { data?: Record<string, unknown>; alt?: string | null }) =>
      node.data?.[EMOJI_DATA] !== undefined ? textNode(node.alt ?? '') : defaultHandlers.image(state, node as never),
    code: (_state, node: { lang?: string | null; value: string }) => this.codeBlock(node, {}),
  };

  /** What the page may still highlight (code-highlight.ts): past it, code shows plain. */
  private readonly highlightBudget: HighlightBudget = { left: PAGE_HIGHLIGHT_BUDGET };

  /**
   * A code block: a header with its title (GitBook's `{% code title %}`) and its language, then the code highlighted
   * on the server, with line numbers in a gutter when asked (`lineNumbers="true"`); `overflow="wrap"` wraps long
   * lines. (Line highlighting is not in GitBook's syntax.) The copy button is the page script's: without script it
   * would do nothing.
   */
  private codeBlock(node: { lang?: string | null; value: string }, options: { title?: string; lineNumbers?: boolean; wrap?: boolean }): Element {
    const lang = node.lang?.toLowerCase();
    const value = `${node.value}\n`;
    const highlighted = lang === undefined ? undefined : highlightCode(lang, value, this.highlightBudget);
    // Focusable: a block wider than the column scrolls, and the keyboard must reach what is past its edge.
    let body: ElementContent = element('pre', { tabIndex: 0 }, [element('code', { className: lang ? ['hljs', `language-${lang}`] : ['hljs'] }, highlighted ?? [textNode(value)])]);
    if (options.lineNumbers) {
      const numbers = node.value.split('\n').map((_, i) => String(i + 1)).join('\n');
      body = element('div', { className: ['numbered'] }, [element('pre', { className: ['gutter'], ariaHidden: 'true' }, [textNode(`${numbers}\n`)]), body]);
    }
    const header: ElementContent[] = [
      ...(options.title ? [element('span', { className: ['code-title'] }, [textNode(options.title)])] : []),
      ...(lang ? [element('span', { className: ['code-lang'] }, [textNode(languageName(lang))])] : []),
    ];
    const className = ['code-block', ...(options.wrap ? ['wrap'] : [])];
    // A titled block is a figure whose caption is its title; an untitled one a plain block with the same header.
    return options.title
      ? element('figure', { className }, [element('figcaption', { className: ['code-header'] }, header), body])
      : element('div', { className }, [element('div', { className: ['code-header'] }, header), body]);
  }

  /**
   * A cards table as a grid of cards: each row one card, leading where its target column points (resolved as any
   * link), its cover image on top, its visible cells as its text. Links inside a card that leads somewhere become
   * their text (a link cannot hold another).
   */
  private cards(table: HtmlTable): Element {
    const target = table.columns.findIndex((column) => column.cardTarget);
    const cover = table.columns.findIndex((column) => column.cardCover);
    const visible = table.columns.flatMap((column, i) => (column.hidden ? [] : [i]));
    const cards = table.rows.map((row) => {
      const href = target >= 0 ? row[target].hrefs[0] : undefined;
      const image = cover >= 0 ? row[cover].hrefs[0] : undefined;
      const children: ElementContent[] = [];
      // A cover the revision has nothing at is marked as every broken image is.
      if (image) children.push(element('img', { src: this.options.resolveHref(image) ?? image, alt: '', className: ['card-cover', ...(this.options.isBroken?.(image) ? ['broken-image'] : [])] }, []));
      const body = visible.flatMap((i) => {
        const content = row[i].content;
        if (content.children.length === 0) return [];
        rewriteLinks(content, this.options);
        const hast = toHast(content, { allowDangerousHtml: true, handlers: this.handlers }) as HastRoot;
        const cell = hast.children as ElementContent[];
        return [element('div', { className: ['card-text'] }, href ? cell.map(unlink) : cell)];
      });
      children.push(element('div', { className: ['card-body'] }, body));
      return href ? element('a', { href: this.options.resolveHref(href) ?? href, className: ['card'] }, children) : element('div', { className: ['card'] }, children);
    });
    return element('div', { className: ['cards', ...(table.cardSize === 'large' ? ['cards-large'] : [])] }, cards);
  }

  private all(state: State, node: { children: unknown[] }): ElementContent[] {
    return state.all(node as never) as ElementContent[];
  }

  private expression(expression: string): string {
    const match = /^(page|space)\.vars\.([A-Za-z0-9_-]+)$/.exec(expression.trim());
    const value = match ? this.options.variables?.[match[1] as 'page' | 'space']?.[match[2]] : undefined;
    return value ?? `{{ ${expression} }}`;
  }

  private link(href: string, className: string, label: string, extra: Element['properties'] = {}): Element {
    return element('a', { href: this.options.resolveHref(href) ?? href, className: [className], ...extra }, [textNode(label)]);
  }

  private tagElement(name: string, args: string): Element | undefined {
    const attributes = parseTagArguments(args);
    const url = attributes.url ?? attributes.src;
    if (name === 'embed' && url) return element('p', { className: ['embed'] }, [this.link(url, 'embed-link', url)]);
    if (name === 'content-ref' && url) {
      const title = this.options.linkTitle?.(url) ?? url.replace(/\.md$/, '').replace(/\/README$/i, '');
      return element('p', { className: ['content-ref'] }, [this.link(url, 'card', title)]);
    }
    if (name === 'file' && url) return element('p', { className: ['file'] }, [this.link(url, 'download', url.split('/').pop() ?? url, { download: '' })]);
    if (name === 'include') return this.include(args) ?? element('p', { className: ['note'] }, [textNode('(included content not found)')]);
    if (name === 'openapi' || name === 'openapi-operation' || name === 'swagger') return this.openapi(openApiRef(attributes));
    return undefined;
  }

  /** An OpenAPI block: the operation it names, or a note saying it is not there. */
  private openapi(ref: OpenApiRef): Element {
    const spec = ref.spec ?? ref.src;
    // A description in a spec that holds an OpenAPI block itself: a note, not another operation (no loop).
    const operation = spec === undefined || this.inOpenApi ? undefined : this.options.openapiOperation?.(ref);
    if (!operation) {
      const where = spec === undefined ? 'no specification named' : `not found in specification ${spec}`;
      return element('p', { className: ['note', 'openapi'] }, [textNode(`OpenAPI operation ${ref.method.toUpperCase()} ${ref.path}: ${where}`)]);
    }
    this.inOpenApi = true;
    try {
      return operationElement(operation, (markdown) => (toHast(boundedTree(markdown).tree, { allowDangerousHtml: true, handlers: this.handlers }) as HastRoot).children as ElementContent[]);
    } finally {
      this.inOpenApi = false;
    }
  }

  private tag(_state: State, node: LiquidTag): ElementContent {
    const { name, args } = splitTag(node.value);
    return this.tagElement(name, args) ?? element('p', {}, [textNode(`{% ${node.value} %}`)]);
  }

  private block(state: State, node: LiquidBlock): ElementContent | ElementContent[] {
    const inner = () => this.all(state, node);
    switch (node.name) {
      case 'hint': {
        const style = HINT_LABELS[node.attributes.style ?? ''] ? (node.attributes.style as string) : 'info';
        // Its icon is the label's (CSS), its word is for screen readers.
        return element('div', { className: ['hint', `hint-${style}`], role: 'note' }, [
          element('span', { className: ['hint-label'] }, [textNode(`${HINT_LABELS[style]}:`)]),
          element('div', { className: ['hint-body'] }, inner()),
        ]);
      }
      case 'tabs': {
        const group = `tabs-${++this.tabsCount}`;
        const tabs = node.children.filter((child): child is LiquidBlock => child.type === 'liquidBlock' && child.name === 'tab');
        const children: ElementContent[] = [];
        tabs.forEach((tab, i) => {
          const id = `${group}-${i + 1}`;
          children.push(element('input', { type: 'radio', name: group, id, checked: i === 0, className: ['tab-switch'] }, []));
          children.push(element('label', { htmlFor: [id], className: ['tab-label'] }, [textNode(tab.attributes.title ?? `Tab ${i + 1}`)]));
          children.push(element('div', { className: ['tab-panel'] }, this.all(state, tab)));
        });
        return element('div', { className: ['tabs'] }, children);
      }
      case 'stepper':
        return element(
          'ol',
          { className: ['stepper'] },
          node.children.filter((child): child is LiquidBlock => child.type === 'liquidBlock' && child.name === 'step').map((step) => element('li', { className: ['step'] }, this.all(state, step))),
        );
      case 'columns':
        return element(
          'div',
          { className: ['columns'] },
          node.children.filter((child): child is LiquidBlock => child.type === 'liquidBlock' && child.name === 'column').map((column) => element('div', { className: ['column'] }, this.all(state, column))),
        );
      case 'code': {
        const options = { title: node.attributes.title, lineNumbers: node.attributes.lineNumbers === 'true', wrap: node.attributes.overflow === 'wrap' };
        // The fence, with the block's options; anything else written inside the block as it is.
        return node.children.map((child) => (child.type === 'code' ? this.codeBlock(child, options) : this.all(state, { children: [child] }))).flat();
      }
      case 'if':
        return this.all(state, { children: shownIfBranch(node, (condition) => this.options.condition?.(condition) === true) });
      case 'raw':
        return inner();
      default: {
        const made = this.tagElement(node.name, node.args);
        if (made) return made;
        return [element('p', {}, [textNode(`{% ${node.name}${node.args ? ` ${node.args}` : ''} %}`)]), ...inner(), element('p', {}, [textNode(`{% end${node.name} %}`)])];
      }
    }
  }
}

/** TeX as MathML (KaTeX); a formula KaTeX cannot read comes back as its source, in a `katex-error` span. */
function mathElement(tex: string, displayMode: boolean): Element {
  // trust: false keeps \href, \url and \html* out (shown as red text); strict 'ignore': no console warnings.
  const html = katex.renderToString(tex, { output: 'mathml', displayMode, throwOnError: false, trust: false, strict: 'ignore' });
  // A raw node: hast-util-raw parses it with the page's other HTML, then the sanitizer sees every element of it.
  return element(displayMode ? 'div' : 'span', { className: ['math', displayMode ? 'math-display' : 'math-inline'] }, [{ type: 'raw', value: html } as never]);
}

/** A link inside a card that is itself a link: its content, without the link. */
function unlink(node: ElementContent): ElementContent {
  if (node.type !== 'element') return node;
  const children = node.children.map(unlink);
  return node.tagName === 'a' ? element('span', {}, children) : { ...node, children };
}

/** What a link or an image that leads nowhere carries (see PageHtmlOptions.isBroken). */
const BROKEN_LINK = { className: ['broken-link'], rel: ['nofollow'] };
const BROKEN_IMAGE = { className: ['broken-image'] };

/** Rewrites the hrefs and srcs the page wrote to where they lead on the site, and marks the links that lead nowhere. */
function rewriteLinks(node: Nodes, options: Pick<PageHtmlOptions, 'resolveHref' | 'isBroken'>): void {
  if ((node.type === 'link' || node.type === 'image' || node.type === 'definition') && typeof node.url === 'string') {
    const resolved = options.resolveHref(node.url);
    if (resolved === undefined && node.type !== 'definition' && options.isBroken?.(node.url)) {
      node.data = { ...node.data, hProperties: { ...node.data?.hProperties, ...(node.type === 'link' ? BROKEN_LINK : BROKEN_IMAGE) } };
    }
    node.url = resolved ?? node.url;
  }
  if ('children' in node) for (const child of node.children) rewriteLinks(child as Nodes, options);
}

/**
 * A mark on the elements made from markdown before the page's raw HTML is parsed (their URLs are resolved by then):
 * the elements without it come from raw HTML, whose URLs resolveRawHtmlUrls resolves.
 */
const MADE = 'dataQuireMade';

function markMade(node: HastRoot | Element): void {
  for (const child of node.children) {
    if (child.type !== 'element') continue;
    child.properties[MADE] = '';
    markMade(child);
  }
}

/** hast's name of an HTML attribute that holds URLs. */
const URL_PROPERTY_NAMES: Readonly<Record<string, string>> = { href: 'href', src: 'src', srcset: 'srcSet' };

/**
 * Resolves the URLs raw HTML wrote, as markdown's are (GitBook's `<figure><img src>`, `<picture><source srcset>`,
 * links in HTML tables), and takes the marks of markMade off.
 */
function resolveRawHtmlUrls(node: HastRoot | Element, options: Pick<PageHtmlOptions, 'resolveHref' | 'isBroken'>): void {
  const resolve = options.resolveHref;
  for (const child of node.children) {
    if (child.type !== 'element') continue;
    const properties = child.properties;
    if (MADE in properties) delete properties[MADE];
    else {
      for (const attribute of HTML_URL_ATTRIBUTES.get(child.tagName) ?? []) {
        const name = URL_PROPERTY_NAMES[attribute];
        const value = properties[name];
        if (value === undefined || value === null) continue;
        // A srcset: its candidates, each a URL and its descriptor.
        if (attribute === 'srcset') properties[name] = srcsetCandidates(value).map((candidate) => resolvedCandidate(candidate, resolve)).join(', ');
        else {
          const resolved = resolve(String(value));
          if (resolved === undefined && child.tagName !== 'source' && options.isBroken?.(String(value))) Object.assign(properties, child.tagName === 'a' ? BROKEN_LINK : BROKEN_IMAGE);
          properties[name] = resolved ?? String(value);
        }
      }
    }
    resolveRawHtmlUrls(child, options);
  }
}

/** The candidates of a srcset property (hast keeps it as written, or as a list). */

function resolvedCandidate(candidate: string, resolve: PageHtmlOptions['resolveHref']): string {
  const { url, descriptor } = srcsetCandidate(candidate);
  const resolved = resolve(url) ?? url;
  return descriptor === undefined ? resolved : `${resolved} ${descriptor}`;
}

/** Headings get ids as GitHub and GitBook make them; levels 1-3 make the outline. */
function anchorHeadings(tree: HastRoot): PageHtml['outline'] {
  const slugger = new GithubSlugger();
  const outline: PageHtml['outline'] = [];
  const walk = (node: HastRoot | Element) => {
    for (const child of node.children) {
      if (child.type !== 'element') continue;
      const level = /^h([1-6])$/.exec(child.tagName);
      if (level) {
        const text = toString(child as never);
        const id = slugger.slug(text);
        child.properties = { ...child.properties, id };
        if (Number(level[1]) <= 3) outline.push({ depth: Number(level[1]), text, id });
      } else walk(child);
    }
  };
  walk(tree);
  return outline;
}

/** Markdown's tree, read in time linear in its length: its first megabyte's markup, the rest as plain paragraphs. */
function boundedTree(markdown: string): { tree: Root; plain: string[] } {
  const { markup, plain } = convertedParts(markdown);
  return { tree: parseGitbookMarkdown(boundedParagraphs(markup).text) as Root, plain };
}

/**
 * A page as HTML, in time linear in its length: paragraphs are bounded for the parser, and past its first megabyte a
 * page is paragraphs of plain text (src/content/bounded-markdown.ts).
 */
export function pageHtml(markdown: string, options: PageHtmlOptions): PageHtml {
  const { clean, plain, outline } = renderedTree(markdown, options);
  return { html: toHtml(clean) + plain.map(plainParagraph).join(''), outline };
}

const plainParagraph = (paragraph: string) => `<p>${escapeHtml(paragraph)}</p>`;

/** The page's sanitized tree (anchors given), and the plain paragraphs past its first megabyte. */
function renderedTree(markdown: string, options: PageHtmlOptions): { clean: HastRoot; plain: string[]; outline: PageHtml['outline'] } {
  const { tree, plain } = boundedTree(markdown);
  options.sections?.(treeSections(tree));
  rewriteLinks(tree, options);
  const renderer = new Renderer(options);
  const hast = toHast(tree, { allowDangerousHtml: true, handlers: renderer.handlers }) as HastRoot;
  markMade(hast);
  const parsed = raw(hast) as HastRoot;
  resolveRawHtmlUrls(parsed, options);
  const clean = sanitizePage(parsed);
  const outline = anchorHeadings(clean);
  return { clean, plain, outline };
}

/**
 * The page as pageHtml renders it, cut into its top-level blocks (a paragraph, a heading, a list, a hint, a code
 * block, tabs...), each block's HTML as it is in the page: joined, they are pageHtml's `html` but for the white space
 * between blocks. For comparing two versions of a page block by block (src/content/block-diff.ts).
 */
export function pageHtmlBlocks(markdown: string, options: PageHtmlOptions): string[] {
  const { clean, plain } = renderedTree(markdown, options);
  const blocks: string[] = [];
  for (const child of clean.children) {
    if (child.type === 'text' && child.value.trim() === '') continue;
    if (child.type === 'comment' || child.type === 'doctype') continue;
    blocks.push(toHtml(child));
  }
  for (const paragraph of plain) blocks.push(plainParagraph(paragraph));
  return blocks;
}
