/**
 * A space's revision history: GET /v1/spaces/{spaceId}/revisions (listSpaceRevisions), a Quire extension (the
 * reference reads a revision by id but lists none). The revision reads of the reference are in ../content.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses, ListOf } from '../../schemas.js';
import { presentList } from '../../present.js';
import { listSpaceRevisions } from '../../../domain/content/revision-history.js';
import { RevisionHistoryParams, RevisionHistoryQuery, RevisionSummarySchema } from './schema.js';
import { presentRevisionSummary } from './presenter.js';

const DESCRIPTION =
  "Quire extension: main's history, newest first, in the order `git log` lists it (the full history: both sides of " +
  'merges, by commit date). Each item is one commit; its content is getRevisionById at `urls.location`. With `pageId`, ' +
  "only the commits that changed that page's file, followed back through the renames git detects. Pages of one " +
  'listing stay those of the history it started from, whatever is pushed meanwhile.';

export const revisionRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  app.get(
    '/spaces/:spaceId/revisions',
    {
      schema: {
        operationId: 'listSpaceRevisions',
        tags: ['content'],
        description: DESCRIPTION,
        params: RevisionHistoryParams,
        querystring: RevisionHistoryQuery,
        response: { 200: ListOf(RevisionSummarySchema), ...ErrorResponses },
      },
    },
    async (request) => {
      const { spaceId } = request.params;
      const page = await listSpaceRevisions(ctx, callerOf(request), spaceId, request.query);
      return presentList(page, (summary) => presentRevisionSummary(urls, spaceId, summary));
    },
  );
};
