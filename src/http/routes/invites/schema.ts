import { Type } from 'typebox';
import { ListQuery, RoleOrNull, Timestamp, Url } from '../../schemas.js';

export const OrganizationParams = Type.Object({ organizationId: Type.String() });
export const InviteParams = Type.Object({ organizationId: Type.String(), inviteId: Type.String() });

/** CreateInviteToOrganization of the reference (invites to a space or a collection are not offered). */
export const InviteBody = Type.Object({ role: RoleOrNull });

/** InviteLinkToOrganization of the reference, plus `createdAt` and `urls` (extra members). */
export const InviteSchema = Type.Object({
  object: Type.Literal('invite'),
  id: Type.String({ description: 'The secret the link carries: whoever holds it may join' }),
  role: RoleOrNull,
  redundant: Type.Boolean({ description: 'The caller already has everything this invite gives' }),
  createdAt: Timestamp,
  urls: Type.Object({
    location: Url,
    app: Type.String({ format: 'uri', description: 'The link to share' }),
    join: Type.String({ format: 'uri', description: 'POST here (joinOrganizationWithInvite) to join' }),
  }),
});

export const InvitesQuery = Type.Object({ ...ListQuery });

export const JoinReply = Type.Object({});
