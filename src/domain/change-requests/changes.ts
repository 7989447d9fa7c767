/**
 * What a change request changes: its pages added, changed, moved and removed, and the text of the change as
 * `git diff` shows it, from where its branch and main part (the merge base) to its head. A merged change request is
 * compared with main as it was before its merge. Read permission on the space.
 */
import type { Caller, Context } from '../context.js';
import { loadChangeRequest } from './change-requests.js';
import { projectDirectoryOf } from '../content/spaces.js';
import { loadRevision } from '../content/revisions.js';
import { branchOf, MAIN_REF } from '../content/refs.js';
import { documentPages } from '../../content/links.js';
import type { DocumentPage } from '../../content/model.js';

export interface PageChange {
  change: 'added' | 'changed' | 'moved' | 'removed';
  id: string;
  title: string;
  /** The page's path at the head (at the base for a removed page). */
  path: string;
  /** Where a moved page was. */
  previousPath?: string;
}

export interface ChangeRequestChanges {
  /** The commit compared from (where the branch left main) and the branch head. */
  base: string;
  head: string;
  pages: PageChange[];
  /** `git diff` from base to head over the space's content, at most `maxDiffBytes` of it. */
  diff: string;
  diffTruncated: boolean;
}

/** The pages of `head` that differ from `base` (by id), in head's order, then those `base` had and head has not. */
function pageChanges(base: DocumentPage[], head: DocumentPage[]): PageChange[] {
  const before = new Map(base.map((page) => [page.id, page]));
  const changes: PageChange[] = [];
  for (const page of head) {
    const was = before.get(page.id);
    const summary = { id: page.id, title: page.title, path: page.path };
    if (!was) changes.push({ change: 'added', ...summary });
    else if (was.blobOid !== page.blobOid || was.title !== page.title) changes.push({ change: 'changed', ...summary, ...(was.path !== page.path ? { previousPath: was.path } : {}) });
    else if (was.path !== page.path) changes.push({ change: 'moved', ...summary, previousPath: was.path });
  }
  const kept = new Set(head.map((page) => page.id));
  for (const page of base) if (!kept.has(page.id)) changes.push({ change: 'removed', id: page.id, title: page.title, path: page.path });
  return changes;
}

export async function changeRequestChanges(ctx: Context, caller: Caller, spaceId: string, idOrNumber: string, options: { maxDiffBytes: number }): Promise<ChangeRequestChanges> {
  const { changeRequest } = await loadChangeRequest(ctx, caller, spaceId, idOrNumber);
  // A merged change request's branch stays where it was merged from.
  const head = (await ctx.reader.resolveRef(spaceId, branchOf(changeRequest.number))) ?? changeRequest.revision_initial;
  const mergedInto = changeRequest.status === 'merged' && changeRequest.revision_merged ? (await ctx.reader.readCommit(spaceId, changeRequest.revision_merged))?.parents[0] : undefined;
  const main = mergedInto ?? (await ctx.reader.resolveRef(spaceId, MAIN_REF));
  const base = (main && (await ctx.git.mergeBase(spaceId, head, main))) || changeRequest.revision_initial;
  const [before, after, diff] = await Promise.all([
    loadRevision(ctx, spaceId, base),
    loadRevision(ctx, spaceId, head),
    projectDirectoryOf(ctx, spaceId).then((directory) => ctx.git.diffText(spaceId, base, head, directory, options.maxDiffBytes)),
  ]);
  return {
    base,
    head,
    pages: pageChanges(documentPages(before.revision.pages), documentPages(after.revision.pages)),
    diff: diff.text,
    diffTruncated: diff.truncated,
  };
}
