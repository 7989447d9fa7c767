import type { ChangeRequestView } from '../../../domain/change-requests/change-requests.js';
import { presentUser } from '../../present.js';
import type { Urls } from '../../urls.js';

/** Shown for a change request whose author's account is gone (the reference requires `createdBy`). */
const GONE = { id: 'deleted-user', email: '', display_name: 'Deleted user', photo_url: null, created_at: new Date(0).toISOString() };

export function presentChangeRequest(urls: Urls, view: ChangeRequestView) {
  const cr = view.changeRequest;
  const createdBy = presentUser(urls, view.createdBy ?? GONE);
  return {
    object: 'change-request' as const,
    id: cr.id,
    number: cr.number,
    status: cr.status as 'open',
    subject: cr.subject,
    createdBy: view.createdBy ? createdBy : { ...createdBy, email: undefined },
    createdAt: cr.created_at,
    updatedAt: cr.updated_at,
    revision: view.revision,
    revisionInitial: cr.revision_initial,
    ...(cr.revision_merged_ancestor ? { revisionMergedAncestor: cr.revision_merged_ancestor } : {}),
    ...(cr.revision_merged ? { revisionMerged: cr.revision_merged } : {}),
    comments: view.comments,
    outdated: view.outdated,
    urls: {
      app: urls.app(`/s/${cr.space_id}/~/changes/${cr.number}`),
      location: urls.api(`/spaces/${cr.space_id}/change-requests/${cr.id}`),
    },
  };
}
