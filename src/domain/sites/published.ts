/**
 * The reader's side of a site: which page a published URL names, for whom. Access is the API's own
 * (openSite): members of the organization read every site; anyone reads a published public or unlisted site, a
 * share-link site with the key of one of its active share links, and a visitor-auth site with a visitor token signed
 * with its key (visitor-auth.ts); anything else is 404.
 *
 * Adaptive content: the visitor's claims (the token's payload, and the unsigned claims they send) decide which
 * sections and site spaces they see: one whose condition is false for them is left out of their tree, so it is in
 * no navigation and its URLs answer 404. Without claims, conditions are evaluated with none (as GitBook does), the
 * same for every reader.
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
import { evaluateCondition, type VisitorClaims } from './conditions.js';
import { verifyVisitorToken } from './visitor-auth.js';
import { openSitePreview } from './site-previews.js';
import { openVisitorSession } from './visitor-oidc.js';
import { findSiteByName, type SiteRow, type SiteSectionRow, type SiteSpaceRow } from '../../store/sql/sites.js';
import type { DocumentPage, Page } from '../../content/model.js';
import { MAIN_REF } from '../content/refs.js';

/** Who reads: a signed-in user (API token) or nobody, and the share key, visitor token and claims they bring. */
export interface SiteVisitor {
  userId?: string;
  shareKey?: string;
  /** A visitor token (JWT): opens a visitor-auth site when signed with its key; its payload is the signed claims. */
  visitorToken?: string;
  /** A visitor's sealed sign-in through the site's OpenID Connect provider (visitor-oidc.ts): its claims are signed ones. */
  visitorSession?: string;
  /** A preview link's token (site-previews.ts, change-request-previews.ts): opens what it names, whatever the visibility. */
  previewToken?: string;
  /** Claims the visitor sent unsigned (`visitor.claims.unsigned.*`): untrusted, they only choose what is shown. */
  unsignedClaims?: Record<string, unknown>;
}

/** A site's tree as one reader sees it: what their claims hide is left out. */
export interface PublishedTree extends SiteTree {
  /**
   * The reader's claims when they brought any (a valid visitor token, unsigned claims): what is shown for them is
   * theirs alone, never kept for others. Undefined: shown as for a reader without claims, the same for everyone.
   */
  claims?: VisitorClaims;
  /** The reader's visitor token was signed with the site's key and holds (it may be remembered for them). */
  visitorTokenValid?: true;
  /**
   * Read through a preview: of the site (a valid preview link, site-previews.ts), or of a change request
   * (change-request-previews.ts). Never indexed, never kept by a browser or a proxy.
   */
  preview?: { kind: 'site' } | { kind: 'change-request'; number: number; subject: string };
  /** The ref read in a space instead of main (a change request's branch in its preview). */
  refs?: ReadonlyMap<string, string>;
}

export interface PublishedSpace {
  tree: PublishedTree;
  section?: SiteSectionRow;
  siteSpace: SiteSpaceRow;
  /** The URL segments that name this site space below the site ('' segments left out). */
  prefix: string[];
  content: IndexedRevision;
}

export interface PublishedPage extends PublishedSpace {
  page: DocumentPage;
}

/**
 * Whether the site serves what is made for AI agents: its pages as markdown (`{page}.md`, and the page's URL asked
 * for `text/markdown` first), `llms.txt`, `llms-full.txt` (and its parts) and its MCP server (`{site}/~quire/mcp`),
 * served and in its static export. The site's `agentsContext` setting (the reference API's): `included` serves them
 * (new sites' default), `excluded` does not (they answer 404, and the HTML pages are the same). The organization's MCP
 * server (`/v1/mcp`, for members with an API token) is no site's and not governed by it.
 */
export function servesAgents(site: SiteRow): boolean {
  return site.agents_context === 'included';
}

/**
 * Whether signing in may open the site to a reader who cannot read it now: a site for its organization's members
 * (visibility `share-link`: members read it, others need its link's key). Public and unlisted sites need no sign-in,
 * and visitor-auth sites authenticate their readers themselves.
 */
export async function membersMayOpen(ctx: Context, organizationId: string, siteName: string): Promise<boolean> {
  const site = await ctx.cache.get(`published-site-row:${organizationId}:${siteName}`, () => findSiteByName(ctx.db, organizationId, siteName));
  return site?.visibility === 'share-link';
}

/** The site, as `visitor` may read it; 404 when they may not (or there is no such site). */
export async function readPublishedSite(ctx: Context, visitor: SiteVisitor, organizationId: string, siteName: string): Promise<PublishedTree> {
  // Every read of every page asks this: kept in the read cache, which any write of this process empties (a share
  // link deactivated, a section renamed, a key rotated) and which expires for writes of other processes.
  const site = await ctx.cache.get(`published-site-row:${organizationId}:${siteName}`, () => findSiteByName(ctx.db, organizationId, siteName));
  if (!site) throw new NotFound(`site: no published site "${siteName}"`);
  // The token is checked on every request (its expiry is); only the tree of "a valid token" is shared.
  const token = visitor.visitorToken && site.visibility === 'visitor-auth' ? await verifyVisitorToken(ctx, site.id, visitor.visitorToken) : undefined;
  const signedIn = !token && visitor.visitorSession && site.visibility === 'visitor-auth' ? openVisitorSession(ctx, site.id, visitor.visitorSession) : undefined;
  const signed = token ?? signedIn;
  const preview = visitor.previewToken ? openSitePreview(ctx, site.id, visitor.previewToken) : undefined;
  const opens = { authenticated: signed !== undefined, preview: preview !== undefined };
  const tree = await loadPublishedSite(ctx, visitor, site, opens);
  const marks = preview ? { preview: { kind: 'site' as const } } : {};
  const unsigned = visitor.unsignedClaims ?? {};
  if (!signed && !preview && Object.keys(unsigned).length === 0) return shownFor(tree, {}, undefined);
  // A token's own `unsigned` member is not a signed claim: `visitor.claims.unsigned.*` are what the visitor sends. A
  // preview's claims are the editor's choice, as if the visitor's token carried them.
  const claims: VisitorClaims = { ...preview?.claims, ...signed, unsigned };
  return { ...shownFor(tree, claims, claims), ...(token ? { visitorTokenValid: true as const } : {}), ...marks };
}

/** The site's tree for `visitor`, kept in the read cache per way in (the tokens are checked on every request). */
export async function loadPublishedSite(ctx: Context, visitor: Pick<SiteVisitor, 'userId' | 'shareKey'>, site: SiteRow, opens: { authenticated?: boolean; preview?: boolean }): Promise<SiteTree> {
  const key = `published-site:${site.organization_id}:${site.id}:${visitor.userId ?? ''}:${visitor.shareKey ?? ''}:${opens.authenticated ? 'visitor' : ''}:${opens.preview ? 'preview' : ''}`;
  return ctx.cache.get(key, async () => {
    const access = await loadOrgAccess(ctx, site.organization_id, visitor.userId ?? '');
    const reader = await openSite(ctx, access, site.organization_id, site.id, { visitor: { shareKey: visitor.shareKey, ...opens } });
    return loadTree(ctx, reader, { counters: false, published: true });
  });
}

/**
 * The tree without the sections and site spaces whose condition is false for `claims` (a site space goes with its
 * section). The default section or site space may be among them: the reader's root then shows the first one left
 * (readPublishedSpace), while the others keep their own paths.
 */
export function shownFor(tree: SiteTree, claims: VisitorClaims, kept: VisitorClaims | undefined): PublishedTree {
  const shown = (condition: string | null) => condition === null || evaluateCondition(condition, claims);
  const sections = tree.sections.filter((section) => shown(section.condition));
  const sectionIds = new Set(sections.map((section) => section.id));
  const siteSpaces = tree.siteSpaces.filter((siteSpace) => shown(siteSpace.condition) && (siteSpace.section_id === null || sectionIds.has(siteSpace.section_id)));
  return { ...tree, sections, siteSpaces, ...(kept ? { claims: kept } : {}) };
}

/** The first document page of a tree, depth first (a group's pages count). */
export function firstDocument(pages: Page[]): DocumentPage | undefined {
  return documentPages(pages)[0];
}

/**
 * The root of a site, a section or a site space that has nothing to show yet (no space, or a space without pages): a
 * place the API hands out URLs of (`urls.published`), so it answers a page that says so rather than "not found".
 */
export class NothingPublishedYet extends NotFound {
  constructor() {
    super('path: nothing is published here yet');
  }
}

/** The site space `segments` lead to, and the segments left for the page. */
export async function readPublishedSpace(ctx: Context, tree: PublishedTree, segments: string[]): Promise<{ space: PublishedSpace; rest: string[] }> {
  let rest = segments;
  const prefix: string[] = [];
  let section: SiteSectionRow | undefined;
  if (tree.sections.length > 0) {
    section = tree.sections.find((s) => s.id !== tree.defaultSection && s.path === rest[0]);
    if (section) {
      prefix.push(section.path);
      rest = rest.slice(1);
    } else section = tree.sections.find((s) => s.id === tree.defaultSection) ?? tree.sections[0];
  }
  const container = siteSpacesIn(tree, section?.id ?? null);
  let siteSpace = container.find((s) => !tree.defaultSiteSpaces.has(s.id) && s.path === rest[0]);
  if (siteSpace) {
    prefix.push(siteSpace.path);
    rest = rest.slice(1);
  } else siteSpace = container.find((s) => tree.defaultSiteSpaces.has(s.id)) ?? container[0];
  const main = siteSpace ? await ctx.reader.resolveRef(siteSpace.space_id, tree.refs?.get(siteSpace.space_id) ?? MAIN_REF) : undefined;
  if (!siteSpace || !main) throw rest.length === 0 ? new NothingPublishedYet() : new NotFound('path: nothing is published here');
  const content = await loadRevision(ctx, siteSpace.space_id, main);
  return { space: { tree, ...(section ? { section } : {}), siteSpace, prefix, content }, rest };
}

/** What a published URL names below the site: a page, or a redirect of the space's `.gitbook.yaml`. */
export type PublishedTarget = ({ kind: 'page' } & PublishedPage) | { kind: 'redirect'; space: PublishedSpace; to: { page: DocumentPage } | { url: string } };

export async function readPublishedPage(ctx: Context, tree: PublishedTree, segments: string[]): Promise<PublishedTarget> {
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
  if (path === '') throw new NothingPublishedYet();
  throw new NotFound(`path: no page at "${path}"`);
}

/** Every site space of the site with its URL prefix and content, in the structure's order. */
export async function publishedSpaces(ctx: Context, tree: PublishedTree): Promise<PublishedSpace[]> {
  const out: PublishedSpace[] = [];
  for (const siteSpace of tree.siteSpaces) {
    const section = siteSpace.section_id ? tree.sections.find((s) => s.id === siteSpace.section_id) : undefined;
    const prefix = [
      ...(section && section.id !== tree.defaultSection ? [section.path] : []),
      ...(tree.defaultSiteSpaces.has(siteSpace.id) ? [] : [siteSpace.path]),
    ];
    const main = await ctx.reader.resolveRef(siteSpace.space_id, tree.refs?.get(siteSpace.space_id) ?? MAIN_REF);
    if (!main) continue;
    out.push({ tree, ...(section ? { section } : {}), siteSpace, prefix, content: await loadRevision(ctx, siteSpace.space_id, main) });
  }
  return out;
}

/** The document pages of a tree, in order (a group's pages in its place). */
export function documentPages(pages: Page[]): DocumentPage[] {
  return pages.flatMap((page) => [...(page.type === 'document' ? [page] : []), ...documentPages(page.pages)]);
}

