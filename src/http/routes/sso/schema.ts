import { Type } from 'typebox';
import { ListQuery, Nullable, RoleOrNull, StringEnum, Timestamp, Url } from '../../schemas.js';
import { TeamSchema } from '../teams/schema.js';

export const OrganizationParams = Type.Object({ organizationId: Type.String() });
export const SamlProviderParams = Type.Object({ organizationId: Type.String(), samlProviderId: Type.String() });

const Label = Type.String({ minLength: 1, maxLength: 30, description: 'Shown on the sign-in choices' });

/** Members of both bodies besides `label`. An empty string clears a value (the provider goes back to `pending`). */
const ProviderFields = {
  entityID: Type.Optional(Type.String({ maxLength: 1024, description: "The identity provider's entity id; \"\" clears it" })),
  certificate: Type.Optional(
    Type.String({
      maxLength: 10000,
      description: "The identity provider's X.509 signing certificate: a PEM CERTIFICATE block or its bare base64 body; stored as PEM; \"\" clears it",
    }),
  ),
  ssoURL: Type.Optional(Type.String({ maxLength: 2048, description: "The identity provider's single sign-on URL (http or https); \"\" clears it" })),
  defaultTeam: Type.Optional(Nullable(Type.String({ maxLength: 100, description: 'A team of the organization new members join; null or "" clears it' }))),
  defaultRole: Type.Optional(RoleOrNull),
};

export const CreateSamlProviderBody = Type.Object({ label: Label, ...ProviderFields });
export const UpdateSamlProviderBody = Type.Object({ label: Type.Optional(Label), ...ProviderFields }, { minProperties: 1 });

export const SamlProviderSchema = Type.Object({
  object: Type.Literal('saml-provider'),
  id: Type.String(),
  label: Type.String(),
  ssoURL: Type.String({ format: 'uri', description: '`about:blank` until it is set (the reference requires a URI here)' }),
  entityID: Type.String({ description: '"" until it is set' }),
  certificate: Type.String({ description: 'PEM; "" until it is set' }),
  defaultTeam: Type.Optional(TeamSchema),
  defaultRole: RoleOrNull,
  createdAt: Timestamp,
  status: StringEnum(['active', 'pending'] as const, { description: '`pending` until entity id, SSO URL and certificate are all set' }),
  service: Type.Object(
    {
      acsURL: Url,
      startURL: Url,
      entityID: Type.String(),
    },
    { description: "This server's side of the SAML exchange, to enter in the identity provider" },
  ),
  urls: Type.Object({ location: Url }),
});

export const SamlProvidersQuery = Type.Object({ ...ListQuery });

export const SsoLoginsSchema = Type.Object({
  items: Type.Array(Type.Object({ id: Type.String(), label: Type.String(), startURL: Url })),
});
