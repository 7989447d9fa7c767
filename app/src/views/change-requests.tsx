import { useLocation } from 'preact-iso';
import { api, appHref } from '../api.js';
import { useApi } from '../use-api.js';
import { Layout } from '../components/layout.js';
import { Failure, Show } from '../components/status.js';
import { Time } from '../components/time.js';
import { SpaceTabs, spaceCrumbs, useSpace } from './space.js';
import type { ChangeRequest, List } from '../types.js';

const STATUSES = [
  ['open', 'Open'],
  ['draft', 'Drafts'],
  ['merged', 'Merged'],
  ['archived', 'Closed'],
] as const;

export function StatusBadge({ status }: { status: ChangeRequest['status'] }) {
  const label = { open: 'Open', draft: 'Draft', merged: 'Merged', archived: 'Closed' }[status];
  return <span class={`badge badge-${status}`}>{label}</span>;
}

/** A space's change requests by status, newest first, with who opened them, when they changed and their comments. */
export function ChangeRequestsView({ spaceId }: { spaceId: string }) {
  const { query } = useLocation();
  const status = STATUSES.some(([value]) => value === query.status) ? query.status : 'open';
  const space = useSpace(spaceId);
  const [list] = useApi(`${spaceId}:${status}`, (signal) => api<List<ChangeRequest>>(`/spaces/${spaceId}/change-requests`, { signal, query: { status, limit: 100 } }));
  if (space.state === 'failed') {
    return (
      <Layout title="Change requests">
        <Failure error={space.error} />
      </Layout>
    );
  }
  return (
    <Layout title="Change requests" crumbs={[...spaceCrumbs(space, spaceId), { label: 'Change requests' }]} wide>
      <SpaceTabs spaceId={spaceId} current="changes" space={space.state === 'done' ? space.value.space : undefined} />
      <h1>Change requests</h1>
      <nav class="filters" aria-label="Filter by status">
        {STATUSES.map(([value, label]) => (
          <a key={value} href={appHref(`/s/${spaceId}/~/changes?status=${value}`)} aria-current={value === status ? 'page' : undefined}>
            {label}
          </a>
        ))}
      </nav>
      <Show loaded={list} what="the change requests">
        {(value) =>
          value.items.length === 0 ? (
            <p>No change requests here. Push a branch, or open one with the API, to propose a change.</p>
          ) : (
            <table class="listing">
              <caption class="visually-hidden">Change requests, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Change request</th>
                  <th scope="col">Status</th>
                  <th scope="col">Author</th>
                  <th scope="col">Updated</th>
                  <th scope="col">Comments</th>
                </tr>
              </thead>
              <tbody>
                {value.items.map((cr) => (
                  <tr key={cr.id}>
                    <td>
                      <a href={appHref(`/s/${spaceId}/~/changes/${cr.number}`)}>
                        #{cr.number} {cr.subject || 'Untitled change request'}
                      </a>
                    </td>
                    <td>
                      <StatusBadge status={cr.status} />
                    </td>
                    <td>{cr.createdBy.displayName}</td>
                    <td>
                      <Time at={cr.updatedAt} />
                    </td>
                    <td>{cr.comments ?? 0}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Show>
    </Layout>
  );
}
