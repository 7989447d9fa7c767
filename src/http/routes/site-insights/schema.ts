/**
 * What readers said of a site's pages (a Quire extension: the hosted platform shows it in a site's insights, and its
 * API has no operation for it). Its rating values are the reference's PageFeedbackRating.
 */
import { Type } from 'typebox';
import { ListQuery, StringEnum, Timestamp } from '../../schemas.js';
import { PAGE_FEEDBACK_RATINGS } from '../../../domain/sites/page-feedback.js';

export const PageFeedbackRating = StringEnum(PAGE_FEEDBACK_RATINGS, { description: 'The reader\'s answer to "Was this page helpful?"' });

export const ListPageFeedbackQuery = Type.Object({
  ...ListQuery,
  pageId: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'Only the feedback on this page' })),
  rating: Type.Optional(PageFeedbackRating),
});

export const PageFeedbackSummaryQuery = Type.Object({ ...ListQuery });

/** The page as its space's main shows it now (absent when the space no longer has it). */
const FeedbackPage = Type.Object({ title: Type.String(), path: Type.String() });

export const PageFeedbackSchema = Type.Object({
  object: Type.Literal('page-feedback'),
  id: Type.String(),
  spaceId: Type.String(),
  pageId: Type.String(),
  page: Type.Optional(FeedbackPage),
  rating: PageFeedbackRating,
  comment: Type.Optional(Type.String({ description: 'Plain text as the reader wrote it: escape it wherever it is shown as HTML' })),
  createdAt: Timestamp,
});

export const PageFeedbackSummarySchema = Type.Object({
  object: Type.Literal('page-feedback-summary'),
  spaceId: Type.String(),
  pageId: Type.String(),
  page: Type.Optional(FeedbackPage),
  good: Type.Integer(),
  ok: Type.Integer(),
  bad: Type.Integer(),
  total: Type.Integer(),
});
