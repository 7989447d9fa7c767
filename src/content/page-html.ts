/**
 * A page's GitBook-flavoured markdown as safe HTML for a published site (issue 14): the tree of
 * src/content/gitbook-markdown.ts through mdast-util-to-hast, with a handler per GitBook block, the HTML the
 * markdown carries parsed in place (hast-util-raw), then sanitized (hast-util-sanitize, GitHub's schema plus the
 * few classes and form elements the blocks need): no script, event handler or `javascript:` URL from a page ever
 * reaches a reader. Pure: where links lead comes from the caller.
 *
 * Blocks: hints (by style), tabs that switch without JavaScript (radio inputs and labels), code with its title,
 * steppers, columns, content-refs as cards, embeds as links, files as download cards, expandables (`<details>`),
 * includes with their reusable content, OpenAPI blocks as notes (not rendered yet), conditions (`{% if %}`, with
 * `{% elif %}` / `{% elsif %}` and `{% else %}`) shown as the caller evaluates them, math as TeX source, expressions with the page's and space's variables. Code is highlighted here (lowlight: the
 * grammars of highlight.js, output as hast, so it is sanitized like the rest), with line numbers when asked.
 */
import GithubSlugger from 'github-slugger';
import type { Element, ElementContent, Root as HastRoot } from 'hast';
import { raw } from 'hast-util-raw';
import { defaultSchema, sanitize, type Schema } from 'hast-util-sanitize';
import { toHtml } from 'hast-util-to-html';
import type { Nodes, Root } from 'mdast';
import { toHast, type Handler, type State } from 'mdast-util-to-hast';
import { common, createLowlight } from 'lowlight';
import { toString } from 'mdast-util-to-string';
import { parseGitbookMarkdown, parseTagArguments, splitTag, type Details, type GitbookNode, type LiquidBlock, type LiquidExpression, type LiquidTag } from './gitbook-markdown.js';

export interface PageHtmlOptions {
  /** Where a link or image written in the page leads on the site (undefined: as written). */
  resolveHref(href: string): string | undefined;
  /** `{{ page.vars.x }}` / `{{ space.vars.x }}` values. */
  variables?: { page?: Record<string, string>; space?: Record<string, string> };
  /** The markdown of the reusable content an `{% include %}` path names, when it is one of the revision's. */
  include?(path: string): string | undefined;
  /**
   * Whether the condition of an `{% if %}` / `{% elif %}` holds for the reader (the published site evaluates it over
   * the visitor's claims, src/domain/sites/conditions.ts). Absent: no condition holds (only `{% else %}` shows).
   */
  condition?(expression: string): boolean;
}

export interface PageHtml {
  html: string;
  /** Headings of the page (levels 1-3) with their anchors, for the "on this page" outline. */
  outline: Array<{ depth: number; text: string; id: string }>;
}

const HINT_STYLES = new Set(['info', 'warning', 'danger', 'success']);

/** highlight.js's common grammars (37 languages), producing hast: highlighting is done here, not in the browser. */
const highlighter = createLowlight(common);

const element = (tagName: string, properties: Element['properties'], children: ElementContent[]): Element => ({ type: 'element', tagName, properties, children });
const textNode = (value: string): ElementContent => ({ type: 'text', value });

/** What sanitizing keeps: GitHub's rules, plus the classes, ids and form controls the blocks above write. */
const SCHEMA: Schema = {
  ...defaultSchema,
  // Anchors stay as written: a reader shares `#install`, not `#user-content-install`.
  clobberPrefix: '',
  clobber: [],
  // GitHub's rule disables every input; the tabs' radios must switch (task list boxes come disabled already).
  required: {},
  tagNames: [...(defaultSchema.tagNames ?? []), 'figure', 'figcaption', 'mark', 'kbd', 'details', 'summary', 'input', 'label', 'nav'],
  attributes: {
    ...Object.fromEntries(
      // GitHub's schema allows a few fixed classes on some elements, which would hide the '*' rule below for them.
      Object.entries(defaultSchema.attributes ?? {}).map(([tag, rules]) => [tag, rules.filter((rule) => !(Array.isArray(rule) && rule[0] === 'className'))]),
    ),
    '*': [...(defaultSchema.attributes?.['*'] ?? []), 'className', 'id', 'role', 'ariaHidden'],
    input: [['type', 'radio', 'checkbox'], 'name', 'id', 'checked', 'disabled', ['className', 'tab-switch']],
    label: ['htmlFor', 'className'],
    a: [...(defaultSchema.attributes?.a ?? []).filter((rule) => !(Array.isArray(rule) && rule[0] === 'className')), 'download'],
    mark: ['style'],
  },
};

/** How deep includes may nest (a reusable content including itself stops there). */
const INCLUDE_DEPTH = 3;

class Renderer {
  private tabsCount = 0;
  private includeDepth = 0;

  constructor(private readonly options: PageHtmlOptions) {}

  /** An include: the reusable content's markdown rendered in place (its links resolved as the page's). */
  private include(args: string): Element | undefined {
    const path = /"([^"]+)"/.exec(args)?.[1];
    const markdown = path === undefined ? undefined : this.options.include?.(path);
    if (markdown === undefined || this.includeDepth >= INCLUDE_DEPTH) return undefined;
    this.includeDepth += 1;
    try {
      const tree = parseGitbookMarkdown(markdown) as Root;
      rewriteLinks(tree, this.options.resolveHref);
      const hast = toHast(tree, { allowDangerousHtml: true, handlers: this.handlers }) as HastRoot;
      return element('div', { className: ['include'] }, hast.children as ElementContent[]);
    } finally {
      this.includeDepth -= 1;
    }
  }

  readonly handlers: Record<string, Handler> = {
    liquidBlock: (state, node: LiquidBlock) => this.block(state, node),
    liquidTag: (state, node: LiquidTag) => this.tag(state, node),
    liquidExpression: (_state, node: LiquidExpression) => textNode(this.expression(node.value)),
    details: (state, node: Details) => element('details', { className: ['expandable'] }, [element('summary', {}, [textNode(node.summary)]), ...this.all(state, node)]),
    math: (_state, node: { value: string }) => element('pre', { className: ['math'] }, [element('code', { className: ['language-math'] }, [textNode(node.value)])]),
    inlineMath: (_state, node: { value: string }) => element('code', { className: ['math'] }, [textNode(node.value)]),
    code: (_state, node: { lang?: string | null; value: string }) => {
      const lang = node.lang?.toLowerCase();
      const value = `${node.value}\n`;
      const known = lang !== undefined && highlighter.registered(lang);
      const children = known ? (highlighter.highlight(lang, value).children as ElementContent[]) : [textNode(value)];
      return element('pre', {}, [element('code', { className: lang ? ['hljs', `language-${lang}`] : ['hljs'] }, children)]);
    },
  };

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
    if (name === 'content-ref' && url) return element('p', { className: ['content-ref'] }, [this.link(url, 'card', url.replace(/\.md$/, '').replace(/\/README$/i, ''))]);
    if (name === 'file' && url) return element('p', { className: ['file'] }, [this.link(url, 'download', url.split('/').pop() ?? url, { download: '' })]);
    if (name === 'include') return this.include(args) ?? element('p', { className: ['note'] }, [textNode('(included content not found)')]);
    if (name === 'openapi' || name === 'openapi-operation' || name === 'swagger') {
      return element('p', { className: ['note', 'openapi'] }, [textNode(`OpenAPI operation ${attributes.method?.toUpperCase() ?? ''} ${attributes.path ?? ''}`.trim())]);
    }
    return undefined;
  }

  /**
   * The children of the first branch of an `{% if %}` block whose condition holds: the block's own, each
   * `{% elif %}` / `{% elsif %}` (the parser leaves these and `{% else %}` as tags among the block's children), then
   * `{% else %}`; none when no condition holds.
   */
  private shownBranch(node: LiquidBlock): GitbookNode[] {
    let condition: string | undefined = node.args;
    let branch: GitbookNode[] = [];
    const branches: Array<{ condition: string | undefined; children: GitbookNode[] }> = [{ condition, children: branch }];
    for (const child of node.children) {
      const { name, args } = child.type === 'liquidTag' ? splitTag(child.value) : { name: '', args: '' };
      if (name === 'elif' || name === 'elsif' || name === 'else') {
        condition = name === 'else' ? undefined : args;
        branch = [];
        branches.push({ condition, children: branch });
      } else branch.push(child);
    }
    return branches.find((b) => b.condition === undefined || this.options.condition?.(b.condition) === true)?.children ?? [];
  }

  private tag(_state: State, node: LiquidTag): ElementContent {
    const { name, args } = splitTag(node.value);
    return this.tagElement(name, args) ?? element('p', {}, [textNode(`{% ${node.value} %}`)]);
  }

  private block(state: State, node: LiquidBlock): ElementContent | ElementContent[] {
    const inner = () => this.all(state, node);
    switch (node.name) {
      case 'hint': {
        const style = HINT_STYLES.has(node.attributes.style ?? '') ? node.attributes.style : 'info';
        return element('div', { className: ['hint', `hint-${style}`], role: 'note' }, inner());
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
        const title = node.attributes.title;
        let body = inner();
        const fence = node.children.find((child) => child.type === 'code');
        if (node.attributes.lineNumbers === 'true' && fence?.type === 'code') {
          const numbers = fence.value.split('\n').map((_, i) => String(i + 1)).join('\n');
          body = [element('div', { className: ['numbered'] }, [element('pre', { className: ['gutter'], ariaHidden: 'true' }, [textNode(`${numbers}\n`)]), ...body])];
        }
        const className = ['code', ...(node.attributes.overflow === 'wrap' ? ['wrap'] : [])];
        return title ? element('figure', { className }, [element('figcaption', {}, [textNode(title)]), ...body]) : element('div', { className }, body);
      }
      case 'if':
        return this.all(state, { children: this.shownBranch(node) });
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

/** Rewrites the hrefs and srcs the page wrote to where they lead on the site. */
function rewriteLinks(node: Nodes, resolve: PageHtmlOptions['resolveHref']): void {
  if ((node.type === 'link' || node.type === 'image' || node.type === 'definition') && typeof node.url === 'string') node.url = resolve(node.url) ?? node.url;
  if ('children' in node) for (const child of node.children) rewriteLinks(child as Nodes, resolve);
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

export function pageHtml(markdown: string, options: PageHtmlOptions): PageHtml {
  const tree = parseGitbookMarkdown(markdown) as Root;
  rewriteLinks(tree, options.resolveHref);
  const renderer = new Renderer(options);
  const hast = toHast(tree, { allowDangerousHtml: true, handlers: renderer.handlers }) as HastRoot;
  const parsed = raw(hast) as HastRoot;
  const clean = sanitize(parsed, SCHEMA) as HastRoot;
  const outline = anchorHeadings(clean);
  return { html: toHtml(clean), outline };
}
