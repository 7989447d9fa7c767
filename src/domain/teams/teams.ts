import type { Context, Caller } from '../context.js';
import { InvalidArgument, NotFound } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { collectPage, type Page, type PageRequest } from '../lists.js';
import { organizationPermissions, requireOrgPermission, requireTeamPermission, type OrgAccess } from '../permissions.js';
import { organizationAccess } from '../organizations/organizations.js';
import { memberViewsOf, teamViews, type MemberView, type TeamView } from '../members/members.js';
import { isEmail } from '../identity/users.js';
import { findMember, findMembersWithUsers } from '../../store/sql/members.js';
import { findUsersByEmails } from '../../store/sql/users.js';
import {
  addTeamMemberIfAbsent,
  deleteTeamMember,
  deleteTeamRow,
  findTeam,
  findTeamMember,
  insertTeam,
  listTeamMembers as listTeamMemberRows,
  listTeams as listTeamRows,
  updateTeamTitle,
  upsertTeamMember,
  type TeamRow,
} from '../../store/sql/teams.js';

export type TeamRole = 'owner' | 'member';

async function teamAccess(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  teamId: string,
): Promise<{ access: OrgAccess; team: TeamRow }> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  const team = await findTeam(ctx.db, organizationId, teamId);
  if (!team) throw new NotFound(`teamId: no team "${teamId}" is visible to you`);
  return { access, team };
}

async function viewOf(ctx: Context, access: OrgAccess, team: TeamRow): Promise<TeamView> {
  return (await teamViews(ctx, access, [team]))[0];
}

/**
 * Resolves user ids or e-mail addresses to members of the organization; 400 naming the entry otherwise.
 * `field` names the entry at an index: `add/0`, or `memberships.<key>` for the keys of a map.
 */
async function resolveMembers(
  ctx: Context,
  organizationId: string,
  field: (index: number) => string,
  values: readonly string[],
): Promise<string[]> {
  const emails = values.filter((v) => isEmail(v));
  const users = await findUsersByEmails(ctx.db, emails);
  const idByEmail = new Map(users.map((u) => [u.email, u.id]));
  const candidateIds = values.map((v) => (isEmail(v) ? idByEmail.get(v.toLowerCase()) : v));
  const members = await findMembersWithUsers(ctx.db, organizationId, candidateIds.filter((id): id is string => !!id));
  const memberIds = new Set(members.map((m) => m.user_id));
  return candidateIds.map((id, i) => {
    if (!id || !memberIds.has(id)) throw new InvalidArgument(`${field(i)}: "${values[i]}" is not a member of this organization`);
    return id;
  });
}

export async function listTeams(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  request: PageRequest & { owner?: string; title?: string },
): Promise<Page<TeamView>> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  requireOrgPermission(access, 'listTeams', 'list teams');
  const filter = { owner: request.owner, title: request.title };
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `teams:${organizationId}:${JSON.stringify(filter)}`,
    request,
    fetch: (after, n) => listTeamRows(ctx.db, organizationId, filter, after, n),
    positionOf: (row) => [row.created_at, row.id],
    present: (row) => row,
  });
  return { items: await teamViews(ctx, access, page.items), next: page.next };
}

/** Creates a team (admin); `members` are member ids added as plain members. */
export async function createTeam(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  input: { title: string; members?: string[] },
): Promise<TeamView> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  requireOrgPermission(access, 'admin', 'create teams');
  const memberIds = await resolveMembers(ctx, organizationId, (i) => `members[${i}]`, input.members ?? []);
  const now = nowIso();
  const team: TeamRow = { id: newId(), organization_id: organizationId, title: input.title, created_at: now };
  await ctx.db.transaction().execute(async (trx) => {
    await insertTeam(trx, team);
    for (const userId of new Set(memberIds)) {
      await addTeamMemberIfAbsent(trx, { team_id: team.id, user_id: userId, role: 'member', added_at: now });
    }
  });
  return viewOf(ctx, access, team);
}

export async function getTeam(ctx: Context, caller: Caller, organizationId: string, teamId: string): Promise<TeamView> {
  const { access, team } = await teamAccess(ctx, caller, organizationId, teamId);
  requireTeamPermission(access, teamId, 'view', 'view this team');
  return viewOf(ctx, access, team);
}

/** Deletes a team (admin). Answers the same whether or not the team existed. */
export async function deleteTeam(ctx: Context, caller: Caller, organizationId: string, teamId: string): Promise<void> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  requireOrgPermission(access, 'admin', 'delete teams');
  // Scoped to the organization of the path: an admin of one organization must not delete another's teams.
  await deleteTeamRow(ctx.db, organizationId, teamId);
}

export async function renameTeam(ctx: Context, caller: Caller, organizationId: string, teamId: string, title: string): Promise<TeamView> {
  const { access, team } = await teamAccess(ctx, caller, organizationId, teamId);
  requireTeamPermission(access, teamId, 'admin', 'rename this team');
  await updateTeamTitle(ctx.db, teamId, title);
  return viewOf(ctx, access, { ...team, title });
}

export interface TeamMemberView {
  member: MemberView;
  role: TeamRole;
  /** Whether the caller may read this member: anyone who lists members, and each member for themselves. */
  canView: boolean;
}

export async function listTeamMembers(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  teamId: string,
  request: PageRequest,
): Promise<Page<TeamMemberView>> {
  const { access } = await teamAccess(ctx, caller, organizationId, teamId);
  requireTeamPermission(access, teamId, 'view', 'list its members');
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `team-members:${teamId}`,
    request,
    fetch: (after, n) => listTeamMemberRows(ctx.db, teamId, after, n),
    positionOf: (row) => [row.added_at, row.user_id],
    present: (row) => row,
  });
  const members = await memberViewsOf(ctx, organizationId, page.items.map((r) => r.user_id));
  const listMembers = organizationPermissions(access).listMembers;
  const items = page.items
    .filter((row) => members.has(row.user_id))
    .map((row) => ({ member: members.get(row.user_id)!, role: row.role as TeamRole, canView: listMembers || row.user_id === caller.user.id }));
  return { items, next: page.next };
}

/**
 * Adds, updates and removes team members in one transaction. Entries of `add` and `remove` are user ids or e-mail
 * addresses; a user in both ends up removed; `memberships` sets roles (adding the user if needed).
 */
export async function updateTeamMembers(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  teamId: string,
  input: { add?: string[]; remove?: string[]; memberships?: Record<string, { role: TeamRole }> },
): Promise<void> {
  const { access } = await teamAccess(ctx, caller, organizationId, teamId);
  requireTeamPermission(access, teamId, 'admin', 'change its members');
  const add = await resolveMembers(ctx, organizationId, (i) => `add[${i}]`, input.add ?? []);
  const removeValues = input.remove ?? [];
  // Removing someone who is not (or no longer) a member is harmless; only resolve e-mails to ids.
  const removeUsers = await findUsersByEmails(ctx.db, removeValues.filter(isEmail));
  const idByEmail = new Map(removeUsers.map((u) => [u.email, u.id]));
  const remove = new Set(removeValues.map((v) => (isEmail(v) ? idByEmail.get(v.toLowerCase()) : v)).filter((v): v is string => !!v));
  const membershipEntries = Object.entries(input.memberships ?? {});
  const membershipIds = await resolveMembers(
    ctx,
    organizationId,
    (i) => `memberships.${membershipEntries[i][0]}`,
    membershipEntries.map(([key]) => key),
  );
  const now = nowIso();
  await ctx.db.transaction().execute(async (trx) => {
    for (const userId of add) {
      if (!remove.has(userId)) await addTeamMemberIfAbsent(trx, { team_id: teamId, user_id: userId, role: 'member', added_at: now });
    }
    for (let i = 0; i < membershipEntries.length; i++) {
      const userId = membershipIds[i];
      if (!remove.has(userId)) await upsertTeamMember(trx, { team_id: teamId, user_id: userId, role: membershipEntries[i][1].role, added_at: now });
    }
    for (const userId of remove) await deleteTeamMember(trx, teamId, userId);
  });
}

/** Adds a member to the team or changes their team role. */
export async function addTeamMember(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  teamId: string,
  userId: string,
  input: { role?: TeamRole },
): Promise<void> {
  const { access } = await teamAccess(ctx, caller, organizationId, teamId);
  requireTeamPermission(access, teamId, 'admin', 'add members');
  if (!(await findMember(ctx.db, organizationId, userId))) throw new NotFound(`userId: no member "${userId}" in this organization`);
  const existing = await findTeamMember(ctx.db, teamId, userId);
  const role = input.role ?? (existing?.role as TeamRole | undefined) ?? 'member';
  await upsertTeamMember(ctx.db, { team_id: teamId, user_id: userId, role, added_at: existing?.added_at ?? nowIso() });
}

/** Removes a member from the team (team admins, or the member themselves). Same answer if they were not in it. */
export async function removeTeamMember(ctx: Context, caller: Caller, organizationId: string, teamId: string, userId: string): Promise<void> {
  const { access } = await teamAccess(ctx, caller, organizationId, teamId);
  // Leaving needs only to see the team; checking it keeps a team the caller cannot see a 404, not a 204.
  if (userId === caller.user.id) requireTeamPermission(access, teamId, 'view', 'leave it');
  else requireTeamPermission(access, teamId, 'admin', 'remove members');
  await deleteTeamMember(ctx.db, teamId, userId);
}
