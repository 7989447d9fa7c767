/**
 * A true conflict between the host's branch and the space's main (both changed the same lines) changes neither side:
 * the host's commits are parked in a change request of the space, whose branch holds them as they are, for people
 * to resolve there (update it from main, fix the lines, merge it). Once it is merged, main holds the host's commits
 * and the next run pushes the merge to the host; closed, the next run parks the host's commits again.
 *
 * The change request is opened in the name of whoever connected the space. One change request per conflict: while it is open, later runs move its branch forward to the host's newer commits,
 * unless someone has pushed to it since (a resolution in progress), which is never replaced.
 */
import type { Context } from '../context.js';
import { branchOf } from '../content/refs.js';
import { openChangeRequest } from '../change-requests/change-requests.js';
import { findChangeRequest, type ChangeRequestRow } from '../../store/sql/change-requests.js';
import type { GitSyncConnectionRow } from '../../store/sql/git-sync.js';

const OPEN = new Set(['open', 'draft']);

/** The change request holding the host's conflicting commits: the connection's open one, moved forward, or a new one. */
export async function parkConflict(ctx: Context, row: GitSyncConnectionRow, remoteCommit: string, main: string): Promise<ChangeRequestRow> {
  const spaceId = row.space_id;
  const existing = row.change_request_id === null ? undefined : await findChangeRequest(ctx.db, spaceId, row.change_request_id);
  if (existing && OPEN.has(existing.status)) {
    const branch = branchOf(existing.number);
    const head = await ctx.reader.resolveRef(spaceId, branch);
    if (head !== undefined && head !== remoteCommit && (await ctx.git.isAncestor(spaceId, head, remoteCommit))) {
      await ctx.git.compareAndSwapRef(spaceId, branch, remoteCommit, head);
    }
    return existing;
  }
  const branchName = row.ref.replace(/^refs\/heads\//, '');
  return openChangeRequest(ctx, spaceId, { subject: `Changes on ${branchName} of ${row.url} that conflict with main (Git Sync)`, createdBy: row.connected_by, initial: main, head: remoteCommit });
}
