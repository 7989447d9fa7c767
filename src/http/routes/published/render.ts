/**
 * A published page as the reader gets it (the route) or as a static export writes it: URLs of pages on the site,
 * the page's content rendered once and kept with its revision, the layout around it.
 */
import { documentLinksOf } from '../../../content/links.js';
import { findOperation, openApiRefsOf } from '../../../content/openapi-html.js';
import { INCLUDE_DEPTH, pageHtml, type PageHtml, type PageHtmlOptions } from '../../../content/page-html.js';
import type { Context } from '../../../domain/context.js';
import { specDocumentsNamed } from '../../../domain/openapi/specs.js';
import type { DocumentPage, LinkPage, Page } from '../../../content/model.js';
import { isUrl } from '../../../content/paths.js';
import { documentPages, firstDocument, type PublishedPage, type PublishedSpace } from '../../../domain/sites/published.js';
import { siteSpacesIn } from '../../../domain/sites/tree.js';
import { decidedCondition, evaluateCondition, type VisitorClaims } from '../../../domain/sites/conditions.js';
import { adaptedMarkdown } from '../../../content/adaptive-markdown.js';
import { cachedJson } from '../../present.js';
import { renderLayout, type Cover, type NavLink } from './layout.js';
import type { PageVariant } from './variants.js';

const encodePath = (segments: string[]) => segments.map(encodeURIComponent).join('/');

/** URLs of the pages of a published space: the space's own URL for its first page (worked out once per space). */
export function pageUrls(siteBase: string, space: PublishedSpace): (page: DocumentPage) => string {
  const spaceBase = [siteBase, encodePath(space.prefix)].filter((s) => s !== '').join('/');
  const first = firstDocument(space.content.revision.pages)?.id;
  return (page) => (page.id === first ? spaceBase || '/' : `${spaceBase}/${encodePath(page.path.split('/'))}`);
}

export function pageUrl(siteBase: string, space: PublishedSpace, page: DocumentPage): string {
  return pageUrls(siteBase, space)(page);
}

/** A page as markdown (its URL + `.md`): the title as the first heading, then its markdown as written, for this reader. */
export function pageMarkdown(page: DocumentPage, claims: VisitorClaims = {}): string {
  // Only the `{% if %}` branches the reader's claims show (with none: as for anyone without), as on the HTML page.
  const markdown = adaptedMarkdown(page.markdown, (condition) => evaluateCondition(condition, claims));
  return `# ${page.title}\n\n${page.description ? `${page.description}\n\n` : ''}${markdown}`;
}

/** The page's cover, when it has one and its layout shows it: the image's site URL, and its dark variant's. */
function coverOf(page: DocumentPage, fileUrl: (fileId: string) => string | undefined): Cover | undefined {
  const src = page.layout.cover && page.cover?.file ? fileUrl(page.cover.file) : undefined;
  if (!src) return undefined;
  const dark = page.cover?.fileDark ? fileUrl(page.cover.fileDark) : undefined;
  return { src, ...(dark ? { dark } : {}), size: page.layout.coverSize, yPos: page.cover?.yPos ?? 0 };
}

/** The OpenAPI operations a page's blocks show, read before the page is rendered (rendering is synchronous). */
export interface PageSpecs {
  /**
   * The spec versions read: part of the keys the rendered page is kept under, because a spec gets new versions
   * while the revision stays the same.
   */
  key: string;
  operation: NonNullable<PageHtmlOptions['openapiOperation']>;
}

/**
 * The specs of the site's organization that the page's OpenAPI blocks name (in the page, or in the reusable
 * contents it may include), by slug (`spec=`) or by source URL (`src=`; a `src` equal to a slug also names it).
 * Undefined for a page without such blocks: nothing is read. Nothing is ever fetched here.
 */
export async function pageSpecs(ctx: Context, published: PublishedPage): Promise<PageSpecs | undefined> {
  const { page, content } = published;
  const includes = page.markdown.includes('{% include') ? content.revision.reusableContents.map((reusable) => reusable.markdown) : [];
  const refs = [page.markdown, ...includes].flatMap(openApiRefsOf);
  if (refs.length === 0) return undefined;
  const names = [...new Set(refs.map((ref) => ref.spec ?? ref.src ?? '').filter((name) => name !== ''))];
  const specs = await specDocumentsNamed(ctx, published.tree.site.organization_id, names);
  return {
    key: specs.map((spec) => spec.versionId).join(','),
    operation: (ref) => {
      const spec = ref.spec !== undefined ? specs.find((s) => s.slug === ref.spec) : (specs.find((s) => s.sourceUrl === ref.src) ?? specs.find((s) => s.slug === ref.src));
      return spec && findOperation(spec.document, spec.slug, ref.path, ref.method);
    },
  };
}

/** Pages longer than this (characters of markdown) are rendered on the CPU pool: parsing takes 1-2 s per MB here. */
export const POOLED_RENDER = 64 * 1024;

/** Where the links a page writes lead on the site, and what its includes hold (the revision's lookups made once, on first use). */
function pageLinks(published: PublishedPage, siteBase: string) {
  const { content, page } = published;
  const pageUrlOf = pageUrls(siteBase, published);
  const fileUrl = (fileId: string) => {
    const target = content.filesById.get(fileId);
    return target && 'blobOid' in target ? `${siteBase}/~files/${encodeURIComponent(content.spaceId)}/${target.blobOid}/${encodeURIComponent(target.name)}` : undefined;
  };
  let links: ReturnType<ReturnType<typeof documentLinksOf>> | undefined;
  const lookups = () => (links ??= documentLinksOf(content.revision)(page));
  const resolveHref = (href: string): string | undefined => {
    const ref = lookups().resolveLink(href);
    if (ref.kind === 'page' || (ref.kind === 'anchor' && ref.page)) {
      const target = content.pagesById.get(ref.kind === 'page' ? ref.page : ref.page!);
      if (!target || target.type !== 'document') return undefined;
      return `${pageUrlOf(target)}${ref.kind === 'anchor' ? `#${ref.anchor}` : ''}`;
    }
    if (ref.kind === 'anchor') return `#${ref.anchor}`;
    if (ref.kind === 'file') return fileUrl(ref.file);
    return undefined;
  };
  // A relative link the revision has nothing at (a URL, an anchor of the page or a non-document page is no such link).
  const isBroken = (href: string): boolean => !isUrl(href) && !href.startsWith('#') && lookups().resolveLink(href).kind === 'url';
  const linkTitle = (href: string): string | undefined => {
    const ref = lookups().resolveLink(href);
    const id = ref.kind === 'page' ? ref.page : ref.kind === 'anchor' ? ref.page : undefined;
    return id === undefined ? undefined : content.pagesById.get(id)?.title;
  };
  const include = (path: string) => {
    const id = lookups().resolveInclude?.(path);
    return content.revision.reusableContents.find((reusable) => reusable.id === id)?.markdown;
  };
  return { pageUrlOf, fileUrl, resolveHref, isBroken, linkTitle, include };
}

// Rendered once per page and place on the site (and versions of the specs it shows).
const contentKey = (published: PublishedPage, siteBase: string, specs: PageSpecs | undefined) =>
  `published:${pageUrls(siteBase, published)(published.page)}:${published.page.id}${specs ? `:openapi:${specs.key}` : ''}`;
const variablesOf = ({ page, content }: PublishedPage) => ({ page: page.variables ?? {}, space: content.revision.variables });

const NO_OUTCOMES: ReadonlyMap<string, boolean> = new Map();

/**
 * What pageHtml needs to render a published page on the event loop. `{% if %}` blocks as the reader's variant decides
 * them (pageVariant); without one, as for anyone without claims (a static export too).
 */
export function pageHtmlOptionsFor(published: PublishedPage, siteBase: string, specs?: PageSpecs, variant?: PageVariant): PageHtmlOptions {
  const { resolveHref, isBroken, linkTitle, include } = pageLinks(published, siteBase);
  const outcomes = variant?.outcomes ?? NO_OUTCOMES;
  return { resolveHref, isBroken, linkTitle, variables: variablesOf(published), include, condition: (expression) => decidedCondition(outcomes, expression), ...(specs ? { openapiOperation: specs.operation } : {}) };
}

/**
 * The page's content as HTML, rendered once per page and place on the site and kept with the revision (a revision
 * never changes); a reader's variant is kept by the caller with the whole page (bounded there), not here.
 */
function renderedContent(published: PublishedPage, siteBase: string, specs?: PageSpecs, variant?: PageVariant): PageHtml {
  const render = () => pageHtml(published.page.markdown, pageHtmlOptionsFor(published, siteBase, specs, variant));
  return variant ? render() : (JSON.parse(cachedJson(published.content, contentKey(published, siteBase, specs), render)) as PageHtml);
}

/**
 * As renderedContent, but a page longer than `pooledAbove`, and any reader's variant, is rendered on the CPU pool, so
 * that no page, however big, and no reader's claims hold the readers of other pages: its links and includes are
 * found there first (the link index's own extraction), resolved here, and the page rendered there with their answers.
 * (Not yet a page with OpenAPI blocks: their lookups are functions of the specs read here.)
 */
export async function renderContent(
  ctx: Context,
  published: PublishedPage,
  siteBase: string,
  specs?: PageSpecs,
  options: { pooledAbove?: number; variant?: PageVariant } = {},
): Promise<PageHtml> {
  const { content, page } = published;
  const { variant, pooledAbove = POOLED_RENDER } = options;
  if (specs || (!variant && (page.markdown.length <= pooledAbove || content.answers?.has(contentKey(published, siteBase, specs))))) return renderedContent(published, siteBase, specs, variant);
  const { resolveHref, isBroken, linkTitle, include } = pageLinks(published, siteBase);
  const hrefs: Record<string, string> = {};
  const broken: string[] = [];
  const titles: Record<string, string> = {};
  const includes: Record<string, string> = {};
  let bodies = [page.markdown];
  for (let depth = 0; bodies.length > 0 && depth <= INCLUDE_DEPTH; depth++) {
    const found = (await ctx.cpu.run('extractLinks', bodies)).flat();
    bodies = [];
    for (const { href } of found) {
      const url = resolveHref(href);
      if (url !== undefined) hrefs[href] = url;
      else if (isBroken(href)) broken.push(href);
      const title = linkTitle(href);
      if (title !== undefined) titles[href] = title;
      const included = href in includes ? undefined : include(href);
      if (included !== undefined) bodies.push((includes[href] = included));
    }
  }
  const html = await ctx.cpu.run('pageHtml', { markdown: page.markdown, hrefs, broken, titles, variables: variablesOf(published), includes, outcomes: [...(variant?.outcomes ?? [])] });
  return variant ? html : (JSON.parse(cachedJson(content, contentKey(published, siteBase, specs), () => html)) as PageHtml);
}

/**
 * The whole HTML of a published page at `siteBase` ('' for a site served at the root of its host: a static export).
 * Pure but for the page's rendered content (`content`, else rendered here with `specs`), kept with the revision. `liveSearch`:
 * the URL of the live search script (a static export has none: its search page does the work).
 */
export function renderPage(published: PublishedPage, siteBase: string, options: { liveSearch?: string; content?: PageHtml; specs?: PageSpecs } = {}): string {
  const { tree, content, page } = published;
  const { pageUrlOf, fileUrl, resolveHref } = pageLinks(published, siteBase);
  // A file SUMMARY.md lists again leads to its page (its href is relative to SUMMARY.md, not to this page).
  const linkPageHref = (target: LinkPage): string => {
    const listed = target.pageId === undefined ? undefined : content.pagesById.get(target.pageId);
    return listed?.type === 'document' ? `${pageUrlOf(listed)}${target.anchor ? `#${target.anchor}` : ''}` : (resolveHref(target.href) ?? target.href);
  };
  const { html, outline } = options.content ?? renderedContent(published, siteBase, options.specs);
  const order = documentPages(content.revision.pages).filter((p) => !p.hidden);
  const at = order.findIndex((p) => p.id === page.id);
  const nav = (target: DocumentPage | undefined): NavLink | undefined => (target ? { title: target.title, href: pageUrlOf(target), current: false } : undefined);
  const sectionLinks: NavLink[] = tree.sections.map((section) => ({
    title: section.title,
    href: section.id === tree.defaultSection ? siteBase : `${siteBase}/${encodeURIComponent(section.path)}`,
    current: section.id === (published.section?.id ?? tree.defaultSection),
  }));
  const sectionBase = published.section && published.section.id !== tree.defaultSection ? `${siteBase}/${encodeURIComponent(published.section.path)}` : siteBase;
  const variants: NavLink[] = siteSpacesIn(tree, published.section?.id ?? null).map((siteSpace) => ({
    title: tree.spaces.get(siteSpace.space_id)?.space.title ?? siteSpace.path,
    href: tree.defaultSiteSpaces.has(siteSpace.id) ? sectionBase : `${sectionBase}/${encodeURIComponent(siteSpace.path)}`,
    current: siteSpace.id === published.siteSpace.id,
  }));
  return renderLayout({
    siteTitle: tree.site.title,
    siteHref: siteBase,
    searchHref: `${siteBase}/~search`,
    ...(options.liveSearch ? { liveSearch: options.liveSearch } : {}),
    sections: sectionLinks,
    variants,
    pages: content.revision.pages,
    pageHref: (target: Page) => (target.type === 'document' ? pageUrlOf(target) : target.type === 'link' ? linkPageHref(target) : undefined),
    current: page,
    html,
    outline,
    previous: nav(order[at - 1]),
    next: nav(order[at + 1]),
    cover: coverOf(page, fileUrl),
    noIndex: tree.site.visibility !== 'public' || page.noIndex === true,
  });
}

