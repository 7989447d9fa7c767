/**
 * Where content may go: the checks that creating, moving or transferring a space or a collection under a parent, or
 * into another organization, is allowed. Apart from collections.ts and spaces.ts, which both use them.
 */
import type { Kysely } from 'kysely';
import type { Context, Caller } from '../context.js';
import { InvalidArgument, NotFound } from '../errors.js';
import { collectionRole, requireCollectionPermission, requireOrgPermission, type OrgAccess } from '../permissions.js';
import { organizationAccess } from '../organizations/organizations.js';
import { deleteGrantsOn, findCollection } from '../../store/sql/spaces.js';
import { deleteSiteSpacesOfSpaces } from '../../store/sql/sites.js';
import type { Database } from '../../store/sql/schema.js';

/**
 * Checks that the caller may create content under `parentId` (a collection: its "create" permission;
 * the organization's root: "createContent"). Throws 404/403.
 */
export async function requireCreateUnder(ctx: Context, access: OrgAccess, parentId: string | null, field: string): Promise<void> {
  if (parentId === null) {
    requireOrgPermission(access, 'createContent', 'create content at the top level of the organization');
    return;
  }
  const parent = await findCollection(ctx.db, parentId);
  if (!parent || parent.organization_id !== access.organizationId || !collectionRole(access, parentId)) {
    throw new InvalidArgument(`${field}: no collection "${parentId}" in this organization is visible to you`);
  }
  requireCollectionPermission(collectionRole(access, parentId), parentId, 'create', 'create content in it');
}

/**
 * Checks that the caller administers the organization content is transferred to: 404 naming `organization` when it
 * is unknown or the caller is not a member there, 403 when they are a member but not an admin.
 */
export async function requireTransferTarget(ctx: Context, caller: Caller, organizationId: string): Promise<void> {
  let access: OrgAccess;
  try {
    ({ access } = await organizationAccess(ctx, caller, organizationId));
  } catch (error) {
    // Only "not visible" becomes a 404 about the body's field; a failing database stays a 500.
    if (error instanceof NotFound) throw new NotFound(`organization: no organization "${organizationId}" is visible to you`);
    throw error;
  }
  requireOrgPermission(access, 'admin', 'transfer content into it');
}

/**
 * What content transferred to another organization leaves behind, in the transaction that moves it (a space, or a
 * collection with every space and collection inside it): grants, which name the old organization's teams and
 * members, and its places on the old organization's sites, which would otherwise go on publishing what the new
 * organization writes.
 */
export async function leaveOrganization(db: Kysely<Database>, moved: { spaceIds: readonly string[]; collectionIds: readonly string[] }): Promise<void> {
  await deleteGrantsOn(db, moved);
  await deleteSiteSpacesOfSpaces(db, moved.spaceIds);
}
