/**
 * Where the links of a published page lead on its site, and what its includes hold: the rules of a page's links
 * (src/content/links.ts) answered with the site's URLs of the revision's pages and files. One rule for the event
 * loop and the CPU pool's threads: a thread gets the same facts as plain data (PlainSiteLinks) and answers alike, so a
 * page rendered ahead of its readers on a thread is the page a reader's request would render.
 */
import { documentLinks, linkLookupsFromPlain, type LinkLookups, type PlainLinkLookups } from './links.js';
import { isUrl } from './paths.js';
import type { PageHtmlOptions } from './page-html.js';

/** What a page's links are answered from: the revision's lookups, and the site's URLs and titles of its targets. */
export interface SiteLinks {
  lookups: LinkLookups;
  /** The site URL of a document page of the revision (undefined: not a document page). */
  pageUrl(pageId: string): string | undefined;
  pageTitle(pageId: string): string | undefined;
  fileUrl(fileId: string): string | undefined;
  /** The markdown of a reusable content. */
  reusableMarkdown(id: string): string | undefined;
}

/** SiteLinks as plain data, for a CPU pool thread. */
export interface PlainSiteLinks {
  lookups: PlainLinkLookups;
  /** Document pages: id, site URL, title. Other pages: id and title, no URL. */
  pages: Array<[string, string | null, string]>;
  files: Array<[string, string]>;
  reusable: Array<[string, string]>;
}

export function siteLinksFromPlain(plain: PlainSiteLinks): SiteLinks {
  const pages = new Map(plain.pages.map(([id, url, title]) => [id, { url, title }]));
  const files = new Map(plain.files);
  const reusable = new Map(plain.reusable);
  return {
    lookups: linkLookupsFromPlain(plain.lookups),
    pageUrl: (id) => pages.get(id)?.url ?? undefined,
    pageTitle: (id) => pages.get(id)?.title,
    fileUrl: (id) => files.get(id),
    reusableMarkdown: (id) => reusable.get(id),
  };
}

/** How the links `page` writes are rendered on the site (PageHtmlOptions' link answers). */
export function sitePageLinks(
  links: SiteLinks,
  page: { id: string; gitPath: string },
): Required<Pick<PageHtmlOptions, 'resolveHref' | 'isBroken' | 'linkTitle' | 'include'>> {
  const resolver = documentLinks(links.lookups, page);
  const resolveHref = (href: string): string | undefined => {
    const ref = resolver.resolveLink(href);
    if (ref.kind === 'page' || (ref.kind === 'anchor' && ref.page)) {
      const url = links.pageUrl(ref.kind === 'page' ? ref.page : ref.page!);
      return url === undefined ? undefined : `${url}${ref.kind === 'anchor' ? `#${ref.anchor}` : ''}`;
    }
    if (ref.kind === 'anchor') return `#${ref.anchor}`;
    if (ref.kind === 'file') return links.fileUrl(ref.file);
    return undefined;
  };
  // A relative link the revision has nothing at (a URL, an anchor of the page or a non-document page is no such link).
  const isBroken = (href: string): boolean => !isUrl(href) && !href.startsWith('#') && resolver.resolveLink(href).kind === 'url';
  const linkTitle = (href: string): string | undefined => {
    const ref = resolver.resolveLink(href);
    const id = ref.kind === 'page' ? ref.page : ref.kind === 'anchor' ? ref.page : undefined;
    return id === undefined ? undefined : links.pageTitle(id);
  };
  const include = (path: string): string | undefined => {
    const id = resolver.resolveInclude?.(path);
    return id === undefined ? undefined : links.reusableMarkdown(id);
  };
  return { resolveHref, isBroken, linkTitle, include };
}
