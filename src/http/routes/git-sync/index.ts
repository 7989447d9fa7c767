/**
 * Git Sync (a Quire extension beside the reference's operations): a space connected to a branch of a repository on
 * another git host, the same commits on both sides (src/domain/git-sync). Connecting and disconnecting are for the
 * space's admins; a run is for its editors (the reference's `triggerGitSync` permission) and answers when done, as
 * is the reference's one-off `exportToGitRepository`.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses, NoContent } from '../../schemas.js';
import { noContent } from '../../present.js';
import { SpaceParams } from '../spaces/schema.js';
import { connectGitSync, disconnectGitSync, readGitSync } from '../../../domain/git-sync/connections.js';
import { runGitSyncFor } from '../../../domain/git-sync/run.js';
import { exportToGitRepository } from '../../../domain/git-sync/export.js';
import { ConnectGitSyncBody, ExportToGitRepositoryBody, GitSyncSchema } from './schema.js';
import { presentGitSync } from './presenter.js';

export const gitSyncRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx }) => {
  const tags = ['git-sync'];
  const path = '/spaces/:spaceId/git/sync';

  app.put(path, { schema: { operationId: 'connectGitSync', tags, params: SpaceParams, body: ConnectGitSyncBody, response: { 200: GitSyncSchema, ...ErrorResponses } } }, async (request) =>
    presentGitSync(await connectGitSync(ctx, callerOf(request), request.params.spaceId, request.body)),
  );

  app.get(path, { schema: { operationId: 'getGitSync', tags, params: SpaceParams, response: { 200: GitSyncSchema, ...ErrorResponses } } }, async (request) =>
    presentGitSync(await readGitSync(ctx, callerOf(request), request.params.spaceId)),
  );

  app.delete(path, { schema: { operationId: 'disconnectGitSync', tags, params: SpaceParams, response: { 204: NoContent, ...ErrorResponses } } }, async (request, reply) => {
    await disconnectGitSync(ctx, callerOf(request), request.params.spaceId);
    return noContent(reply, 204);
  });

  app.post(
    '/spaces/:spaceId/git/export',
    { schema: { operationId: 'exportToGitRepository', tags, params: SpaceParams, body: ExportToGitRepositoryBody, response: { 204: NoContent, ...ErrorResponses } } },
    async (request, reply) => {
      await exportToGitRepository(ctx, callerOf(request), request.params.spaceId, request.body);
      return noContent(reply, 204);
    },
  );

  app.post(`${path}/run`, { schema: { operationId: 'runGitSync', tags, params: SpaceParams, response: { 200: GitSyncSchema, ...ErrorResponses } } }, async (request) =>
    presentGitSync(await runGitSyncFor(ctx, callerOf(request), request.params.spaceId)),
  );
};
