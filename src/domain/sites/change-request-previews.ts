/**
 * A change request's preview: a site that publishes its space, as it would read with the change request merged (the
 * space's pages from the change request's branch head instead of main), at
 * `/preview/ORG/SITE/CHANGE_REQUEST_ID/[page path]`. Members who may read the change request read it (signed
 * in); anyone else needs a preview link (a Quire extension): a token signed with the instance's link secret, naming
 * the change request and when it was made, that works for PREVIEW_LINK_MS while the change request is open or a
 * draft (merging or archiving it ends every link) and until the space's editors revoke the links made so far.
 */
import type { Caller, Context } from '../context.js';
import { Conflict, DomainError, NotFound } from '../errors.js';
import { loadOrgAccess, requireSpacePermission, spacePermissions, spaceRole } from '../permissions.js';
import { branchOf } from '../content/refs.js';
import { loadChangeRequest } from '../change-requests/change-requests.js';
import { findChangeRequestById, type ChangeRequestRow } from '../../store/sql/change-requests.js';
import { changeRequestPreviewLinksRevokedAt, revokeChangeRequestPreviewLinks } from '../../store/sql/change-request-preview-revocations.js';
import { findSiteByName, sitesPublishingSpace, type SiteRow } from '../../store/sql/sites.js';
import { findSpace } from '../../store/sql/spaces.js';
import { loadPublishedSite, shownFor, type PublishedTree, type SiteVisitor } from './published.js';

/**
 * Where change requests' previews are: `/preview/ORG/SITE/CHANGE_REQUEST_ID/[page path]`, outside the site's own
 * addresses (`/sites/ORG/SITE/...`), so that no page path, whatever its name, can be hidden by a preview's or hide one.
 */
export const CHANGE_REQUEST_PREVIEWS = '/preview';

/** How long a change request's preview link works (it also ends when the change request is merged or archived). */
export const PREVIEW_LINK_MS = 7 * 24 * 3600 * 1000;

const KIND = 'change-request-preview';

const NO_SITE = 'spaceId: no site publishes this space; add it to a site to preview its change requests';

/** The change request's states in which its preview links work. */
const PREVIEWED = new Set(['open', 'draft']);

export interface ChangeRequestPreviewLink {
  site: SiteRow;
  changeRequest: ChangeRequestRow;
  token: string;
  expiresAt: number;
}

/** The site a change request of `spaceId` is previewed on: the oldest of the organization that publishes the space. */
export async function previewSiteOf(ctx: Context, organizationId: string, spaceId: string): Promise<SiteRow | undefined> {
  return (await sitesPublishingSpace(ctx.db, organizationId, spaceId))[0];
}

/**
 * The site the change request is previewed on, for members who may read it (they open its preview signed in, with no
 * link). 409 when no site publishes the space.
 */
export async function changeRequestPreviewSite(ctx: Context, caller: Caller, spaceId: string, idOrNumber: string): Promise<{ site: SiteRow; changeRequest: ChangeRequestRow }> {
  const { space, changeRequest } = await loadChangeRequest(ctx, caller, spaceId, idOrNumber);
  const site = await previewSiteOf(ctx, space.organization_id, spaceId);
  if (!site) throw new Conflict(NO_SITE);
  return { site, changeRequest };
}

/**
 * A preview link of the change request, for those who may edit the space (it shows the change request to anyone who
 * holds it). 409 when no site publishes the space: there is nothing to preview it on.
 */
export async function createChangeRequestPreviewLink(ctx: Context, caller: Caller, spaceId: string, idOrNumber: string): Promise<ChangeRequestPreviewLink> {
  const { space, role, changeRequest } = await loadChangeRequest(ctx, caller, spaceId, idOrNumber);
  requireSpacePermission(role, spaceId, 'edit', 'share a preview of its change requests');
  if (!PREVIEWED.has(changeRequest.status)) throw new Conflict(`changeRequestId: change request ${changeRequest.number} is ${changeRequest.status}; only open ones are previewed`);
  const site = await previewSiteOf(ctx, space.organization_id, spaceId);
  if (!site) throw new Conflict(NO_SITE);
  const expiresAt = Date.now() + PREVIEW_LINK_MS;
  const token = ctx.downloadLinks.create({ kind: KIND, changeRequest: changeRequest.id, iat: Date.now() }, expiresAt);
  return { site, changeRequest, token, expiresAt };
}

/** Every preview link of the change request made until now stops working (edit on the space). */
export async function revokeChangeRequestPreviewLinksOf(ctx: Context, caller: Caller, spaceId: string, idOrNumber: string): Promise<void> {
  const { role, changeRequest } = await loadChangeRequest(ctx, caller, spaceId, idOrNumber);
  requireSpacePermission(role, spaceId, 'edit', 'revoke the preview links of its change requests');
  await revokeChangeRequestPreviewLinks(ctx.db, changeRequest.id, new Date().toISOString());
}

/** Whether `token` is a valid, unexpired preview link of the change request `changeRequestId`, made after any revocation. */
async function linkOpens(ctx: Context, token: string, changeRequestId: string): Promise<boolean> {
  let data: Record<string, unknown>;
  try {
    data = ctx.downloadLinks.open(token);
  } catch (error) {
    if (error instanceof DomainError) return false;
    throw error;
  }
  if (data.kind !== KIND || data.changeRequest !== changeRequestId || typeof data.iat !== 'number') return false;
  const revokedAt = await changeRequestPreviewLinksRevokedAt(ctx.db, changeRequestId);
  return revokedAt === undefined || data.iat > Date.parse(revokedAt);
}

/**
 * The site `siteName` as `visitor` previews the change request `changeRequestId` on it: 404 when there is no such
 * site or change request, when the site does not publish the change request's space, or when the visitor may not
 * read the change request (a member without read on the space, no valid preview link, a link of a change request
 * since merged or archived).
 */
export async function readChangeRequestPreview(ctx: Context, visitor: SiteVisitor, organizationId: string, siteName: string, changeRequestId: string): Promise<PublishedTree> {
  const hidden = new NotFound(`changeRequestId: no change request "${changeRequestId}" to preview here`);
  const site = await ctx.cache.get(`published-site-row:${organizationId}:${siteName}`, () => findSiteByName(ctx.db, organizationId, siteName));
  if (!site) throw new NotFound(`site: no published site "${siteName}"`);
  const changeRequest = await findChangeRequestById(ctx.db, changeRequestId);
  const space = changeRequest ? await findSpace(ctx.db, changeRequest.space_id) : undefined;
  if (!changeRequest || !space || space.deleted_at || space.organization_id !== organizationId) throw hidden;
  const member = visitor.userId ? spacePermissions(spaceRole(await loadOrgAccess(ctx, organizationId, visitor.userId), space)).view : false;
  const linked = !member && visitor.previewToken !== undefined && PREVIEWED.has(changeRequest.status) && (await linkOpens(ctx, visitor.previewToken, changeRequest.id));
  if (!member && !linked) throw hidden;
  // The tree as an anonymous reader with a preview sees it: the same for every reader of the preview.
  const tree = await loadPublishedSite(ctx, {}, site, { preview: true });
  if (!tree.siteSpaces.some((siteSpace) => siteSpace.space_id === space.id)) throw hidden;
  return {
    ...shownFor(tree, {}, undefined),
    refs: new Map([[space.id, branchOf(changeRequest.number)]]),
    preview: { kind: 'change-request', number: changeRequest.number, subject: changeRequest.subject },
  };
}
