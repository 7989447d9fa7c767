import type { Urls } from '../../urls.js';
import type { SignInProvider } from '../../../domain/identity/oidc.js';

export function presentSignInProvider(urls: Urls, provider: SignInProvider) {
  return { id: provider.id, kind: provider.kind, label: provider.label, startUrl: urls.base(`/sso/oidc/start?provider=${encodeURIComponent(provider.id)}`) };
}
