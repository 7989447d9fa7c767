/**
 * Comments and replies as their readers see them: bodies, authors, reply counts, reactions grouped by emoji, the page
 * a comment targets (marked outdated once the page is gone), and what the reader may do with each; read for a whole
 * list in a few queries.
 */
import type { Context } from '../context.js';
import { loadRevision, type IndexedRevision } from '../content/revisions.js';
import { MAIN_REF } from '../content/refs.js';
import { reactionsOf, replyCounts, type CommentRow, type ReactionRow, type ReplyRow } from '../../store/sql/comments.js';
import { findUsersByIds, type UserRow } from '../../store/sql/users.js';
import { reviewsOfComments } from '../../store/sql/reviews.js';

/** A JSON document as the API carries it (`{object: "document", data, nodes}`), kept as given. */
export type JsonDocument = { object: 'document'; data: Record<string, unknown>; nodes: unknown[] };

/** A comment or reply body: markdown, a JSON document, or empty. */
export type CommentBody = { markdown: string } | { document: JsonDocument } | Record<string, never>;

export interface CommentPermissions {
  view: boolean;
  edit: boolean;
  reply: boolean;
  react: boolean;
  delete: boolean;
}

export interface ReactionView {
  emoji: string;
  users: Array<{ user: UserRow; reactedAt: string }>;
}

export interface PageTargetView {
  id: string;
  title: string;
  path: string;
  emoji?: string;
  icon?: string;
  /** The page no longer exists in the current revision. */
  outdated: boolean;
}

export interface CommentView {
  comment: CommentRow;
  body: CommentBody;
  postedBy: UserRow | undefined;
  resolvedBy: UserRow | undefined;
  replies: number;
  reactions: ReactionView[];
  page?: PageTargetView;
  /** The change-request review the comment was posted with. */
  review?: string;
  permissions: CommentPermissions;
}

export interface ReplyView {
  reply: ReplyRow;
  comment: CommentRow;
  body: CommentBody;
  postedBy: UserRow | undefined;
  reactions: ReactionView[];
  permissions: CommentPermissions;
}

/** The content comments target: a space's ref (main by default), for the pages they name. */
interface ContentRef {
  spaceId: string;
  ref?: string;
}

/** What the reader may do with a comment or reply posted by `postedBy`. */
export type PermissionsOf = (postedBy: string | null) => CommentPermissions;

async function currentContent(ctx: Context, scope: ContentRef): Promise<IndexedRevision | undefined> {
  const oid = await ctx.reader.resolveRef(scope.spaceId, scope.ref ?? MAIN_REF);
  return oid ? loadRevision(ctx, scope.spaceId, oid) : undefined;
}

function parseBody(json: string): CommentBody {
  try {
    const value = JSON.parse(json) as CommentBody;
    return value && typeof value === 'object' ? value : {};
  } catch {
    return {};
  }
}

/** The page a comment targets, from the current content, else (outdated) from the revision it was posted on. */
async function pageTarget(ctx: Context, spaceId: string, current: IndexedRevision | undefined, comment: CommentRow): Promise<PageTargetView | undefined> {
  const pageId = comment.target_page;
  if (!pageId) return undefined;
  let page = current?.pagesById.get(pageId);
  const outdated = !page;
  if (!page) {
    const then = await loadRevision(ctx, spaceId, comment.target_revision).catch(() => undefined);
    page = then?.pagesById.get(pageId);
  }
  if (!page) return { id: pageId, title: 'Untitled', path: '', outdated: true };
  return {
    id: page.id,
    title: page.title || 'Untitled',
    path: page.path,
    ...('emoji' in page && page.emoji ? { emoji: page.emoji } : {}),
    ...('icon' in page && page.icon ? { icon: page.icon } : {}),
    outdated,
  };
}

/** Reactions grouped by emoji (in the order each emoji first appeared), each with its users oldest first. */
function groupReactions(rows: ReactionRow[], users: Map<string, UserRow>): ReactionView[] {
  const byEmoji = new Map<string, ReactionView>();
  for (const row of rows) {
    const user = users.get(row.user_id);
    if (!user) continue;
    let view = byEmoji.get(row.emoji);
    if (!view) byEmoji.set(row.emoji, (view = { emoji: row.emoji, users: [] }));
    view.users.push({ user, reactedAt: row.reacted_at });
  }
  return [...byEmoji.values()];
}

async function usersById(ctx: Context, ids: Array<string | null>): Promise<Map<string, UserRow>> {
  const wanted = [...new Set(ids.filter((id): id is string => !!id))];
  return new Map((await findUsersByIds(ctx.db, wanted)).map((u) => [u.id, u]));
}

/** Views of comments: users, reply counts, reactions and page targets in a few queries for the whole set. */
export async function commentViews(ctx: Context, scope: ContentRef, comments: CommentRow[], permissions: PermissionsOf): Promise<CommentView[]> {
  if (comments.length === 0) return [];
  const ids = comments.map((c) => c.id);
  const [counts, reactions, current, reviews] = await Promise.all([
    replyCounts(ctx.db, ids),
    reactionsOf(ctx.db, { commentIds: ids, replyIds: [] }),
    comments.some((c) => c.target_page) ? currentContent(ctx, scope) : Promise.resolve(undefined),
    reviewsOfComments(ctx.db, comments.filter((c) => c.change_request_id).map((c) => c.id)),
  ]);
  const users = await usersById(ctx, [...comments.flatMap((c) => [c.posted_by, c.resolved_by]), ...reactions.map((r) => r.user_id)]);
  return Promise.all(
    comments.map(async (comment) => {
      const page = await pageTarget(ctx, scope.spaceId, current, comment);
      return {
        comment,
        body: parseBody(comment.body),
        postedBy: comment.posted_by ? users.get(comment.posted_by) : undefined,
        resolvedBy: comment.resolved_by ? users.get(comment.resolved_by) : undefined,
        replies: counts.get(comment.id) ?? 0,
        reactions: groupReactions(
          reactions.filter((r) => r.comment_id === comment.id),
          users,
        ),
        ...(page ? { page } : {}),
        ...(reviews.has(comment.id) ? { review: reviews.get(comment.id) } : {}),
        permissions: permissions(comment.posted_by),
      };
    }),
  );
}

export async function replyViews(ctx: Context, comment: CommentRow, replies: ReplyRow[], permissions: PermissionsOf): Promise<ReplyView[]> {
  if (replies.length === 0) return [];
  const reactions = await reactionsOf(ctx.db, { commentIds: [], replyIds: replies.map((r) => r.id) });
  const users = await usersById(ctx, [...replies.map((r) => r.posted_by), ...reactions.map((r) => r.user_id)]);
  return replies.map((reply) => ({
    reply,
    comment,
    body: parseBody(reply.body),
    postedBy: reply.posted_by ? users.get(reply.posted_by) : undefined,
    reactions: groupReactions(
      reactions.filter((r) => r.reply_id === reply.id),
      users,
    ),
    permissions: permissions(reply.posted_by),
  }));
}

