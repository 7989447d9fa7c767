import type { SamlProviderView } from '../../../domain/sso/saml.js';
import { isRole } from '../../../domain/permissions.js';
import type { SamlProviderRow } from '../../../store/sql/saml.js';
import type { Urls } from '../../urls.js';
import { escapeHtml } from '../../../content/html-text.js';
import { presentTeam } from '../teams/presenter.js';

/** The reference requires `ssoURL` (a URI) even before it is set: `about:blank` (RFC 6694) is the URI of nothing. */
export const UNSET_URL = 'about:blank';

/** Our side of the exchange, from QUIRE_PUBLIC_URL: where the IdP posts assertions, where sign-in starts, our entity id. */
export function samlService(urls: Urls, providerId: string) {
  return {
    acsURL: urls.base(`/sso/saml/${providerId}/acs`),
    startURL: urls.base(`/sso/saml/${providerId}/start`),
    entityID: urls.base(`/sso/saml/${providerId}/metadata`),
  };
}

/** Our side as SAML metadata (an EntityDescriptor an identity provider imports): entity id and where to post assertions. */
export function samlMetadataXml(urls: Urls, providerId: string): string {
  const { entityID, acsURL } = samlService(urls, providerId);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${escapeHtml(entityID)}">`,
    '  <md:SPSSODescriptor AuthnRequestsSigned="false" WantAssertionsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">',
    '    <md:NameIDFormat>urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress</md:NameIDFormat>',
    `    <md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${escapeHtml(acsURL)}" index="0" isDefault="true"/>`,
    '  </md:SPSSODescriptor>',
    '</md:EntityDescriptor>',
    '',
  ].join('\n');
}

export function presentSamlProvider(urls: Urls, view: SamlProviderView) {
  const p = view.provider;
  return {
    object: 'saml-provider' as const,
    id: p.id,
    label: p.label,
    ssoURL: p.sso_url ?? UNSET_URL,
    entityID: p.entity_id ?? '',
    certificate: p.certificate ?? '',
    ...(view.defaultTeam ? { defaultTeam: presentTeam(view.defaultTeam) } : {}),
    defaultRole: isRole(p.default_role) ? p.default_role : null,
    createdAt: p.created_at,
    status: view.status,
    service: samlService(urls, p.id),
    urls: { location: urls.api(`/orgs/${p.organization_id}/saml/${p.id}`) },
  };
}

/** An SSO login info (listSSOProviderLoginsInOrganization). */
export function presentSsoLogin(urls: Urls, provider: SamlProviderRow) {
  return { id: provider.id, label: provider.label, startURL: samlService(urls, provider.id).startURL };
}
