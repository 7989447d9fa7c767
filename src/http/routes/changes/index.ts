import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses } from '../../schemas.js';
import { serializeNatively } from '../../present.js';
import { changeRequestPageDiff, changeRequestSemanticChanges, revisionSemanticChanges, type LinkUrls } from '../../../domain/change-requests/changes.js';
import { fileDownloadUrl, pageAppUrl } from '../content/presenter.js';
import {
  ChangeRequestChangesParams,
  ChangesQuery,
  PageDiffParams,
  PageDiffQuery,
  PageDiffSchema,
  RevisionChangesParams,
  RevisionChangesQuery,
  SemanticChangesSchema,
} from './schema.js';
import { ChangesPresenter, pageDiffJson } from './presenter.js';

const JSON_TYPE = 'application/json; charset=utf-8';

const PAGE_DIFF_EXTENSION =
  "Quire extension: one page of a change request compared block by block from its base to its head. Each version's top-level blocks are rendered to sanitized HTML as the published sites render them and aligned (longest common subsequence); `markdown` holds both versions as written. With `format=markdown`, the markdown compared line by line instead, in `hunks`.";

/** What a change request or a revision changes (getChangeRequestChanges, getRevisionSemanticChanges), and a page's block diff. */
export const changeRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  // In a compared page, links lead to the pages' app URLs and the files' downloads, as the API shows them.
  const links: LinkUrls = { page: (spaceId, page) => pageAppUrl(urls, spaceId, page.path), file: (spaceId, file) => fileDownloadUrl(urls, spaceId, file) };

  app.get(
    '/spaces/:spaceId/change-requests/:changeRequestId/changes',
    {
      schema: {
        operationId: 'getChangeRequestChanges',
        tags: ['change-requests'],
        params: ChangeRequestChangesParams,
        querystring: ChangesQuery,
        response: { 200: SemanticChangesSchema, ...ErrorResponses },
      },
      serializerCompiler: serializeNatively,
    },
    async (request) => {
      const { spaceId, changeRequestId } = request.params;
      // Presented exactly (the presenter makes the reference's shapes) and serialized natively.
      return new ChangesPresenter(urls, spaceId).changes(await changeRequestSemanticChanges(ctx, callerOf(request), spaceId, changeRequestId, request.query)) as never;
    },
  );

  app.get(
    '/spaces/:spaceId/revisions/:revisionId/changes',
    {
      schema: {
        operationId: 'getRevisionSemanticChanges',
        tags: ['content'],
        params: RevisionChangesParams,
        querystring: RevisionChangesQuery,
        response: { 200: SemanticChangesSchema, ...ErrorResponses },
      },
      serializerCompiler: serializeNatively,
    },
    async (request) => {
      const { spaceId, revisionId } = request.params;
      return new ChangesPresenter(urls, spaceId).changes(await revisionSemanticChanges(ctx, callerOf(request), spaceId, revisionId, { limit: request.query.limit })) as never;
    },
  );

  app.get(
    '/spaces/:spaceId/change-requests/:changeRequestId/changes/pages/:pageId',
    {
      schema: {
        operationId: 'getChangeRequestPageDiff',
        tags: ['change-requests'],
        description: PAGE_DIFF_EXTENSION,
        params: PageDiffParams,
        querystring: PageDiffQuery,
        response: { 200: PageDiffSchema, ...ErrorResponses },
      },
      serializerCompiler: serializeNatively,
    },
    async (request, reply) => {
      const { spaceId, changeRequestId, pageId } = request.params;
      const json = await pageDiffJson(await changeRequestPageDiff(ctx, callerOf(request), spaceId, changeRequestId, pageId, links, request.query.format), ctx.cpu);
      // Already JSON: sent as it is.
      return reply.type(JSON_TYPE).send((typeof json === 'string' ? json : Buffer.from(json.buffer, json.byteOffset, json.byteLength)) as never);
    },
  );
};
