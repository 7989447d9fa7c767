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
import { findSiteByName, type SiteSectionRow, type SiteSpaceRow } from '../../store/sql/sites.js';
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
export async function readPublishedSite(ctx: Context, visitor: SiteVisitor, organizationId: string, siteName: string): Promise<SiteTree> {
  const site = await findSiteByName(ctx.db, organizationId, siteName);
  if (!site || site.visibility === 'visitor-auth') throw new NotFound(`site: no published site "${siteName}"`);
  const access = await loadOrgAccess(ctx, organizationId, visitor.userId ?? '');
  return loadTree(ctx, await openSite(ctx, access, organizationId, site.id, { visitor: { shareKey: visitor.shareKey } }));
}

/** The first document page of a tree, depth first (a group's pages count). */
export function firstDocument(pages: Page[]): DocumentPage | undefined {
  for (const page of pages) {
    if (page.type === 'document') return page;
    const inner = firstDocument(page.pages);
    if (inner) return inner;
  }
  return undefined;
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

/** The page a published URL names below the site. */
export async function readPublishedPage(ctx: Context, tree: SiteTree, segments: string[]): Promise<PublishedPage> {
  const { space, rest } = await readPublishedSpace(ctx, tree, segments);
  const path = rest.join('/');
  const page = path === '' ? firstDocument(space.content.revision.pages) : space.content.pagesByPath.get(path);
  if (!page || page.type !== 'document') throw new NotFound(`path: no page at "${path}"`);
  return { ...space, page };
}
