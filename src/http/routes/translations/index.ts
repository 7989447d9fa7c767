import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { ErrorResponses, ListOf, NoContent } from '../../schemas.js';
import { noContent, presentList } from '../../present.js';
import {
  createTranslationSettings,
  deleteTranslationSettings,
  getTranslationSettings,
  listTranslationSettings,
  updateTranslationSettings,
} from '../../../domain/translations/translations.js';
import {
  OrganizationParams,
  TranslationSettingsBody,
  TranslationSettingsParams,
  TranslationSettingsQuery,
  TranslationSettingsSchema,
} from './schema.js';
import { presentTranslationSettings } from './presenter.js';

const tags = ['translations'];

/** Translation settings in the spec's shape (the reference's `Translation` is a different resource). */
export const translationRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  app.get(
    '/orgs/:organizationId/translations',
    {
      schema: {
        operationId: 'listTranslations',
        tags,
        params: OrganizationParams,
        querystring: TranslationSettingsQuery,
        response: { 200: ListOf(TranslationSettingsSchema), ...ErrorResponses },
      },
    },
    async (request) =>
      presentList(await listTranslationSettings(ctx, callerOf(request), request.params.organizationId, request.query), (s) =>
        presentTranslationSettings(urls, s),
      ),
  );

  app.post(
    '/orgs/:organizationId/translations',
    {
      schema: {
        operationId: 'createTranslation',
        tags,
        params: OrganizationParams,
        body: TranslationSettingsBody,
        response: { 201: TranslationSettingsSchema, ...ErrorResponses },
      },
    },
    async (request, reply) => {
      const settings = await createTranslationSettings(ctx, callerOf(request), request.params.organizationId, request.body);
      return reply.status(201).send(presentTranslationSettings(urls, settings));
    },
  );

  app.get(
    '/orgs/:organizationId/translations/:translationSettingsId',
    { schema: { operationId: 'getTranslation', tags, params: TranslationSettingsParams, response: { 200: TranslationSettingsSchema, ...ErrorResponses } } },
    async (request) =>
      presentTranslationSettings(
        urls,
        await getTranslationSettings(ctx, callerOf(request), request.params.organizationId, request.params.translationSettingsId),
      ),
  );

  app.put(
    '/orgs/:organizationId/translations/:translationSettingsId',
    {
      schema: {
        operationId: 'updateTranslation',
        tags,
        params: TranslationSettingsParams,
        body: TranslationSettingsBody,
        response: { 200: TranslationSettingsSchema, ...ErrorResponses },
      },
    },
    async (request) =>
      presentTranslationSettings(
        urls,
        await updateTranslationSettings(ctx, callerOf(request), request.params.organizationId, request.params.translationSettingsId, request.body),
      ),
  );

  app.delete(
    '/orgs/:organizationId/translations/:translationSettingsId',
    { schema: { operationId: 'deleteTranslation', tags, params: TranslationSettingsParams, response: { 204: NoContent, 205: NoContent, ...ErrorResponses } } },
    async (request, reply) => {
      const deleted = await deleteTranslationSettings(ctx, callerOf(request), request.params.organizationId, request.params.translationSettingsId);
      return noContent(reply, deleted ? 205 : 204);
    },
  );
};
