/**
 * A published page as the reader gets it (the route) or as a static export writes it: URLs of pages on the site,
 * the page's content rendered once and kept with its revision, the layout around it.
 */
import { documentLinksOf } from '../../../content/links.js';
import { pageHtml } from '../../../content/page-html.js';
import type { DocumentPage, Page } from '../../../content/model.js';
import { documentPages, firstDocument, type PublishedPage, type PublishedSpace } from '../../../domain/sites/published.js';
import { siteSpacesIn } from '../../../domain/sites/tree.js';
import { evaluateCondition } from '../../../domain/sites/conditions.js';
import { cachedJson } from '../../present.js';
import { renderLayout, type NavLink } from './layout.js';

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

/** A page as markdown (its URL + `.md`): the title as the first heading, then its markdown as written. */
export function pageMarkdown(page: DocumentPage): string {
  return `# ${page.title}\n\n${page.description ? `${page.description}\n\n` : ''}${page.markdown}`;
}

/**
 * The whole HTML of a published page at `siteBase` ('' for a site served at the root of its host: a static export).
 * Pure but for the page's rendered content, kept with the revision.
 */
export function renderPage(published: PublishedPage, siteBase: string): string {
  const { tree, content, page } = published;
  const pageUrlOf = pageUrls(siteBase, published);
  const fileUrl = (fileId: string) => {
    const target = content.filesById.get(fileId);
    return target && 'blobOid' in target ? `${siteBase}/~files/${encodeURIComponent(content.spaceId)}/${target.blobOid}/${encodeURIComponent(target.name)}` : undefined;
  };
  let links: ReturnType<ReturnType<typeof documentLinksOf>> | undefined;
  const resolveHref = (href: string): string | undefined => {
    // The revision's link lookups are made only when a page is rendered (then kept, below), not for every read.
    links ??= documentLinksOf(content.revision)(page);
    const ref = links.resolveLink(href);
    if (ref.kind === 'page' || (ref.kind === 'anchor' && ref.page)) {
      const target = content.pagesById.get(ref.kind === 'page' ? ref.page : ref.page!);
      if (!target || target.type !== 'document') return undefined;
      return `${pageUrlOf(target)}${ref.kind === 'anchor' ? `#${ref.anchor}` : ''}`;
    }
    if (ref.kind === 'anchor') return `#${ref.anchor}`;
    if (ref.kind === 'file') return fileUrl(ref.file);
    return undefined;
  };
  // `{% if %}` blocks shown for the reader's claims; without claims, as for anyone without (a static export too).
  const claims = tree.claims;
  const render = () =>
    pageHtml(page.markdown, {
      resolveHref,
      variables: { page: page.variables ?? {}, space: content.revision.variables },
      include: (path) => {
        links ??= documentLinksOf(content.revision)(page);
        const id = links.resolveInclude?.(path);
        return content.revision.reusableContents.find((reusable) => reusable.id === id)?.markdown;
      },
      condition: (expression) => evaluateCondition(expression, claims ?? {}),
    });
  // Rendered once per page and place on the site, kept with the revision (a revision never changes); a page
  // rendered for a reader's claims is theirs alone: never kept, so no other reader is ever served it.
  const { html, outline } = claims ? render() : (JSON.parse(cachedJson(content, `published:${pageUrlOf(page)}:${page.id}`, render)) as ReturnType<typeof pageHtml>);
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
    sections: sectionLinks,
    variants,
    pages: content.revision.pages,
    pageHref: (target: Page) => (target.type === 'document' ? pageUrlOf(target) : target.type === 'link' ? (resolveHref(target.href) ?? target.href) : undefined),
    current: page,
    html,
    outline,
    previous: nav(order[at - 1]),
    next: nav(order[at + 1]),
    noIndex: tree.site.visibility !== 'public' || page.noIndex === true,
  });
}

