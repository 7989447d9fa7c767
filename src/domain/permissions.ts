/**
 * The one place that decides what a caller may do. Every `permissions` object and every permission check
 * comes from the effective role computed here.
 *
 * Model (README "Permissions"):
 * - Roles, strongest first: admin > create > review > edit > comment > read. Guests are members with role null.
 * - An organization admin is admin on all of the organization's content.
 * - On a collection or space, a caller's role is the strongest of: their organization role (members who are not
 *   guests), the `defaultLevel` of the space and of every collection above it (members who are not guests), and
 *   grants to the caller or to their teams on the space or any collection above it (guests included).
 * - Non-members get read on spaces whose visibility is public or unlisted, and nothing else.
 * - Sites belong to the organization, not to a collection: members who are not guests read them; org admins and
 *   members whose org role lets them create content (`create`, `admin`) manage them (structure, settings, share
 *   links, deletion). Others (guests, non-members) read a published site only when its visibility is public or
 *   unlisted, or with the `shareKey` of one of its active share links (share-link visibility); see sites/tree.ts.
 * - A resource the caller cannot view answers 404; one they can view but not change answers 403.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../store/sql/schema.js';
import { findMember, type MemberRow } from '../store/sql/members.js';
import { teamRolesOfUser } from '../store/sql/teams.js';
import { collectionsOfOrganization, grantsFor, type CollectionRow, type SpaceRow } from '../store/sql/spaces.js';
import { NotFound, PermissionDenied } from './errors.js';
import type { Context } from './context.js';
import { atLeast, isRole, strongest, type Role } from './roles.js';

export { ROLES, atLeast, isRole, strongest, type Role } from './roles.js';

/** What a caller is in one organization, loaded once per request and reused for every item of a list. */
export interface OrgAccess {
  organizationId: string;
  userId: string;
  membership: MemberRow | null;
  /** The tree of collections of the organization. */
  collections: Map<string, Pick<CollectionRow, 'id' | 'parent_id' | 'default_level'>>;
  /** Strongest grant per space / collection for this user or their teams. */
  spaceGrants: Map<string, Role>;
  collectionGrants: Map<string, Role>;
  /** Team id -> the caller's team role. */
  teamRoles: Map<string, string>;
}

/** The caller's access to an organization (through the read cache: every request needs it). */
export function loadOrgAccess(ctx: Pick<Context, 'db' | 'cache'>, organizationId: string, userId: string): Promise<OrgAccess> {
  return ctx.cache.get(`access:${organizationId}:${userId}`, () => readOrgAccess(ctx.db, organizationId, userId));
}

async function readOrgAccess(db: Kysely<Database>, organizationId: string, userId: string): Promise<OrgAccess> {
  const membership = (await findMember(db, organizationId, userId)) ?? null;
  const access: OrgAccess = {
    organizationId,
    userId,
    membership: membership && !membership.disabled ? membership : null,
    collections: new Map(),
    spaceGrants: new Map(),
    collectionGrants: new Map(),
    teamRoles: new Map(),
  };
  if (!access.membership) return access;
  access.teamRoles = await teamRolesOfUser(db, organizationId, userId);
  for (const c of await collectionsOfOrganization(db, organizationId)) access.collections.set(c.id, c);
  for (const grant of await grantsFor(db, organizationId, userId, [...access.teamRoles.keys()])) {
    if (!isRole(grant.role)) continue;
    if (grant.space_id) access.spaceGrants.set(grant.space_id, strongest(access.spaceGrants.get(grant.space_id), grant.role)!);
    if (grant.collection_id) {
      access.collectionGrants.set(grant.collection_id, strongest(access.collectionGrants.get(grant.collection_id), grant.role)!);
    }
  }
  return access;
}

export function isMember(access: OrgAccess): boolean {
  return access.membership !== null;
}

/** The caller's organization role; null for guests and non-members. */
export function orgRole(access: OrgAccess): Role | null {
  const role = access.membership?.role;
  return isRole(role) ? role : null;
}

function isOrgAdmin(access: OrgAccess): boolean {
  return orgRole(access) === 'admin';
}

/** Role from a collection and the collections above it: their default levels (non-guests) and grants. */
function roleFromChain(access: OrgAccess, collectionId: string | null): Role | null {
  const nonGuest = orgRole(access) !== null;
  let best: Role | null = null;
  const seen = new Set<string>();
  for (let id = collectionId; id && !seen.has(id); ) {
    seen.add(id);
    const collection = access.collections.get(id);
    if (!collection) break;
    best = strongest(best, access.collectionGrants.get(id), nonGuest && isRole(collection.default_level) ? collection.default_level : null);
    id = collection.parent_id;
  }
  return best;
}

/** Effective role on a collection; null when the caller cannot see it. */
export function collectionRole(access: OrgAccess, collectionId: string): Role | null {
  if (!isMember(access)) return null;
  if (isOrgAdmin(access)) return 'admin';
  return strongest(orgRole(access), roleFromChain(access, collectionId));
}

type SpaceForAccess = Pick<SpaceRow, 'id' | 'parent_id' | 'default_level' | 'visibility'>;

/** Effective role on a space; null when the caller cannot see it. */
export function spaceRole(access: OrgAccess, space: SpaceForAccess): Role | null {
  const publicRead: Role | null = space.visibility === 'public' || space.visibility === 'unlisted' ? 'read' : null;
  if (!isMember(access)) return publicRead;
  if (isOrgAdmin(access)) return 'admin';
  const nonGuest = orgRole(access) !== null;
  let role = strongest(
    publicRead,
    orgRole(access),
    access.spaceGrants.get(space.id),
    nonGuest && isRole(space.default_level) ? space.default_level : null,
    roleFromChain(access, space.parent_id),
  );
  if (space.visibility === 'in-collection' && space.parent_id && collectionRole(access, space.parent_id)) {
    role = strongest(role, 'read');
  }
  return role;
}

// ---- permissions objects (the `permissions` member of each resource)

export interface OrganizationPermissions {
  view: boolean;
  admin: boolean;
  ownTeam: boolean;
  createContent: boolean;
  createOpenAPISpec: boolean;
  ingestConversations: boolean;
  viewBilling: boolean;
  listMembers: boolean;
  listTeams: boolean;
  listIntegrations: boolean;
}

export function organizationPermissions(access: OrgAccess): OrganizationPermissions {
  const role = orgRole(access);
  const member = isMember(access);
  return {
    view: member,
    admin: role === 'admin',
    ownTeam: [...access.teamRoles.values()].includes('owner'),
    createContent: atLeast(role, 'create'),
    createOpenAPISpec: atLeast(role, 'create'),
    ingestConversations: role === 'admin',
    viewBilling: role === 'admin',
    listMembers: role !== null,
    listTeams: role !== null,
    listIntegrations: role !== null,
  };
}

export interface OpenApiSpecPermissions {
  view: boolean;
  edit: boolean;
  /** Not in the spec; the reference lists it as required. */
  delete: boolean;
}

/** Any member (guests too) views the organization's OpenAPI specs; `createOpenAPISpec` creates, edits and deletes them. */
export function openApiSpecPermissions(access: OrgAccess): OpenApiSpecPermissions {
  const edit = organizationPermissions(access).createOpenAPISpec;
  return { view: isMember(access), edit, delete: edit };
}

export interface CollectionPermissions {
  view: boolean;
  admin: boolean;
  viewInviteLinks: boolean;
  create: boolean;
}

export function collectionPermissions(role: Role | null): CollectionPermissions {
  return {
    view: atLeast(role, 'read'),
    admin: role === 'admin',
    viewInviteLinks: role === 'admin',
    create: atLeast(role, 'create'),
  };
}

export interface SpacePermissions {
  view: boolean;
  access: boolean;
  admin: boolean;
  viewInviteLinks: boolean;
  edit: boolean;
  triggerGitSync: boolean;
  comment: boolean;
  merge: boolean;
  review: boolean;
}

export function spacePermissions(role: Role | null): SpacePermissions {
  return {
    view: atLeast(role, 'read'),
    access: atLeast(role, 'read'),
    admin: role === 'admin',
    viewInviteLinks: role === 'admin',
    edit: atLeast(role, 'edit'),
    triggerGitSync: atLeast(role, 'edit'),
    comment: atLeast(role, 'comment'),
    merge: atLeast(role, 'review'),
    review: atLeast(role, 'review'),
  };
}

/** What a caller may do with the reviews of one change request (no `permissions` member in the reference). */
export interface ChangeRequestReviewPermissions {
  /** See its reviews and requested reviewers. */
  view: boolean;
  /** Submit a review: approve or request changes. */
  review: boolean;
  /** Approve: a reviewer who is not the change request's author. */
  approve: boolean;
  /** Request reviewers (and change the subject while at it) and take requests back: editors, and the author. */
  requestReviewers: boolean;
}

export function changeRequestReviewPermissions(role: Role | null, isAuthor: boolean): ChangeRequestReviewPermissions {
  const space = spacePermissions(role);
  return {
    view: space.view,
    review: space.review,
    approve: space.review && !isAuthor,
    requestReviewers: space.edit || (isAuthor && space.view),
  };
}

/** Who may be asked to review a change request of a space: a member of its organization (a guest too) who reads it. */
export function mayBeRequestedToReview(access: OrgAccess, space: SpaceForAccess): boolean {
  return isMember(access) && atLeast(spaceRole(access, space), 'read');
}

export interface TeamPermissions {
  admin: boolean;
  view: boolean;
}

/** Org admins and the team's owners manage a team; non-guest members and the team's members see it. */
export function teamPermissions(access: OrgAccess, teamId: string): TeamPermissions {
  const seat = access.teamRoles.get(teamId);
  return {
    admin: isOrgAdmin(access) || seat === 'owner',
    view: orgRole(access) !== null || seat !== undefined,
  };
}

export interface TranslationPermissions {
  view: boolean;
  edit: boolean;
}

/** Translation settings are organization settings: members who are not guests see them, admins change them. */
export function translationPermissions(access: OrgAccess): TranslationPermissions {
  const role = orgRole(access);
  return { view: role !== null, edit: role === 'admin' };
}

/**
 * True when the caller already has everything an organization invite with `role` gives (`redundant` of the
 * reference's InviteLinkToOrganization): they are an active member with that role or a stronger one; any
 * membership is enough for an invite of guests (role null).
 */
export function inviteIsRedundant(access: OrgAccess, role: Role | null): boolean {
  if (!isMember(access)) return false;
  return role === null || atLeast(orgRole(access), role);
}

/** What a caller may do with a site of the organization (sites have no `permissions` member in the reference). */
export interface SitePermissions {
  /** See the site's settings, structure and share links. */
  view: boolean;
  /** Change the site, its structure, adaptive schema and share links; delete it. */
  edit: boolean;
  /** Read and rotate the key visitor tokens are signed with (it opens a visitor-auth site to anyone): admins. */
  admin: boolean;
}

export function sitePermissions(access: OrgAccess): SitePermissions {
  const role = orgRole(access);
  return { view: role !== null, edit: atLeast(role, 'create'), admin: role === 'admin' };
}

// ---- checks: 404 when the caller cannot see, 403 when they can see but not act

/** The organization exists and the caller is a member. */
export function requireOrgMember(access: OrgAccess): void {
  if (!isMember(access)) throw new NotFound(`organization: no organization "${access.organizationId}" is visible to you`);
}

export function requireOrgPermission(access: OrgAccess, flag: keyof OrganizationPermissions, action: string): void {
  requireOrgMember(access);
  if (!organizationPermissions(access)[flag]) throw new PermissionDenied(`you need the "${flag}" permission on this organization to ${action}`);
}

export function requireCollectionPermission(role: Role | null, id: string, flag: keyof CollectionPermissions, action: string): void {
  if (!atLeast(role, 'read')) throw new NotFound(`collectionId: no collection "${id}" is visible to you`);
  if (!collectionPermissions(role)[flag]) throw new PermissionDenied(`you need the "${flag}" permission on this collection to ${action}`);
}

export function requireSpacePermission(role: Role | null, id: string, flag: keyof SpacePermissions, action: string): void {
  if (!atLeast(role, 'read')) throw new NotFound(`spaceId: no space "${id}" is visible to you`);
  if (!spacePermissions(role)[flag]) throw new PermissionDenied(`you need the "${flag}" permission on this space to ${action}`);
}

/** `approve` is not checked here: the domain answers an author's approval as a conflict with the change request. */
export function requireChangeRequestReviewPermission(
  role: Role | null,
  spaceId: string,
  isAuthor: boolean,
  flag: Exclude<keyof ChangeRequestReviewPermissions, 'approve'>,
  action: string,
): void {
  if (!atLeast(role, 'read')) throw new NotFound(`spaceId: no space "${spaceId}" is visible to you`);
  if (!changeRequestReviewPermissions(role, isAuthor)[flag]) {
    const needed = flag === 'requestReviewers' ? 'the "edit" permission on this space, or to be the change request\'s author,' : `the "${flag}" permission on this space`;
    throw new PermissionDenied(`you need ${needed} to ${action}`);
  }
}

export function requireTeamPermission(access: OrgAccess, teamId: string, flag: keyof TeamPermissions, action: string): void {
  if (!teamPermissions(access, teamId).view) throw new NotFound(`teamId: no team "${teamId}" is visible to you`);
  if (!teamPermissions(access, teamId)[flag]) throw new PermissionDenied(`you need the "${flag}" permission on this team to ${action}`);
}

/** `id` undefined: the list of the organization's translation settings (403 for guests, who see the organization). */
export function requireTranslationPermission(access: OrgAccess, id: string | undefined, flag: keyof TranslationPermissions, action: string): void {
  requireOrgMember(access);
  const permissions = translationPermissions(access);
  if (id !== undefined && !permissions.view) throw new NotFound(`translationSettingsId: no translation settings "${id}" are visible to you`);
  if (!permissions[flag]) throw new PermissionDenied(`you need the "${flag}" permission on translation settings to ${action}`);
}

export function requireSitePermission(access: OrgAccess, siteId: string, flag: keyof SitePermissions, action: string): void {
  if (!sitePermissions(access).view) throw new NotFound(`siteId: no site "${siteId}" is visible to you`);
  if (!sitePermissions(access)[flag]) throw new PermissionDenied(`you need the "${flag}" permission on this site to ${action}`);
}
