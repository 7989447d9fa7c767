/** A commit of main's history as the API shows it (RevisionSummarySchema). */
import type { RevisionSummary } from '../../../domain/content/revision-history.js';
import type { Urls } from '../../urls.js';

export function presentRevisionSummary(urls: Urls, spaceId: string, { commit, changeRequest }: RevisionSummary) {
  const description = commit.body.trim();
  return {
    object: 'revision-summary' as const,
    id: commit.oid,
    message: commit.subject,
    ...(description !== '' ? { description } : {}),
    author: { name: commit.authorName, email: commit.authorEmail },
    createdAt: commit.authoredAt,
    parents: commit.parents,
    merge: commit.parents.length > 1,
    ...(changeRequest ? { changeRequest } : {}),
    urls: {
      location: urls.api(`/spaces/${spaceId}/revisions/${commit.oid}`),
      app: urls.app(`/s/${spaceId}/~/revisions/${commit.oid}`),
    },
  };
}
