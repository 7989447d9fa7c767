import type { PageFeedbackSummary, PageFeedbackView } from '../../../domain/sites/page-feedback.js';

/** A reader's vote as the API shows it: never the reader's key. */
export function presentPageFeedback({ row, rating, page }: PageFeedbackView) {
  return {
    object: 'page-feedback' as const,
    id: row.id,
    spaceId: row.space_id,
    pageId: row.page_id,
    ...(page ? { page } : {}),
    rating,
    ...(row.comment !== null ? { comment: row.comment } : {}),
    createdAt: row.created_at,
  };
}

export function presentPageFeedbackSummary(summary: PageFeedbackSummary) {
  const { spaceId, pageId, page, good, ok, bad, total } = summary;
  return { object: 'page-feedback-summary' as const, spaceId, pageId, ...(page ? { page } : {}), good, ok, bad, total };
}
