import type { Urls } from '../../urls.js';
import { samlService } from '../sso/presenter.js';
import type { SignInProvider } from '../../../domain/identity/oidc.js';
import type { OidcProviderView } from '../../../domain/identity/oidc-providers.js';

export function presentSignInProvider(urls: Urls, provider: SignInProvider) {
  const startUrl =
    provider.kind === 'saml' ? samlService(urls, provider.id).startURL : urls.base(`/sso/oidc/start?provider=${encodeURIComponent(provider.id)}`);
  return { id: provider.id, kind: provider.kind, label: provider.label, startUrl };
}

export function presentOidcProvider(urls: Urls, provider: OidcProviderView) {
  return {
    object: 'oidc-provider' as const,
    organizationId: provider.organizationId,
    issuer: provider.issuer,
    clientId: provider.clientId,
    label: provider.label,
    allowedDomains: provider.allowedDomains,
    defaultRole: provider.defaultRole,
    callbackUrl: urls.base('/sso/oidc/callback'),
    startUrl: urls.base(`/sso/oidc/start?provider=${encodeURIComponent(provider.organizationId)}`),
    createdAt: provider.createdAt,
    updatedAt: provider.updatedAt,
  };
}
