/**
 * Change requests: a branch `refs/heads/change-requests/<number>` from main plus a row (number, subject, status,
 * author, revisions). A merge is git's merge-tree, and main moves by compare-and-swap.
 */
import type { Context, Caller } from '../context.js';
import { Conflict, InvalidArgument, NotFound, PermissionDenied } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { collectPage, type Page, type PageRequest } from '../lists.js';
import { requireSpacePermission, type OrgAccess, type Role } from '../permissions.js';
import { loadSpace } from '../content/spaces.js';
import { loadRevision, readContent, type ContentTarget } from '../content/revisions.js';
import { renderPdf } from '../../content/pdf.js';
import { recordMainMoved } from '../content/main-moved.js';
import { MANIFEST_PATH, mergeManifestFile, mergePageFile } from '../../content/merge.js';
import {
  findChangeRequest,
  insertChangeRequest,
  listChangeRequests as listChangeRequestRows,
  nextChangeRequestNumber,
  updateChangeRequestRow,
  type ChangeRequestRow,
} from '../../store/sql/change-requests.js';
import { findUsersByIds, type UserRow } from '../../store/sql/users.js';
import { isUniqueViolation } from '../../store/sql/errors.js';
import { openChangeRequestCommentCounts } from '../../store/sql/comments.js';
import type { SpaceRow } from '../../store/sql/spaces.js';
import { branchOf, MAIN_REF } from '../content/refs.js';
import { mergeBlockers, type EffectiveMergeRules } from './mergeability.js';
import type { BlockingRule } from './merge-rules.js';
import { queueGitSyncOfChangeRequest } from '../git-sync/change-request-moved.js';

export const CHANGE_REQUEST_STATUSES = ['draft', 'open', 'archived', 'merged'] as const;
export type ChangeRequestStatus = (typeof CHANGE_REQUEST_STATUSES)[number];


export interface ChangeRequestView {
  changeRequest: ChangeRequestRow;
  createdBy: UserRow | undefined;
  /** The branch head: the change request's active revision. */
  revision: string;
  /** Main has commits the branch does not contain. */
  outdated: boolean;
  /** Open comments on the change request. */
  comments: number;
}

export interface LoadedChangeRequest {
  space: SpaceRow;
  access: OrgAccess;
  role: Role | null;
  changeRequest: ChangeRequestRow;
}

/** The space (read permission) and one of its change requests by id or number; 404 otherwise. */
export async function loadChangeRequest(ctx: Context, caller: Caller, spaceId: string, idOrNumber: string): Promise<LoadedChangeRequest> {
  const { space, access, role } = await loadSpace(ctx, caller, spaceId);
  const changeRequest = await findChangeRequest(ctx.db, spaceId, idOrNumber);
  if (!changeRequest) throw new NotFound(`changeRequestId: no change request "${idOrNumber}" in this space`);
  return { space, access, role, changeRequest };
}

async function isOutdated(ctx: Context, spaceId: string, main: string | undefined, head: string): Promise<boolean> {
  if (!main || main === head) return false;
  // Whether main is contained in a branch head is a fact about two commits: asked of git once per pair.
  return !(await ctx.revisions.contains(`${spaceId}:${main}:${head}`, () => ctx.git.isAncestor(spaceId, main, head)));
}

/** Views of change requests of one space (their branch heads, authors, whether main moved on). */
export async function changeRequestViews(ctx: Context, spaceId: string, rows: ChangeRequestRow[]): Promise<ChangeRequestView[]> {
  const users = new Map((await findUsersByIds(ctx.db, [...new Set(rows.map((r) => r.created_by).filter((id): id is string => !!id))])).map((u) => [u.id, u]));
  const main = await ctx.reader.resolveRef(spaceId, MAIN_REF);
  const comments = await openChangeRequestCommentCounts(ctx.db, rows.map((r) => r.id));
  return Promise.all(
    rows.map(async (changeRequest) => {
      // A merged change request's branch stays where it was merged from.
      const revision = (await ctx.reader.resolveRef(spaceId, branchOf(changeRequest.number))) ?? changeRequest.revision_initial;
      const outdated = changeRequest.status === 'merged' ? false : await isOutdated(ctx, spaceId, main, revision);
      return { changeRequest, createdBy: changeRequest.created_by ? users.get(changeRequest.created_by) : undefined, revision, outdated, comments: comments.get(changeRequest.id) ?? 0 };
    }),
  );
}

async function viewOf(ctx: Context, spaceId: string, row: ChangeRequestRow): Promise<ChangeRequestView> {
  return (await changeRequestViews(ctx, spaceId, [row]))[0];
}

/**
 * Opens a change request: the next number of the space and its branch from main's current head. Needs edit; a
 * locked space takes no change requests.
 */
export async function createChangeRequest(ctx: Context, caller: Caller, spaceId: string, input: { subject?: string }): Promise<ChangeRequestView> {
  const { space, role } = await loadSpace(ctx, caller, spaceId);
  requireSpacePermission(role, spaceId, 'edit', 'open a change request');
  if (space.edit_mode === 'locked') throw new PermissionDenied(`spaceId: space "${spaceId}" is locked: it takes no change requests`);
  const main = await ctx.reader.resolveRef(spaceId, MAIN_REF);
  if (!main) throw new Conflict(`spaceId: space "${spaceId}" has no main branch`);
  const row = await openChangeRequest(ctx, spaceId, { subject: input.subject ?? '', createdBy: caller.user.id, initial: main, head: main });
  return viewOf(ctx, spaceId, row);
}

/**
 * Opens a change request whose branch points at `head` (main's head for a new one; other commits when they come from
 * elsewhere, such as a git host's commits that conflict with main). No permission check: the caller's.
 */
export async function openChangeRequest(
  ctx: Context,
  spaceId: string,
  input: { subject: string; createdBy: string | null; initial: string; head: string },
): Promise<ChangeRequestRow> {
  for (let attempt = 0; ; attempt++) {
    const now = nowIso();
    const row: ChangeRequestRow = {
      id: newId(),
      space_id: spaceId,
      number: await nextChangeRequestNumber(ctx.db, spaceId),
      subject: input.subject,
      status: 'open',
      created_by: input.createdBy,
      revision_initial: input.initial,
      revision_merged_ancestor: null,
      revision_merged: null,
      created_at: now,
      updated_at: now,
    };
    try {
      await insertChangeRequest(ctx.db, row);
    } catch (error) {
      // Another change request took this number first: take the next one.
      if (isUniqueViolation(error) && attempt < 20) continue;
      throw error;
    }
    // The number is this request's alone (unique in SQL), so its branch has no other writer; anything already
    // there (pushed before the change request existed) is replaced.
    await ctx.git.setRef(spaceId, branchOf(row.number), input.head);
    return row;
  }
}

export async function getChangeRequest(ctx: Context, caller: Caller, spaceId: string, idOrNumber: string): Promise<ChangeRequestView> {
  const { changeRequest } = await loadChangeRequest(ctx, caller, spaceId, idOrNumber);
  return viewOf(ctx, spaceId, changeRequest);
}

/** Change requests with a status (default open), optionally only those a user created; newest first. */
export async function listChangeRequests(
  ctx: Context,
  caller: Caller,
  spaceId: string,
  request: PageRequest & { status?: ChangeRequestStatus; contributor?: string },
): Promise<Page<ChangeRequestView>> {
  await loadSpace(ctx, caller, spaceId);
  const filter = { status: request.status ?? 'open', contributor: request.contributor };
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `change-requests:${spaceId}:${JSON.stringify(filter)}`,
    request,
    fetch: (after, n) => listChangeRequestRows(ctx.db, spaceId, filter, after, n),
    positionOf: (row) => [row.number],
    present: (row) => row,
  });
  return { items: await changeRequestViews(ctx, spaceId, page.items), next: page.next };
}

/**
 * Changes the subject or the status (draft, open, archived). Needs edit. A merged change request keeps its
 * status: 409.
 */
export async function updateChangeRequest(
  ctx: Context,
  caller: Caller,
  spaceId: string,
  idOrNumber: string,
  patch: { subject?: string; status?: 'draft' | 'open' | 'archived' },
): Promise<ChangeRequestView> {
  const { role, changeRequest } = await loadChangeRequest(ctx, caller, spaceId, idOrNumber);
  requireSpacePermission(role, spaceId, 'edit', 'change a change request');
  if (patch.status !== undefined && changeRequest.status === 'merged') {
    throw new Conflict(`status: change request ${changeRequest.number} is merged; its status cannot change`);
  }
  const changes: Partial<ChangeRequestRow> = { updated_at: nowIso() };
  if (patch.subject !== undefined) changes.subject = patch.subject;
  if (patch.status !== undefined) changes.status = patch.status;
  await updateChangeRequestRow(ctx.db, changeRequest.id, changes);
  ctx.events.publish({ spaceId, changeRequestId: changeRequest.id, kind: 'change-request', action: 'updated' });
  if (patch.status !== undefined && patch.status !== changeRequest.status) await queueGitSyncOfChangeRequest(ctx, spaceId, changeRequest.id, patch.status);
  return viewOf(ctx, spaceId, { ...changeRequest, ...changes });
}

/** The content of a change request: its branch, read like main (read permission on the space). */
export async function readChangeRequestContent(ctx: Context, caller: Caller, spaceId: string, idOrNumber: string): Promise<ContentTarget> {
  const { changeRequest } = await loadChangeRequest(ctx, caller, spaceId, idOrNumber);
  return readContent(ctx, caller, spaceId, branchOf(changeRequest.number));
}

export interface MergeResult {
  /** The new head (merge or update), or the unchanged target's oid when there are conflicts. */
  revision: string;
  result: 'merge' | 'update' | 'conflicts';
  conflicts?: Array<{ path: string }>;
}

const MAX_ATTEMPTS = 8;

function requireMergeable(changeRequest: ChangeRequestRow, action: string): void {
  if (changeRequest.status === 'merged' || changeRequest.status === 'archived') {
    throw new Conflict(`changeRequestId: change request ${changeRequest.number} is ${changeRequest.status}; it cannot be ${action}`);
  }
}

/**
 * Files git could not merge line by line but Quire can by structure: SUMMARY.md (both sides' new items are kept,
 * ours first) and markdown pages (front matter key by key, the body as text). Any file still conflicting after
 * that is a genuine conflict; the tree is only returned clean when none is left.
 */
async function resolveByStructure(
  ctx: Context,
  spaceId: string,
  ours: string,
  theirs: string,
  merged: { tree: string; conflicts: string[] },
): Promise<{ tree: string; conflicts: string[] }> {
  const base = await ctx.git.mergeBase(spaceId, ours, theirs);
  if (!base) return merged;
  const text = async (commit: string, file: string) => (await ctx.reader.readObject(spaceId, `${commit}:${file}`))?.data.toString('utf8');
  const resolved = new Map<string, string>();
  const remaining: string[] = [];
  for (const file of merged.conflicts) {
    const [b, o, t] = await Promise.all([text(base, file), text(ours, file), text(theirs, file)]);
    // The manifest of a space whose content is in a project directory (monorepos) is under that directory.
    const manifest = file === MANIFEST_PATH || file.endsWith(`/${MANIFEST_PATH}`);
    if (b === undefined || o === undefined || t === undefined || !(file.endsWith('.md') || manifest)) {
      remaining.push(file);
      continue;
    }
    const result =
      manifest
        ? mergeManifestFile(b, o, t)
        : /(^|\/)SUMMARY\.md$/.test(file)
          ? await ctx.git.mergeText(b, o, t, { union: true })
          : await mergePageFile(b, o, t, file, (x, y, z) => ctx.git.mergeText(x, y, z));
    if (result.clean) resolved.set(file, result.text);
    else remaining.push(file);
  }
  if (remaining.length > 0) return { tree: merged.tree, conflicts: remaining };
  return { tree: await ctx.git.replaceInTree(spaceId, merged.tree, resolved), conflicts: [] };
}

/**
 * Merges `theirs` into the commit `ref` points at and moves `ref` by compare-and-swap, retrying when another
 * writer moved it first. No working tree: `git merge-tree --write-tree`, then a commit with both parents. On a
 * conflict nothing moves.
 */
export async function mergeInto(
  ctx: Context,
  spaceId: string,
  ref: string,
  theirsRef: string,
  message: string,
  author: { name: string; email: string },
): Promise<{ moved: boolean; head: string; theirs: string; conflicts: string[] }> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const [head, theirs] = await Promise.all([ctx.reader.resolveRef(spaceId, ref), ctx.reader.resolveRef(spaceId, theirsRef)]);
    if (!head || !theirs) throw new Conflict(`changeRequestId: ${!head ? ref : theirsRef} does not exist`);
    if (await ctx.git.isAncestor(spaceId, theirs, head)) return { moved: false, head, theirs, conflicts: [] };
    const merged = await ctx.git.mergeTree(spaceId, head, theirs);
    const { tree, conflicts } = merged.conflicts.length > 0 ? await resolveByStructure(ctx, spaceId, head, theirs, merged) : merged;
    if (conflicts.length > 0) return { moved: false, head, theirs, conflicts };
    const commit = await ctx.git.commitTree(spaceId, tree, [head, theirs], message, author);
    if (await ctx.git.compareAndSwapRef(spaceId, ref, commit, head)) return { moved: true, head: commit, theirs, conflicts: [] };
  }
  throw new Conflict(`${ref}: it kept moving while merging; try again`, { ref });
}

/**
 * Merges a change request into main: needs the merge permission; a merged or archived change request
 * answers 409; a locked space refuses. A genuine conflict changes nothing and names the files.
 */
export async function mergeChangeRequest(ctx: Context, caller: Caller, spaceId: string, idOrNumber: string): Promise<MergeResult> {
  const { space, role, changeRequest } = await loadChangeRequest(ctx, caller, spaceId, idOrNumber);
  requireSpacePermission(role, spaceId, 'merge', 'merge change requests');
  requireMergeable(changeRequest, 'merged');
  if (space.edit_mode === 'locked') throw new PermissionDenied(`spaceId: space "${spaceId}" is locked: nothing can be merged into it`);
  // The merge rules, before any git work: a blocked merge writes nothing.
  const { blocking } = await mergeBlockers(ctx, space, changeRequest);
  if (blocking.length > 0) {
    const [first] = blocking;
    throw new Conflict(`${first.rule}: ${first.message}`, { rule: first.rule, blocking: blocking.map((b) => b.rule), ...first.data });
  }
  const subject = changeRequest.subject ? `: ${changeRequest.subject}` : '';
  const outcome = await mergeInto(ctx, spaceId, MAIN_REF, branchOf(changeRequest.number), `Merge change request #${changeRequest.number}${subject}`, {
    name: caller.user.display_name,
    email: caller.user.email,
  });
  if (outcome.conflicts.length > 0) {
    return { revision: outcome.head, result: 'conflicts', conflicts: outcome.conflicts.map((path) => ({ path })) };
  }
  const now = nowIso();
  await updateChangeRequestRow(ctx.db, changeRequest.id, { status: 'merged', revision_merged: outcome.head, updated_at: now });
  await recordMainMoved(ctx, spaceId);
  ctx.events.publish({ spaceId, changeRequestId: changeRequest.id, kind: 'change-request', action: 'merged' });
  return { revision: outcome.head, result: 'merge' };
}

export interface Mergeability {
  mergeable: boolean;
  /** The rules that block the merge now, in the order they are checked. */
  blocking: BlockingRule[];
  rules: EffectiveMergeRules;
}

/** Whether the space's merge rules let the change request be merged now, and what blocks it (read on the space). */
export async function getChangeRequestMergeability(ctx: Context, caller: Caller, spaceId: string, idOrNumber: string): Promise<Mergeability> {
  const { space, changeRequest } = await loadChangeRequest(ctx, caller, spaceId, idOrNumber);
  const { rules, blocking } = await mergeBlockers(ctx, space, changeRequest);
  return { mergeable: blocking.length === 0, blocking, rules };
}

/**
 * Brings main's changes into a change request: merges main into its branch; records main's head as
 * `revisionMergedAncestor`. Needs edit. A conflict changes nothing and names the files.
 */
export async function updateChangeRequestFromMain(ctx: Context, caller: Caller, spaceId: string, idOrNumber: string): Promise<MergeResult> {
  const { role, changeRequest } = await loadChangeRequest(ctx, caller, spaceId, idOrNumber);
  requireSpacePermission(role, spaceId, 'edit', 'update change requests');
  requireMergeable(changeRequest, 'updated');
  const outcome = await mergeInto(ctx, spaceId, branchOf(changeRequest.number), MAIN_REF, `Update change request #${changeRequest.number} from main`, {
    name: caller.user.display_name,
    email: caller.user.email,
  });
  if (outcome.conflicts.length > 0) {
    return { revision: outcome.head, result: 'conflicts', conflicts: outcome.conflicts.map((path) => ({ path })) };
  }
  await updateChangeRequestRow(ctx.db, changeRequest.id, { revision_merged_ancestor: outcome.theirs, updated_at: nowIso() });
  ctx.events.publish({ spaceId, changeRequestId: changeRequest.id, kind: 'change-request', action: 'updated-from-main' });
  await queueGitSyncOfChangeRequest(ctx, spaceId, changeRequest.id, outcome.head);
  return { revision: outcome.head, result: 'update' };
}

/** How long a change-request PDF link works. */
export const PDF_LINK_MS = 60 * 60 * 1000;

/**
 * A signed link to a PDF of the change request's content: all its pages, or with `only` and `page` that one
 * page. Read permission; an unknown page is a 400 naming `page`. The link expires after an hour.
 */
export async function changeRequestPdfLink(
  ctx: Context,
  caller: Caller,
  spaceId: string,
  idOrNumber: string,
  options: { only?: boolean; page?: string },
): Promise<{ token: string; expiresAt: number }> {
  const { changeRequest } = await loadChangeRequest(ctx, caller, spaceId, idOrNumber);
  const { content } = await readContent(ctx, caller, spaceId, branchOf(changeRequest.number));
  if (options.page !== undefined && !content.pagesById.has(options.page)) {
    throw new InvalidArgument(`page: no page "${options.page}" in change request ${changeRequest.number}`);
  }
  if (options.only && options.page === undefined) throw new InvalidArgument('page: is required when only is true');
  const expiresAt = Date.now() + PDF_LINK_MS;
  const token = ctx.downloadLinks.create(
    { kind: 'change-request-pdf', space: spaceId, number: changeRequest.number, revision: content.revision.commit.oid, page: options.only ? options.page : undefined },
    expiresAt,
  );
  return { token, expiresAt };
}

/** The PDF a signed link names: the revision it was made for (so the file does not change under the link). */
export async function changeRequestPdf(ctx: Context, token: string): Promise<{ pdf: Buffer; fileName: string }> {
  const data = ctx.downloadLinks.open(token);
  if (data.kind !== 'change-request-pdf') throw new NotFound('token: this link is not valid');
  const spaceId = String(data.space);
  const content = await loadRevision(ctx, spaceId, String(data.revision));
  const pages = data.page ? [content.pagesById.get(String(data.page))].filter((p) => p !== undefined) : content.revision.pages;
  const pdf = await renderPdf(pages, { title: `Change request #${data.number}` });
  return { pdf, fileName: `change-request-${data.number}.pdf` };
}
