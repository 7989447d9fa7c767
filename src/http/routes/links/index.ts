import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses } from '../../schemas.js';
import { listFileBacklinks, listLinks } from '../../../domain/content/link-lists.js';
import { BacklinkListSchema, BacklinksQuery, FileBacklinksParams, LinkListSchema, LinksQuery, PageLinksParams, SpaceLinksParams } from './schema.js';
import { LinkPresenter } from './presenter.js';

/** The links of a space, of a page and a file's backlinks, on main or on a change request's branch. */
export const linkRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  const appUrl = urls.app('');

  app.get(
    '/spaces/:spaceId/links',
    { schema: { operationId: 'listSpaceLinks', tags: ['spaces'], params: SpaceLinksParams, querystring: LinksQuery, response: { 200: LinkListSchema, ...ErrorResponses } } },
    async (request) => {
      const { status, ...page } = request.query;
      const { context, list } = await listLinks(ctx, callerOf(request), { spaceId: request.params.spaceId, status }, page, appUrl);
      return new LinkPresenter(urls, context).list(list) as never;
    },
  );

  for (const variant of [
    { prefix: '/spaces/:spaceId', links: 'listPageLinksInSpace', backlinks: 'listSpaceFileBacklinks', tags: ['space-content'] },
    { prefix: '/spaces/:spaceId/change-requests/:changeRequestId', links: 'listPageLinksInChangeRequest', backlinks: 'listChangeRequestFileBacklinks', tags: ['change-request-content'] },
  ]) {
    const inChangeRequest = variant.prefix.includes(':changeRequestId');
    app.get(
      `${variant.prefix}/content/page/:pageId/links`,
      // The change-request variant takes no status filter (the spec and the reference list none).
      { schema: { operationId: variant.links, tags: variant.tags, params: PageLinksParams, querystring: inChangeRequest ? BacklinksQuery : LinksQuery, response: { 200: LinkListSchema, ...ErrorResponses } } },
      async (request) => {
        const { spaceId, changeRequestId, pageId } = request.params;
        const { status, ...page } = request.query as typeof request.query & { status?: 'ok' | 'broken' | 'in-app' };
        const { context, list } = await listLinks(ctx, callerOf(request), { spaceId, changeRequestId, pageId, status: inChangeRequest ? undefined : status }, page, appUrl);
        return new LinkPresenter(urls, context).list(list) as never;
      },
    );

    app.get(
      `${variant.prefix}/content/files/:fileId/backlinks`,
      { schema: { operationId: variant.backlinks, tags: variant.tags, params: FileBacklinksParams, querystring: BacklinksQuery, response: { 200: BacklinkListSchema, ...ErrorResponses } } },
      async (request) => {
        const { spaceId, changeRequestId, fileId } = request.params;
        const { context, list } = await listFileBacklinks(ctx, callerOf(request), { spaceId, changeRequestId, fileId }, request.query);
        return new LinkPresenter(urls, context).backlinks(list) as never;
      },
    );
  }
};
