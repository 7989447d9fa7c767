/**
 * Importing whole git repositories with their history: into an organization (a Quire extension: one space per
 * project directory, and the site docs.yaml describes) and into one space (the reference's importGitRepository).
 * Both wait for the import-repository job, as content imports do.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses, NoContent } from '../../schemas.js';
import { noContent } from '../../present.js';
import { importGitRepository, importRepository, uploadOf, type OrganizationImportResult } from '../../../domain/imports/repositories.js';
import type { Urls } from '../../urls.js';
import { OrganizationParams } from '../organizations/schema.js';
import { SpaceParams } from '../spaces/schema.js';
import { presentSpace } from '../spaces/presenter.js';
import { presentSite } from '../sites/presenter.js';
import { ImportGitRepositoryBody, ImportRepositoryBody, ImportUploadQuery, RepositoryImportResultSchema } from './schema.js';

/** Largest upload (a bundle or a zip of a repository). */
export const MAX_UPLOAD_BYTES = 256 * 1024 * 1024;

function present(urls: Urls, result: OrganizationImportResult) {
  return {
    revision: result.revision,
    projects: result.projects.map((p) => ({ key: p.key, projectDirectory: p.projectDirectory, ...(p.language ? { language: p.language } : {}), space: presentSpace(urls, p.space) })),
    ...(result.site ? { site: presentSite(urls, result.site) } : {}),
    skipped: result.skipped,
  };
}

export const repositoryImportRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  // Uploads arrive as bytes, whatever they are called; the domain tells a bundle from a zip by their first bytes.
  app.addContentTypeParser(['application/x-git-bundle', 'application/zip', 'application/octet-stream'], { parseAs: 'buffer', bodyLimit: MAX_UPLOAD_BYTES }, (_request, body, done) =>
    done(null, body),
  );
  const tags = ['repository-imports'];

  app.post(
    '/orgs/:organizationId/git/import',
    {
      schema: {
        operationId: 'importRepositoryIntoOrganization',
        tags,
        params: OrganizationParams,
        body: ImportRepositoryBody,
        response: { 201: RepositoryImportResultSchema, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const result = await importRepository(ctx, callerOf(request), request.params.organizationId, request.body);
      return reply.status(201).send(present(urls, result) as never);
    },
  );

  app.post(
    '/orgs/:organizationId/git/import/upload',
    {
      bodyLimit: MAX_UPLOAD_BYTES,
      schema: {
        operationId: 'importRepositoryUploadIntoOrganization',
        tags,
        params: OrganizationParams,
        querystring: ImportUploadQuery,
        response: { 201: RepositoryImportResultSchema, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const upload = uploadOf(body);
      const result = await importRepository(ctx, callerOf(request), request.params.organizationId, { ref: request.query.ref, upload });
      return reply.status(201).send(present(urls, result) as never);
    },
  );

  app.post(
    '/spaces/:spaceId/git/import',
    { schema: { operationId: 'importGitRepository', tags, params: SpaceParams, body: ImportGitRepositoryBody, response: { 204: NoContent, ...ErrorResponses } } },
    async (request, reply) => {
      await importGitRepository(ctx, callerOf(request), request.params.spaceId, request.body);
      return noContent(reply, 204);
    },
  );
};
