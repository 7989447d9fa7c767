import { Type } from 'typebox';
import { ListQuery, Nullable, StringEnum, Timestamp } from '../../schemas.js';
import { FilterText, MemberSchema } from '../members/schema.js';

export const TeamsParams = Type.Object({ organizationId: Type.String() });
export const TeamParams = Type.Object({ organizationId: Type.String(), teamId: Type.String() });
export const TeamMemberParams = Type.Object({ organizationId: Type.String(), teamId: Type.String(), userId: Type.String() });

export const TeamRole = StringEnum(['owner', 'member'] as const, { description: '`owner` can manage the team and its members' });
export const TeamTitle = Type.String({ minLength: 1, maxLength: 64 });

/** OrganizationTeam of the reference: `members` is an integer there. */
export const TeamSchema = Type.Object({
  object: Type.Literal('team'),
  id: Type.String(),
  title: Type.String(),
  members: Type.Integer({ description: 'Members of the team' }),
  spaces: Type.Number({ description: 'Spaces granted to the team' }),
  createdAt: Timestamp,
  permissions: Type.Object({ admin: Type.Boolean(), view: Type.Boolean() }),
});

/** TeamMember of the reference: a user's seat in a team. */
export const TeamMemberSchema = Type.Object({ role: TeamRole });

/** An item of a member's teams (listTeamsForOrganizationMember). */
export const MemberTeamSchema = Type.Object({ team: TeamSchema, member: TeamMemberSchema });

/** OrganizationTeamMember of the reference: an item of a team's members (listTeamMembersInOrganizationById). */
export const TeamMemberItemSchema = Type.Object({
  organization: MemberSchema,
  team: TeamMemberSchema,
  permissions: Type.Object({ view: Type.Boolean({ description: 'Whether the caller may read this member' }) }),
});

export const ListTeamsQuery = Type.Object({
  ...ListQuery,
  owner: Type.Optional(Type.String({ minLength: 1, description: 'A user id: only teams this member owns' })),
  title: Type.Optional(FilterText('Case-insensitive "contains" filter on the title')),
});

/** Entries are user ids or e-mail addresses. */
const UserRefs = (description: string) => Type.Array(Type.String({ minLength: 1, maxLength: 320 }), { maxItems: 1000, description });

export const CreateTeamBody = Type.Object({
  title: TeamTitle,
  members: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 320 }), { maxItems: 1000, description: 'Member ids, added as `member`' })),
});

export const UpdateTeamBody = Type.Object({ title: TeamTitle });

export const TeamMembersQuery = Type.Object({ ...ListQuery });

export const UpdateTeamMembersBody = Type.Object({
  add: Type.Optional(UserRefs('Users to add as `member` (user ids or e-mail addresses)')),
  remove: Type.Optional(UserRefs('Users to remove (user ids or e-mail addresses); removal wins over `add`')),
  memberships: Type.Optional(
    Type.Record(Type.String(), TeamMemberSchema, { maxProperties: 1000, description: 'User id or e-mail address -> team role (adds the user if needed)' }),
  ),
});

/** The body of addMemberToOrganizationTeamById is optional: no body (or `{}`) adds the user as `member`, or keeps their current role. */
export const AddTeamMemberBody = Nullable(Type.Object({ role: Type.Optional(TeamRole) }));
