import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { readChangeRequestContent } from '../../../domain/change-requests/change-requests.js';
import { getContentImport, importContent, listContentImports } from '../../../domain/imports/imports.js';
import { findPageByPathOrRedirect } from '../../../domain/content/page-paths.js';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses, ListOf } from '../../schemas.js';
import { presentList } from '../../present.js';
import { contentTypeOf } from '../../../content/files.js';
import {
  findFile,
  findPage,
  listFiles,
  readContent,
  readFileBlob,
  readRevisionById,
} from '../../../domain/content/revisions.js';
import {
  BlobParams,
  ContentImportParams,
  ContentImportSchema,
  ListContentImportsQuery,
  ContentQuery,
  FileParams,
  FileSchema,
  FilesQuery,
  ImportContentBody,
  ImportContentResultSchema,
  ImportedHeaders,
  PageParams,
  PagePathParams,
  PageQuery,
  PageSchema,
  PagesSchema,
  PageHtmlSchema,
  RevisionPageParams,
  RevisionPagePathParams,
  RevisionParams,
  RevisionSchema,
  SpaceContentParams,
} from './schema.js';
import { renderedPageJson } from './page-html.js';
import { NotFound } from '../../../domain/errors.js';
import { ContentPresenter, DEFAULT_OPTIONS, presentContentImport, type PresentOptions } from './presenter.js';
import { cachedBytes, cachedJsonBytes, replayCachedAnswer, sendCachedAnswer } from '../../present.js';
import type { IndexedRevision } from '../../../domain/content/revisions.js';
import type { DocumentPage, Page } from '../../../content/model.js';

const JSON_TYPE = 'application/json; charset=utf-8';

const tags = ['content'];


function optionsKey(o: PresentOptions): string {
  return `${o.metadata ? 1 : 0}${o.format === 'document' ? 'd' : 'm'}${o.evaluated ? 1 : 0}`;
}

function options(query: { metadata?: boolean; format?: 'markdown' | 'document'; evaluated?: boolean }): PresentOptions {
  return {
    metadata: query.metadata ?? DEFAULT_OPTIONS.metadata,
    format: query.format ?? DEFAULT_OPTIONS.format,
    evaluated: query.evaluated ?? DEFAULT_OPTIONS.evaluated,
  };
}

/** Main's content, or a change request's branch when the path names one. */
const VARIANTS = [
  {
    prefix: '/spaces/:spaceId',
    // Main's content: its kept answers are replayed to callers whose read of the space is current (the replay lane,
    // src/http/replay-lane.ts, and replayCachedAnswer for what the lane leaves).
    replayable: true,
    ids: { revision: 'getCurrentRevision', pages: 'listPages', files: 'listFiles', file: 'getFileById', page: 'getPageById', html: 'getPageHtml', import: 'importContent' },
  },
  {
    prefix: '/spaces/:spaceId/change-requests/:changeRequestId',
    replayable: false,
    ids: {
      revision: 'getRevisionOfChangeRequestById',
      pages: 'listPagesInChangeRequest',
      files: 'listFilesInChangeRequestById',
      file: 'getFileInChangeRequestById',
      page: 'getPageInChangeRequestById',
      html: 'getPageHtmlInChangeRequest',
      import: 'importContentInChangeRequest',
    },
  },
] as const;

const PAGE_HTML_EXTENSION = 'Quire extension: the page rendered as published sites render it (sanitized HTML and its outline), its links leading to the app.';

/** A document page of the revision (a group or a link has no content to render). */
function findDocumentPage(content: IndexedRevision, pageId: string): DocumentPage {
  const page = findPage(content, pageId);
  if (page.type !== 'document') throw new NotFound(`pageId: page "${pageId}" is a ${page.type}, which has no content to render`);
  return page;
}

const IMPORTS_EXTENSION = 'Quire extension: imports as they stand, to watch one while its request waits (the reference answers only when it is done).';

export const contentRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  app.get(
    '/spaces/:spaceId/content/imports',
    {
      schema: {
        operationId: 'listContentImports',
        tags,
        description: IMPORTS_EXTENSION,
        params: SpaceContentParams,
        querystring: ListContentImportsQuery,
        response: { 200: ListOf(ContentImportSchema), ...ErrorResponses },
      },
    },
    async (request) =>
      presentList(await listContentImports(ctx, callerOf(request), request.params.spaceId, request.query), (row) => presentContentImport(urls, row)),
  );

  app.get(
    '/spaces/:spaceId/content/imports/:importId',
    { schema: { operationId: 'getContentImport', tags, description: IMPORTS_EXTENSION, params: ContentImportParams, response: { 200: ContentImportSchema, ...ErrorResponses } } },
    async (request) => presentContentImport(urls, await getContentImport(ctx, callerOf(request), request.params.spaceId, request.params.importId)),
  );

  /** A page's answer, built once per revision and set of options (a big page's document on the CPU pool). */
  const pageBytes = (content: IndexedRevision, key: string, page: Page, o: PresentOptions) =>
    cachedBytes(content, `${key}:bytes`, () => new ContentPresenter(urls, content, o).pageJson(page, ctx.cpu));

  const read = (request: FastifyRequest) => {
    const { spaceId, changeRequestId } = request.params as { spaceId: string; changeRequestId?: string };
    return changeRequestId ? readChangeRequestContent(ctx, callerOf(request), spaceId, changeRequestId) : readContent(ctx, callerOf(request), spaceId);
  };

  for (const { prefix, ids, replayable } of VARIANTS) {
    const replay = replayable ? { onRequest: replayCachedAnswer(ctx) } : {};
    app.get(
      `${prefix}/content`,
      {
        ...replay,
        schema: { operationId: ids.revision, tags, params: SpaceContentParams, querystring: ContentQuery, response: { 200: RevisionSchema, ...ErrorResponses } },
      },
      async (request, reply) => {
        const { content, ref } = await read(request);
        const o = options(request.query);
        const key = `revision:${ref ?? ''}:${optionsKey(o)}`;
        const json = cachedJsonBytes(content, key, () => new ContentPresenter(urls, content, o, ref).revision());
        return sendCachedAnswer(request, reply, content, key, json, JSON_TYPE, { replayable });
      },
    );

    // Waits for the import job; answers with the new revision, and its API URL in Location.
    app.post(
      `${prefix}/content/import`,
      {
        schema: {
          operationId: ids.import,
          tags,
          params: SpaceContentParams,
          body: ImportContentBody,
          response: { 201: { ...ImportContentResultSchema, headers: ImportedHeaders }, ...ErrorResponses },
        },
      },
      async (request, reply) => {
        const { spaceId, changeRequestId } = request.params;
        const result = await importContent(ctx, callerOf(request), spaceId, changeRequestId, request.body);
        return reply.status(201).header('location', urls.api(`/spaces/${spaceId}/revisions/${result.revision}`)).send(result);
      },
    );

    app.get(
      `${prefix}/content/pages`,
      { schema: { operationId: ids.pages, tags, params: SpaceContentParams, querystring: ContentQuery, response: { 200: PagesSchema, ...ErrorResponses } } },
      async (request) => {
        const { content } = await read(request);
        return { pages: new ContentPresenter(urls, content, options(request.query)).pages() } as never;
      },
    );

    app.get(
      `${prefix}/content/files`,
      { schema: { operationId: ids.files, tags, params: SpaceContentParams, querystring: FilesQuery, response: { 200: ListOf(FileSchema), ...ErrorResponses } } },
      async (request) => {
        const { content } = await read(request);
        const presenter = new ContentPresenter(urls, content, options(request.query));
        return presentList(await listFiles(ctx, content, request.query), (f) => presenter.file(f)) as never;
      },
    );

    app.get(
      `${prefix}/content/files/:fileId`,
      { schema: { operationId: ids.file, tags, params: FileParams, querystring: ContentQuery, response: { 200: FileSchema, ...ErrorResponses } } },
      async (request) => {
        const { content } = await read(request);
        return new ContentPresenter(urls, content, options(request.query)).file(findFile(content, request.params.fileId)) as never;
      },
    );

    app.get(
      `${prefix}/content/page/:pageId`,
      { ...replay, schema: { operationId: ids.page, tags, params: PageParams, querystring: PageQuery, response: { 200: PageSchema, ...ErrorResponses } } },
      async (request, reply) => {
        const { content } = await read(request);
        const page = findPage(content, request.params.pageId);
        const o = options(request.query);
        const key = `page:${page.id}:${optionsKey(o)}`;
        const json = await pageBytes(content, key, page, o);
        return sendCachedAnswer(request, reply, content, key, json, JSON_TYPE, { replayable });
      },
    );

    app.get(
      `${prefix}/content/page/:pageId/html`,
      { schema: { operationId: ids.html, tags, description: PAGE_HTML_EXTENSION, params: PageParams, response: { 200: PageHtmlSchema, ...ErrorResponses } } },
      async (request, reply) => {
        const { content } = await read(request);
        const { spaceId, changeRequestId } = request.params as { spaceId: string; changeRequestId?: string };
        const pagesAt = changeRequestId ? `/s/${spaceId}/~/changes/${changeRequestId}` : `/s/${spaceId}`;
        return reply.type(JSON_TYPE).send(await renderedPageJson(ctx, urls, content, findDocumentPage(content, request.params.pageId), pagesAt) as never);
      },
    );
  }

  app.get(
    '/spaces/:spaceId/revisions/:revisionId/page/:pageId/html',
    {
      schema: { operationId: 'getPageHtmlInRevision', tags, description: PAGE_HTML_EXTENSION, params: RevisionPageParams, response: { 200: PageHtmlSchema, ...ErrorResponses } },
    },
    async (request, reply) => {
      const { spaceId, revisionId, pageId } = request.params;
      const { content } = await readRevisionById(ctx, callerOf(request), spaceId, revisionId);
      const json = await renderedPageJson(ctx, urls, content, findDocumentPage(content, pageId), `/s/${spaceId}/~/revisions/${revisionId}`);
      return reply.type(JSON_TYPE).send(json as never);
    },
  );

  app.get(
    '/spaces/:spaceId/revisions/:revisionId',
    { schema: { operationId: 'getRevisionById', tags, params: RevisionParams, querystring: ContentQuery, response: { 200: RevisionSchema, ...ErrorResponses } } },
    async (request) => {
      const { content } = await readRevisionById(ctx, callerOf(request), request.params.spaceId, request.params.revisionId);
      return new ContentPresenter(urls, content, options(request.query)).revision() as never;
    },
  );

  // An old revision's pages, read by commit id as getRevisionById reads it, answered as main's are (the history of
  // revisions: GET /spaces/{spaceId}/revisions, ../revisions).
  app.get(
    '/spaces/:spaceId/revisions/:revisionId/pages',
    { schema: { operationId: 'listPagesInRevisionById', tags, params: RevisionParams, querystring: ContentQuery, response: { 200: PagesSchema, ...ErrorResponses } } },
    async (request) => {
      const { content } = await readRevisionById(ctx, callerOf(request), request.params.spaceId, request.params.revisionId);
      return { pages: new ContentPresenter(urls, content, options(request.query)).pages() } as never;
    },
  );

  for (const [operationId, route, params] of [
    ['getPageInRevisionById', '/spaces/:spaceId/revisions/:revisionId/page/:pageId', RevisionPageParams],
    ['getPageInRevisionByPath', '/spaces/:spaceId/revisions/:revisionId/path/*', RevisionPagePathParams],
  ] as const) {
    app.get(
      route,
      { schema: { operationId, tags, params, querystring: PageQuery, response: { 200: PageSchema, ...ErrorResponses } } },
      async (request, reply) => {
        const { spaceId, revisionId, pageId, '*': pagePath } = request.params as { spaceId: string; revisionId: string; pageId?: string; '*'?: string };
        const { content } = await readRevisionById(ctx, callerOf(request), spaceId, revisionId);
        const page = pageId !== undefined ? findPage(content, pageId) : findPageByPathOrRedirect(content, pagePath ?? '');
        const o = options(request.query);
        // The same answer as main's page read, kept with the revision by page and options.
        const key = `page:${page.id}:${optionsKey(o)}`;
        return sendCachedAnswer(request, reply, content, key, await pageBytes(content, key, page, o), JSON_TYPE);
      },
    );
  }

  app.get(
    '/spaces/:spaceId/content/path/*',
    {
      onRequest: replayCachedAnswer(ctx),
      schema: { operationId: 'getPageByPath', tags, params: PagePathParams, querystring: PageQuery, response: { 200: PageSchema, ...ErrorResponses } },
    },
    async (request, reply) => {
      const { content } = await readContent(ctx, callerOf(request), request.params.spaceId);
      const page = findPageByPathOrRedirect(content, request.params['*']);
      const o = options(request.query);
      // The same answer as the page by id: built once per revision and set of options.
      const key = `page:${page.id}:${optionsKey(o)}`;
      const json = await pageBytes(content, key, page, o);
      return sendCachedAnswer(request, reply, content, key, json, JSON_TYPE, { replayable: true });
    },
  );

  // Files' downloadURL: the blob's bytes, with the type of its name; never sniffed by browsers.
  app.get(
    '/spaces/:spaceId/files/:oid/:name',
    { schema: { operationId: 'downloadFile', tags, params: BlobParams, response: { ...ErrorResponses } } },
    async (request, reply) => {
      const bytes = await readFileBlob(ctx, callerOf(request), request.params.spaceId, request.params.oid);
      return reply
        .header('content-type', contentTypeOf(request.params.name))
        .header('x-content-type-options', 'nosniff')
        // Opened on Quire's own origin, where a browser holds the session cookie: an SVG or HTML file of the space
        // must never run script there.
        .header('content-security-policy', "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; sandbox")
        .header('content-disposition', `inline; filename*=UTF-8''${encodeURIComponent(request.params.name)}`)
        .header('cache-control', 'private, max-age=31536000, immutable')
        .send(bytes as never);
    },
  );
};
