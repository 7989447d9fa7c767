import type { CommentBody, CommentView, ReactionView, ReplyView } from '../../../domain/comments/comment-views.js';
import type { CommentRow } from '../../../store/sql/comments.js';
import type { UserRow } from '../../../store/sql/users.js';
import { presentDeletedUser, presentUser } from '../../present.js';
import type { Urls } from '../../urls.js';
import { markdownToDocument } from '../../../content/document.js';
import { documentToMarkdown } from '../../../content/document-markdown.js';

export type BodyFormat = 'markdown' | 'document';

/** A stored body in the requested format: markdown as is or written from a document; a document as is or built from markdown. */
function presentBody(body: CommentBody, format: BodyFormat): { markdown: string } | { document: Record<string, unknown> } {
  if (format === 'document') {
    if ('document' in body) return { document: body.document };
    return { document: { ...markdownToDocument('markdown' in body ? body.markdown : '') } };
  }
  if ('markdown' in body) return { markdown: body.markdown };
  // A comment's markdown has no final line break (a file's has).
  return { markdown: 'document' in body ? documentToMarkdown(body.document).replace(/\n$/, '') : '' };
}

function presentAuthor(urls: Urls, user: UserRow | undefined) {
  return user ? presentUser(urls, user) : presentDeletedUser(urls);
}

function presentReactions(urls: Urls, reactions: ReactionView[]) {
  return reactions.map((r) => ({
    emoji: r.emoji,
    count: r.users.length,
    users: r.users.map((u) => ({ user: presentUser(urls, u.user), reactedAt: u.reactedAt })),
  }));
}

function commentsPath(comment: CommentRow): string {
  const base = `/spaces/${comment.space_id}`;
  return comment.change_request_id ? `${base}/change-requests/${comment.change_request_id}/comments` : `${base}/comments`;
}

export function presentComment(urls: Urls, view: CommentView, format: BodyFormat = 'markdown') {
  const { comment } = view;
  const status =
    comment.status === 'resolved' && comment.resolved_at
      ? { status: 'resolved' as const, resolvedAt: comment.resolved_at, resolvedBy: presentAuthor(urls, view.resolvedBy) }
      : { status: 'open' as const };
  return {
    object: 'comment' as const,
    id: comment.id,
    ...status,
    postedBy: presentAuthor(urls, view.postedBy),
    postedAt: comment.posted_at,
    ...(comment.edited_at ? { editedAt: comment.edited_at } : {}),
    reactions: presentReactions(urls, view.reactions),
    replies: view.replies,
    body: presentBody(view.body, format),
    target: {
      space: comment.space_id,
      revision: comment.target_revision,
      ...(comment.change_request_id ? { changeRequest: comment.change_request_id } : {}),
      ...(view.review ? { review: view.review } : {}),
      ...(comment.target_node ? { node: { id: comment.target_node } } : {}),
      ...(view.page ? { page: view.page } : {}),
    },
    urls: { location: urls.api(`${commentsPath(comment)}/${comment.id}`) },
    permissions: view.permissions,
  };
}

export function presentReply(urls: Urls, view: ReplyView, format: BodyFormat = 'markdown') {
  const { reply } = view;
  return {
    object: 'comment-reply' as const,
    id: reply.id,
    postedBy: presentAuthor(urls, view.postedBy),
    postedAt: reply.posted_at,
    ...(reply.edited_at ? { editedAt: reply.edited_at } : {}),
    reactions: presentReactions(urls, view.reactions),
    body: presentBody(view.body, format),
    urls: { location: urls.api(`${commentsPath(view.comment)}/${view.comment.id}/replies/${reply.id}`) },
    permissions: view.permissions,
  };
}
