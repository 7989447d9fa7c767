/** Which content of a space a view reads: main, a change request's branch, or an old revision. */
export type Source = { kind: 'main' } | { kind: 'change-request'; number: string } | { kind: 'revision'; oid: string };

export function sourceApi(spaceId: string, source: Source): { pages: string; html: (pageId: string) => string } {
  if (source.kind === 'change-request') {
    const base = `/spaces/${spaceId}/change-requests/${source.number}`;
    return { pages: `${base}/content/pages`, html: (pageId) => `${base}/content/page/${pageId}/html` };
  }
  if (source.kind === 'revision') {
    const base = `/spaces/${spaceId}/revisions/${source.oid}`;
    return { pages: `${base}/pages`, html: (pageId) => `${base}/page/${pageId}/html` };
  }
  return { pages: `/spaces/${spaceId}/content/pages`, html: (pageId) => `/spaces/${spaceId}/content/page/${pageId}/html` };
}

/** Where the source's pages are in the app (below /app). */
export function sourceAppPath(spaceId: string, source: Source): string {
  if (source.kind === 'change-request') return `/s/${spaceId}/~/changes/${source.number}`;
  if (source.kind === 'revision') return `/s/${spaceId}/~/revisions/${source.oid}`;
  return `/s/${spaceId}`;
}
