import type { Kysely, Selectable } from 'kysely';
import type { Database, TeamMembersTable, TeamsTable } from './schema.js';
import { keysetQuery } from './keyset.js';
import { containsInsensitive } from './text.js';

export type TeamRow = Selectable<TeamsTable>;
export type TeamMemberRow = Selectable<TeamMembersTable>;

export const TEAM_LIST_KEYS = [
  { column: 'teams.created_at', direction: 'asc' as const },
  { column: 'teams.id', direction: 'asc' as const },
];

export async function insertTeam(db: Kysely<Database>, team: TeamRow): Promise<void> {
  await db.insertInto('teams').values(team).execute();
}

export async function findTeam(db: Kysely<Database>, organizationId: string, teamId: string): Promise<TeamRow | undefined> {
  return db
    .selectFrom('teams')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', teamId)
    .executeTakeFirst();
}

export async function updateTeamTitle(db: Kysely<Database>, teamId: string, title: string): Promise<void> {
  await db.updateTable('teams').set({ title }).where('id', '=', teamId).execute();
}

/** Deletes a team of this organization (its seats and grants go with it, by foreign key). */
export async function deleteTeamRow(db: Kysely<Database>, organizationId: string, teamId: string): Promise<boolean> {
  const result = await db.deleteFrom('teams').where('organization_id', '=', organizationId).where('id', '=', teamId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export interface TeamListFilter {
  /** Only teams this user owns. */
  owner?: string;
  title?: string;
  /** Only teams this user belongs to (any role). */
  member?: string;
}

export async function listTeams(
  db: Kysely<Database>,
  organizationId: string,
  filter: TeamListFilter,
  after: unknown[] | undefined,
  limit: number,
): Promise<TeamRow[]> {
  let query = db.selectFrom('teams').selectAll('teams').where('teams.organization_id', '=', organizationId);
  if (filter.title) query = query.where(containsInsensitive('teams.title', filter.title));
  if (filter.owner) {
    const owner = filter.owner;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('team_members')
          .select('team_members.team_id')
          .whereRef('team_members.team_id', '=', 'teams.id')
          .where('team_members.user_id', '=', owner)
          .where('team_members.role', '=', 'owner'),
      ),
    );
  }
  if (filter.member) {
    const member = filter.member;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('team_members')
          .select('team_members.team_id')
          .whereRef('team_members.team_id', '=', 'teams.id')
          .where('team_members.user_id', '=', member),
      ),
    );
  }
  return keysetQuery(query, TEAM_LIST_KEYS, after, limit).execute();
}

/** Per team: member count and number of spaces granted to the team. */
export async function teamCounts(db: Kysely<Database>, teamIds: readonly string[]): Promise<Map<string, { members: number; spaces: number }>> {
  const counts = new Map(teamIds.map((id) => [id, { members: 0, spaces: 0 }]));
  if (teamIds.length === 0) return counts;
  const members = await db
    .selectFrom('team_members')
    .select(['team_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('team_id', 'in', [...teamIds])
    .groupBy('team_id')
    .execute();
  for (const row of members) counts.get(row.team_id)!.members = Number(row.n);
  const spaces = await db
    .selectFrom('content_grants')
    .innerJoin('spaces', 'spaces.id', 'content_grants.space_id')
    // Distinct: several grants on one space (say read, then edit) still make one space.
    .select(['content_grants.team_id as team_id', (eb) => eb.fn.count<number>('content_grants.space_id').distinct().as('n')])
    .where('content_grants.team_id', 'in', [...teamIds])
    .where('spaces.deleted_at', 'is', null)
    .groupBy('content_grants.team_id')
    .execute();
  for (const row of spaces) if (row.team_id) counts.get(row.team_id)!.spaces = Number(row.n);
  return counts;
}

export async function findTeamMember(db: Kysely<Database>, teamId: string, userId: string): Promise<TeamMemberRow | undefined> {
  return db
    .selectFrom('team_members')
    .selectAll()
    .where('team_id', '=', teamId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

/** Adds the user to the team, or changes their role when already there. */
export async function upsertTeamMember(db: Kysely<Database>, member: TeamMemberRow): Promise<void> {
  await db
    .insertInto('team_members')
    .values(member)
    .onConflict((oc) => oc.columns(['team_id', 'user_id']).doUpdateSet({ role: member.role }))
    .execute();
}

/** Adds the user as a plain member unless already in the team (their role is kept). */
export async function addTeamMemberIfAbsent(db: Kysely<Database>, member: TeamMemberRow): Promise<void> {
  await db
    .insertInto('team_members')
    .values(member)
    .onConflict((oc) => oc.columns(['team_id', 'user_id']).doNothing())
    .execute();
}

export async function deleteTeamMember(db: Kysely<Database>, teamId: string, userId: string): Promise<boolean> {
  const result = await db.deleteFrom('team_members').where('team_id', '=', teamId).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

export const TEAM_MEMBER_LIST_KEYS = [
  { column: 'team_members.added_at', direction: 'asc' as const },
  { column: 'team_members.user_id', direction: 'asc' as const },
];

export async function listTeamMembers(
  db: Kysely<Database>,
  teamId: string,
  after: unknown[] | undefined,
  limit: number,
): Promise<TeamMemberRow[]> {
  const query = db.selectFrom('team_members').selectAll('team_members').where('team_members.team_id', '=', teamId);
  return keysetQuery(query, TEAM_MEMBER_LIST_KEYS, after, limit).execute();
}

/** The user's seats in teams of an organization: team id -> team role. */
export async function teamRolesOfUser(db: Kysely<Database>, organizationId: string, userId: string): Promise<Map<string, string>> {
  const rows = await db
    .selectFrom('team_members')
    .innerJoin('teams', 'teams.id', 'team_members.team_id')
    .select(['team_members.team_id as team_id', 'team_members.role as role'])
    .where('teams.organization_id', '=', organizationId)
    .where('team_members.user_id', '=', userId)
    .execute();
  return new Map(rows.map((r) => [r.team_id, r.role]));
}
