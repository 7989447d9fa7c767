import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Database, LinkInvitesTable, OrganizationsTable } from './schema.js';
import { keysetQuery } from './keyset.js';

export type OrganizationRow = Selectable<OrganizationsTable>;
export type LinkInviteRow = Selectable<LinkInvitesTable>;

export async function insertOrganization(db: Kysely<Database>, org: OrganizationRow): Promise<void> {
  await db.insertInto('organizations').values(org).execute();
}

export async function findOrganizationById(db: Kysely<Database>, id: string): Promise<OrganizationRow | undefined> {
  return db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function updateOrganizationRow(
  db: Kysely<Database>,
  id: string,
  changes: Updateable<OrganizationsTable>,
): Promise<void> {
  await db.updateTable('organizations').set(changes).where('id', '=', id).execute();
}

export const ORGANIZATION_LIST_KEYS = [
  { column: 'organizations.created_at', direction: 'asc' as const },
  { column: 'organizations.id', direction: 'asc' as const },
];

/** Organizations the user is a member of (guests included), oldest first. */
export async function listOrganizationsOfUser(
  db: Kysely<Database>,
  userId: string,
  after: unknown[] | undefined,
  limit: number,
): Promise<OrganizationRow[]> {
  const query = db
    .selectFrom('organizations')
    .innerJoin('members', 'members.organization_id', 'organizations.id')
    .selectAll('organizations')
    .where('members.user_id', '=', userId);
  return keysetQuery(query, ORGANIZATION_LIST_KEYS, after, limit).execute();
}

/** Email domains of each organization, lower case, sorted. */
export async function emailDomainsOf(db: Kysely<Database>, organizationIds: readonly string[]): Promise<Map<string, string[]>> {
  const result = new Map<string, string[]>(organizationIds.map((id) => [id, []]));
  if (organizationIds.length === 0) return result;
  const rows = await db
    .selectFrom('organization_email_domains')
    .selectAll()
    .where('organization_id', 'in', [...organizationIds])
    .orderBy('domain')
    .execute();
  for (const row of rows) result.get(row.organization_id)?.push(row.domain);
  return result;
}

export async function replaceEmailDomains(db: Kysely<Database>, organizationId: string, domains: readonly string[]): Promise<void> {
  await db.deleteFrom('organization_email_domains').where('organization_id', '=', organizationId).execute();
  const unique = [...new Set(domains.map((d) => d.toLowerCase()))];
  if (unique.length > 0) {
    await db
      .insertInto('organization_email_domains')
      .values(unique.map((domain) => ({ organization_id: organizationId, domain })))
      .execute();
  }
}

/** Organizations that list this email domain, oldest first. */
export async function listOrganizationsWithEmailDomain(db: Kysely<Database>, domain: string): Promise<OrganizationRow[]> {
  return db
    .selectFrom('organizations')
    .innerJoin('organization_email_domains as d', 'd.organization_id', 'organizations.id')
    .selectAll('organizations')
    .where('d.domain', '=', domain.toLowerCase())
    .orderBy('organizations.created_at')
    .orderBy('organizations.id')
    .execute();
}

export async function findLinkInvite(
  db: Kysely<Database>,
  organizationId: string,
  inviteId: string,
): Promise<LinkInviteRow | undefined> {
  return db
    .selectFrom('link_invites')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', inviteId)
    .executeTakeFirst();
}

const LINK_INVITE_LIST_KEYS = [
  { column: 'link_invites.created_at', direction: 'asc' as const },
  { column: 'link_invites.id', direction: 'asc' as const },
];

/** The organization's invite links, oldest first. */
export async function listLinkInvites(
  db: Kysely<Database>,
  organizationId: string,
  after: unknown[] | undefined,
  limit: number,
): Promise<LinkInviteRow[]> {
  const query = db.selectFrom('link_invites').selectAll().where('organization_id', '=', organizationId);
  return keysetQuery(query, LINK_INVITE_LIST_KEYS, after, limit).execute();
}

export async function updateLinkInviteRole(db: Kysely<Database>, organizationId: string, inviteId: string, role: string | null): Promise<void> {
  await db.updateTable('link_invites').set({ role }).where('organization_id', '=', organizationId).where('id', '=', inviteId).execute();
}

export async function insertLinkInvite(db: Kysely<Database>, invite: LinkInviteRow): Promise<void> {
  await db.insertInto('link_invites').values(invite).execute();
}

export async function deleteLinkInviteRow(db: Kysely<Database>, organizationId: string, inviteId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('link_invites')
    .where('organization_id', '=', organizationId)
    .where('id', '=', inviteId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
