import { useLocation } from 'preact-iso';
import { api, appHref } from '../api.js';
import { useApi } from '../use-api.js';
import { Layout } from '../components/layout.js';
import { Failure, Show } from '../components/status.js';
import { Time } from '../components/time.js';
import { SpaceReader, SpaceTabs, spaceCrumbs, useSpace } from './space.js';
import type { List } from '../types.js';

interface RevisionSummary {
  id: string;
  message: string;
  description?: string;
  author: { name: string; email: string };
  createdAt: string;
  merge: boolean;
  changeRequest?: { id: string; number: number };
}

/**
 * A space's history (main's commits, newest first), or one page's (`?page=ID`): who, when, what they wrote; each
 * revision opens as it was.
 */
export function HistoryView({ spaceId }: { spaceId: string }) {
  const { query } = useLocation();
  const space = useSpace(spaceId);
  const [history] = useApi(`${spaceId}:${query.page ?? ''}:${query.after ?? ''}`, (signal) =>
    api<List<RevisionSummary>>(`/spaces/${spaceId}/revisions`, { signal, query: { limit: 30, pageId: query.page, page: query.after } }),
  );
  if (space.state === 'failed') {
    return (
      <Layout title="History">
        <Failure error={space.error} />
      </Layout>
    );
  }
  const base = `/s/${spaceId}/~/revisions`;
  return (
    <Layout title="History" crumbs={[...spaceCrumbs(space, spaceId), { label: 'History' }]} wide>
      <SpaceTabs spaceId={spaceId} current="history" space={space.state === 'done' ? space.value.space : undefined} />
      <h1>{query.page ? 'History of a page' : 'History'}</h1>
      {query.page && (
        <p>
          <a href={appHref(base)}>The whole space's history</a>
        </p>
      )}
      <Show loaded={history} what="the history">
        {(list) => (
          <>
            <ol class="history">
              {list.items.map((revision) => (
                <li key={revision.id}>
                  <a href={appHref(`${base}/${revision.id}`)} class="history-message">
                    {revision.message || '(no message)'}
                  </a>
                  {revision.changeRequest && (
                    <a class="badge badge-merged" href={appHref(`/s/${spaceId}/~/changes/${revision.changeRequest.number}`)}>
                      Change request #{revision.changeRequest.number}
                    </a>
                  )}
                  <span class="muted">
                    {revision.author.name} · <Time at={revision.createdAt} /> · <code>{revision.id.slice(0, 8)}</code>
                  </span>
                </li>
              ))}
            </ol>
            {list.items.length === 0 && <p>No revisions yet.</p>}
            {list.next && (
              <a class="button" href={appHref(`${base}?${new URLSearchParams({ ...(query.page ? { page: query.page } : {}), after: list.next.page })}`)}>
                Older revisions
              </a>
            )}
          </>
        )}
      </Show>
    </Layout>
  );
}

/** The space as it was at one revision: its pages and their content then. */
export function RevisionView({ spaceId, oid, pagePath }: { spaceId: string; oid: string; pagePath?: string }) {
  const space = useSpace(spaceId);
  const [revision] = useApi(`${spaceId}:${oid}`, (signal) => api<{ id: string; createdAt?: string }>(`/spaces/${spaceId}/revisions/${oid}`, { signal }));
  return (
    <Layout title={`Revision ${oid.slice(0, 8)}`} crumbs={[...spaceCrumbs(space, spaceId), { label: 'History', href: appHref(`/s/${spaceId}/~/revisions`) }, { label: oid.slice(0, 8) }]} wide>
      <SpaceTabs spaceId={spaceId} current="history" space={space.state === 'done' ? space.value.space : undefined} />
      {revision.state === 'failed' ? (
        <Failure error={revision.error} />
      ) : (
        <SpaceReader
          spaceId={spaceId}
          source={{ kind: 'revision', oid }}
          path={pagePath ?? ''}
          banner={
            <p class="notice">
              An old revision (<code>{oid.slice(0, 8)}</code>). <a href={appHref(`/s/${spaceId}`)}>Read the current one</a>.
            </p>
          }
        />
      )}
    </Layout>
  );
}
