import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { PageDiffView, type DiffLayout } from '../components/page-diff.js';
import { ChangeTree, type PageChangeSummary } from '../components/change-tree.js';
import { ChangedFiles, type FileChangeSummary } from '../components/changed-files.js';
import { api, appHref, ApiError, encodePath } from '../api.js';
import { useApi, type Loaded } from '../use-api.js';
import { useSession } from '../session.js';
import { Layout } from '../components/layout.js';
import { Failure, Show, ErrorNotice } from '../components/status.js';
import { Time } from '../components/time.js';
import { SpaceReader, spaceCrumbs, useSpace } from './space.js';
import { StatusBadge } from './change-requests.js';
import type { ChangeRequest, List, Space, User } from '../types.js';
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

type SemanticChange = PageChangeSummary & FileChangeSummary;

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

interface ChangeList {
  changes: SemanticChange[];
  more?: number;
}

function Changes({ spaceId, number, changes }: { spaceId: string; number: string; changes: Loaded<ChangeList> }) {
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
      {changes.state === 'done' && (
        <>
          <ChangeTree spaceId={spaceId} number={number} changes={changes.value.changes} />
          <ChangedFiles changes={changes.value.changes} />
        </>
      )}
    </section>
  );
}

function Reviews({ spaceId, number, open, mayReview, version, onChange }: { spaceId: string; number: string; open: boolean; mayReview: boolean; version: number; onChange: () => void }) {
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
      {open && mayReview && (
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
function RequestedReviewers({ spaceId, number, organizationId, authorId, open, mayRequest, version }: { spaceId: string; number: string; organizationId?: string; authorId: string; open: boolean; mayRequest: boolean; version: number }) {
  const [requested, reload] = useApi(`${spaceId}:${number}:requested`, (signal) => api<List<RequestedReviewer>>(`/spaces/${spaceId}/change-requests/${number}/requested-reviewers`, { signal }));
  useReloadOn(version, reload);
  const [members] = useApi(mayRequest ? organizationId : undefined, (signal) => api<List<Member>>(`/orgs/${organizationId}/members`, { signal, query: { limit: 100 } }));
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
      {open && mayRequest && members.state === 'done' && (
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
function Comments({ spaceId, number, mayComment, version }: { spaceId: string; number: string; mayComment: boolean; version: number }) {
  const scope = { spaceId, changeRequest: number };
  const [comments, reload, failed] = useComments(scope, undefined, version);
  return (
    <section aria-labelledby="comments-title">
      <h2 id="comments-title">Comments</h2>
      {failed && <Failure error={failed} />}
      {comments && <CommentThreads scope={scope} comments={comments.items} version={version} showTarget empty="No comments yet." onChange={reload} />}
      {mayComment && <NewComment scope={scope} id="new-comment" label="Add a comment" onPosted={reload} />}
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

function Actions({ spaceId, cr, permissions, onChange }: { spaceId: string; cr: ChangeRequest; permissions: Space['permissions']; onChange: () => void }) {
  const [message, setMessage] = useState<{ error?: string; conflicts?: string[] }>({});
  // Asked again whenever the change request changes (a review, a push, a merge): its updatedAt says when.
  const [mergeability] = useApi(permissions.merge ? `${spaceId}:${cr.number}:mergeable:${cr.updatedAt}:${cr.revision}` : undefined, (signal) =>
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
      {open && permissions.merge && (
        <button
          type="button"
          class="button button-primary"
          disabled={blocking.length > 0}
          aria-describedby={blocking.length > 0 ? 'merge-blocked' : undefined}
          onClick={() => run(() => api(`${base}/merge`, { method: 'POST' }))}
        >
          Merge
        </button>
      )}
      {open && permissions.edit && (
        <>
          <button type="button" class="button" onClick={() => run(() => api(`${base}/update`, { method: 'POST' }))}>
            Update from main
          </button>
          <button type="button" class="button" onClick={() => run(() => api(base, { method: 'PATCH', body: { status: 'archived' } }))}>
            Close
          </button>
        </>
      )}
      {cr.status === 'archived' && permissions.edit && (
        <button type="button" class="button" onClick={() => run(() => api(base, { method: 'PATCH', body: { status: 'open' } }))}>
          Reopen
        </button>
      )}
      {open && permissions.merge && blocking.length > 0 && (
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

/**
 * The change request's preview (the site that publishes its space, as it would read merged): a link for the member,
 * and, while it is open, a link to share with people without an account (copied, and shown to be copied by hand).
 * Nothing when no site publishes the space (the API answers 409).
 */
function Preview({ spaceId, cr }: { spaceId: string; cr: ChangeRequest }) {
  const [preview] = useApi(`${spaceId}:${cr.number}:preview`, (signal) => api<{ url: string }>(`/spaces/${spaceId}/change-requests/${cr.number}/preview`, { signal }));
  const [shared, setShared] = useState<{ url: string; expiresAt: string; copied: boolean }>();
  const [error, setError] = useState<string>();
  if (preview.state !== 'done') return null;
  const open = cr.status === 'open' || cr.status === 'draft';
  const share = async () => {
    setError(undefined);
    try {
      const link = await api<{ url: string; expiresAt: string }>(`/spaces/${spaceId}/change-requests/${cr.number}/preview-link`, { method: 'POST' });
      // The clipboard may be refused (permissions, an insecure origin): the link is shown to copy by hand then.
      const copied = await navigator.clipboard?.writeText(link.url).then(
        () => true,
        () => false,
      );
      setShared({ ...link, copied: copied === true });
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : String(failure));
    }
  };
  return (
    <div class="cr-preview">
      <a class="button" href={preview.value.url}>
        Preview
      </a>
      {open && (
        <button type="button" class="button" onClick={share}>
          Copy preview link
        </button>
      )}
      {shared && (
        <div class="notice" role="status">
          <p>
            {shared.copied ? 'Preview link copied. ' : ''}Anyone with it can read this preview until <Time at={shared.expiresAt} />, or until the change request is merged or closed.
          </p>
          <label for="preview-link">Preview link</label>
          <input id="preview-link" type="text" readOnly value={shared.url} onFocus={(event) => (event.currentTarget as HTMLInputElement).select()} />
        </div>
      )}
      <ErrorNotice message={error} />
    </div>
  );
}

/** A change request: what it changes, its reviews and comments, and what can be done with it. */
export function ChangeRequestView({ spaceId, number, pagePath }: { spaceId: string; number: string; pagePath?: string }) {
  const { query } = useLocation();
  const space = useSpace(spaceId);
  const [cr, reload] = useApi(`${spaceId}:${number}`, (signal) => api<ChangeRequest>(`/spaces/${spaceId}/change-requests/${number}`, { signal }));
  // Asked beside the change request, not after it: the view's longest read does not wait for another.
  const [changes, reloadChanges] = useApi(query.page || pagePath ? undefined : `${spaceId}:${number}:changes`, (signal) =>
    api<ChangeList>(`/spaces/${spaceId}/change-requests/${number}/changes`, { signal, query: { limit: 500 } }),
  );
  // What others do on the change request shows without reloading: each part reads again what an event names.
  const live = useChangeRequestEvents(spaceId, number);
  useReloadOn(live['change-request'] + live.review, reload);
  useReloadOn(live['change-request'], reloadChanges);
  const title = cr.state === 'done' ? `#${cr.value.number} ${cr.value.subject || 'Untitled change request'}` : `Change request #${number}`;
  const me = useSession().current?.user;
  // Until the space is read, no write control is offered.
  const permissions: Space['permissions'] = space.state === 'done' ? space.value.space.permissions : { view: false, edit: false, comment: false, review: false, merge: false, admin: false, triggerGitSync: false };
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
    const layout: DiffLayout = query.layout === 'split' || query.layout === 'markdown' ? query.layout : 'inline';
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
          <a href={appHref(`${here}&layout=markdown`)} aria-current={layout === 'markdown' ? 'page' : undefined}>
            Markdown
          </a>
        </nav>
        <PageDiffView spaceId={spaceId} number={number} pageId={query.page} layout={layout} live={live} mayComment={permissions.comment} />
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
            <Actions spaceId={spaceId} cr={value} permissions={permissions} onChange={reload} />
            <Preview spaceId={spaceId} cr={value} />
            <Changes spaceId={spaceId} number={number} changes={changes} />
            <RequestedReviewers
              spaceId={spaceId}
              number={number}
              organizationId={space.state === 'done' ? space.value.space.organization : undefined}
              authorId={value.createdBy.id}
              open={value.status === 'open' || value.status === 'draft'}
              mayRequest={permissions.edit || value.createdBy.id === me?.id}
              version={live.review}
            />
            <Reviews spaceId={spaceId} number={number} open={value.status === 'open' || value.status === 'draft'} mayReview={permissions.review} version={live.review} onChange={reload} />
            <Comments spaceId={spaceId} number={number} mayComment={permissions.comment} version={live.comment} />
          </>
        )}
      </Show>
      {cr.state === 'failed' && <Failure error={cr.error} />}
    </Layout>
  );
}
