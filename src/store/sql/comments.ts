/**
 * Comments, their replies and emoji reactions, on a space's main content (`change_request_id` null) or on a
 * change request. Bodies are stored as JSON (`{markdown}`, `{document}` or `{}`).
 */
import type { ExpressionBuilder, Kysely, Selectable, Updateable } from 'kysely';
import type { CommentReactionsTable, CommentRepliesTable, CommentsTable, Database } from './schema.js';
import { keysetQuery, type SortDirection } from './keyset.js';

export type CommentRow = Selectable<CommentsTable>;
export type ReplyRow = Selectable<CommentRepliesTable>;
export type ReactionRow = Selectable<CommentReactionsTable>;

/** Where comments live: a space's main content (changeRequestId null) or one change request of it. */
export interface CommentPlace {
  spaceId: string;
  changeRequestId: string | null;
}

export type CommentStatusFilter = 'all' | 'open' | 'resolved';

export interface CommentListFilter {
  status: CommentStatusFilter;
  order: SortDirection;
  targetPage?: string;
  authors?: string[];
}

/** A comment or a reply: the owner of reactions. */
export type ReactionTarget = { commentId: string } | { replyId: string };

// ---- comments

export async function insertComment(db: Kysely<Database>, row: CommentRow): Promise<void> {
  await db.insertInto('comments').values(row).execute();
}

export async function findComment(db: Kysely<Database>, place: CommentPlace, id: string): Promise<CommentRow | undefined> {
  return db
    .selectFrom('comments')
    .selectAll()
    .where('comments.id', '=', id)
    .where('comments.space_id', '=', place.spaceId)
    .where(inPlace(place))
    .executeTakeFirst();
}

/** The comments of a place with these ids (those that exist). */
export async function findComments(db: Kysely<Database>, place: CommentPlace, ids: readonly string[]): Promise<CommentRow[]> {
  if (ids.length === 0) return [];
  return db
    .selectFrom('comments')
    .selectAll()
    .where('comments.id', 'in', [...new Set(ids)])
    .where('comments.space_id', '=', place.spaceId)
    .where(inPlace(place))
    .execute();
}

export async function updateCommentRow(db: Kysely<Database>, id: string, changes: Updateable<CommentsTable>): Promise<void> {
  await db.updateTable('comments').set(changes).where('id', '=', id).execute();
}

/** Deletes a comment (its replies and reactions go with it, by foreign key). */
export async function deleteCommentRow(db: Kysely<Database>, id: string): Promise<boolean> {
  const result = await db.deleteFrom('comments').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Comments of a place, by posting time (then id) in the filter's order. */
export async function listComments(
  db: Kysely<Database>,
  place: CommentPlace,
  filter: CommentListFilter,
  after: unknown[] | undefined,
  limit: number,
): Promise<CommentRow[]> {
  let query = db.selectFrom('comments').selectAll('comments').where('comments.space_id', '=', place.spaceId).where(inPlace(place));
  if (filter.status !== 'all') query = query.where('comments.status', '=', filter.status);
  if (filter.targetPage !== undefined) query = query.where('comments.target_page', '=', filter.targetPage);
  if (filter.authors !== undefined) {
    if (filter.authors.length === 0) return [];
    query = query.where('comments.posted_by', 'in', filter.authors);
  }
  const keys = [
    { column: 'comments.posted_at', direction: filter.order },
    { column: 'comments.id', direction: filter.order },
  ];
  return keysetQuery(query, keys, after, limit).execute();
}

/** Open comments on the main content of each space (0 for spaces without any). One query for the whole set. */
export async function openCommentCounts(db: Kysely<Database>, spaceIds: readonly string[]): Promise<Map<string, number>> {
  const counts = new Map(spaceIds.map((id) => [id, 0]));
  if (spaceIds.length === 0) return counts;
  const rows = await db
    .selectFrom('comments')
    .select(['comments.space_id as space_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('comments.space_id', 'in', [...new Set(spaceIds)])
    .where('comments.change_request_id', 'is', null)
    .where('comments.status', '=', 'open')
    .groupBy('comments.space_id')
    .execute();
  for (const row of rows) counts.set(row.space_id, Number(row.n));
  return counts;
}

// ---- replies

export async function insertReply(db: Kysely<Database>, row: ReplyRow): Promise<void> {
  await db.insertInto('comment_replies').values(row).execute();
}

export async function findReply(db: Kysely<Database>, commentId: string, id: string): Promise<ReplyRow | undefined> {
  return db.selectFrom('comment_replies').selectAll().where('comment_id', '=', commentId).where('id', '=', id).executeTakeFirst();
}

export async function updateReplyRow(db: Kysely<Database>, id: string, changes: Updateable<CommentRepliesTable>): Promise<void> {
  await db.updateTable('comment_replies').set(changes).where('id', '=', id).execute();
}

export async function deleteReplyRow(db: Kysely<Database>, id: string): Promise<boolean> {
  const result = await db.deleteFrom('comment_replies').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Replies of a comment, oldest first. */
export async function listReplies(db: Kysely<Database>, commentId: string, after: unknown[] | undefined, limit: number): Promise<ReplyRow[]> {
  const query = db.selectFrom('comment_replies').selectAll('comment_replies').where('comment_replies.comment_id', '=', commentId);
  const keys = [
    { column: 'comment_replies.posted_at', direction: 'asc' as const },
    { column: 'comment_replies.id', direction: 'asc' as const },
  ];
  return keysetQuery(query, keys, after, limit).execute();
}

/** Number of replies of each comment. */
export async function replyCounts(db: Kysely<Database>, commentIds: readonly string[]): Promise<Map<string, number>> {
  const counts = new Map(commentIds.map((id) => [id, 0]));
  if (commentIds.length === 0) return counts;
  const rows = await db
    .selectFrom('comment_replies')
    .select(['comment_replies.comment_id as comment_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('comment_replies.comment_id', 'in', [...new Set(commentIds)])
    .groupBy('comment_replies.comment_id')
    .execute();
  for (const row of rows) counts.set(row.comment_id, Number(row.n));
  return counts;
}

// ---- reactions

/** Reactions on the given comments and replies, oldest first. */
export async function reactionsOf(db: Kysely<Database>, ids: { commentIds: readonly string[]; replyIds: readonly string[] }): Promise<ReactionRow[]> {
  if (ids.commentIds.length === 0 && ids.replyIds.length === 0) return [];
  return db
    .selectFrom('comment_reactions')
    .selectAll()
    .where((eb) =>
      eb.or([
        ...(ids.commentIds.length ? [eb('comment_id', 'in', [...ids.commentIds])] : []),
        ...(ids.replyIds.length ? [eb('reply_id', 'in', [...ids.replyIds])] : []),
      ]),
    )
    .orderBy('reacted_at', 'asc')
    .orderBy('emoji', 'asc')
    .orderBy('user_id', 'asc')
    .execute();
}

/** One reaction per user and emoji: adding one that exists changes nothing. */
export async function addReactions(db: Kysely<Database>, target: ReactionTarget, userId: string, emojis: readonly string[], at: string): Promise<void> {
  for (const emoji of new Set(emojis)) {
    await db
      .insertInto('comment_reactions')
      .values({
        comment_id: 'commentId' in target ? target.commentId : null,
        reply_id: 'replyId' in target ? target.replyId : null,
        user_id: userId,
        emoji,
        reacted_at: at,
      })
      .onConflict((oc) => oc.doNothing())
      .execute();
  }
}

export async function removeReactions(db: Kysely<Database>, target: ReactionTarget, userId: string, emojis: readonly string[]): Promise<void> {
  if (emojis.length === 0) return;
  let query = db.deleteFrom('comment_reactions').where('user_id', '=', userId).where('emoji', 'in', [...emojis]);
  query = 'commentId' in target ? query.where('comment_id', '=', target.commentId) : query.where('reply_id', '=', target.replyId);
  await query.execute();
}

// ---- commenters

/** `comments.change_request_id` is the place's change request (or null for the main content). */
function inPlace(place: CommentPlace) {
  return (eb: ExpressionBuilder<Database, 'comments'>) =>
    place.changeRequestId === null ? eb('comments.change_request_id', 'is', null) : eb('comments.change_request_id', '=', place.changeRequestId);
}

/** The authors of comments and replies in a place (both kinds of posts, each user once). */
function commenterIds(db: Kysely<Database>, place: CommentPlace) {
  const authors = db
    .selectFrom('comments')
    .select('comments.posted_by as user_id')
    .where('comments.space_id', '=', place.spaceId)
    .where(inPlace(place))
    .where('comments.posted_by', 'is not', null);
  const repliers = db
    .selectFrom('comment_replies')
    .innerJoin('comments', 'comments.id', 'comment_replies.comment_id')
    .select('comment_replies.posted_by as user_id')
    .where('comments.space_id', '=', place.spaceId)
    .where((eb) =>
      place.changeRequestId === null ? eb('comments.change_request_id', 'is', null) : eb('comments.change_request_id', '=', place.changeRequestId),
    )
    .where('comment_replies.posted_by', 'is not', null);
  return authors.union(repliers);
}

/** Ids of users who commented or replied in a place and are members of the organization, by user id. */
export async function listCommenters(
  db: Kysely<Database>,
  organizationId: string,
  place: CommentPlace,
  after: unknown[] | undefined,
  limit: number,
): Promise<string[]> {
  const query = db
    .selectFrom(commenterIds(db, place).as('commenters'))
    .innerJoin('members', 'members.user_id', 'commenters.user_id')
    .select('commenters.user_id as user_id')
    .where('members.organization_id', '=', organizationId);
  const rows = await keysetQuery(query, [{ column: 'commenters.user_id', direction: 'asc' }], after, limit).execute();
  return rows.map((row) => row.user_id as string);
}

export async function countCommenters(db: Kysely<Database>, organizationId: string, place: CommentPlace): Promise<number> {
  const row = await db
    .selectFrom(commenterIds(db, place).as('commenters'))
    .innerJoin('members', 'members.user_id', 'commenters.user_id')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('members.organization_id', '=', organizationId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Open comments of each change request (0 for those without any). One query for the whole set. */
export async function openChangeRequestCommentCounts(db: Kysely<Database>, changeRequestIds: readonly string[]): Promise<Map<string, number>> {
  const counts = new Map(changeRequestIds.map((id) => [id, 0]));
  if (changeRequestIds.length === 0) return counts;
  const rows = await db
    .selectFrom('comments')
    .select(['comments.change_request_id as change_request_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('comments.change_request_id', 'in', [...new Set(changeRequestIds)])
    .where('comments.status', '=', 'open')
    .groupBy('comments.change_request_id')
    .execute();
  for (const row of rows) if (row.change_request_id) counts.set(row.change_request_id, Number(row.n));
  return counts;
}
