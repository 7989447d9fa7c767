/**
 * Change requests whose work reached main some other way than their merge through Quire: their branch merged with
 * git and main pushed, a Git Sync run bringing a host's main where the pull request was merged, an import. As Gitea
 * does for pull requests merged by hand, such a change request is marked merged once main contains its branch's head.
 */
import type { Context } from '../context.js';
import { nowIso } from '../ids.js';
import { branchOf, MAIN_REF } from '../content/refs.js';
import { liveChangeRequests, markChangeRequestMerged, type ChangeRequestRow } from '../../store/sql/change-requests.js';

/** Where every change request's branch lives (the prefix of `branchOf`). */
const CHANGE_REQUEST_BRANCHES = 'refs/heads/change-requests/';

/** What a change request's row says of its branch: its status and the commits of main it was based on. */
export type ChangeRequestFacts = Pick<ChangeRequestRow, 'status' | 'revision_initial' | 'revision_merged_ancestor'>;

/**
 * The commits of main a change request's branch was based on: main when it was opened, and main when it was last
 * updated from main. A head that is one of these, or that one of them contains, has no commit of its own.
 */
export function basesOf(row: ChangeRequestFacts): string[] {
  return [row.revision_initial, ...(row.revision_merged_ancestor ? [row.revision_merged_ancestor] : [])];
}

/**
 * Whether git must still be asked if the head is reachable from one of the bases: the change request is still in
 * progress (draft or open; merged and archived ones keep their status), main contains its head, and the head is
 * not itself a base (a change request just opened, or never written to).
 */
export function needsBaseCheck(row: ChangeRequestFacts, head: string | undefined, inMain: boolean): head is string {
  return (row.status === 'open' || row.status === 'draft') && head !== undefined && inMain && !basesOf(row).includes(head);
}

/**
 * The rule: a change request in progress is merged into main when main contains its branch's head and that head
 * has commits of its own, that is, none of its bases contains it. Only reachability counts: commits cherry-picked
 * into main (other oids) leave it open. The rule reads the state as it is now, not how main got there, so the
 * next move of main, or the catch-up at start, reaches the decision a failed attempt did not record.
 */
export function isMergedIntoMain(row: ChangeRequestFacts, facts: { head: string | undefined; inMain: boolean; inBase: boolean }): boolean {
  return needsBaseCheck(row, facts.head, facts.inMain) && !facts.inBase;
}

/**
 * Marks merged, at main's current commit, every change request of the space in progress whose branch main now
 * contains (isMergedIntoMain), each by compare-and-swap on its row (a merge or close made meanwhile is kept), and
 * tells its readers as the API's merge does. One git process for all the branches; the base check only for those
 * main contains. Returns the change requests marked.
 */
export async function markChangeRequestsMergedIntoMain(ctx: Context, spaceId: string): Promise<ChangeRequestRow[]> {
  const rows = await liveChangeRequests(ctx.db, spaceId);
  if (rows.length === 0) return [];
  const main = await ctx.reader.resolveRef(spaceId, MAIN_REF);
  if (!main) return [];
  const contained = await ctx.git.branchesContainedIn(spaceId, main, CHANGE_REQUEST_BRANCHES);
  const marked: ChangeRequestRow[] = [];
  for (const row of rows) {
    const branch = branchOf(row.number);
    const head = contained.get(branch);
    if (!needsBaseCheck(row, head, contained.has(branch))) continue;
    let inBase = false;
    for (const base of basesOf(row)) inBase ||= await ctx.git.isAncestor(spaceId, head, base);
    if (!isMergedIntoMain(row, { head, inMain: true, inBase })) continue;
    const now = nowIso();
    if (!(await markChangeRequestMerged(ctx.db, row.id, main, now))) continue;
    ctx.log.info({ space: spaceId, changeRequest: row.number, head, revision: main }, 'change request merged into main outside Quire: marked merged');
    ctx.events.publish({ spaceId, changeRequestId: row.id, kind: 'change-request', action: 'merged' });
    marked.push({ ...row, status: 'merged', revision_merged: main, updated_at: now });
  }
  return marked;
}
