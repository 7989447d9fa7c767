/**
 * The lists read from the link index of a space (./link-index.ts): the space's links, one page's links and a file's
 * backlinks, on main or on a change request's branch. A revision not indexed yet is indexed first.
 *
 * - `in-app`: a URL link to Quire's own app (`<public URL>/app`, `…/app/…`). It depends on the public URL, so it is
 *   told apart when read (the index stores such links as `url` / `ok`). A link to `…/app/s/<spaceId>…` of a space
 *   the caller can see has that space as its target; any other app URL stays a `url` target.
 * - Lists group links by target: one item per target (and relation), with every page that links to it as its
 *   locations; ordered by target key. `stats` counts the items of the whole list (before the status filter):
 *   `total`, `broken.total`, and `broken.changeRequest`, the broken targets of a change request that are not broken
 *   in the revision it started from (0 on main).
 */
import type { Context, Caller } from '../context.js';
import { NotFound } from '../errors.js';
import { collectPage, type Page as ListPage, type PageRequest } from '../lists.js';
import { loadOrgAccess } from '../permissions.js';
import { embeddedOrganizationView, type OrganizationView } from '../organizations/organizations.js';
import { loadSpace, spaceCounters, spaceViewOf, type SpaceView } from './spaces.js';
import { findFile, findPage, readContent, type IndexedRevision } from './revisions.js';
import { changeRequestViews, loadChangeRequest, type ChangeRequestView } from '../change-requests/change-requests.js';
import { branchOf, MAIN_REF } from './refs.js';
import { normalizeUrl, targetKey, type LinkRelation } from '../../content/links.js';
import type { Page, ReusableContent, RevisionFile } from '../../content/model.js';
import {
  brokenTargets,
  linkLocations,
  linkStats,
  listLinkingPages,
  listLinkTargets,
  type LinkScope,
  type LinkTargetRow,
} from '../../store/sql/link-reads.js';
import { ensureLinksIndexed } from './link-index.js';

export type LinkStatus = 'ok' | 'broken' | 'in-app';
export const LINK_STATUSES: readonly LinkStatus[] = ['ok', 'broken', 'in-app'];

/** What a link list is read from, and what its items embed. */
export interface LinkContext {
  content: IndexedRevision;
  space: SpaceView;
  organization: OrganizationView;
  /** Set when the list is a change request's. */
  changeRequest?: ChangeRequestView;
}

export type LinkTarget =
  | { kind: 'page'; page: Page; anchor?: string }
  | { kind: 'file'; file: RevisionFile }
  | { kind: 'reusable-content'; reusableContent: ReusableContent }
  | { kind: 'url'; url: string }
  | { kind: 'space'; space: SpaceView; organization: OrganizationView };

export interface LinkItem {
  status: LinkStatus;
  relation: LinkRelation;
  target: LinkTarget;
  /** The pages where the target is linked from. */
  locations: Page[];
}

export interface LinkStats {
  total: number;
  broken: number;
  /** Broken in the change request and not in the revision it started from; 0 on main. */
  brokenInChangeRequest: number;
}

export interface LinkList extends ListPage<LinkItem> {
  stats: LinkStats;
}

export interface LinkQuery {
  spaceId: string;
  /** The change request whose branch head is read (id or number); main's revision otherwise. */
  changeRequestId?: string;
  /** Only the links of this page. */
  pageId?: string;
  status?: LinkStatus;
}

interface LoadedLinks extends LinkContext {
  /** The revision the change request started from (or was last updated from). */
  base?: string;
}

/** Read permission on the space (as the content routes check it), the revision, and what items embed. */
async function loadLinkContext(ctx: Context, caller: Caller, spaceId: string, changeRequestId?: string): Promise<LoadedLinks> {
  let changeRequest: ChangeRequestView | undefined;
  let base: string | undefined;
  let ref = MAIN_REF;
  if (changeRequestId) {
    const loaded = await loadChangeRequest(ctx, caller, spaceId, changeRequestId);
    [changeRequest] = await changeRequestViews(ctx, spaceId, [loaded.changeRequest]);
    base = loaded.changeRequest.revision_merged_ancestor ?? loaded.changeRequest.revision_initial;
    ref = branchOf(loaded.changeRequest.number);
  }
  const { space, content } = await readContent(ctx, caller, spaceId, ref);
  const access = await loadOrgAccess(ctx, space.organization_id, caller.user.id);
  const view = spaceViewOf(access, space, (await spaceCounters(ctx, [space.id])).get(space.id));
  return { content, space: view, organization: await embeddedOrganizationView(ctx, access), changeRequest, base };
}

/** A `url` target to the app naming a space the caller can see has that space as target; other URLs stay URLs. */
async function appTarget(ctx: Context, caller: Caller, url: string, appUrl: string): Promise<LinkTarget> {
  const match = /^\/s\/([A-Za-z0-9_-]+)(?:[/?#]|$)/.exec(url.slice(appUrl.length));
  if (match) {
    try {
      const { space, access } = await loadSpace(ctx, caller, match[1]);
      const view = spaceViewOf(access, space, (await spaceCounters(ctx, [space.id])).get(space.id));
      return { kind: 'space', space: view, organization: await embeddedOrganizationView(ctx, access) };
    } catch (error) {
      if (!(error instanceof NotFound)) throw error;
    }
  }
  return { kind: 'url', url };
}

async function targetOf(ctx: Context, caller: Caller, row: LinkTargetRow, content: IndexedRevision, appUrl: string): Promise<LinkTarget> {
  switch (row.target_kind) {
    case 'page': {
      const page = content.pagesById.get(row.target_value);
      if (page) return { kind: 'page', page, ...(row.anchor ? { anchor: row.anchor } : {}) };
      break;
    }
    case 'file': {
      const file = content.filesById.get(row.target_value);
      if (file) return { kind: 'file', file };
      break;
    }
    case 'reusable-content': {
      const reusableContent = content.revision.reusableContents.find((r) => r.id === row.target_value);
      if (reusableContent) return { kind: 'reusable-content', reusableContent };
      break;
    }
    case 'url':
      if (Number(row.in_app) === 1) return appTarget(ctx, caller, row.target_value, appUrl);
      break;
  }
  // A URL, or a path that resolves to nothing (broken): shown as written, resolved against the content root.
  return { kind: 'url', url: row.target_value };
}

/**
 * Links of a space's revision (main, or a change request's head), optionally of one page and with one status:
 * one item per target (see the top of this file). `appUrl` is the public URL of the app (`…/app`).
 */
export async function listLinks(
  ctx: Context,
  caller: Caller,
  query: LinkQuery,
  request: PageRequest,
  appUrl: string,
): Promise<{ context: LinkContext; list: LinkList }> {
  const loaded = await loadLinkContext(ctx, caller, query.spaceId, query.changeRequestId);
  const { content } = loaded;
  const page = query.pageId !== undefined ? findPage(content, query.pageId) : undefined;
  const commit = content.revision.commit.oid;
  await ensureLinksIndexed(ctx, query.spaceId, commit);
  const app = normalizeUrl(appUrl).replace(/\/+$/, '');
  const scope: LinkScope = { spaceId: query.spaceId, commit, pageId: page?.id, appUrl: app };
  const rows = await collectPage({
    codec: ctx.cursors,
    scope: `links:${query.spaceId}:${loaded.changeRequest?.changeRequest.id ?? 'main'}:${page?.id ?? ''}:${query.status ?? ''}`,
    request,
    fetch: (after, n) => listLinkTargets(ctx.db, scope, query.status, after, n),
    positionOf: (row) => [row.target, row.relation],
    present: (row) => row,
  });
  const locations = new Map<string, Page[]>();
  for (const location of await linkLocations(ctx.db, scope, rows.items.map((row) => row.target))) {
    const where = content.pagesById.get(location.page_id);
    const key = `${location.relation} ${location.target}`;
    if (where) locations.set(key, [...(locations.get(key) ?? []), where]);
  }
  const items: LinkItem[] = [];
  for (const row of rows.items) {
    items.push({
      status: Number(row.in_app) === 1 ? 'in-app' : (row.status as 'ok' | 'broken'),
      relation: row.relation as LinkRelation,
      target: await targetOf(ctx, caller, row, content, app),
      locations: locations.get(`${row.relation} ${row.target}`) ?? [],
    });
  }
  const stats = await linkStats(ctx.db, scope);
  let brokenInChangeRequest = 0;
  if (loaded.base && stats.broken > 0) brokenInChangeRequest = await newlyBroken(ctx, scope, loaded.base);
  return { context: loaded, list: { items, next: rows.next, stats: { ...stats, brokenInChangeRequest } } };
}

/** Broken targets of the scope that the base revision does not have broken (in the same page, for a page's list). */
async function newlyBroken(ctx: Context, scope: LinkScope, base: string): Promise<number> {
  const broken = await brokenTargets(ctx.db, scope);
  try {
    await ensureLinksIndexed(ctx, scope.spaceId, base);
  } catch (error) {
    // The starting revision is gone from the repository: every broken link counts as the change request's.
    if (error instanceof NotFound) return broken.size;
    throw error;
  }
  const before = await brokenTargets(ctx.db, { ...scope, commit: base });
  return [...broken].filter((key) => !before.has(key)).length;
}

/** The pages of a space's revision (main, or a change request's head) that link to one of its files, in page order. */
export async function listFileBacklinks(
  ctx: Context,
  caller: Caller,
  query: { spaceId: string; changeRequestId?: string; fileId: string },
  request: PageRequest,
): Promise<{ context: LinkContext; list: ListPage<Page> }> {
  const loaded = await loadLinkContext(ctx, caller, query.spaceId, query.changeRequestId);
  const { content } = loaded;
  const file = findFile(content, query.fileId);
  const commit = content.revision.commit.oid;
  await ensureLinksIndexed(ctx, query.spaceId, commit);
  const list = await collectPage({
    codec: ctx.cursors,
    scope: `backlinks:${query.spaceId}:${loaded.changeRequest?.changeRequest.id ?? 'main'}:${file.id}`,
    request,
    fetch: (after, n) => listLinkingPages(ctx.db, { spaceId: query.spaceId, commit }, targetKey('file', file.id), after, n),
    positionOf: (row) => [row.page_order, row.page_id],
    present: (row) => content.pagesById.get(row.page_id),
  });
  return { context: loaded, list };
}
