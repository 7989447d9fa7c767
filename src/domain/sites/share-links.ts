/**
 * Share links: secret links to a site whose visibility is `share-link`. The secret (`token`) is shown in the link's
 * `urls.published` (as the `share` query parameter) and taken back as the `shareKey` query parameter of getSpaceById,
 * getPublishedContentSite, listSiteSections, listSiteSpaces and the site structure, where it lets anyone read the site
 * while the link is active. Unlike API tokens it is kept readable: every read of the link must show it again, and a key
 * derived from a secret kept in the same database would protect nothing more. Checks read the database each time (no
 * cache), so deactivating or deleting a link ends its access at once.
 */
import crypto from 'node:crypto';
import type { Context, Caller } from '../context.js';
import { NotFound } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { collectPage, type Page, type PageRequest } from '../lists.js';
import { requireSitePermission } from '../permissions.js';
import {
  deleteShareLinkRow,
  findShareLink,
  insertShareLink,
  listShareLinks as listShareLinkRows,
  updateShareLinkRow,
  type ShareLinkRow,
  type SiteRow,
} from '../../store/sql/sites.js';
import { loadSite } from './tree.js';

export interface ShareLinkView {
  link: ShareLinkRow;
  site: SiteRow;
}

/** 32 random bytes, URL-safe. */
function newShareToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

/** The site of a share-link operation, for a caller who manages the site (edit). */
async function managedSite(ctx: Context, caller: Caller, organizationId: string, siteId: string, action: string): Promise<SiteRow> {
  const { site, access } = await loadSite(ctx, caller, organizationId, siteId);
  requireSitePermission(access, siteId, 'edit', action);
  return site;
}

export async function listShareLinks(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  siteId: string,
  request: PageRequest,
): Promise<Page<ShareLinkView>> {
  const site = await managedSite(ctx, caller, organizationId, siteId, 'see its share links');
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `share-links:${siteId}`,
    request,
    fetch: (after, n) => listShareLinkRows(ctx.db, siteId, after, n),
    positionOf: (row) => [row.created_at, row.id],
    present: (link) => ({ link, site }),
  });
  return page;
}

/** One share link of the site (those who manage the site): what its `urls.location` leads to. */
export async function getShareLink(ctx: Context, caller: Caller, organizationId: string, siteId: string, shareLinkId: string): Promise<ShareLinkView> {
  const site = await managedSite(ctx, caller, organizationId, siteId, 'see its share links');
  const link = await findShareLink(ctx.db, siteId, shareLinkId);
  if (!link) throw new NotFound(`shareLinkId: no share link "${shareLinkId}" on this site`);
  return { link, site };
}

/** Creates an active share link. Links can be made whatever the visibility; they open the site only while it is `share-link`. */
export async function createShareLink(ctx: Context, caller: Caller, organizationId: string, siteId: string, input: { name: string }): Promise<ShareLinkView> {
  const site = await managedSite(ctx, caller, organizationId, siteId, 'create share links');
  const now = nowIso();
  const link: ShareLinkRow = { id: newId(), site_id: siteId, name: input.name, token: newShareToken(), active: 1, created_at: now, updated_at: now };
  await insertShareLink(ctx.db, link);
  return { link, site };
}

export async function updateShareLink(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  siteId: string,
  shareLinkId: string,
  patch: { active?: boolean; name?: string },
): Promise<ShareLinkView> {
  const site = await managedSite(ctx, caller, organizationId, siteId, 'change share links');
  const link = await findShareLink(ctx.db, siteId, shareLinkId);
  if (!link) throw new NotFound(`shareLinkId: no share link "${shareLinkId}" on this site`);
  const changes: Partial<ShareLinkRow> = { updated_at: nowIso() };
  if (patch.active !== undefined) changes.active = patch.active ? 1 : 0;
  if (patch.name !== undefined) changes.name = patch.name;
  await updateShareLinkRow(ctx.db, shareLinkId, changes);
  return { link: { ...link, ...changes }, site };
}

/** Deletes a share link (its key stops working at once); false when there was none. */
export async function deleteShareLink(ctx: Context, caller: Caller, organizationId: string, siteId: string, shareLinkId: string): Promise<boolean> {
  await managedSite(ctx, caller, organizationId, siteId, 'delete share links');
  return deleteShareLinkRow(ctx.db, siteId, shareLinkId);
}
