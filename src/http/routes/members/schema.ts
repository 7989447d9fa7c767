import { Type } from 'typebox';
import { ListOf, ListQuery, OrderQuery, Role, RoleOrNull, StringEnum, Timestamp, UserSchema } from '../../schemas.js';
import { ROLES } from '../../../domain/permissions.js';
import { SpaceSchema } from '../spaces/schema.js';

export const OrganizationParams = Type.Object({ organizationId: Type.String() });
export const MemberParams = Type.Object({ organizationId: Type.String(), userId: Type.String() });

/** OrganizationMember of the reference. `lastSeenAt` is omitted until the member has been seen. */
export const MemberSchema = Type.Object({
  object: Type.Literal('member'),
  id: Type.String({ description: 'The user id' }),
  role: RoleOrNull,
  user: UserSchema,
  disabled: Type.Boolean(),
  joinedAt: Timestamp,
  lastSeenAt: Type.Optional(Timestamp),
  sso: Type.Boolean(),
  spaces: Type.Number({ description: 'Spaces granted to the member directly' }),
  teams: Type.Number({ description: 'Teams of the organization the member belongs to' }),
});

/** Free-text filters (shared with teams): long enough for any real query, bounded so a request cannot ask for unbounded work. */
export const FilterText = (description: string) => Type.String({ maxLength: 512, description });

export const ListMembersQuery = Type.Object({
  ...ListQuery,
  order: OrderQuery,
  role: Type.Optional(StringEnum([...ROLES, 'guest'] as const, { description: 'A role, or `guest` for members without one' })),
  search: Type.Optional(FilterText('Case-insensitive match on displayName and email')),
  sort: Type.Optional(
    StringEnum(['joinedAt', 'lastSeenAt'] as const, { default: 'joinedAt', description: '`lastSeenAt` lists only members seen at least once' }),
  ),
});

export const UpdateMemberBody = Type.Object({ role: Type.Optional(RoleOrNull) }, { minProperties: 1 });

/**
 * The spec's member name (the reference calls it `gitbookVisitorClaims`, optional; ours is
 * always present and still validates there).
 */
export const PingReply = Type.Object({
  serviceVisitorClaims: Type.String({
    description:
      'A JWT (ES256) of the member\'s claims: iss (this server), sub (user id), email, name, organization, role (null for guests), iat, exp (one hour). ' +
      'Verify it with the public key the server keeps in its data dir (keys/visitor-claims.pub.pem).',
  }),
});

export const MemberSpacesQuery = Type.Object({ ...ListQuery, order: OrderQuery });

/** MemberContentPermission: the member's role on a space, and the space as the caller sees it. */
export const MemberSpaceSchema = Type.Object({ permission: Role, space: SpaceSchema });

export const MemberTeamsQuery = Type.Object({
  ...ListQuery,
  title: Type.Optional(FilterText('Case-insensitive "contains" filter on the team title')),
});

export const MemberList = ListOf(MemberSchema);
