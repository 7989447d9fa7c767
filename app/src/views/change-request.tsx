import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { PageDiffView } from '../components/page-diff.js';
import { api, appHref, ApiError, encodePath } from '../api.js';
import { useApi } from '../use-api.js';
import { Layout } from '../components/layout.js';
import { Failure, Show, ErrorNotice } from '../components/status.js';
import { Time } from '../components/time.js';
import { SpaceReader, spaceCrumbs, useSpace } from './space.js';
import { StatusBadge } from './change-requests.js';
import type { ChangeRequest, List, User } from '../types.js';
import { CommentThreads, NewComment, useComments } from '../components/comment-thread.js';
import { useChangeRequestEvents } from '../live.js';

/** Reads again when a live event's count moves (the first render reads anyway). */
function useReloadOn(count: number, reload: () => void): void {
  useEffect(() => {
    if (count > 0) reload();
  }, [count]);
}

interface Review {
  id: string;
  reviewer: User;
  status: 'approved' | 'changes-requested';
  createdAt: string;
}

interface SemanticChange {
  type: string;
  page?: { id: string; title: string; path?: string };
  file?: { id: string; name: string };
}

const CHANGE_LABELS: Record<string, string> = {
  page_created: 'Added',
  page_edited: 'Changed',
  page_deleted: 'Removed',
  page_moved: 'Moved',
  file_created: 'File added',
  file_edited: 'File changed',
  file_deleted: 'File removed',
  variables_edited: 'Variables changed',
  reusable_content_created: 'Reusable content added',
  reusable_content_edited: 'Reusable content changed',
  reusable_content_deleted: 'Reusable content removed',
};

function Changes({ spaceId, number, version }: { spaceId: string; number: string; version: number }) {
  const [changes, reload] = useApi(`${spaceId}:${number}:changes`, (signal) => api<{ changes: SemanticChange[]; more?: number }>(`/spaces/${spaceId}/change-requests/${number}/changes`, { signal, query: { limit: 500 } }));
  useReloadOn(version, reload);
  return (
    <section aria-labelledby="changes-title">
      <h2 id="changes-title">Changes</h2>
      <Show loaded={changes} what="the changes">
        {(value) =>
          value.changes.length === 0 ? (
            <p>This change request changes nothing yet.</p>
          ) : (
            <ul class="changes">
              {value.changes.map((change, i) => (
                <li key={i}>
                  <span class={`change change-${change.type}`}>{CHANGE_LABELS[change.type] ?? change.type}</span>{' '}
                  {change.page ? (
                    <>
                      <a href={appHref(`/s/${spaceId}/~/changes/${number}?page=${encodeURIComponent(change.page.id)}`)}>{change.page.title}</a>
                      {change.type !== 'page_deleted' && change.page.path !== undefined && (
                        <a class="muted" href={appHref(`/s/${spaceId}/~/changes/${number}/${encodePath(change.page.path)}`)}>
                          read <span class="visually-hidden">{change.page.title} </span>as changed
                        </a>
                      )}
                    </>
                  ) : (
                    change.file?.name
                  )}
                </li>
              ))}
              {value.more ? <li>…and {value.more} more</li> : null}
            </ul>
          )
        }
      </Show>
    </section>
  );
}

function Reviews({ spaceId, number, open, version, onChange }: { spaceId: string; number: string; open: boolean; version: number; onChange: () => void }) {
  const [reviews, reload] = useApi(`${spaceId}:${number}:reviews`, (signal) => api<List<Review>>(`/spaces/${spaceId}/change-requests/${number}/reviews`, { signal }));
  useReloadOn(version, reload);
  const [error, setError] = useState<string>();
  const submit = async (status: Review['status']) => {
    setError(undefined);
    try {
      await api(`/spaces/${spaceId}/change-requests/${number}/reviews`, { method: 'POST', body: { status } });
      reload();
      onChange();
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  return (
    <section aria-labelledby="reviews-title">
      <h2 id="reviews-title">Reviews</h2>
      <Show loaded={reviews} what="the reviews">
        {(value) =>
          value.items.length === 0 ? (
            <p>No reviews yet.</p>
          ) : (
            <ul class="reviews">
              {value.items.map((review) => (
                <li key={review.id}>
                  <strong>{review.reviewer.displayName}</strong>
                  <span class={`badge badge-${review.status}`}>{review.status === 'approved' ? 'Approved' : 'Changes requested'}</span>
                  <Time at={review.createdAt} />
                </li>
              ))}
            </ul>
          )
        }
      </Show>
      {open && (
      <div class="actions">
        <button type="button" class="button" onClick={() => submit('approved')}>
          Approve
        </button>
        <button type="button" class="button" onClick={() => submit('changes-requested')}>
          Request changes
        </button>
      </div>
      )}
      <ErrorNotice message={error} />
    </section>
  );
}

interface RequestedReviewer {
  kind: 'user';
  user: User;
  requestedBy: User;
}

interface Member {
  id: string;
  user: User;
}

/** Who is asked to review, and asking someone (a member of the organization). */
function RequestedReviewers({ spaceId, number, organizationId, authorId, open, version }: { spaceId: string; number: string; organizationId?: string; authorId: string; open: boolean; version: number }) {
  const [requested, reload] = useApi(`${spaceId}:${number}:requested`, (signal) => api<List<RequestedReviewer>>(`/spaces/${spaceId}/change-requests/${number}/requested-reviewers`, { signal }));
  useReloadOn(version, reload);
  const [members] = useApi(organizationId, (signal) => api<List<Member>>(`/orgs/${organizationId}/members`, { signal, query: { limit: 100 } }));
  const [error, setError] = useState<string>();
  const request = async (event: Event) => {
    event.preventDefault();
    const user = String(new FormData(event.currentTarget as HTMLFormElement).get('reviewer') ?? '');
    if (!user) return;
    setError(undefined);
    try {
      await api(`/spaces/${spaceId}/change-requests/${number}/requested-reviewers`, { method: 'POST', body: { users: [user] } });
      reload();
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  const asked = requested.state === 'done' ? new Set(requested.value.items.map((r) => r.user.id)) : new Set<string>();
  return (
    <section aria-labelledby="requested-title">
      <h2 id="requested-title">Requested reviewers</h2>
      <Show loaded={requested} what="the requested reviewers">
        {(value) =>
          value.items.length === 0 ? (
            <p>Nobody is asked to review yet.</p>
          ) : (
            <ul class="reviews">
              {value.items.map((r) => (
                <li key={r.user.id}>
                  <strong>{r.user.displayName}</strong> <span class="muted">asked by {r.requestedBy.displayName}</span>
                </li>
              ))}
            </ul>
          )
        }
      </Show>
      {open && members.state === 'done' && (
        <form class="form form-inline" onSubmit={request}>
          <label for="reviewer">Ask for a review from</label>
          <select id="reviewer" name="reviewer" required>
            <option value="">Choose a member</option>
            {members.value.items
              .filter((m) => m.user.id !== authorId && !asked.has(m.user.id))
              .map((m) => (
                <option key={m.user.id} value={m.user.id}>
                  {m.user.displayName}
                </option>
              ))}
          </select>
          <button type="submit" class="button">
            Request review
          </button>
        </form>
      )}
      <ErrorNotice message={error} />
    </section>
  );
}

/** Every comment of the change request, in threads, with the page each is on; and a new comment on the whole. */
function Comments({ spaceId, number, version }: { spaceId: string; number: string; version: number }) {
  const scope = { spaceId, changeRequest: number };
  const [comments, reload, failed] = useComments(scope, undefined, version);
  return (
    <section aria-labelledby="comments-title">
      <h2 id="comments-title">Comments</h2>
      {failed && <Failure error={failed} />}
      {comments && <CommentThreads scope={scope} comments={comments.items} version={version} showTarget empty="No comments yet." onChange={reload} />}
      <NewComment scope={scope} id="new-comment" label="Add a comment" onPosted={reload} />
    </section>
  );
}

interface MergeResult {
  result: 'merge' | 'update' | 'conflicts';
  conflicts?: Array<{ path: string }>;
}

interface Mergeability {
  mergeable: boolean;
  blocking: Array<{ rule: string; message: string }>;
}

function Actions({ spaceId, cr, onChange }: { spaceId: string; cr: ChangeRequest; onChange: () => void }) {
  const [message, setMessage] = useState<{ error?: string; conflicts?: string[] }>({});
  // Asked again whenever the change request changes (a review, a push, a merge): its updatedAt says when.
  const [mergeability] = useApi(`${spaceId}:${cr.number}:mergeable:${cr.updatedAt}:${cr.revision}`, (signal) =>
    api<Mergeability>(`/spaces/${spaceId}/change-requests/${cr.number}/merge-rules`, { signal }),
  );
  const blocking = mergeability.state === 'done' ? mergeability.value.blocking : [];
  const run = async (action: () => Promise<MergeResult | unknown>) => {
    setMessage({});
    try {
      const result = (await action()) as MergeResult | undefined;
      if (result && result.result === 'conflicts') setMessage({ conflicts: (result.conflicts ?? []).map((c) => c.path) });
      onChange();
    } catch (failure) {
      setMessage({ error: failure instanceof ApiError ? failure.message : String(failure) });
    }
  };
  const base = `/spaces/${spaceId}/change-requests/${cr.number}`;
  const open = cr.status === 'open' || cr.status === 'draft';
  return (
    <div class="cr-actions">
      {open && (
        <>
          <button
            type="button"
            class="button button-primary"
            disabled={blocking.length > 0}
            aria-describedby={blocking.length > 0 ? 'merge-blocked' : undefined}
            onClick={() => run(() => api(`${base}/merge`, { method: 'POST' }))}
          >
            Merge
          </button>
          <button type="button" class="button" onClick={() => run(() => api(`${base}/update`, { method: 'POST' }))}>
            Update from main
          </button>
          <button type="button" class="button" onClick={() => run(() => api(base, { method: 'PATCH', body: { status: 'archived' } }))}>
            Close
          </button>
        </>
      )}
      {cr.status === 'archived' && (
        <button type="button" class="button" onClick={() => run(() => api(base, { method: 'PATCH', body: { status: 'open' } }))}>
          Reopen
        </button>
      )}
      {open && blocking.length > 0 && (
        <div id="merge-blocked" class="notice merge-blocked">
          <p>The merge rules block merging:</p>
          <ul>
            {blocking.map((rule) => (
              <li key={rule.rule}>{rule.message}</li>
            ))}
          </ul>
        </div>
      )}
      <ErrorNotice message={message.error} />
      {message.conflicts && (
        <div class="notice notice-error" role="alert">
          <p>These files conflict with main: {message.conflicts.join(', ')}.</p>
          <p>
            Resolve them in git: <code>git fetch origin && git checkout change-requests/{cr.number} && git merge origin/main</code>, fix the files, commit and push.
          </p>
        </div>
      )}
    </div>
  );
}

/** A change request: what it changes, its reviews and comments, and what can be done with it. */
export function ChangeRequestView({ spaceId, number, pagePath }: { spaceId: string; number: string; pagePath?: string }) {
  const { query } = useLocation();
  const space = useSpace(spaceId);
  const [cr, reload] = useApi(`${spaceId}:${number}`, (signal) => api<ChangeRequest>(`/spaces/${spaceId}/change-requests/${number}`, { signal }));
  // What others do on the change request shows without reloading: each part reads again what an event names.
  const live = useChangeRequestEvents(spaceId, number);
  useReloadOn(live['change-request'] + live.review, reload);
  const title = cr.state === 'done' ? `#${cr.value.number} ${cr.value.subject || 'Untitled change request'}` : `Change request #${number}`;
  const crumbs = [...spaceCrumbs(space, spaceId), { label: 'Change requests', href: appHref(`/s/${spaceId}/~/changes`) }, { label: `#${number}` }];
  if (pagePath) {
    return (
      <Layout title={title} crumbs={crumbs} wide>
        <SpaceReader
          spaceId={spaceId}
          source={{ kind: 'change-request', number }}
          path={pagePath}
          banner={
            <p class="notice">
              Reading this page as change request <a href={appHref(`/s/${spaceId}/~/changes/${number}`)}>#{number}</a> has it.
            </p>
          }
        />
      </Layout>
    );
  }
  if (query.page) {
    const layout = query.layout === 'split' ? 'split' : 'inline';
    const here = `/s/${spaceId}/~/changes/${number}?page=${encodeURIComponent(query.page)}`;
    return (
      <Layout title={title} crumbs={[...crumbs.slice(0, -1), { label: `#${number}`, href: appHref(`/s/${spaceId}/~/changes/${number}`) }, { label: 'Page changes' }]} wide>
        <h1>{title}</h1>
        <nav class="filters" aria-label="Layout of the changes">
          <a href={appHref(here)} aria-current={layout === 'inline' ? 'page' : undefined}>
            Inline
          </a>
          <a href={appHref(`${here}&layout=split`)} aria-current={layout === 'split' ? 'page' : undefined}>
            Side by side
          </a>
        </nav>
        <PageDiffView spaceId={spaceId} number={number} pageId={query.page} layout={layout} live={live} />
      </Layout>
    );
  }
  return (
    <Layout title={title} crumbs={crumbs}>
      <Show loaded={cr} what="the change request">
        {(value) => (
          <>
            <h1>{title}</h1>
            <p class="cr-meta">
              <StatusBadge status={value.status} /> opened by {value.createdBy.displayName} <Time at={value.createdAt} />, updated <Time at={value.updatedAt} />
              {value.outdated && <span class="badge">Behind main</span>}
            </p>
            <Actions spaceId={spaceId} cr={value} onChange={reload} />
            <Changes spaceId={spaceId} number={number} version={live['change-request']} />
            <RequestedReviewers
              spaceId={spaceId}
              number={number}
              organizationId={space.state === 'done' ? space.value.space.organization : undefined}
              authorId={value.createdBy.id}
              open={value.status === 'open' || value.status === 'draft'}
              version={live.review}
            />
            <Reviews spaceId={spaceId} number={number} open={value.status === 'open' || value.status === 'draft'} version={live.review} onChange={reload} />
            <Comments spaceId={spaceId} number={number} version={live.comment} />
          </>
        )}
      </Show>
      {cr.state === 'failed' && <Failure error={cr.error} />}
    </Layout>
  );
}
