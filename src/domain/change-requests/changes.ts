/**
 * What a change request or a revision changes, by meaning (src/content/semantic-changes.ts): the API's
 * getChangeRequestChanges and getRevisionSemanticChanges, a page of a change request compared block by block (a
 * Quire extension), and the MCP server's review of a change request (its pages and its `git diff`).
 *
 * A change request is compared from where its branch and main part (the merge base) to its head; a merged one with
 * main as it was before its merge. A revision is compared with its first parent (a first commit with nothing). Read
 * permission on the space. Both revisions come parsed from the revision cache (loadRevision); the comparison is
 * linear in their pages and files, and a page's blocks are rendered and aligned on the CPU pool.
 */
import type { Caller, Context } from '../context.js';
import { InvalidArgument, NotFound } from '../errors.js';
import { changeRequestViews, loadChangeRequest, type ChangeRequestView } from './change-requests.js';
import { projectDirectoryOf } from '../content/spaces.js';
import { loadRevision, readRevisionById, type IndexedRevision } from '../content/revisions.js';
import { branchOf, MAIN_REF } from '../content/refs.js';
import { MAX_LIMIT } from '../lists.js';
import { limitChanges, semanticChanges, type SemanticChange } from '../../content/semantic-changes.js';
import { sitePageLinks, type LinkAnswers, type SiteLinks } from '../../content/site-links.js';
import { resolvedPageLinks } from '../content/link-index.js';
import { linkLookups } from '../../content/links.js';
import type { BlockChange, PageVersion } from '../../content/block-diff.js';
import type { LineHunk } from '../../content/line-diff.js';
import type { DocumentPage, Page, RevisionFile } from '../../content/model.js';
import { findChangeRequestMergedAt, type ChangeRequestRow } from '../../store/sql/change-requests.js';

/** Changes an answer holds when the caller gives no `limit` (the reference's default). */
export const DEFAULT_CHANGES_LIMIT = 10;

export interface SemanticChanges {
  /** The first `limit` changes. */
  changes: SemanticChange[];
  /** How many changes were left out past `limit`. */
  more: number;
  /** For a merge commit of a change request: that change request. */
  mergedFrom?: ChangeRequestView;
}

function limited(changes: SemanticChange[], limit: number | undefined): Pick<SemanticChanges, 'changes' | 'more'> {
  const n = limit ?? DEFAULT_CHANGES_LIMIT;
  if (!Number.isFinite(n) || n < 0 || n > MAX_LIMIT) throw new InvalidArgument(`limit: must be a number between 0 and ${MAX_LIMIT}`);
  return limitChanges(changes, Math.trunc(n));
}

/** The commits a change request is compared between: the merge base with main (before its merge, once merged) and its head. */
async function changeRequestRange(ctx: Context, spaceId: string, changeRequest: ChangeRequestRow): Promise<{ base: string; head: string }> {
  // A merged change request's branch stays where it was merged from.
  const head = (await ctx.reader.resolveRef(spaceId, branchOf(changeRequest.number))) ?? changeRequest.revision_initial;
  const mergedInto = changeRequest.status === 'merged' && changeRequest.revision_merged ? (await ctx.reader.readCommit(spaceId, changeRequest.revision_merged))?.parents[0] : undefined;
  const main = mergedInto ?? (await ctx.reader.resolveRef(spaceId, MAIN_REF));
  const base = (main && (await ctx.git.mergeBase(spaceId, head, main))) || changeRequest.revision_initial;
  return { base, head };
}

/** A change request's base and head revisions, parsed. */
async function changeRequestRevisions(ctx: Context, caller: Caller, spaceId: string, idOrNumber: string) {
  const { changeRequest } = await loadChangeRequest(ctx, caller, spaceId, idOrNumber);
  const range = await changeRequestRange(ctx, spaceId, changeRequest);
  const [before, after] = await Promise.all([loadRevision(ctx, spaceId, range.base), loadRevision(ctx, spaceId, range.head)]);
  return { changeRequest, ...range, before, after };
}

/** getChangeRequestChanges: the change request's semantic changes, the first `limit` of them. */
export async function changeRequestSemanticChanges(
  ctx: Context,
  caller: Caller,
  spaceId: string,
  idOrNumber: string,
  options: { limit?: number } = {},
): Promise<SemanticChanges> {
  const { before, after } = await changeRequestRevisions(ctx, caller, spaceId, idOrNumber);
  return limited(await semanticChanges(before.revision, after.revision), options.limit);
}

/**
 * getRevisionSemanticChanges: a revision's semantic changes against its first parent, the first `limit` of them;
 * for the merge commit of a change request, that change request as `mergedFrom`. 404 for a commit the space does not
 * have.
 */
export async function revisionSemanticChanges(
  ctx: Context,
  caller: Caller,
  spaceId: string,
  revisionId: string,
  options: { limit?: number } = {},
): Promise<SemanticChanges> {
  const { content } = await readRevisionById(ctx, caller, spaceId, revisionId);
  const { commit } = content.revision;
  const [parent, mergedRow] = await Promise.all([
    commit.parents.length > 0 ? loadRevision(ctx, spaceId, commit.parents[0]) : undefined,
    commit.parents.length > 1 ? findChangeRequestMergedAt(ctx.db, spaceId, commit.oid) : undefined,
  ]);
  const mergedFrom = mergedRow ? (await changeRequestViews(ctx, spaceId, [mergedRow]))[0] : undefined;
  return { ...limited(await semanticChanges(parent?.revision, content.revision), options.limit), ...(mergedFrom ? { mergedFrom } : {}) };
}

/** Where the links of a compared page lead: its revision's pages and files, as the caller shows them. */
export interface LinkUrls {
  page(spaceId: string, page: DocumentPage): string;
  file(spaceId: string, file: RevisionFile): string;
}

export interface PageDiff {
  /** The page as it is at the head (as it was at the base, for a page the change request deletes). */
  page: Page;
  /** The base revision, when the page is in it; the head revision, when the page is in it. */
  base?: string;
  head?: string;
  /** The rendered blocks aligned (none when the markdown lines were asked for instead). */
  blocks: BlockChange[];
  markdown: { before?: string; after?: string };
  /** The markdown compared line by line, when asked for (`format: 'markdown'`). */
  hunks?: LineHunk[];
}

/** What a page diff compares: the rendered blocks, or the markdown's lines. */
export type PageDiffFormat = 'blocks' | 'markdown';

const asDocument = (page: Page | undefined): DocumentPage | undefined => (page && (page.type === 'document' || page.type === 'computed') ? page : undefined);

/** Where the links a page of `content` writes lead, and what its includes hold (as a published page's are answered). */
function linkAnswersOf(content: IndexedRevision, page: DocumentPage, urls: LinkUrls): LinkAnswers {
  const { revision, spaceId } = content;
  const reusable = new Map(revision.reusableContents.map((r) => [r.id, r.markdown]));
  const links: SiteLinks = {
    lookups: linkLookups(revision),
    pageUrl: (id) => {
      const target = content.pagesById.get(id);
      return target?.type === 'document' ? urls.page(spaceId, target) : undefined;
    },
    pageTitle: (id) => content.pagesById.get(id)?.title,
    fileUrl: (id) => {
      const file = content.filesById.get(id);
      return file ? urls.file(spaceId, file) : undefined;
    },
    reusableMarkdown: (id) => reusable.get(id),
  };
  return sitePageLinks(links, page);
}

/** A version of a page for the CPU pool: its markdown, its links answered (found on the pool), its variables. */
async function pageVersion(ctx: Context, content: IndexedRevision, page: DocumentPage, urls: LinkUrls): Promise<PageVersion> {
  const links = await resolvedPageLinks(ctx, page, linkAnswersOf(content, page, urls));
  return { markdown: page.markdown, links, variables: { page: page.variables ?? {}, space: content.revision.variables } };
}

/**
 * A page of a change request compared block by block from its base to its head (a Quire extension): both versions
 * rendered as published sites render them, their top-level blocks aligned (src/content/block-diff.ts), on the CPU
 * pool. A page that is in neither revision is a 404; a page that is no document (a group, a link) has no blocks.
 */
export async function changeRequestPageDiff(
  ctx: Context,
  caller: Caller,
  spaceId: string,
  idOrNumber: string,
  pageId: string,
  urls: LinkUrls,
  format: PageDiffFormat = 'blocks',
): Promise<PageDiff> {
  const { changeRequest, base, head, before, after } = await changeRequestRevisions(ctx, caller, spaceId, idOrNumber);
  const was = before.pagesById.get(pageId);
  const now = after.pagesById.get(pageId);
  const page = now ?? was;
  if (!page) throw new NotFound(`pageId: no page "${pageId}" in change request ${changeRequest.number}`);
  const [from, to] = [asDocument(was), asDocument(now)];
  const markdown = { ...(from ? { before: from.markdown } : {}), ...(to ? { after: to.markdown } : {}) };
  const revisions = { ...(was ? { base } : {}), ...(now ? { head } : {}) };
  // The raw lines need no rendering (nor the links answered): only the two texts go to the pool.
  if (format === 'markdown') return { page, ...revisions, blocks: [], markdown, hunks: await ctx.cpu.run('markdownLineDiff', markdown) };
  const [earlier, later] = await Promise.all([from && pageVersion(ctx, before, from, urls), to && pageVersion(ctx, after, to, urls)]);
  const blocks = earlier || later ? await ctx.cpu.run('pageBlockDiff', { ...(earlier ? { before: earlier } : {}), ...(later ? { after: later } : {}) }) : [];
  return { page, ...revisions, blocks, markdown };
}

export interface PageChange {
  change: 'added' | 'changed' | 'moved' | 'removed';
  id: string;
  title: string;
  /** The page's path at the head (at the base for a removed page). */
  path: string;
  /** Where a moved or changed page was, when its path changed. */
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

/**
 * The pages of semantic changes, one line each: created pages are added, deleted ones removed, edited ones changed
 * (moved or not), the others that moved moved.
 */
export function pageChangesOf(changes: SemanticChange[]): PageChange[] {
  const edited = new Set(changes.flatMap((change) => (change.type === 'page_edited' ? [change.page.id] : [])));
  const pages: PageChange[] = [];
  for (const change of changes) {
    const summary = (page: Page, before?: Page): Omit<PageChange, 'change'> => ({
      id: page.id,
      title: page.title,
      path: page.path,
      ...(before && before.path !== page.path ? { previousPath: before.path } : {}),
    });
    if (change.type === 'page_created') pages.push({ change: 'added', ...summary(change.page) });
    else if (change.type === 'page_deleted') pages.push({ change: 'removed', ...summary(change.page) });
    else if (change.type === 'page_edited') pages.push({ change: 'changed', ...summary(change.page, change.before) });
    else if (change.type === 'page_moved' && !edited.has(change.page.id)) pages.push({ change: 'moved', ...summary(change.page, change.before) });
  }
  return pages;
}

/** The MCP server's review of a change request: its pages' changes and its `git diff`. Read permission on the space. */
export async function changeRequestChanges(ctx: Context, caller: Caller, spaceId: string, idOrNumber: string, options: { maxDiffBytes: number }): Promise<ChangeRequestChanges> {
  const { base, head, before, after } = await changeRequestRevisions(ctx, caller, spaceId, idOrNumber);
  const diff = await projectDirectoryOf(ctx, spaceId).then((directory) => ctx.git.diffText(spaceId, base, head, directory, options.maxDiffBytes));
  return {
    base,
    head,
    pages: pageChangesOf(await semanticChanges(before.revision, after.revision)),
    diff: diff.text,
    diffTruncated: diff.truncated,
  };
}
