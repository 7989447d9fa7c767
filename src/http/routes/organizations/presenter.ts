import type { OrganizationView } from '../../../domain/organizations/organizations.js';
import { organizationPermissions, isRole } from '../../../domain/permissions.js';
import type { Urls } from '../../urls.js';

export function presentOrganization(urls: Urls, view: OrganizationView) {
  const org = view.organization;
  return {
    object: 'organization' as const,
    id: org.id,
    title: org.title,
    createdAt: org.created_at,
    emailDomains: view.emailDomains,
    ...(org.hostname ? { hostname: org.hostname } : {}),
    type: org.type as 'business' | 'community',
    ...(org.use_case ? { useCase: org.use_case } : {}),
    ...(org.community_type ? { communityType: org.community_type } : {}),
    defaultRole: isRole(org.default_role) ? org.default_role : null,
    ...(org.default_content ? { defaultContent: JSON.parse(org.default_content) as { type: 'site'; site: string } } : {}),
    sso: org.sso === 1,
    ai: org.ai === 1,
    inviteLinks: org.invite_links === 1,
    plan: org.plan,
    urls: {
      location: urls.api(`/orgs/${org.id}`),
      app: urls.app(`/o/${org.id}`),
      ...(org.logo_url ? { logo: org.logo_url } : {}),
    },
    trial: { status: 'notapplicable' },
    internal_isOnNewTrial: true,
    permissions: organizationPermissions(view.access),
  };
}
