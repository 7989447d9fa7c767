/**
 * The reader's side of a site (issue 14): which page a published URL names, for whom. Access is the API's own
 * (openSite): members of the organization read every site; anyone reads a published public or unlisted site, and a
 * share-link site with the key of one of its active share links; anything else is 404. Visitor-auth sites are not
 * served yet (404).
 *
 * A URL below the site is `[section path/][site space path/]page path`: a section's path names a section other than
 * the default one, a site space's path one other than its container's default; the page path is the page's path in
 * the space's main (empty: its first page).
 */
import type { Context } from '../context.js';
import { NotFound } from '../errors.js';
import { loadOrgAccess } from '../permissions.js';
import { loadRevision, type IndexedRevision } from '../content/revisions.js';
import { loadTree, openSite, siteSpacesIn, type SiteTree } from './tree.js';
import { findSiteByName, openSitesOfSpace, type SiteSectionRow, type SiteSpaceRow } from '../../store/sql/sites.js';
import type { DocumentPage, Page } from '../../content/model.js';

/** Who reads: a signed-in user (API token) or nobody, and the share key they bring. */
export interface SiteVisitor {
  userId?: string;
  shareKey?: string;
}

export interface PublishedSpace {
  tree: SiteTree;
  section?: SiteSectionRow;
  siteSpace: SiteSpaceRow;
  /** The URL segments that name this site space below the site ('' segments left out). */
  prefix: string[];
  content: IndexedRevision;
}

export interface PublishedPage extends PublishedSpace {
  page: DocumentPage;
}

/** The site, as `visitor` may read it; 404 when they may not (or there is no such site). */
export function readPublishedSite(ctx: Context, visitor: SiteVisitor, organizationId: string, siteName: string): Promise<SiteTree> {
  // Every read of every page asks this: kept in the read cache, which any write of this process empties (a share
  // link deactivated, a section renamed) and which expires for writes of other processes.
  const key = `published-site:${organizationId}:${siteName}:${visitor.userId ?? ''}:${visitor.shareKey ?? ''}`;
  return ctx.cache.get(key, () => loadPublishedSite(ctx, visitor, organizationId, siteName));
}

async function loadPublishedSite(ctx: Context, visitor: SiteVisitor, organizationId: string, siteName: string): Promise<SiteTree> {
  const site = await findSiteByName(ctx.db, organizationId, siteName);
  if (!site || site.visibility === 'visitor-auth') throw new NotFound(`site: no published site "${siteName}"`);
  const access = await loadOrgAccess(ctx, organizationId, visitor.userId ?? '');
  return loadTree(ctx, await openSite(ctx, access, organizationId, site.id, { visitor: { shareKey: visitor.shareKey } }), { counters: false });
}

/** The first document page of a tree, depth first (a group's pages count). */
export function firstDocument(pages: Page[]): DocumentPage | undefined {
  return documentPages(pages)[0];
}

/** The site space `segments` lead to, and the segments left for the page. */
export async function readPublishedSpace(ctx: Context, tree: SiteTree, segments: string[]): Promise<{ space: PublishedSpace; rest: string[] }> {
  let rest = segments;
  const prefix: string[] = [];
  let section: SiteSectionRow | undefined;
  if (tree.sections.length > 0) {
    section = tree.sections.find((s) => s.id !== tree.defaultSection && s.path === rest[0]);
    if (section) {
      prefix.push(section.path);
      rest = rest.slice(1);
    } else section = tree.sections.find((s) => s.id === tree.defaultSection);
  }
  const container = siteSpacesIn(tree, section?.id ?? null);
  let siteSpace = container.find((s) => !tree.defaultSiteSpaces.has(s.id) && s.path === rest[0]);
  if (siteSpace) {
    prefix.push(siteSpace.path);
    rest = rest.slice(1);
  } else siteSpace = container.find((s) => tree.defaultSiteSpaces.has(s.id)) ?? container[0];
  if (!siteSpace) throw new NotFound('path: nothing is published here');
  const main = await ctx.reader.resolveRef(siteSpace.space_id, 'refs/heads/main');
  if (!main) throw new NotFound('path: nothing is published here');
  const content = await loadRevision(ctx, siteSpace.space_id, main);
  return { space: { tree, ...(section ? { section } : {}), siteSpace, prefix, content }, rest };
}

/** What a published URL names below the site: a page, or a redirect of the space's `.gitbook.yaml`. */
export type PublishedTarget = ({ kind: 'page' } & PublishedPage) | { kind: 'redirect'; space: PublishedSpace; to: { page: DocumentPage } | { url: string } };

export async function readPublishedPage(ctx: Context, tree: SiteTree, segments: string[]): Promise<PublishedTarget> {
  const { space, rest } = await readPublishedSpace(ctx, tree, segments);
  const path = rest.join('/');
  const page = path === '' ? firstDocument(space.content.revision.pages) : space.content.pagesByPath.get(path);
  if (page?.type === 'document') return { kind: 'page', ...space, page };
  const redirect = space.content.revision.redirects.find((r) => r.source === path);
  if (redirect?.target.kind === 'url') return { kind: 'redirect', space, to: { url: redirect.target.url } };
  if (redirect?.target.kind === 'page') {
    const target = space.content.pagesById.get(redirect.target.pageId);
    if (target?.type === 'document') return { kind: 'redirect', space, to: { page: target } };
  }
  throw new NotFound(`path: no page at "${path}"`);
}

/** Every site space of the site with its URL prefix and content, in the structure's order. */
export async function publishedSpaces(ctx: Context, tree: SiteTree): Promise<PublishedSpace[]> {
  const out: PublishedSpace[] = [];
  for (const siteSpace of tree.siteSpaces) {
    const section = siteSpace.section_id ? tree.sections.find((s) => s.id === siteSpace.section_id) : undefined;
    const prefix = [
      ...(section && section.id !== tree.defaultSection ? [section.path] : []),
      ...(tree.defaultSiteSpaces.has(siteSpace.id) ? [] : [siteSpace.path]),
    ];
    const main = await ctx.reader.resolveRef(siteSpace.space_id, 'refs/heads/main');
    if (!main) continue;
    out.push({ tree, ...(section ? { section } : {}), siteSpace, prefix, content: await loadRevision(ctx, siteSpace.space_id, main) });
  }
  return out;
}

/** The document pages of a tree, in order (a group's pages in its place). */
export function documentPages(pages: Page[]): DocumentPage[] {
  return pages.flatMap((page) => [...(page.type === 'document' ? [page] : []), ...documentPages(page.pages)]);
}

/**
 * Where anyone can read a space: the first public or unlisted site publishing it, its tree and that space's place
 * in it (for the `urls.app` of a space or page, which lead there when they can).
 */
export async function openPlaceOfSpace(ctx: Context, spaceId: string): Promise<PublishedSpace | undefined> {
  for (const site of await openSitesOfSpace(ctx.db, spaceId)) {
    const tree = await readPublishedSite(ctx, {}, site.organization_id, site.id).catch((error: unknown) => {
      if (error instanceof NotFound) return undefined;
      throw error;
    });
    const place = tree ? (await publishedSpaces(ctx, tree)).find((space) => space.siteSpace.space_id === spaceId) : undefined;
    if (place) return place;
  }
  return undefined;
}
