/**
 * Where the links of a published page lead on its site, and what its includes hold: the rules of a page's links
 * (src/content/links.ts) answered with the site's URLs of the revision's pages and files. One rule for the event
 * loop and the CPU pool's threads: a thread gets the same facts as plain data (PlainSiteLinks) and answers alike, so a
 * page rendered ahead of its readers on a thread is the page a reader's request would render.
 */
import { documentLinks, linkLookupsFromPlain, type LinkLookups, type PlainLinkLookups, type RawLink } from './links.js';
import { isUrl } from './paths.js';
import { INCLUDE_DEPTH, type PageHtmlOptions } from './page-html.js';
import { Turns } from './turns.js';
import { indexedPart } from './bounded-markdown.js';

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

/** What a page's links lead to, as rendering asks (PageHtmlOptions' link answers). */
export type LinkAnswers = Required<Pick<PageHtmlOptions, 'resolveHref' | 'isBroken' | 'linkTitle' | 'include'>>;

/**
 * A page's link answers worked out before it is rendered, as plain data: a CPU thread renders the page with them
 * (functions cannot cross to a thread), and nothing of the rest of the revision is copied there.
 */
export interface ResolvedLinks {
  /** Where the hrefs the page (and its includes) write lead; an href not here stays as written. */
  hrefs: Record<string, string>;
  /** The hrefs that lead nowhere (shown as broken links). */
  broken: string[];
  /** Titles of the pages those hrefs lead to (content-ref cards show them). */
  titles: Record<string, string>;
  /** The markdown of each reusable content the page (or an include) names, by the path written. */
  includes: Record<string, string>;
}

/**
 * The answers to the links `markdown` writes, and those of what it includes (to INCLUDE_DEPTH): the links are found
 * by `extract` (the CPU pool's extractLinks: finding them parses the markdown), each answered here with `answers`.
 * `written`: the links of `markdown` itself when they are known already (the link index's, kept by blob), which
 * spares a parse of the page.
 * Only the part of each body rendered with its markup is read (indexedPart, as convertedParts renders it): past it,
 * a page is plain paragraphs whose links are text, and parsing the rest of a 5 MB page for them kept a thread busy
 * for seconds (a published page of 5 MB of links took 53 s to answer, 24 s without).
 */
export async function resolvePageLinks(
  markdown: string,
  answers: LinkAnswers,
  extract: (bodies: string[]) => Promise<RawLink[][]>,
  written?: RawLink[],
): Promise<ResolvedLinks> {
  const resolved: ResolvedLinks = { hrefs: {}, broken: [], titles: {}, includes: {} };
  // Answering a link takes tens of microseconds: a page of thousands lets other requests run between turns.
  const turns = new Turns();
  let bodies = [markdown];
  for (let depth = 0; bodies.length > 0 && depth <= INCLUDE_DEPTH; depth++) {
    const found = depth === 0 && written ? written : (await extract(bodies.map((body) => indexedPart(body).text))).flat();
    bodies = [];
    for (const { href } of found) {
      if (turns.due()) await turns.take();
      const url = answers.resolveHref(href);
      if (url !== undefined) resolved.hrefs[href] = url;
      else if (answers.isBroken(href)) resolved.broken.push(href);
      const title = answers.linkTitle(href);
      if (title !== undefined) resolved.titles[href] = title;
      const included = href in resolved.includes ? undefined : answers.include(href);
      if (included !== undefined) bodies.push((resolved.includes[href] = included));
    }
  }
  return resolved;
}

/** A record's own value of `key` (never one of Object.prototype's: a page may link to `constructor`). */
const ownValue = (record: Record<string, string>, key: string): string | undefined => (Object.hasOwn(record, key) ? record[key] : undefined);

/** The link answers of ResolvedLinks, on the thread that renders the page. */
export function resolvedLinkAnswers(resolved: ResolvedLinks): LinkAnswers {
  const broken = new Set(resolved.broken);
  return {
    resolveHref: (href) => ownValue(resolved.hrefs, href) ?? ownValue(resolved.hrefs, href.trim()),
    isBroken: (href) => broken.has(href) || broken.has(href.trim()),
    linkTitle: (href) => ownValue(resolved.titles, href) ?? ownValue(resolved.titles, href.trim()),
    include: (path) => ownValue(resolved.includes, path),
  };
}
