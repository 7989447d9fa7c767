import type { Context, Caller } from '../context.js';
import { Conflict, InvalidArgument, NotFound } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { collectPage, type Page, type PageRequest } from '../lists.js';
import { loadOrgAccess, requireOrgMember, requireOrgPermission, type OrgAccess, type Role } from '../permissions.js';
import {
  emailDomainsOf,
  findOrganizationById,
  insertOrganization,
  listOrganizationsOfUser,
  listOrganizationsWithEmailDomain,
  replaceEmailDomains,
  updateOrganizationRow,
  type OrganizationRow,
} from '../../store/sql/organizations.js';
import { insertMember } from '../../store/sql/members.js';
import { isUniqueViolation } from '../../store/sql/errors.js';
import { findSite } from '../../store/sql/sites.js';

export interface OrganizationView {
  organization: OrganizationRow;
  emailDomains: string[];
  access: OrgAccess;
}

/** Loads the organization and the caller's access to it; 404 when it does not exist or the caller is not a member. */
export async function organizationAccess(ctx: Context, caller: Caller, organizationId: string): Promise<{ organization: OrganizationRow; access: OrgAccess }> {
  const organization = await findOrganizationById(ctx.db, organizationId);
  const access = await loadOrgAccess(ctx, organizationId, caller.user.id);
  if (!organization) throw new NotFound(`organizationId: no organization "${organizationId}" is visible to you`);
  requireOrgMember(access);
  return { organization, access };
}

async function view(ctx: Context, organization: OrganizationRow, access: OrgAccess): Promise<OrganizationView> {
  const domains = await emailDomainsOf(ctx.db, [organization.id]);
  return { organization, emailDomains: domains.get(organization.id) ?? [], access };
}

/**
 * The organization of content the caller can see, as other resources embed it (a link's target, a file's location):
 * also for callers who are not members (a public space), who are not shown its e-mail domains.
 */
export async function embeddedOrganizationView(ctx: Context, access: OrgAccess): Promise<OrganizationView> {
  const organization = await ctx.cache.get(`organization:${access.organizationId}`, () => findOrganizationById(ctx.db, access.organizationId));
  if (!organization) throw new NotFound(`organizationId: no organization "${access.organizationId}" is visible to you`);
  if (!access.membership) return { organization, emailDomains: [], access };
  return view(ctx, organization, access);
}

/** Creates an organization with `ownerId` as its first admin (used by `quire admin bootstrap`). */
export async function createOrganization(ctx: Context, ownerId: string, input: { title: string }): Promise<OrganizationRow> {
  const title = input.title.trim();
  if (title.length < 2 || title.length > 255) throw new InvalidArgument('title: must be 2 to 255 characters');
  const now = nowIso();
  const organization: OrganizationRow = {
    id: newId(),
    title,
    type: 'business',
    use_case: null,
    community_type: null,
    hostname: null,
    default_role: 'read',
    default_content: null,
    logo_url: null,
    sso: 0,
    ai: 0,
    invite_links: 1,
    plan: 'free',
    created_at: now,
    updated_at: now,
  };
  await ctx.db.transaction().execute(async (trx) => {
    await insertOrganization(trx, organization);
    await insertMember(trx, {
      organization_id: organization.id,
      user_id: ownerId,
      role: 'admin',
      disabled: 0,
      sso: 0,
      joined_at: now,
      last_seen_at: null,
    });
  });
  return organization;
}

export async function getOrganization(ctx: Context, caller: Caller, organizationId: string): Promise<OrganizationView> {
  const { organization, access } = await organizationAccess(ctx, caller, organizationId);
  return view(ctx, organization, access);
}

/** Organizations the caller belongs to, oldest first. */
export async function listOrganizations(ctx: Context, caller: Caller, request: PageRequest): Promise<Page<OrganizationView>> {
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `orgs:${caller.user.id}`,
    request,
    fetch: (after, n) => listOrganizationsOfUser(ctx.db, caller.user.id, after, n),
    positionOf: (row) => [row.created_at, row.id],
    present: (row) => row,
  });
  const domains = await emailDomainsOf(ctx.db, page.items.map((o) => o.id));
  const items: OrganizationView[] = [];
  for (const organization of page.items) {
    const access = await loadOrgAccess(ctx, organization.id, caller.user.id);
    items.push({ organization, emailDomains: domains.get(organization.id) ?? [], access });
  }
  return { items, next: page.next };
}

export interface OrganizationPatch {
  title?: string;
  emailDomains?: string[];
  hostname?: string;
  defaultRole?: Role | null;
  defaultContent?: { type: 'site'; site: string } | null;
  logo?: string | null;
  sso?: boolean;
  ai?: boolean;
  inviteLinks?: boolean;
}

/** A domain name, lower case (e-mail domains). */
export const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** Updates an organization (admin). */
export async function updateOrganization(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  patch: OrganizationPatch,
): Promise<OrganizationView> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  requireOrgPermission(access, 'admin', 'update the organization');
  patch.emailDomains?.forEach((domain, i) => {
    if (!DOMAIN.test(domain.toLowerCase())) throw new InvalidArgument(`emailDomains[${i}]: "${domain}" is not a domain name`);
  });
  if (patch.defaultContent && !(await findSite(ctx.db, organizationId, patch.defaultContent.site))) {
    throw new InvalidArgument(`defaultContent.site: no site "${patch.defaultContent.site}" in this organization`);
  }
  const changes: Partial<OrganizationRow> = { updated_at: nowIso() };
  if (patch.title !== undefined) changes.title = patch.title;
  if (patch.hostname !== undefined) changes.hostname = patch.hostname;
  if (patch.defaultRole !== undefined) changes.default_role = patch.defaultRole;
  if (patch.defaultContent !== undefined) {
    changes.default_content = patch.defaultContent && JSON.stringify({ type: 'site', site: patch.defaultContent.site });
  }
  if (patch.logo !== undefined) changes.logo_url = patch.logo;
  if (patch.sso !== undefined) changes.sso = patch.sso ? 1 : 0;
  if (patch.ai !== undefined) changes.ai = patch.ai ? 1 : 0;
  if (patch.inviteLinks !== undefined) changes.invite_links = patch.inviteLinks ? 1 : 0;
  try {
    await ctx.db.transaction().execute(async (trx) => {
      await updateOrganizationRow(trx, organizationId, changes);
      if (patch.emailDomains) await replaceEmailDomains(trx, organizationId, patch.emailDomains);
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw new Conflict(`hostname: "${patch.hostname}" is already used by another organization`);
    throw error;
  }
  return getOrganization(ctx, caller, organizationId);
}

/**
 * Organizations that list an e-mail domain (getOrganizationsForEmailDomain), oldest first. Each is listed for its
 * members (guests included) and for any user whose own e-mail address is at that domain, so people can find the
 * organization of their company before they join it (their `permissions` are then all false); other callers get an
 * empty list, so the answer never tells a stranger which organizations exist. 400 when the value is not a domain name.
 */
export async function listOrganizationsForEmailDomain(ctx: Context, caller: Caller, domain: string): Promise<OrganizationView[]> {
  const normalized = domain.trim().toLowerCase();
  if (!DOMAIN.test(normalized)) throw new InvalidArgument(`emailDomain: "${domain}" is not a domain name`);
  const sameDomain = caller.user.email.slice(caller.user.email.lastIndexOf('@') + 1).toLowerCase() === normalized;
  const views: OrganizationView[] = [];
  for (const organization of await listOrganizationsWithEmailDomain(ctx.db, normalized)) {
    const access = await loadOrgAccess(ctx, organization.id, caller.user.id);
    if (!sameDomain && !access.membership) continue;
    views.push(await view(ctx, organization, access));
  }
  return views;
}
