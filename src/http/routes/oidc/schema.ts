import { Type } from 'typebox';
import { RoleOrNull } from '../../schemas.js';

export const SignInProvidersSchema = Type.Object(
  {
    items: Type.Array(
      Type.Object({
        id: Type.String({ description: '"instance" for the instance\'s provider (QUIRE_OIDC_*); an organization id (OpenID Connect) or a SAML provider id' }),
        kind: Type.Union([Type.Literal('oidc'), Type.Literal('saml')]),
        label: Type.String({ description: 'The sign-in button\'s text (public)' }),
        startUrl: Type.String({ description: 'Where the browser goes to sign in with this provider (add next=/app/... to come back there)' }),
      }),
    ),
    passwordResetByEmail: Type.Boolean({ description: 'Whether the server mails password links (requestPasswordReset): it has QUIRE_SMTP_URL' }),
  },
);

export const StartQuery = Type.Object({
  provider: Type.Optional(Type.String({ maxLength: 200 })),
  next: Type.Optional(Type.String({ maxLength: 2000 })),
});

export const OrganizationParams = Type.Object({ organizationId: Type.String() });

export const SetOidcProviderBody = Type.Object(
  {
    issuer: Type.String({ minLength: 1, maxLength: 500, description: "The provider's issuer URL (https; plain http only to a host QUIRE_FETCH_ALLOW allows)" }),
    clientId: Type.String({ minLength: 1, maxLength: 500 }),
    clientSecret: Type.String({ minLength: 1, maxLength: 2000, description: 'Stored encrypted; never returned' }),
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 60, description: "The sign-in button's text (public); default \"Single sign-on\"" })),
    allowedDomains: Type.Optional(Type.Array(Type.String({ maxLength: 253 }), { maxItems: 50, description: 'E-mail domains whose people join on their first sign-in' })),
    defaultRole: Type.Optional(RoleOrNull),
  },
  { additionalProperties: false },
);

export const OidcProviderSchema = Type.Object({
  object: Type.Literal('oidc-provider'),
  organizationId: Type.String(),
  issuer: Type.String(),
  clientId: Type.String(),
  label: Type.String(),
  allowedDomains: Type.Array(Type.String()),
  defaultRole: RoleOrNull,
  callbackUrl: Type.String({ description: 'The redirect URI to register at the provider' }),
  startUrl: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
});
