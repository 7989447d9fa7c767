/**
 * Invite links to an organization. The spec lists only their deletion (deleteOrganizationInviteById); the reference
 * also has the operations an administrator needs to make and manage them, and the one that uses them, so Quire follows
 * it: createOrganizationInvite, listOrganizationInviteLinks, getOrganizationInviteLink, updateOrganizationInviteById
 * and joinOrganizationWithInvite. Only invites to the organization (`{role}`) exist; the reference's invites to a space
 * or a collection (`{level, space}`) do not.
 *
 * As in the reference, the invite id is what the link carries: whoever holds it may read the invite and join the
 * organization with its role. So the id is 32 random bytes, and it is stored as it is: administrators must be able
 * to list the links and share them again (as share links show their token in `urls.published`), and an HMAC-derived
 * token would rest on a secret kept in the same database, protecting nothing more. Deleting the invite, or turning
 * the organization's `inviteLinks` off, ends the link at once.
 */
import type { Context, Caller } from '../context.js';
import { Conflict, NotFound, PermissionDenied } from '../errors.js';
import { newSecretId, nowIso } from '../ids.js';
import { collectPage, type Page, type PageRequest } from '../lists.js';
import { inviteIsRedundant, isRole, loadOrgAccess, organizationPermissions, requireOrgPermission, strongest, type OrgAccess, type Role } from '../permissions.js';
import { organizationAccess } from './organizations.js';
import {
  deleteLinkInviteRow,
  findLinkInvite,
  findOrganizationById,
  insertLinkInvite,
  listLinkInvites as listLinkInviteRows,
  updateLinkInviteRole,
  type LinkInviteRow,
  type OrganizationRow,
} from '../../store/sql/organizations.js';
import { findMember, insertMember, updateMemberRow } from '../../store/sql/members.js';
import { isUniqueViolation } from '../../store/sql/errors.js';

export interface LinkInviteView {
  invite: LinkInviteRow;
  role: Role | null;
  /** The caller already has everything the invite gives. */
  redundant: boolean;
}

function viewOf(invite: LinkInviteRow, access: OrgAccess): LinkInviteView {
  const role = isRole(invite.role) ? invite.role : null;
  return { invite, role, redundant: inviteIsRedundant(access, role) };
}

function noInvite(inviteId: string): NotFound {
  return new NotFound(`inviteId: no invite "${inviteId}" in this organization`);
}

async function adminAccess(ctx: Context, caller: Caller, organizationId: string, action: string) {
  const { organization, access } = await organizationAccess(ctx, caller, organizationId);
  requireOrgPermission(access, 'admin', action);
  return { organization, access };
}

/**
 * The invite as its holder may use it: the organization exists, the invite belongs to it, and invite links are on
 * (administrators still see and manage their invites while links are off). 404 otherwise, for members and others
 * alike: the id is the only proof the caller has.
 */
async function usableInvite(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  inviteId: string,
): Promise<{ organization: OrganizationRow; invite: LinkInviteRow; access: OrgAccess }> {
  const organization = await findOrganizationById(ctx.db, organizationId);
  const invite = organization ? await findLinkInvite(ctx.db, organizationId, inviteId) : undefined;
  const access = await loadOrgAccess(ctx, organizationId, caller.user.id);
  const admin = organizationPermissions(access).admin;
  if (!organization || !invite || (!organization.invite_links && !admin)) throw noInvite(inviteId);
  return { organization, invite, access };
}

/** Creates an invite link (admin) giving `role` (null: guest). 409 while the organization's invite links are off. */
export async function createLinkInvite(ctx: Context, caller: Caller, organizationId: string, input: { role: Role | null }): Promise<LinkInviteView> {
  const { organization, access } = await adminAccess(ctx, caller, organizationId, 'create invite links');
  if (!organization.invite_links) {
    throw new Conflict('inviteLinks: invite links are turned off for this organization; turn them on with PATCH /v1/orgs/{organizationId}');
  }
  const invite: LinkInviteRow = { id: newSecretId(), organization_id: organizationId, role: input.role, created_by: caller.user.id, created_at: nowIso() };
  await insertLinkInvite(ctx.db, invite);
  return viewOf(invite, access);
}

/** The organization's invite links, oldest first (admin). */
export async function listLinkInvites(ctx: Context, caller: Caller, organizationId: string, request: PageRequest): Promise<Page<LinkInviteView>> {
  const { access } = await adminAccess(ctx, caller, organizationId, 'list invite links');
  return collectPage({
    codec: ctx.cursors,
    scope: `link-invites:${organizationId}`,
    request,
    fetch: (after, n) => listLinkInviteRows(ctx.db, organizationId, after, n),
    positionOf: (row) => [row.created_at, row.id],
    present: (row) => viewOf(row, access),
  });
}

/** An invite, for administrators and for anyone holding its id (who learns the role before joining). */
export async function getLinkInvite(ctx: Context, caller: Caller, organizationId: string, inviteId: string): Promise<LinkInviteView> {
  const { invite, access } = await usableInvite(ctx, caller, organizationId, inviteId);
  return viewOf(invite, access);
}

/** Changes the role an invite gives (admin); members who joined before keep theirs. */
export async function updateLinkInvite(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  inviteId: string,
  input: { role: Role | null },
): Promise<LinkInviteView> {
  const { access } = await adminAccess(ctx, caller, organizationId, 'change invite links');
  if (!(await findLinkInvite(ctx.db, organizationId, inviteId))) throw noInvite(inviteId);
  await updateLinkInviteRole(ctx.db, organizationId, inviteId, input.role);
  return viewOf((await findLinkInvite(ctx.db, organizationId, inviteId))!, access);
}

/** Deletes an invite link (admin): the link stops working at once. True when it existed. */
export async function deleteLinkInvite(ctx: Context, caller: Caller, organizationId: string, inviteId: string): Promise<boolean> {
  await adminAccess(ctx, caller, organizationId, 'delete invite links');
  return deleteLinkInviteRow(ctx.db, organizationId, inviteId);
}

/**
 * Joins the organization with an invite. A new member gets the invite's role; an existing member gets the
 * stronger of their role and the invite's (a link never demotes anyone). A disabled membership stays disabled
 * (403): an administrator disabled it, and a link must not undo that.
 */
export async function joinWithLinkInvite(ctx: Context, caller: Caller, organizationId: string, inviteId: string): Promise<void> {
  const { invite } = await usableInvite(ctx, caller, organizationId, inviteId);
  const role = isRole(invite.role) ? invite.role : null;
  let member = await findMember(ctx.db, organizationId, caller.user.id);
  if (!member) {
    try {
      await insertMember(ctx.db, { organization_id: organizationId, user_id: caller.user.id, role, disabled: 0, sso: 0, joined_at: nowIso(), last_seen_at: null });
      return;
    } catch (error) {
      // Joined at the same moment through another request: continue as an existing member.
      if (!isUniqueViolation(error)) throw error;
      member = (await findMember(ctx.db, organizationId, caller.user.id))!;
    }
  }
  if (member.disabled) throw new PermissionDenied('organizationId: your membership of this organization is disabled; ask an administrator');
  const current = isRole(member.role) ? member.role : null;
  const stronger = strongest(current, role);
  if (stronger !== current) await updateMemberRow(ctx.db, organizationId, caller.user.id, { role: stronger });
}
