/**
 * Comment threads, wherever the app shows comments (a change request, a block of its page diff): a comment and its
 * replies, reactions from a small fixed set (the reader's own toggled, counts shown), resolving and reopening,
 * editing and deleting one's own, replying, and a form for a new comment on the scope, a page or a block. What
 * each reader may do comes from the comment's `permissions` in the API's answer.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.js';
import { useApi } from '../use-api.js';
import { useSession } from '../session.js';
import { ErrorNotice } from './status.js';
import { Time } from './time.js';
import type { List, User } from '../types.js';

/** Where comments are: a space's main content, or one of its change requests (by number or id). */
export interface CommentScope {
  spaceId: string;
  changeRequest?: string;
}

interface Reaction {
  emoji: string;
  count: number;
  users: Array<{ user: User }>;
}

interface Permissions {
  edit: boolean;
  reply: boolean;
  react: boolean;
  delete: boolean;
}

export interface Comment {
  id: string;
  status: 'open' | 'resolved';
  postedBy: User;
  postedAt: string;
  editedAt?: string;
  replies: number;
  reactions: Reaction[];
  body: { markdown?: string };
  target: { page?: { id: string; title: string; path: string }; node?: { id: string } };
  permissions: Permissions;
}

interface Reply {
  id: string;
  postedBy: User;
  postedAt: string;
  editedAt?: string;
  reactions: Reaction[];
  body: { markdown?: string };
  permissions: Omit<Permissions, 'reply'>;
}

/** The reactions offered: few, so that each is one labelled button. */
export const REACTIONS: ReadonlyArray<{ emoji: string; name: string }> = [
  { emoji: '👍', name: 'thumbs up' },
  { emoji: '🎉', name: 'party' },
  { emoji: '❤️', name: 'heart' },
  { emoji: '👀', name: 'eyes' },
];

const scopePath = (scope: CommentScope) =>
  scope.changeRequest ? `/spaces/${scope.spaceId}/change-requests/${scope.changeRequest}` : `/spaces/${scope.spaceId}`;

/**
 * The comments of a scope (only those on `page` when given), oldest first, read again whenever `version` moves (a
 * live event) and after the reader's own writes (`reload`).
 */
export function useComments(scope: CommentScope, page: string | undefined, version: number): [List<Comment> | undefined, () => void, Error | undefined] {
  const [loaded, reload] = useApi(`${scopePath(scope)}:${page ?? ''}`, (signal) =>
    api<List<Comment>>(`${scopePath(scope)}/comments`, { signal, query: { limit: 100, order: 'asc', targetPage: page } }),
  );
  useEffect(() => {
    if (version > 0) reload();
  }, [version]);
  return [loaded.state === 'done' ? loaded.value : undefined, reload, loaded.state === 'failed' ? loaded.error : undefined];
}

/** A body as its text (the API writes a document body as markdown). */
const Body = ({ body }: { body: { markdown?: string } }) => <p class="comment-body">{body.markdown ?? ''}</p>;

/** Runs a write, then `done`; a failure is shown by the caller's notice. */
function useWrite(done: () => void): [(write: () => Promise<unknown>) => Promise<boolean>, string | undefined] {
  const [error, setError] = useState<string>();
  const run = async (write: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await write();
      done();
      return true;
    } catch (failure) {
      setError((failure as Error).message);
      return false;
    }
  };
  return [run, error];
}

/** The reaction buttons of a comment or reply: pressed when the reader reacted so; pressing again takes it back. */
function Reactions({ reactions, url, may, label, onChange }: { reactions: Reaction[]; url: string; may: boolean; label: string; onChange: () => void }) {
  const me = useSession().current?.user.id;
  const [run, error] = useWrite(onChange);
  const shown = REACTIONS.map((r) => {
    const found = reactions.find((x) => x.emoji === r.emoji);
    return { ...r, count: found?.count ?? 0, mine: Boolean(me && found?.users.some((u) => u.user.id === me)) };
  });
  if (!may) {
    const given = shown.filter((r) => r.count > 0);
    if (given.length === 0) return null;
    return (
      <p class="reactions" aria-label={`Reactions to ${label}`}>
        {given.map((r) => (
          <span key={r.emoji} class="reaction" aria-label={`${r.name}: ${r.count}`}>
            {r.emoji} {r.count}
          </span>
        ))}
      </p>
    );
  }
  return (
    <div class="reactions" role="group" aria-label={`Reactions to ${label}`}>
      {shown.map((r) => (
        <button
          key={r.emoji}
          type="button"
          class="reaction"
          aria-pressed={r.mine}
          aria-label={`${r.name}: ${r.count}${r.mine ? ', yours' : ''}`}
          onClick={() => run(() => api(url, { method: 'PUT', body: r.mine ? { removedReactions: [r.emoji] } : { addedReactions: [r.emoji] } }))}
        >
          <span aria-hidden="true">{r.emoji}</span>
          {r.count > 0 && <span aria-hidden="true">{r.count}</span>}
        </button>
      ))}
      <ErrorNotice message={error} />
    </div>
  );
}

/** Editing a body in place: a text area and Save / Cancel. */
function EditForm({ id, initial, url, onDone }: { id: string; initial: string; url: string; onDone: (saved: boolean) => void }) {
  const [run, error] = useWrite(() => onDone(true));
  const submit = (event: Event) => {
    event.preventDefault();
    const markdown = String(new FormData(event.currentTarget as HTMLFormElement).get('body') ?? '').trim();
    if (markdown) void run(() => api(url, { method: 'PUT', body: { body: { markdown } } }));
  };
  return (
    <form class="form comment-form" onSubmit={submit}>
      <label for={id}>Edit</label>
      <textarea id={id} name="body" rows={3} required maxLength={20000} defaultValue={initial} />
      <ErrorNotice message={error} />
      <div class="actions">
        <button type="submit" class="button">Save</button>
        <button type="button" class="button" onClick={() => onDone(false)}>Cancel</button>
      </div>
    </form>
  );
}

/** A new comment on the scope, a page of it, or a block of that page. */
export function NewComment({ scope, page, node, id, label, onPosted }: { scope: CommentScope; page?: string; node?: string; id: string; label: string; onPosted: () => void }) {
  const [run, error] = useWrite(onPosted);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const markdown = String(new FormData(form).get('body') ?? '').trim();
    if (!markdown) return;
    const body = { body: { markdown }, ...(page ? { page } : {}), ...(node ? { node } : {}) };
    if (await run(() => api(`${scopePath(scope)}/comments`, { method: 'POST', body }))) form.reset();
  };
  return (
    <form class="form comment-form" onSubmit={submit}>
      <label for={id}>{label}</label>
      <textarea id={id} name="body" rows={3} required maxLength={20000} />
      <ErrorNotice message={error} />
      <button type="submit" class="button">Comment</button>
    </form>
  );
}

function ReplyItem({ reply, url, onChange }: { reply: Reply; url: string; onChange: () => void }) {
  const [editing, setEditing] = useState(false);
  const [run, error] = useWrite(onChange);
  const label = `the reply of ${reply.postedBy.displayName}`;
  return (
    <li class="comment-reply" aria-label={`Reply from ${reply.postedBy.displayName}`}>
      <p class="comment-meta">
        <strong>{reply.postedBy.displayName}</strong> <Time at={reply.postedAt} />
        {reply.editedAt && <span class="muted"> (edited)</span>}
      </p>
      {editing ? (
        <EditForm id={`edit-${reply.id}`} initial={reply.body.markdown ?? ''} url={url} onDone={(saved) => { setEditing(false); if (saved) onChange(); }} />
      ) : (
        <Body body={reply.body} />
      )}
      <Reactions reactions={reply.reactions} url={url} may={reply.permissions.react} label={label} onChange={onChange} />
      {!editing && (reply.permissions.edit || reply.permissions.delete) && (
        <div class="actions">
          {reply.permissions.edit && (
            <button type="button" class="button button-quiet" onClick={() => setEditing(true)}>
              Edit<span class="visually-hidden"> {label}</span>
            </button>
          )}
          {reply.permissions.delete && (
            <button type="button" class="button button-quiet" onClick={() => run(() => api(url, { method: 'DELETE' }))}>
              Delete<span class="visually-hidden"> {label}</span>
            </button>
          )}
        </div>
      )}
      <ErrorNotice message={error} />
    </li>
  );
}

/** One thread: the comment, its replies, what the reader may do with them, and a reply form. */
export function CommentThread({ scope, comment, version, showTarget, onChange }: { scope: CommentScope; comment: Comment; version: number; showTarget?: boolean; onChange: () => void }) {
  const url = `${scopePath(scope)}/comments/${comment.id}`;
  const [replies, reloadReplies] = useApi(comment.replies > 0 ? url : undefined, (signal) => api<List<Reply>>(`${url}/replies`, { signal, query: { limit: 100 } }));
  // The comment's own answer changes with every event on it (its reply count, its reactions): its replies follow.
  useEffect(() => {
    if (comment.replies > 0) reloadReplies();
  }, [version, comment.replies]);
  const changed = () => {
    onChange();
    if (comment.replies > 0) reloadReplies();
  };
  const [editing, setEditing] = useState(false);
  const [run, error] = useWrite(changed);
  const resolved = comment.status === 'resolved';
  const who = comment.postedBy.displayName;
  const label = `the comment of ${who}`;
  return (
    <article class={`comment${resolved ? ' comment-resolved' : ''}`} aria-label={`Comment from ${who}${resolved ? ', resolved' : ''}`}>
      <p class="comment-meta">
        <strong>{who}</strong> <Time at={comment.postedAt} />
        {comment.editedAt && <span class="muted"> (edited)</span>}
        {resolved && <span class="badge">Resolved</span>}
        {showTarget && comment.target.page && (
          <span class="muted">
            {' '}on {comment.target.page.title}
            {comment.target.node && ', a block'}
          </span>
        )}
      </p>
      {editing ? (
        <EditForm id={`edit-${comment.id}`} initial={comment.body.markdown ?? ''} url={url} onDone={(saved) => { setEditing(false); if (saved) changed(); }} />
      ) : (
        <Body body={comment.body} />
      )}
      <Reactions reactions={comment.reactions} url={url} may={comment.permissions.react} label={label} onChange={changed} />
      {!editing && (
        <div class="actions">
          {comment.permissions.react && (
            <button type="button" class="button button-quiet" onClick={() => run(() => api(url, { method: 'PUT', body: { resolved: !resolved } }))}>
              {resolved ? 'Reopen' : 'Resolve'}<span class="visually-hidden"> {label}</span>
            </button>
          )}
          {comment.permissions.edit && (
            <button type="button" class="button button-quiet" onClick={() => setEditing(true)}>
              Edit<span class="visually-hidden"> {label}</span>
            </button>
          )}
          {comment.permissions.delete && (
            <button type="button" class="button button-quiet" onClick={() => run(() => api(url, { method: 'DELETE' }))}>
              Delete<span class="visually-hidden"> {label}</span>
            </button>
          )}
        </div>
      )}
      <ErrorNotice message={error} />
      {comment.replies > 0 && replies.state === 'done' && (
        <ol class="comment-replies" aria-label={`Replies to ${label}`}>
          {replies.value.items.map((reply) => (
            <ReplyItem key={reply.id} reply={reply} url={`${url}/replies/${reply.id}`} onChange={changed} />
          ))}
        </ol>
      )}
      {comment.permissions.reply && <ReplyForm id={`reply-${comment.id}`} url={`${url}/replies`} label={`Reply to ${who}`} onPosted={changed} />}
    </article>
  );
}

function ReplyForm({ id, url, label, onPosted }: { id: string; url: string; label: string; onPosted: () => void }) {
  const [run, error] = useWrite(onPosted);
  const submit = async (event: Event) => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const markdown = String(new FormData(form).get('body') ?? '').trim();
    if (markdown && (await run(() => api(url, { method: 'POST', body: { body: { markdown } } })))) form.reset();
  };
  return (
    <form class="form form-inline comment-reply-form" onSubmit={submit}>
      <label for={id} class="visually-hidden">{label}</label>
      <textarea id={id} name="body" rows={1} required maxLength={20000} placeholder="Reply…" />
      <button type="submit" class="button">
        Reply
      </button>
      <ErrorNotice message={error} />
    </form>
  );
}

/** Threads in order; `empty` is said when there are none. */
export function CommentThreads({ scope, comments, version, showTarget, empty, onChange }: { scope: CommentScope; comments: Comment[]; version: number; showTarget?: boolean; empty?: string; onChange: () => void }) {
  if (comments.length === 0) return empty ? <p class="muted">{empty}</p> : null;
  return (
    <ol class="comments">
      {comments.map((comment) => (
        <li key={comment.id}>
          <CommentThread scope={scope} comment={comment} version={version} showTarget={showTarget} onChange={onChange} />
        </li>
      ))}
    </ol>
  );
}
