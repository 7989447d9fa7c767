/**
 * "Was this page helpful?" (a Quire extension): readers of a published page rate it `good`, `ok` or `bad` (the
 * hosted platform's three PageFeedbackRating values) with an optional short comment, and the site's managers read
 * what they said, newest first, and counted per page.
 *
 * A reader may rate only a page they can read: the caller hands in the site as `readPublishedSite` opened it for
 * them (share key, visitor token, claims), and the page must be one of the spaces that tree shows.
 *
 * Bounds, so that nobody can fill the database: one vote per reader, page and day (a later vote that day replaces
 * the earlier one, so a reader can change their mind or add a comment), a comment of at most
 * PAGE_FEEDBACK_COMMENT_MAX characters, and at most PAGE_FEEDBACK_PER_SITE rows per site (past it, the oldest go).
 * The reader is known only by an HMAC of the site, the day, their address and their user agent, keyed with an
 * instance secret: the stored key links no reader across sites or days and gives back no address.
 */
import crypto from 'node:crypto';
import type { Caller, Context } from '../context.js';
import { InvalidArgument, NotFound } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { collectPage, compareKeys, fetchInMemory, type Page, type PageRequest } from '../lists.js';
import { requireSitePermission } from '../permissions.js';
import { loadRevision } from '../content/revisions.js';
import { MAIN_REF } from '../content/refs.js';
import { instanceSecret } from '../../store/sql/secrets.js';
import {
  deletePageFeedbackFrom,
  firstPageFeedbackBeyondQuery,
  listPageFeedbackRows,
  pageFeedbackCountsQuery,
  upsertPageFeedback,
  type PageFeedbackCountRow,
  type PageFeedbackRow,
} from '../../store/sql/page-feedback.js';
import type { SiteRow } from '../../store/sql/sites.js';
import type { DocumentPage } from '../../content/model.js';
import { publishedSpaces, type PublishedSpace, type PublishedTree } from './published.js';
import { loadSite } from './tree.js';

export const PAGE_FEEDBACK_RATINGS = ['good', 'ok', 'bad'] as const;
export type PageFeedbackRating = (typeof PAGE_FEEDBACK_RATINGS)[number];

/** Characters (code points) of a comment: the hosted platform's own bound on feedback comments. */
export const PAGE_FEEDBACK_COMMENT_MAX = 512;

/** Rows kept per site: past it, each new vote drops the oldest ones. */
export const PAGE_FEEDBACK_PER_SITE = 100_000;

export interface PageFeedbackInput {
  pageId: string;
  rating: string;
  comment?: string;
}

/** What tells one reader from another, as the request shows it. Never stored: only their HMAC is. */
export interface FeedbackReader {
  address: string;
  userAgent: string;
}

export function isPageFeedbackRating(value: unknown): value is PageFeedbackRating {
  return (PAGE_FEEDBACK_RATINGS as readonly unknown[]).includes(value);
}

// One secret per database, read once per process (every process sharing the database must compute the same keys).
const readerKeySecrets = new WeakMap<object, Promise<Buffer>>();

function readerKeySecret(ctx: Context): Promise<Buffer> {
  let secret = readerKeySecrets.get(ctx.db);
  if (!secret) {
    secret = instanceSecret(ctx.db, 'page-feedback-reader-key');
    readerKeySecrets.set(ctx.db, secret);
    // A failed read (the database briefly unreachable) is asked again by the next vote.
    secret.catch(() => readerKeySecrets.delete(ctx.db));
  }
  return secret;
}

/** The reader's key for this site and day: an HMAC, so it cannot be turned back into the address it was made of. */
async function readerKey(ctx: Context, siteId: string, day: string, reader: FeedbackReader): Promise<string> {
  // JSON keeps the parts apart: no address or user agent can pass for another split of the same characters.
  const parts = JSON.stringify([siteId, day, reader.address, reader.userAgent]);
  return crypto.createHmac('sha256', await readerKeySecret(ctx)).update(parts).digest('base64url');
}

/** The comment as stored: line breaks as `\n` (forms send `\r\n`), trimmed; none when nothing is left. */
function normalizedComment(comment: string | undefined): string | null {
  const text = (comment ?? '').replace(/\r\n?/g, '\n').trim();
  if (text === '') return null;
  if ([...text].length > PAGE_FEEDBACK_COMMENT_MAX) throw new InvalidArgument(`comment: must be at most ${PAGE_FEEDBACK_COMMENT_MAX} characters`);
  return text;
}

/** The page `pageId` among what the reader's tree shows, and the published space it is read in. */
async function readablePage(ctx: Context, tree: PublishedTree, pageId: string): Promise<{ space: PublishedSpace; page: DocumentPage }> {
  for (const space of await publishedSpaces(ctx, tree)) {
    const page = space.content.pagesById.get(pageId);
    // Only pages the site serves (readPublishedPage): documents, hidden ones included (they are read by their URL).
    if (page?.type === 'document') return { space, page };
  }
  throw new InvalidArgument(`pageId: no page "${pageId}" is published on this site for you`);
}

/**
 * Records a reader's vote on a page of the site they read (`tree`, as readPublishedSite opened it for them); returns
 * the page and its place on the site, for the answer to lead back to it. `keep`: the per-site bound.
 */
export async function recordPageFeedback(
  ctx: Context,
  tree: PublishedTree,
  input: PageFeedbackInput,
  reader: FeedbackReader,
  options: { keep?: number } = {},
): Promise<{ space: PublishedSpace; page: DocumentPage }> {
  if (!isPageFeedbackRating(input.rating)) throw new InvalidArgument(`rating: must be one of: ${PAGE_FEEDBACK_RATINGS.join(', ')}`);
  const comment = normalizedComment(input.comment);
  const found = await readablePage(ctx, tree, input.pageId);
  const now = nowIso();
  const siteId = tree.site.id;
  await upsertPageFeedback(ctx.db, {
    id: newId(),
    site_id: siteId,
    space_id: found.space.siteSpace.space_id,
    page_id: found.page.id,
    rating: input.rating,
    comment,
    client_key: await readerKey(ctx, siteId, now.slice(0, 10), reader),
    created_at: now,
  });
  await trimPageFeedback(ctx, siteId, options.keep ?? PAGE_FEEDBACK_PER_SITE);
  return found;
}

/** Drops the site's oldest rows past the `keep` newest. Finding where that falls walks the index: off the event loop. */
export async function trimPageFeedback(ctx: Context, siteId: string, keep: number): Promise<number> {
  const [first] = (await ctx.readOffLoop(firstPageFeedbackBeyondQuery(ctx.db, siteId, keep))) as Array<Pick<PageFeedbackRow, 'created_at' | 'id'>>;
  return first ? deletePageFeedbackFrom(ctx.db, siteId, first) : 0;
}

// ---- the site's managers

/** A page as its space's main shows it now, when it still has it. */
export interface FeedbackPage {
  title: string;
  path: string;
}

export interface PageFeedbackView {
  row: PageFeedbackRow;
  rating: PageFeedbackRating;
  page?: FeedbackPage;
}

export interface PageFeedbackSummary {
  spaceId: string;
  pageId: string;
  page?: FeedbackPage;
  good: number;
  ok: number;
  bad: number;
  total: number;
}

export interface PageFeedbackQuery extends PageRequest {
  pageId?: string;
  rating?: string;
}

/** The site, for a caller who manages it (the `edit` permission on sites: organization role create or admin). */
async function managedSite(ctx: Context, caller: Caller, organizationId: string, siteId: string): Promise<SiteRow> {
  const { site, access } = await loadSite(ctx, caller, organizationId, siteId);
  requireSitePermission(access, siteId, 'edit', "read its readers' feedback");
  return site;
}

/** Titles and paths of pages by space, from each space's main as it is now (a space gone, or never pushed: none). */
async function pagesNow(ctx: Context, spaceIds: Iterable<string>): Promise<(spaceId: string, pageId: string) => FeedbackPage | undefined> {
  const bySpace = new Map<string, Map<string, { title: string; path: string }>>();
  for (const spaceId of new Set(spaceIds)) {
    const main = await ctx.reader.resolveRef(spaceId, MAIN_REF);
    const revision = main
      ? await loadRevision(ctx, spaceId, main).catch((error: unknown) => {
          if (error instanceof NotFound) return undefined;
          throw error;
        })
      : undefined;
    if (revision) bySpace.set(spaceId, revision.pagesById);
  }
  return (spaceId, pageId) => {
    const page = bySpace.get(spaceId)?.get(pageId);
    return page ? { title: page.title, path: page.path } : undefined;
  };
}

/** What readers said, newest first; `pageId` and `rating` narrow it. */
export async function listPageFeedback(ctx: Context, caller: Caller, organizationId: string, siteId: string, query: PageFeedbackQuery): Promise<Page<PageFeedbackView>> {
  await managedSite(ctx, caller, organizationId, siteId);
  if (query.rating !== undefined && !isPageFeedbackRating(query.rating)) throw new InvalidArgument(`rating: must be one of: ${PAGE_FEEDBACK_RATINGS.join(', ')}`);
  const filter = { ...(query.pageId !== undefined ? { pageId: query.pageId } : {}), ...(query.rating !== undefined ? { rating: query.rating } : {}) };
  const page = await collectPage({
    codec: ctx.cursors,
    // The filters are part of the scope: a cursor of one filtered list is refused by another.
    scope: `page-feedback:${siteId}:${JSON.stringify([filter.pageId ?? null, filter.rating ?? null])}`,
    request: query,
    fetch: (after, n) => listPageFeedbackRows(ctx.db, siteId, filter, after, n),
    positionOf: (row) => [row.created_at, row.id],
    present: (row) => row,
  });
  const pageOf = await pagesNow(ctx, page.items.map((row) => row.space_id));
  return {
    ...page,
    items: page.items.map((row) => {
      const shown = pageOf(row.space_id, row.page_id);
      // The table's CHECK constraint admits no other rating.
      return { row, rating: row.rating as PageFeedbackRating, ...(shown ? { page: shown } : {}) };
    }),
  };
}

/**
 * The votes per page, most rated first. Counting reads up to PAGE_FEEDBACK_PER_SITE rows: off the event loop
 * (readOffLoop); the counts are then paged in memory.
 */
export async function summarizePageFeedback(ctx: Context, caller: Caller, organizationId: string, siteId: string, request: PageRequest): Promise<Page<PageFeedbackSummary>> {
  await managedSite(ctx, caller, organizationId, siteId);
  const counts = (await ctx.readOffLoop(pageFeedbackCountsQuery(ctx.db, siteId))) as PageFeedbackCountRow[];
  const byPage = new Map<string, PageFeedbackSummary>();
  for (const row of counts) {
    const key = JSON.stringify([row.space_id, row.page_id]);
    let summary = byPage.get(key);
    if (!summary) byPage.set(key, (summary = { spaceId: row.space_id, pageId: row.page_id, good: 0, ok: 0, bad: 0, total: 0 }));
    const votes = Number(row.votes);
    if (isPageFeedbackRating(row.rating)) summary[row.rating] += votes;
    summary.total += votes;
  }
  const positionOf = (summary: PageFeedbackSummary) => [-summary.total, summary.pageId, summary.spaceId];
  const ordered = [...byPage.values()].sort((a, b) => compareKeys(positionOf(a), positionOf(b)));
  const page = await collectPage({
    codec: ctx.cursors,
    scope: `page-feedback-summary:${siteId}`,
    request,
    fetch: fetchInMemory(ordered, positionOf),
    positionOf,
    present: (summary) => summary,
  });
  const pageOf = await pagesNow(ctx, page.items.map((summary) => summary.spaceId));
  return {
    ...page,
    items: page.items.map((summary) => {
      const shown = pageOf(summary.spaceId, summary.pageId);
      return { ...summary, ...(shown ? { page: shown } : {}) };
    }),
  };
}
