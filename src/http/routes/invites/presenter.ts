import type { LinkInviteView } from '../../../domain/organizations/invites.js';
import type { Urls } from '../../urls.js';

export function presentInvite(urls: Urls, view: LinkInviteView) {
  const { invite } = view;
  const org = invite.organization_id;
  return {
    object: 'invite' as const,
    id: invite.id,
    role: view.role,
    redundant: view.redundant,
    createdAt: invite.created_at,
    urls: {
      location: urls.api(`/orgs/${org}/link-invites/${invite.id}`),
      app: urls.app(`/invite/${org}/${invite.id}`),
      join: urls.api(`/orgs/${org}/invites/${invite.id}`),
    },
  };
}
