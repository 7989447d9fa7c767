import { Type } from 'typebox';
import { ListQuery, Nullable, Role, RoleOrNull, StringEnum, Timestamp, Url } from '../../schemas.js';

export const OrganizationParams = Type.Object({ organizationId: Type.String() });

export const OrganizationSchema = Type.Object({
  object: Type.Literal('organization'),
  id: Type.String(),
  title: Type.String(),
  createdAt: Timestamp,
  emailDomains: Type.Array(Type.String()),
  hostname: Type.Optional(Type.String()),
  type: StringEnum(['business', 'community'] as const),
  useCase: Type.Optional(Type.String()),
  communityType: Type.Optional(Type.String()),
  defaultRole: Type.Optional(RoleOrNull),
  defaultContent: Type.Optional(Type.Object({ type: Type.Literal('site'), site: Type.String() })),
  sso: Type.Boolean(),
  ai: Type.Boolean(),
  inviteLinks: Type.Boolean(),
  plan: Type.String(),
  urls: Type.Object({ location: Url, app: Url, logo: Type.Optional(Url) }),
  trial: Type.Object({ status: Type.String() }),
  internal_isOnNewTrial: Type.Boolean({ deprecated: true }),
  permissions: Type.Object({
    view: Type.Boolean(),
    admin: Type.Boolean(),
    ownTeam: Type.Boolean(),
    createContent: Type.Boolean(),
    createOpenAPISpec: Type.Boolean(),
    ingestConversations: Type.Boolean(),
    viewBilling: Type.Boolean(),
    listMembers: Type.Boolean(),
    listTeams: Type.Boolean(),
    listIntegrations: Type.Boolean(),
  }),
});

export const ListOrganizationsQuery = Type.Object({ ...ListQuery });

export const UpdateOrganizationBody = Type.Object(
  {
    title: Type.Optional(Type.String({ minLength: 2, maxLength: 255 })),
    emailDomains: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 253 }), { maxItems: 100 })),
    hostname: Type.Optional(Type.String({ minLength: 3, maxLength: 32, pattern: '^[a-z0-9][a-z0-9-]{1,30}[a-z0-9]$' })),
    defaultRole: Type.Optional(RoleOrNull),
    defaultContent: Type.Optional(Nullable(Type.Object({ type: StringEnum(['site'] as const), site: Type.String({ minLength: 1 }) }))),
    logo: Type.Optional(Nullable(Type.String({ format: 'uri', maxLength: 2048 }))),
    sso: Type.Optional(Type.Boolean()),
    ai: Type.Optional(Type.Boolean()),
    inviteLinks: Type.Optional(Type.Boolean()),
  },
  { minProperties: 1 },
);

export const EmailDomainParams = Type.Object({ emailDomain: Type.String({ minLength: 1, maxLength: 253 }) });

export { Role };
