/**
 * `quire migrate`'s comments step, run by the spaces step for a space and each of its copied change requests:
 * comments, their replies and reactions, with the source's authors and dates; a later run follows their bodies and
 * statuses and adds new replies. Apart: comments are rows, never content.
 */
import { newId, nowIso } from '../ids.js';
import { branchOf, MAIN_REF } from '../content/refs.js';
import { fingerprintOf, type MigrationRun } from './migration-run.js';
import type { SourceComment, SourceReaction, SourceReply } from './source-resources.js';
import { findChangeRequest } from '../../store/sql/change-requests.js';
import { addReactions, insertComment, insertReply, updateCommentRow, updateReplyRow } from '../../store/sql/comments.js';

export async function copyComments(run: MigrationRun, spaceId: string, id: string, changeRequest: { source: string; target: string } | undefined): Promise<void> {
  const where = changeRequest ? `change request ${changeRequest.source} of space ${spaceId}` : `space ${spaceId}`;
  const comments = await run.copyOrSkip('comments', changeRequest?.source ?? spaceId, () =>
    run.source.list<SourceComment>(`comments of ${where}`, (c, p) =>
      changeRequest
        ? c.spaces.listCommentsInChangeRequest(spaceId, changeRequest.source, { ...p, format: 'markdown', status: 'all' })
        : c.spaces.listCommentsInSpace(spaceId, { ...p, format: 'markdown', status: 'all' }),
    ),
  );
  const head = await run.ctx.reader.resolveRef(id, changeRequest ? branchOf((await findChangeRequest(run.ctx.db, id, changeRequest.target))!.number) : MAIN_REF);
  for (const comment of [...(comments ?? [])].reverse()) {
    await run.copyOrSkip('comment', comment.id, async () => {
      const fingerprint = fingerprintOf({ body: comment.body, status: comment.status, editedAt: comment.editedAt ?? null, replies: comment.replies ?? 0, reactions: comment.reactions ?? [] });
      const existing = await run.mapped('comment', comment.id);
      if (existing?.fingerprint === fingerprint) return;
      const fields = {
        body: JSON.stringify({ markdown: comment.body?.markdown ?? '' }),
        status: comment.status === 'resolved' ? 'resolved' : 'open',
        resolved_at: comment.status === 'resolved' ? (comment.resolvedAt ?? nowIso()) : null,
        resolved_by: comment.status === 'resolved' ? await run.authorId(comment.resolvedBy) : null,
        edited_at: comment.editedAt ?? null,
      };
      let commentId = existing?.target_id;
      if (commentId) await updateCommentRow(run.ctx.db, commentId, fields);
      else {
        commentId = newId();
        await insertComment(run.ctx.db, {
          id: commentId,
          space_id: id,
          change_request_id: changeRequest?.target ?? null,
          posted_by: await run.authorId(comment.postedBy),
          target_revision: head ?? '',
          target_page: comment.target?.page?.id ?? null,
          target_node: comment.target?.node?.id ?? null,
          posted_at: comment.postedAt ?? nowIso(),
          ...fields,
        });
        await run.remember('comment', comment.id, commentId, null);
        run.count('comments');
      }
      await copyReactions(run, { commentId }, comment.reactions);
      if ((comment.replies ?? 0) > 0) await copyReplies(run, spaceId, changeRequest?.source, comment.id, commentId);
      await run.remember('comment', comment.id, commentId, fingerprint);
    });
  }
}

async function copyReplies(run: MigrationRun, spaceId: string, changeRequestId: string | undefined, sourceCommentId: string, commentId: string): Promise<void> {
  const replies = await run.source.list<SourceReply>(`replies of comment ${sourceCommentId}`, (c, p) =>
    changeRequestId
      ? c.spaces.listCommentRepliesInChangeRequest(spaceId, changeRequestId, sourceCommentId, { ...p, format: 'markdown' })
      : c.spaces.listCommentRepliesInSpace(spaceId, sourceCommentId, { ...p, format: 'markdown' }),
  );
  for (const reply of replies) {
    await run.copyOrSkip('reply', reply.id, async () => {
      const fingerprint = fingerprintOf({ body: reply.body, editedAt: reply.editedAt ?? null, reactions: reply.reactions ?? [] });
      const existing = await run.mapped('reply', reply.id);
      if (existing?.fingerprint === fingerprint) return;
      const body = JSON.stringify({ markdown: reply.body?.markdown ?? '' });
      let replyId = existing?.target_id;
      if (replyId) await updateReplyRow(run.ctx.db, replyId, { body, edited_at: reply.editedAt ?? null });
      else {
        replyId = newId();
        await insertReply(run.ctx.db, { id: replyId, comment_id: commentId, posted_by: await run.authorId(reply.postedBy), body, posted_at: reply.postedAt ?? nowIso(), edited_at: reply.editedAt ?? null });
        run.count('replies');
      }
      await copyReactions(run, { replyId }, reply.reactions);
      await run.remember('reply', reply.id, replyId, fingerprint);
    });
  }
}

async function copyReactions(run: MigrationRun, target: { commentId: string } | { replyId: string }, reactions: SourceReaction[] | undefined): Promise<void> {
  for (const reaction of reactions ?? []) {
    for (const { user, reactedAt } of reaction.users ?? []) {
      const here = await run.userOf(user);
      if (here) await addReactions(run.ctx.db, target, here.id, [reaction.emoji], reactedAt ?? nowIso());
    }
  }
}
