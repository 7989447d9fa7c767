import { Type } from 'typebox';
import { Timestamp } from '../../schemas.js';

export const SetSiteOidcProviderBody = Type.Object(
  {
    issuer: Type.String({ minLength: 1, maxLength: 500, description: "The provider's issuer URL (https; plain http only to a host QUIRE_FETCH_ALLOW allows)" }),
    clientId: Type.String({ minLength: 1, maxLength: 500 }),
    clientSecret: Type.String({ minLength: 1, maxLength: 2000, description: 'Stored encrypted; never returned' }),
  },
  { additionalProperties: false },
);

export const SiteOidcProviderSchema = Type.Object({
  object: Type.Literal('site-oidc-provider'),
  siteId: Type.String(),
  issuer: Type.String(),
  clientId: Type.String(),
  callbackUrl: Type.String({ description: "The redirect URI to register at the provider: the site's sign-in callback" }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
