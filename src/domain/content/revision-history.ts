/**
 * A space's revision history (GET /v1/spaces/{spaceId}/revisions, a Quire extension): main's commits, newest first,
 * in the order `git log` walks them (the full history, both sides of merges, by commit date), a page at a time, each
 * page ONE `git log` of at most `limit + 1` commits (src/store/git/log.ts).
 *
 * Paging: a page token holds the commit the listing started from (main's head when its first page was read) and how
 * many commits of that walk were answered before it, signed with the list's scope (src/domain/lists.ts). A commit's
 * history never changes, so every page of one listing comes from the same walk: no commit is answered twice or left
 * out, whatever was pushed meanwhile (a new listing shows the new commits). The next commit alone would not do:
 * restarting a walk there drops the commits of other branches that the first walk interleaved by date after it.
 *
 * With `pageId`: the commits that changed the page's file, as `git log -- PATH` finds them (git's default history
 * simplification), PATH the page's file in main's revision; where the oldest of them created the file by renaming
 * another, as git's rename detection against its first parent finds it (the rule the history facts follow to keep a
 * page's id, ./history.ts), the listing goes on with the commits of that file before the rename, and so on back. Each
 * rename followed costs one `git diff-tree` of the renaming commit. The page token then holds the file's path at
 * that point of the history too.
 */
import type { Context, Caller } from '../context.js';
import { InvalidArgument, NotFound } from '../errors.js';
import type { Page as ListPage } from '../lists.js';
import { loadSpace, resolveSpaceRef } from './spaces.js';
import { findPage, loadRevision } from './revisions.js';
import { MAIN_REF } from './refs.js';
import { logCommits, type LoggedCommit } from '../../store/git/log.js';
import { commitChanges } from '../../store/git/changes.js';
import { QUIRE_SIGNATURE } from '../../store/git/repositories.js';
import { changeRequestsMergedAt } from '../../store/sql/change-requests.js';

export const DEFAULT_HISTORY_LIMIT = 20;
export const MAX_HISTORY_LIMIT = 100;

export interface RevisionHistoryRequest {
  page?: string;
  limit?: number;
  /** Only the commits that changed this page (of main's revision). */
  pageId?: string;
}

export interface RevisionSummary {
  commit: LoggedCommit;
  /** The change request this commit merged, when it is Quire's merge of one. */
  changeRequest?: { id: string; number: number };
}

/** Where a page of the listing starts: the walk from `tip`, past `skip` commits, limited to `path` if any. */
interface Position {
  tip: string;
  skip: number;
  path: string | null;
}

const OID = /^[0-9a-f]{40}$/;

/** The subject of Quire's merge of a change request (mergeChangeRequest): `Merge change request #N` or `...#N: subject`. */
const MERGE_SUBJECT = /^Merge change request #(\d+)(?::|$)/;

function positionOf(raw: unknown[] | null): Position {
  const [tip, skip, path] = raw ?? [];
  if (
    raw?.length !== 3 ||
    typeof tip !== 'string' ||
    !OID.test(tip) ||
    typeof skip !== 'number' ||
    !Number.isSafeInteger(skip) ||
    skip < 0 ||
    (path !== null && (typeof path !== 'string' || path === ''))
  ) {
    throw new InvalidArgument('page: is not a valid page token for this list');
  }
  return { tip, skip, path };
}

/** Main's history, newest first, a page at a time (see the top of this file). Read permission; 404 otherwise. */
export async function listSpaceRevisions(ctx: Context, caller: Caller, spaceId: string, request: RevisionHistoryRequest): Promise<ListPage<RevisionSummary>> {
  const { space } = await loadSpace(ctx, caller, spaceId);
  const limit = request.limit ?? DEFAULT_HISTORY_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_HISTORY_LIMIT) {
    throw new InvalidArgument(`limit: must be a whole number from 1 to ${MAX_HISTORY_LIMIT}`);
  }
  const follow = request.pageId !== undefined;
  const scope = `revisions:${spaceId}:${request.pageId ?? ''}`;
  let start: Position;
  if (request.page !== undefined) {
    start = positionOf(ctx.cursors.decode(scope, request.page));
    if (!(await ctx.reader.readCommit(spaceId, start.tip))) throw new InvalidArgument('page: the history this page token lists is gone from the space');
  } else {
    const main = await resolveSpaceRef(ctx, spaceId, MAIN_REF);
    const directory = space.project_directory ?? '';
    if (request.pageId !== undefined) {
      if (!main) throw new NotFound(`pageId: no page "${request.pageId}" in this revision`);
      const page = findPage(await loadRevision(ctx, spaceId, main), request.pageId);
      if (!('gitPath' in page)) throw new InvalidArgument(`pageId: page "${request.pageId}" is a ${page.type} page: it has no file of its own to list the history of`);
      start = { tip: main, skip: 0, path: directory + page.gitPath };
    } else {
      if (!main) return { items: [] };
      // A space whose content is a folder of its repository (monorepos) shows the commits that change that folder.
      start = { tip: main, skip: 0, path: directory === '' ? null : directory };
    }
  }

  const found: Array<{ commit: LoggedCommit; position: Position }> = [];
  for (let at: Position | undefined = start; at && found.length <= limit; ) {
    const want = limit + 1 - found.length;
    const commits = await logCommits(ctx.git, spaceId, { from: at.tip, skip: at.skip, maxCount: want, path: at.path ?? undefined });
    const segment: Position = at;
    commits.forEach((commit, i) => found.push({ commit, position: { ...segment, skip: segment.skip + i } }));
    at = follow && commits.length < want && commits.length > 0 ? await beforeRename(ctx, spaceId, commits[commits.length - 1], segment.path!) : undefined;
  }

  const shown = found.slice(0, limit);
  const merges = await mergedChangeRequests(ctx, spaceId, shown.map(({ commit }) => commit));
  const items = shown.map(({ commit }) => {
    const changeRequest = merges.get(commit.oid);
    return changeRequest ? { commit, changeRequest } : { commit };
  });
  const next = found[limit]?.position;
  return next ? { items, next: ctx.cursors.encode(scope, [next.tip, next.skip, next.path]) } : { items };
}

/**
 * Where the history of `path` goes on before `oldest`, the commit that created it: the file it was renamed from,
 * from `oldest`'s first parent on; undefined when it was not a rename (a new file) or `oldest` is a root commit.
 */
async function beforeRename(ctx: Context, spaceId: string, oldest: LoggedCommit, path: string): Promise<Position | undefined> {
  const parent = oldest.parents[0];
  if (parent === undefined) return undefined;
  for await (const diff of commitChanges(ctx.git, spaceId, [{ oid: oldest.oid, parent }])) {
    const renamed = diff.changes.find((change) => change.status === 'R' && change.path === path);
    return renamed?.from !== undefined ? { tip: parent, skip: 0, path: renamed.from } : undefined;
  }
  return undefined;
}

/** The change request each of Quire's merge commits among `commits` merged (its row records the commit, its subject names it). */
async function mergedChangeRequests(ctx: Context, spaceId: string, commits: readonly LoggedCommit[]): Promise<Map<string, { id: string; number: number }>> {
  const merges = commits.filter(
    (commit) =>
      commit.parents.length > 1 &&
      commit.committerName === QUIRE_SIGNATURE.name &&
      commit.committerEmail === QUIRE_SIGNATURE.email &&
      MERGE_SUBJECT.test(commit.subject),
  );
  const byCommit = new Map<string, { id: string; number: number }>();
  if (merges.length === 0) return byCommit;
  const rows = await changeRequestsMergedAt(ctx.db, spaceId, merges.map((commit) => commit.oid));
  for (const commit of merges) {
    const number = Number(MERGE_SUBJECT.exec(commit.subject)![1]);
    const row = rows.find((r) => r.revision_merged === commit.oid && Number(r.number) === number);
    if (row) byCommit.set(commit.oid, { id: row.id, number: Number(row.number) });
  }
  return byCommit;
}
