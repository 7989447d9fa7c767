/**
 * What readers said of published pages (table site_page_feedback, src/domain/sites/page-feedback.ts): one row per
 * reader, page and day, removed with the site (or the space). Reads that walk many rows (the summary, the row where
 * the per-site bound falls) are returned as compiled queries for the caller to run off the event loop.
 */
import type { CompiledQuery, Kysely, Selectable } from 'kysely';
import type { Database, SitePageFeedbackTable } from './schema.js';
import { keysetQuery, type KeysetKey } from './keyset.js';

export type PageFeedbackRow = Selectable<SitePageFeedbackTable>;

/**
 * Stores a reader's vote; one they already gave the page (the same `client_key`, which holds the day) is replaced
 * by this one, its id kept.
 */
export async function upsertPageFeedback(db: Kysely<Database>, row: PageFeedbackRow): Promise<void> {
  await db
    .insertInto('site_page_feedback')
    .values(row)
    .onConflict((oc) =>
      oc.columns(['site_id', 'page_id', 'client_key']).doUpdateSet({ space_id: row.space_id, rating: row.rating, comment: row.comment, created_at: row.created_at }),
    )
    .execute();
}

/** Newest first; the id breaks ties between votes of the same millisecond. */
export const PAGE_FEEDBACK_LIST_KEYS: KeysetKey[] = [
  { column: 'site_page_feedback.created_at', direction: 'desc' },
  { column: 'site_page_feedback.id', direction: 'desc' },
];

export interface PageFeedbackFilter {
  pageId?: string;
  rating?: string;
}

export async function listPageFeedbackRows(
  db: Kysely<Database>,
  siteId: string,
  filter: PageFeedbackFilter,
  after: unknown[] | undefined,
  limit: number,
): Promise<PageFeedbackRow[]> {
  let query = db.selectFrom('site_page_feedback').selectAll('site_page_feedback').where('site_page_feedback.site_id', '=', siteId);
  if (filter.pageId !== undefined) query = query.where('site_page_feedback.page_id', '=', filter.pageId);
  if (filter.rating !== undefined) query = query.where('site_page_feedback.rating', '=', filter.rating);
  return keysetQuery(query, PAGE_FEEDBACK_LIST_KEYS, after, limit).execute();
}

export interface PageFeedbackCountRow {
  space_id: string;
  page_id: string;
  rating: string;
  votes: number | string;
}

/** The site's votes counted per page and rating: up to the per-site bound of rows to read, so a query to run off the event loop. */
export function pageFeedbackCountsQuery(db: Kysely<Database>, siteId: string): CompiledQuery<PageFeedbackCountRow> {
  return db
    .selectFrom('site_page_feedback')
    .select((eb) => ['space_id', 'page_id', 'rating', eb.fn.countAll<number>().as('votes')])
    .where('site_id', '=', siteId)
    .groupBy(['space_id', 'page_id', 'rating'])
    .compile();
}

/** The newest row past the `keep` newest of the site (none when the site has no more than `keep`): an index walk of `keep` entries. */
export function firstPageFeedbackBeyondQuery(db: Kysely<Database>, siteId: string, keep: number): CompiledQuery<Pick<PageFeedbackRow, 'created_at' | 'id'>> {
  return db
    .selectFrom('site_page_feedback')
    .select(['created_at', 'id'])
    .where('site_id', '=', siteId)
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(1)
    .offset(keep)
    .compile();
}

/** Removes the site's rows from `first` (firstPageFeedbackBeyondQuery's row) on, in list order: it and every older one. */
export async function deletePageFeedbackFrom(db: Kysely<Database>, siteId: string, first: Pick<PageFeedbackRow, 'created_at' | 'id'>): Promise<number> {
  const result = await db
    .deleteFrom('site_page_feedback')
    .where('site_id', '=', siteId)
    .where((eb) => eb.or([eb('created_at', '<', first.created_at), eb.and([eb('created_at', '=', first.created_at), eb('id', '<=', first.id)])]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
