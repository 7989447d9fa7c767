import type { Context, Caller } from '../context.js';
import { Conflict, NotFound, PermissionDenied } from '../errors.js';
import { nowIso } from '../ids.js';
import { collectPage, type Page, type PageRequest } from '../lists.js';
import {
  loadOrgAccess,
  organizationPermissions,
  orgRole,
  requireOrgPermission,
  spaceRole,
  teamPermissions,
  type OrgAccess,
  type Role,
} from '../permissions.js';
import { organizationAccess } from '../organizations/organizations.js';
import { findOrganizationById } from '../../store/sql/organizations.js';
import { isUniqueViolation } from '../../store/sql/errors.js';
import {
  insertMember,
  countAdmins,
  lockOrganizationMembers,
  deleteMemberRow,
  findMember,
  findMembersWithUsers,
  listMembers as listMemberRows,
  memberCounts,
  memberPosition,
  updateMemberRow,
  type MemberListFilter,
  type MemberWithUser,
} from '../../store/sql/members.js';
import { listSpacesOfOrganization, type SpaceRow } from '../../store/sql/spaces.js';
import { spaceCounters, type SpaceCounters } from '../content/spaces.js';
import { listTeams, teamCounts, teamRolesOfUser, type TeamRow } from '../../store/sql/teams.js';
import type { SortDirection } from '../../store/sql/keyset.js';

export interface MemberView {
  member: MemberWithUser;
  teams: number;
  spaces: number;
}

export interface TeamView {
  team: TeamRow;
  members: number;
  spaces: number;
  access: OrgAccess;
}

async function memberViews(ctx: Context, organizationId: string, members: MemberWithUser[]): Promise<MemberView[]> {
  const counts = await memberCounts(ctx.db, organizationId, members.map((m) => m.user_id));
  return members.map((member) => ({ member, ...counts.get(member.user_id)! }));
}

/** Members and their users, for embedding in other resources (team member lists, ...). */
export async function memberViewsOf(ctx: Context, organizationId: string, userIds: string[]): Promise<Map<string, MemberView>> {
  const members = await findMembersWithUsers(ctx.db, organizationId, userIds);
  return new Map((await memberViews(ctx, organizationId, members)).map((v) => [v.member.user_id, v]));
}

export async function teamViews(ctx: Context, access: OrgAccess, teams: TeamRow[]): Promise<TeamView[]> {
  const counts = await teamCounts(ctx.db, teams.map((t) => t.id));
  return teams.map((team) => ({ team, ...counts.get(team.id)!, access }));
}

/** A member whose data the caller may read: anyone who can list members, and each member for themselves. */
async function readableMember(ctx: Context, caller: Caller, organizationId: string, userId: string, action: string): Promise<OrgAccess> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  if (userId !== caller.user.id) requireOrgPermission(access, 'listMembers', action);
  const member = await findMember(ctx.db, organizationId, userId);
  if (!member) throw new NotFound(`userId: no member "${userId}" in this organization`);
  return access;
}

export async function listMembers(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  request: PageRequest & Partial<MemberListFilter>,
): Promise<Page<MemberView>> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  requireOrgPermission(access, 'listMembers', 'list members');
  const filter: MemberListFilter = {
    role: request.role,
    search: request.search,
    sort: request.sort ?? 'joinedAt',
    order: request.order ?? 'desc',
  };
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `members:${organizationId}:${JSON.stringify(filter)}`,
    request,
    fetch: (after, n) => listMemberRows(ctx.db, organizationId, filter, after, n),
    positionOf: (row) => memberPosition(row, filter),
    present: (row) => row,
  });
  return { items: await memberViews(ctx, organizationId, page.items), next: page.next };
}

export async function getMember(ctx: Context, caller: Caller, organizationId: string, userId: string): Promise<MemberView> {
  await readableMember(ctx, caller, organizationId, userId, 'read other members');
  const views = await memberViewsOf(ctx, organizationId, [userId]);
  return views.get(userId)!;
}

/**
 * Refuses a change that would leave the organization without an active admin. Call it inside the transaction
 * that makes the change: it locks the organization's members until that transaction ends.
 */
async function keepAnAdmin(ctx: Context, organizationId: string, userId: string): Promise<void> {
  await lockOrganizationMembers(ctx.db, organizationId);
  const member = await findMember(ctx.db, organizationId, userId);
  if (member?.role === 'admin' && !member.disabled && (await countAdmins(ctx.db, organizationId)) <= 1) {
    throw new Conflict('userId: this member is the last admin of the organization; make another member admin first');
  }
}

/** Removes a member (admins remove anyone; members may leave). Answers the same whether or not they were a member. */
export async function removeMember(ctx: Context, caller: Caller, organizationId: string, userId: string): Promise<void> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  if (userId !== caller.user.id) requireOrgPermission(access, 'admin', 'remove members');
  await ctx.db.transaction().execute(async (trx) => {
    await keepAnAdmin({ ...ctx, db: trx }, organizationId, userId);
    await deleteMemberRow(trx, organizationId, userId);
  });
}

/** Changes a member's role (admin). null makes them a guest. */
export async function updateMember(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  userId: string,
  patch: { role?: Role | null },
): Promise<MemberView> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  requireOrgPermission(access, 'admin', 'change member roles');
  const member = await findMember(ctx.db, organizationId, userId);
  if (!member) throw new NotFound(`userId: no member "${userId}" in this organization`);
  if (patch.role !== undefined && patch.role !== member.role) {
    await ctx.db.transaction().execute(async (trx) => {
      if (patch.role !== 'admin') await keepAnAdmin({ ...ctx, db: trx }, organizationId, userId);
      await updateMemberRow(trx, organizationId, userId, { role: patch.role });
    });
  }
  return getMember(ctx, caller, organizationId, userId);
}

/**
 * Records that the caller was active in the organization now, and returns their visitor claims: a signed JWT of
 * who they are in this organization (src/domain/members/visitor-claims.ts lists the claims).
 */
export async function pingMember(ctx: Context, caller: Caller, organizationId: string): Promise<{ visitorClaims: string }> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  const now = new Date();
  await updateMemberRow(ctx.db, organizationId, caller.user.id, { last_seen_at: now.toISOString() });
  const visitorClaims = await ctx.visitorClaims.sign(
    { sub: caller.user.id, email: caller.user.email, name: caller.user.display_name, organization: organizationId, role: orgRole(access) },
    now.getTime(),
  );
  return { visitorClaims };
}

/** Marks a member as signing in through the organization's SSO (admin). */
export async function setSsoMember(ctx: Context, caller: Caller, organizationId: string, userId: string): Promise<MemberView> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  requireOrgPermission(access, 'admin', 'set SSO members');
  const member = await findMember(ctx.db, organizationId, userId);
  if (!member) throw new NotFound(`userId: no member "${userId}" in this organization`);
  await updateMemberRow(ctx.db, organizationId, userId, { sso: 1 });
  return getMember(ctx, caller, organizationId, userId);
}

export interface MemberSpaceView {
  role: Role;
  space: SpaceRow;
  /** The viewer's access, for the embedded space's permissions. */
  viewerAccess: OrgAccess;
  /** The embedded space's counters. */
  counters: SpaceCounters;
}

/** Spaces a member can access, with their role on each (admins for anyone; members for themselves). */
export async function listMemberSpaces(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  userId: string,
  request: PageRequest & { order?: SortDirection },
): Promise<Page<MemberSpaceView>> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  if (userId !== caller.user.id && !organizationPermissions(access).admin) {
    throw new PermissionDenied('you need the "admin" permission on this organization to list the spaces of another member');
  }
  const member = await findMember(ctx.db, organizationId, userId);
  if (!member) throw new NotFound(`userId: no member "${userId}" in this organization`);
  const memberAccess = userId === caller.user.id ? access : await loadOrgAccess(ctx, organizationId, userId);
  const order = request.order ?? 'desc';
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `member-spaces:${organizationId}:${userId}:${order}`,
    request,
    fetch: (after, n) => listSpacesOfOrganization(ctx.db, organizationId, order, after, n),
    positionOf: (row) => [row.created_at, row.id],
    present: (space) => {
      const role = spaceRole(memberAccess, space);
      return role ? { role, space } : undefined;
    },
  });
  const counters = await spaceCounters(ctx, page.items.map((item) => item.space.id));
  return { ...page, items: page.items.map((item) => ({ ...item, viewerAccess: access, counters: counters.get(item.space.id)! })) };
}

export interface MemberTeamView {
  team: TeamView;
  role: string;
}

/** Teams a member belongs to, with their team role. */
export async function listMemberTeams(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  userId: string,
  request: PageRequest & { title?: string },
): Promise<Page<MemberTeamView>> {
  const access = await readableMember(ctx, caller, organizationId, userId, 'list the teams of another member');
  const seats = await teamRolesOfUser(ctx.db, organizationId, userId);
  const filter = { member: userId, title: request.title };
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `member-teams:${organizationId}:${JSON.stringify(filter)}`,
    request,
    fetch: (after, n) => listTeams(ctx.db, organizationId, filter, after, n),
    positionOf: (row) => [row.created_at, row.id],
    present: (team) => (teamPermissions(access, team.id).view || userId === caller.user.id ? team : undefined),
  });
  const views = await teamViews(ctx, access, page.items);
  return { items: views.map((team) => ({ team, role: seats.get(team.team.id) ?? 'member' })), next: page.next };
}

/**
 * Makes a user a member with a role (null: guest). Used by `quire admin create-user --org` and by sign-in through an
 * organization's identity provider (`sso`: the member arrived through it, as the member's `sso` says).
 */
export async function addMember(ctx: Context, organizationId: string, userId: string, role: Role | null, options: { sso?: boolean } = {}): Promise<void> {
  if (!(await findOrganizationById(ctx.db, organizationId))) throw new NotFound(`org: no organization "${organizationId}"`);
  try {
    await insertMember(ctx.db, { organization_id: organizationId, user_id: userId, role, disabled: 0, sso: options.sso ? 1 : 0, joined_at: nowIso(), last_seen_at: null });
  } catch (error) {
    if (isUniqueViolation(error)) throw new Conflict(`user: "${userId}" is already a member of this organization`);
    throw error;
  }
}
