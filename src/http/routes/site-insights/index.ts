import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses, ListOf } from '../../schemas.js';
import { presentList } from '../../present.js';
import { listPageFeedback, summarizePageFeedback } from '../../../domain/sites/page-feedback.js';
import { SiteParams } from '../sites/schema.js';
import { ListPageFeedbackQuery, PageFeedbackSchema, PageFeedbackSummaryQuery, PageFeedbackSummarySchema } from './schema.js';
import { presentPageFeedback, presentPageFeedbackSummary } from './presenter.js';

const tags = ['sites'];
const FEEDBACK = '/orgs/:organizationId/sites/:siteId/insights/feedback';
const EXTENSION = 'Quire extension: not in the spec nor in the reference.';

export const siteInsightRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx }) => {
  app.get(
    FEEDBACK,
    {
      schema: {
        operationId: 'listSitePageFeedback',
        description:
          `${EXTENSION} What readers answered to "Was this page helpful?" under the site's published pages, newest first, ` +
          'optionally of one page or one rating (those who manage the site: organization role create or admin).',
        tags,
        params: SiteParams,
        querystring: ListPageFeedbackQuery,
        response: { 200: ListOf(PageFeedbackSchema), ...ErrorResponses },
      },
    },
    async (request) => {
      const { organizationId, siteId } = request.params;
      return presentList(await listPageFeedback(ctx, callerOf(request), organizationId, siteId, request.query), presentPageFeedback);
    },
  );

  app.get(
    `${FEEDBACK}/summary`,
    {
      schema: {
        operationId: 'listSitePageFeedbackSummary',
        description: `${EXTENSION} The readers' answers counted per page, the most answered pages first (those who manage the site).`,
        tags,
        params: SiteParams,
        querystring: PageFeedbackSummaryQuery,
        response: { 200: ListOf(PageFeedbackSummarySchema), ...ErrorResponses },
      },
    },
    async (request) => {
      const { organizationId, siteId } = request.params;
      return presentList(await summarizePageFeedback(ctx, callerOf(request), organizationId, siteId, request.query), presentPageFeedbackSummary);
    },
  );
};
