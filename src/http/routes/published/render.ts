/**
 * A published page as the reader gets it (the route) or as a static export writes it: URLs of pages on the site,
 * the page's content rendered once and kept with its revision, the layout around it.
 */
import { linkLookups, plainLinkLookups } from '../../../content/links.js';
import { sitePageLinks, type PlainSiteLinks, type SiteLinks } from '../../../content/site-links.js';
import type { IndexedRevision } from '../../../domain/content/revisions.js';
import { findOperation, openApiRefsOf } from '../../../content/openapi-html.js';
import { CODE_ON_EVENT_LOOP, fencedCodeLength } from '../../../content/code-highlight.js';
import { pageHtml, type PageHtml, type PageHtmlOptions } from '../../../content/page-html.js';
import type { PageSection } from '../../../content/search-text.js';
import type { Context } from '../../../domain/context.js';
import { specDocumentsNamed } from '../../../domain/openapi/specs.js';
import type { DocumentPage, LinkPage, Page } from '../../../content/model.js';
import { documentPages, firstDocument, type PublishedPage, type PublishedSpace, type PublishedTree } from '../../../domain/sites/published.js';
import type { SiteSectionRow } from '../../../store/sql/sites.js';
import { siteSpacesIn } from '../../../domain/sites/tree.js';
import { decidedCondition, evaluateCondition, type VisitorClaims } from '../../../domain/sites/conditions.js';
import { adaptedMarkdown } from '../../../content/adaptive-markdown.js';
import { cachedJson } from '../../present.js';
import { markableToc, markedToc, renderLayout, tocList, type Cover, type MarkableToc, type NavLink, type SiteFrame } from './layout.js';
import type { PageVariant } from './variants.js';
import { feedbackAction } from './feedback-form.js';
import { prerendering, prerenderSpace } from './prerender.js';
import { keptAnswer } from '../../answer-cache.js';
import { pooledPageHtml } from '../../pooled-page-html.js';

const encodePath = (segments: string[]) => segments.map(encodeURIComponent).join('/');

/** pageUrls of each revision and place on the site (every page rendered asks for them, several times). */
const pageUrlsKept = new WeakMap<IndexedRevision, Map<string, (page: DocumentPage) => string>>();

/**
 * URLs of the pages of a published space: the space's own URL for its first page (worked out once per revision and
 * place on the site: finding the first page walks the whole tree).
 */
export function pageUrls(siteBase: string, space: PublishedSpace): (page: DocumentPage) => string {
  const kept = pageUrlsKept.get(space.content) ?? new Map<string, (page: DocumentPage) => string>();
  pageUrlsKept.set(space.content, kept);
  const place = `${siteBase}\n${space.prefix.join('/')}`;
  let urlOf = kept.get(place);
  if (!urlOf) {
    const prefix = encodePath(space.prefix);
    // Below the site's own URL ('' at the root of a host, as in an export: `/section`, never a relative `section`).
    const spaceBase = prefix === '' ? siteBase : `${siteBase}/${prefix}`;
    const first = firstDocument(space.content.revision.pages)?.id;
    urlOf = (page) => (page.id === first ? spaceBase || '/' : `${spaceBase}/${encodePath(page.path.split('/'))}`);
    kept.set(place, urlOf);
  }
  return urlOf;
}

export function pageUrl(siteBase: string, space: PublishedSpace, page: DocumentPage): string {
  return pageUrls(siteBase, space)(page);
}

/**
 * readerMarkdown of each page for a reader without claims, made once (a page of a revision never changes): a static
 * export reads it twice per page (its `.md` file, its search index), `llms-full.txt` once per page per request.
 */
const withoutClaims = new WeakMap<DocumentPage, string>();

/**
 * A page's markdown as written, for this reader: only the `{% if %}` branches the reader's claims show (with none: as
 * for anyone without), as on the HTML page.
 */
export function readerMarkdown(page: DocumentPage, claims: VisitorClaims = {}): string {
  const adapt = () => adaptedMarkdown(page.markdown, (condition) => evaluateCondition(condition, claims));
  if (Object.keys(claims).length > 0) return adapt();
  let markdown = withoutClaims.get(page);
  if (markdown === undefined) {
    markdown = adapt();
    withoutClaims.set(page, markdown);
  }
  return markdown;
}

/** A page as markdown (its URL + `.md`): the title as the first heading, then its markdown as written, for this reader. */
export function pageMarkdown(page: DocumentPage, claims: VisitorClaims = {}): string {
  return `# ${page.title}\n\n${page.description ? `${page.description}\n\n` : ''}${readerMarkdown(page, claims)}`;
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

/** Told a page's search sections (search-text.ts treeSections) from the parse that rendered it. */
export type PageSections = (page: DocumentPage, sections: PageSection[]) => void;

/** Pages longer than this (characters of markdown) are rendered on the CPU pool: parsing takes 1-2 s per MB here. */
export const POOLED_RENDER = 64 * 1024;

/** The site's facts a space's page links are answered from, made once per revision and place on the site. */
const siteLinksKept = new WeakMap<IndexedRevision, Map<string, SiteLinks>>();

function siteLinksOf(space: PublishedSpace, siteBase: string): SiteLinks {
  const { content } = space;
  const kept = siteLinksKept.get(content) ?? new Map<string, SiteLinks>();
  siteLinksKept.set(content, kept);
  const place = `${siteBase}\n${space.prefix.join('/')}`;
  let links = kept.get(place);
  if (!links) {
    const pageUrlOf = pageUrls(siteBase, space);
    const reusable = new Map(content.revision.reusableContents.map((r) => [r.id, r.markdown]));
    links = {
      lookups: linkLookups(content.revision),
      pageUrl: (id) => {
        const target = content.pagesById.get(id);
        return target?.type === 'document' ? pageUrlOf(target) : undefined;
      },
      pageTitle: (id) => content.pagesById.get(id)?.title,
      fileUrl: (id) => {
        const target = content.filesById.get(id);
        return target && 'blobOid' in target ? `${siteBase}/~files/${encodeURIComponent(content.spaceId)}/${target.blobOid}/${encodeURIComponent(target.name)}` : undefined;
      },
      reusableMarkdown: (id) => reusable.get(id),
    };
    kept.set(place, links);
  }
  return links;
}

/** siteLinksOf as plain data, for the CPU pool's threads. */
function plainSiteLinksOf(space: PublishedSpace, siteBase: string): PlainSiteLinks {
  const links = siteLinksOf(space, siteBase);
  const { content } = space;
  const files: Array<[string, string]> = [];
  for (const file of content.files) {
    const url = links.fileUrl(file.id);
    if (url !== undefined) files.push([file.id, url]);
  }
  return {
    lookups: plainLinkLookups(links.lookups),
    pages: [...content.pagesById.values()].map((page) => [page.id, links.pageUrl(page.id) ?? null, page.title]),
    files,
    reusable: content.revision.reusableContents.map((r) => [r.id, r.markdown]),
  };
}

/** Where the links a page writes lead on the site, and what its includes hold. */
function pageLinks(published: PublishedPage, siteBase: string) {
  const links = siteLinksOf(published, siteBase);
  return { pageUrlOf: pageUrls(siteBase, published), fileUrl: links.fileUrl, ...sitePageLinks(links, published.page) };
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
 * never changes); a reader's variant is kept by the caller with the whole page (bounded there), not here. `sections`:
 * told the page's search sections when it is rendered here (not when it was kept).
 */
function renderedContent(published: PublishedPage, siteBase: string, specs?: PageSpecs, variant?: PageVariant, sections?: (found: PageSection[]) => void): PageHtml {
  const render = () => pageHtml(published.page.markdown, { ...pageHtmlOptionsFor(published, siteBase, specs, variant), ...(sections ? { sections } : {}) });
  return variant ? render() : keptContent(published.content, contentKey(published, siteBase, specs), render);
}

/**
 * A page's content kept with its revision (as JSON) under `key`, built when none is: the one built is answered as it
 * is, not read back from the JSON just made (a copy of the whole page's HTML, for every page of an export).
 */
function keptContent(content: IndexedRevision, key: string, build: () => PageHtml): PageHtml {
  let built: PageHtml | undefined;
  const json = cachedJson(content, key, () => (built = build()));
  return built ?? (JSON.parse(json) as PageHtml);
}

/**
 * Whether a page is rendered on the event loop when a reader asks for it: not one longer than `pooledAbove`, nor one
 * with more code than CODE_ON_EVENT_LOOP (highlighting hostile code takes time); those go to the CPU pool.
 */
function rendersOnEventLoop(page: DocumentPage, pooledAbove = POOLED_RENDER): boolean {
  return page.markdown.length <= pooledAbove && (page.markdown.length <= CODE_ON_EVENT_LOOP || fencedCodeLength(page.markdown) <= CODE_ON_EVENT_LOOP);
}

/**
 * As renderedContent, but a page longer than `pooledAbove` (or with much code), and any reader's variant, is rendered on the CPU pool, so
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
  // A page being rendered ahead (prerender.ts) is waited for, not rendered twice.
  if (!variant && !specs) await prerendering(content, contentKey(published, siteBase, specs));
  const onLoop = rendersOnEventLoop(page, pooledAbove);
  if (specs || (!variant && (onLoop || keptAnswer(content, contentKey(published, siteBase, specs)) !== undefined))) return renderedContent(published, siteBase, specs, variant);
  const { resolveHref, isBroken, linkTitle, include } = pageLinks(published, siteBase);
  const html = await pooledPageHtml(ctx, page, { resolveHref, isBroken, linkTitle, include }, variablesOf(published), [...(variant?.outcomes ?? [])]);
  return variant ? html : (JSON.parse(cachedJson(content, contentKey(published, siteBase, specs), () => html)) as PageHtml);
}

/**
 * Starts rendering the other pages of the page's space ahead of their readers (prerender.ts), once per revision and
 * place on the site; `threads`: the CPU pool's. `sections`: told each page's search sections (when this call is the
 * one that starts them).
 */
export function prerenderSiblings(ctx: Context, published: PublishedSpace, siteBase: string, threads: number, sections?: PageSections): Promise<void> {
  const keyOf = (page: DocumentPage) => contentKey({ ...published, page }, siteBase, undefined);
  return prerenderSpace(ctx, published, `${siteBase}\n${published.prefix.join('/')}`, {
    keyOf,
    // What a reader's request would render on the event loop (a big page goes to the pool when asked for anyway).
    wanted: (page) => rendersOnEventLoop(page),
    links: () => plainSiteLinksOf(published, siteBase),
    keep: (page, html) => void cachedJson(published.content, keyOf(page), () => html),
    ...(sections ? { sections } : {}),
  }, threads);
}

/**
 * Every document page of a space with its content rendered, handed to `each` as soon as it is, in no set order (a
 * static export writes each as it comes): the CPU pool renders the pages in batches from the first one
 * (prerenderSiblings), while the event loop renders them one by one from the last one, until the two meet; a page
 * the pool is rendering is waited for, never rendered twice. On two cores, both render at once. The event loop also
 * renders what the pool leaves (pages with OpenAPI blocks, big ones): each page's content is what a reader's request
 * would get, byte for byte. `sections`: told the search sections of each page rendered here, from the render's own
 * parse (a page kept rendered from before has none: its caller parses it again).
 */
export async function renderSpacePages(
  ctx: Context,
  space: PublishedSpace,
  siteBase: string,
  each: (published: PublishedPage, content: PageHtml, specs: PageSpecs | undefined) => Promise<void>,
  sections?: PageSections,
): Promise<void> {
  const pages = documentPages(space.content.revision.pages);
  const ahead = prerenderSiblings(ctx, space, siteBase, ctx.cpu.size, sections);
  const render = async (published: PublishedPage, specs: PageSpecs | undefined) =>
    each(published, renderedContent(published, siteBase, specs, undefined, sections && ((found) => sections(published.page, found))), specs);
  let met = pages.length;
  while (met > 0) {
    const published = { ...space, page: pages[met - 1] };
    const specs = await pageSpecs(ctx, published);
    // The pool's batches have come this far: the pages before are rendered, or being rendered there.
    if (!specs && prerendering(space.content, contentKey(published, siteBase, undefined))) break;
    await render(published, specs);
    met -= 1;
  }
  for (const page of pages.slice(0, met)) {
    const published = { ...space, page };
    const specs = await pageSpecs(ctx, published);
    if (!specs) await prerendering(space.content, contentKey(published, siteBase, undefined));
    await render(published, specs);
  }
  await ahead;
}

/** A section's title in the site's tabs: one titled like the site is shown under its space's title (see siteFrame). */
function sectionTabTitle(tree: PublishedTree, section: SiteSectionRow): string {
  const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();
  if (!same(section.title, tree.site.title)) return section.title;
  const spaces = siteSpacesIn(tree, section.id);
  const first = spaces.find((siteSpace) => tree.defaultSiteSpaces.has(siteSpace.id)) ?? spaces[0];
  const spaceTitle = first ? tree.spaces.get(first.space_id)?.space.title : undefined;
  return spaceTitle && !same(spaceTitle, tree.site.title) ? spaceTitle : 'Home';
}

/** Where a section's URLs start (the default section's at the site's own: '' at the root of a host). */
function sectionBase(tree: PublishedTree, siteBase: string, section: SiteSectionRow | undefined): string {
  return section && section.id !== tree.defaultSection ? `${siteBase}/${encodeURIComponent(section.path)}` : siteBase;
}

/** The site's URL of a section (the default one is the site's own; `/` at the root of a host, as in an export). */
export function sectionHref(tree: PublishedTree, siteBase: string, section: SiteSectionRow): string {
  return sectionBase(tree, siteBase, section) || '/';
}

/**
 * What every page of the site shows around its content: title, search, the sections as tabs (`currentSection`
 * marked), the favicon. The site's title is in the header: a section titled like it (Quire gives the site's title to
 * the section it makes when a site whose spaces sit at its root gets its first section) is shown in the tabs under the
 * title of its space, so that the title is not shown twice.
 */
export function siteFrame(tree: PublishedTree, siteBase: string, options: { currentSection?: string | null; liveSearch?: string } = {}): SiteFrame {
  const current = options.currentSection === undefined ? tree.defaultSection : options.currentSection;
  return {
    siteTitle: tree.site.title,
    siteHref: siteBase,
    searchHref: `${siteBase}/~search`,
    faviconHref: `${siteBase}/favicon.svg`,
    ...(options.liveSearch ? { liveSearch: options.liveSearch } : {}),
    ...(tree.preview?.kind === 'change-request' ? { previewOf: `Preview of change request #${tree.preview.number}${tree.preview.subject ? `: ${tree.preview.subject}` : ''}` } : {}),
    sections: tree.sections.map((section) => ({ title: sectionTabTitle(tree, section), href: sectionHref(tree, siteBase, section), current: section.id === current })),
  };
}

/** The site spaces of a section as the variant switcher shows them. */
export function variantLinks(tree: PublishedTree, siteBase: string, section: SiteSectionRow | undefined, currentSiteSpace: string | undefined): NavLink[] {
  const base = sectionBase(tree, siteBase, section);
  return siteSpacesIn(tree, section?.id ?? null).map((siteSpace) => ({
    title: tree.spaces.get(siteSpace.space_id)?.space.title ?? siteSpace.path,
    href: tree.defaultSiteSpaces.has(siteSpace.id) ? base || '/' : `${base}/${encodeURIComponent(siteSpace.path)}`,
    current: siteSpace.id === currentSiteSpace,
  }));
}

/** Where the table of contents' items lead: pages to their URLs; a file SUMMARY.md lists again to its page. */
function tocHref(published: PublishedPage, siteBase: string): (target: Page) => string | undefined {
  const { content } = published;
  const { pageUrlOf, resolveHref } = pageLinks(published, siteBase);
  // A link item's href is relative to SUMMARY.md, not to this page: the page it names, when SUMMARY.md names one.
  const linkPageHref = (target: LinkPage): string => {
    const listed = target.pageId === undefined ? undefined : content.pagesById.get(target.pageId);
    return listed?.type === 'document' ? `${pageUrlOf(listed)}${target.anchor ? `#${target.anchor}` : ''}` : (resolveHref(target.href) ?? target.href);
  };
  return (target) => (target.type === 'document' ? pageUrlOf(target) : target.type === 'link' ? linkPageHref(target) : undefined);
}

/**
 * The items of a revision's table of contents whose href may depend on the page it is shown on (link items: their
 * href is resolved as a link of that page when SUMMARY.md names no page), found once.
 */
const linkItemsKept = new WeakMap<IndexedRevision, LinkPage[]>();

function linkItems(content: IndexedRevision): LinkPage[] {
  let kept = linkItemsKept.get(content);
  if (!kept) {
    const found: LinkPage[] = [];
    const walk = (pages: Page[]) => {
      for (const page of pages) {
        if (page.type === 'link') found.push(page);
        walk(page.pages);
      }
    };
    walk(content.revision.pages);
    linkItemsKept.set(content, (kept = found));
  }
  return kept;
}

/** Tables of contents made once per revision, place on the site and hrefs of its link items (markableToc). */
const tocsKept = new WeakMap<IndexedRevision, Map<string, MarkableToc>>();

/**
 * The table of contents of a page's space with the page marked (tocList), made once for the pages that show the same
 * one: every page of a space, unless a link item's href differs from page to page.
 */
function pageToc(published: PublishedPage, siteBase: string): string {
  const { content, page } = published;
  const pageHref = tocHref(published, siteBase);
  const key = [siteBase, published.prefix.join('/'), ...linkItems(content).map((item) => pageHref(item) ?? '\u0000')].join('\n');
  const kept = tocsKept.get(content) ?? new Map<string, MarkableToc>();
  tocsKept.set(content, kept);
  let toc = kept.get(key);
  if (!toc) kept.set(key, (toc = markableToc(content.revision.pages, pageHref)));
  return markedToc(toc, page.id);
}

/** The table of contents of a published space as the sidebar shows it ('' for a space without pages). */
export function spaceToc(space: PublishedSpace, siteBase: string): string {
  const first = firstDocument(space.content.revision.pages);
  return first ? tocList(space.content.revision.pages, tocHref({ ...space, page: first }, siteBase), undefined) : '';
}

/** The pages a revision's previous and next links go through (its shown document pages, in order), made once. */
const readingOrders = new WeakMap<IndexedRevision, { order: DocumentPage[]; positions: Map<string, number> }>();

function readingOrder(content: IndexedRevision): { order: DocumentPage[]; positions: Map<string, number> } {
  let kept = readingOrders.get(content);
  if (!kept) {
    const order = documentPages(content.revision.pages).filter((p) => !p.hidden);
    const positions = new Map<string, number>();
    order.forEach((p, i) => positions.has(p.id) || positions.set(p.id, i));
    kept = { order, positions };
    readingOrders.set(content, kept);
  }
  return kept;
}

/**
 * The whole HTML of a published page at `siteBase` ('' for a site served at the root of its host: a static export).
 * Pure but for the page's rendered content (`content`, else rendered here with `specs`), kept with the revision. `liveSearch`:
 * the URL of the live search script (a static export has none: its search page does the work).
 */
export function renderPage(published: PublishedPage, siteBase: string, options: { liveSearch?: string; content?: PageHtml; specs?: PageSpecs; feedback?: boolean } = {}): string {
  const { tree, content, page } = published;
  const { pageUrlOf, fileUrl } = pageLinks(published, siteBase);
  const { html, outline } = options.content ?? renderedContent(published, siteBase, options.specs);
  const { order, positions } = readingOrder(content);
  const at = positions.get(page.id) ?? -1;
  const nav = (target: DocumentPage | undefined): NavLink | undefined => (target ? { title: target.title, href: pageUrlOf(target), current: false } : undefined);
  return renderLayout({
    ...siteFrame(tree, siteBase, { currentSection: published.section?.id ?? tree.defaultSection, ...(options.liveSearch ? { liveSearch: options.liveSearch } : {}) }),
    variants: variantLinks(tree, siteBase, published.section, published.siteSpace.id),
    toc: page.layout.tableOfContents ? pageToc(published, siteBase) : '',
    current: page,
    html,
    outline,
    previous: nav(order[at - 1]),
    next: nav(order[at + 1]),
    cover: coverOf(page, fileUrl),
    noIndex: tree.site.visibility !== 'public' || tree.preview !== undefined || page.noIndex === true,
    ...(options.feedback ? { feedbackAction: feedbackAction(siteBase) } : {}),
  });
}
