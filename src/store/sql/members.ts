import type { Kysely, Selectable } from 'kysely';
import type { Database, MembersTable } from './schema.js';
import type { UserRow } from './users.js';
import { keysetQuery, type KeysetKey, type SortDirection } from './keyset.js';
import { containsInsensitive } from './text.js';

export type MemberRow = Selectable<MembersTable>;
export type MemberWithUser = MemberRow & { user: UserRow };

export async function insertMember(db: Kysely<Database>, member: MemberRow): Promise<void> {
  await db.insertInto('members').values(member).execute();
}

export async function findMember(
  db: Kysely<Database>,
  organizationId: string,
  userId: string,
): Promise<MemberRow | undefined> {
  return db
    .selectFrom('members')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
}

export async function updateMemberRow(
  db: Kysely<Database>,
  organizationId: string,
  userId: string,
  changes: Partial<Pick<MemberRow, 'role' | 'sso' | 'disabled' | 'last_seen_at'>>,
): Promise<void> {
  await db
    .updateTable('members')
    .set(changes)
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .execute();
}

/** Removes the membership and everything it gave inside the organization (team seats, direct grants). */
export async function deleteMemberRow(db: Kysely<Database>, organizationId: string, userId: string): Promise<boolean> {
  await db
    .deleteFrom('team_members')
    .where('user_id', '=', userId)
    .where('team_id', 'in', db.selectFrom('teams').select('id').where('organization_id', '=', organizationId))
    .execute();
  await db
    .deleteFrom('content_grants')
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .execute();
  const result = await db
    .deleteFrom('members')
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/**
 * Serializes changes to an organization's admins inside a transaction: a no-op write to the organization's row
 * takes its row lock in PostgreSQL (held until commit) and the write lock in SQLite. Without it, two concurrent
 * demotions (or removals) of two different admins each count two admins and both commit, leaving none.
 */
export async function lockOrganizationMembers(db: Kysely<Database>, organizationId: string): Promise<void> {
  await db
    .updateTable('organizations')
    .set((eb) => ({ updated_at: eb.ref('updated_at') }))
    .where('id', '=', organizationId)
    .execute();
}

export async function countAdmins(db: Kysely<Database>, organizationId: string): Promise<number> {
  const row = await db
    .selectFrom('members')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('organization_id', '=', organizationId)
    .where('role', '=', 'admin')
    .where('disabled', '=', 0)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export interface MemberListFilter {
  /** A role, or `guest` for members without one. */
  role?: string;
  search?: string;
  sort: 'joinedAt' | 'lastSeenAt';
  order: SortDirection;
}

export function memberListKeys(filter: MemberListFilter): KeysetKey[] {
  const column = filter.sort === 'lastSeenAt' ? 'members.last_seen_at' : 'members.joined_at';
  return [
    { column, direction: filter.order },
    { column: 'members.user_id', direction: filter.order },
  ];
}

export function memberPosition(member: MemberRow, filter: MemberListFilter): unknown[] {
  return [filter.sort === 'lastSeenAt' ? member.last_seen_at : member.joined_at, member.user_id];
}

const USER_COLUMNS = ['users.id as u_id', 'users.email as u_email', 'users.display_name as u_display_name', 'users.photo_url as u_photo_url', 'users.created_at as u_created_at'] as const;

function withUser(row: MemberRow & { u_id: string; u_email: string; u_display_name: string; u_photo_url: string | null; u_created_at: string }): MemberWithUser {
  return {
    organization_id: row.organization_id,
    user_id: row.user_id,
    role: row.role,
    disabled: row.disabled,
    sso: row.sso,
    joined_at: row.joined_at,
    last_seen_at: row.last_seen_at,
    user: { id: row.u_id, email: row.u_email, display_name: row.u_display_name, photo_url: row.u_photo_url, created_at: row.u_created_at },
  };
}

/** Members of an organization with their users, in the filter's order. */
export async function listMembers(
  db: Kysely<Database>,
  organizationId: string,
  filter: MemberListFilter,
  after: unknown[] | undefined,
  limit: number,
): Promise<MemberWithUser[]> {
  let query = db
    .selectFrom('members')
    .innerJoin('users', 'users.id', 'members.user_id')
    .selectAll('members')
    .select(USER_COLUMNS)
    .where('members.organization_id', '=', organizationId);
  if (filter.role === 'guest') query = query.where('members.role', 'is', null);
  else if (filter.role) query = query.where('members.role', '=', filter.role);
  if (filter.sort === 'lastSeenAt') query = query.where('members.last_seen_at', 'is not', null);
  if (filter.search) {
    const search = filter.search;
    query = query.where((eb) => eb.or([containsInsensitive('users.display_name', search), containsInsensitive('users.email', search)]));
  }
  const rows = await keysetQuery(query, memberListKeys(filter), after, limit).execute();
  return rows.map(withUser);
}

export async function findMembersWithUsers(
  db: Kysely<Database>,
  organizationId: string,
  userIds: readonly string[],
): Promise<MemberWithUser[]> {
  if (userIds.length === 0) return [];
  const rows = await db
    .selectFrom('members')
    .innerJoin('users', 'users.id', 'members.user_id')
    .selectAll('members')
    .select(USER_COLUMNS)
    .where('members.organization_id', '=', organizationId)
    .where('members.user_id', 'in', [...userIds])
    .execute();
  return rows.map(withUser);
}

/** Per user: teams joined in this organization and spaces granted to them directly. */
export async function memberCounts(
  db: Kysely<Database>,
  organizationId: string,
  userIds: readonly string[],
): Promise<Map<string, { teams: number; spaces: number }>> {
  const counts = new Map(userIds.map((id) => [id, { teams: 0, spaces: 0 }]));
  if (userIds.length === 0) return counts;
  const teams = await db
    .selectFrom('team_members')
    .innerJoin('teams', 'teams.id', 'team_members.team_id')
    .select(['team_members.user_id as user_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('teams.organization_id', '=', organizationId)
    .where('team_members.user_id', 'in', [...userIds])
    .groupBy('team_members.user_id')
    .execute();
  for (const row of teams) counts.get(row.user_id)!.teams = Number(row.n);
  const spaces = await db
    .selectFrom('content_grants')
    .innerJoin('spaces', 'spaces.id', 'content_grants.space_id')
    // Distinct: several grants on one space (say read, then edit) still make one space.
    .select(['content_grants.user_id as user_id', (eb) => eb.fn.count<number>('content_grants.space_id').distinct().as('n')])
    .where('content_grants.organization_id', '=', organizationId)
    .where('spaces.deleted_at', 'is', null)
    .where('content_grants.user_id', 'in', [...userIds])
    .groupBy('content_grants.user_id')
    .execute();
  for (const row of spaces) if (row.user_id) counts.get(row.user_id)!.spaces = Number(row.n);
  return counts;
}

/** Whether two users are members of one organization (whatever their roles). */
export async function sharesOrganization(db: Kysely<Database>, userA: string, userB: string): Promise<boolean> {
  const row = await db
    .selectFrom('members as a')
    .innerJoin('members as b', 'b.organization_id', 'a.organization_id')
    .select('a.organization_id')
    .where('a.user_id', '=', userA)
    .where('b.user_id', '=', userB)
    .executeTakeFirst();
  return row !== undefined;
}
