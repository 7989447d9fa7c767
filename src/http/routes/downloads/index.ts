import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { RouteDeps } from '../deps.js';
import { changeRequestPdf } from '../../../domain/change-requests/change-requests.js';
import { ErrorResponses } from '../../schemas.js';

/** Signed download links: outside /v1 and its bearer check, the signature in the path is the credential. */
export const downloadRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx }) => {
  app.get(
    '/pdf/:token',
    { schema: { hide: true, params: Type.Object({ token: Type.String({ maxLength: 4096 }) }), response: { ...ErrorResponses } } },
    async (request, reply) => {
      const { pdf, fileName } = await changeRequestPdf(ctx, request.params.token);
      return reply
        .header('content-type', 'application/pdf')
        .header('content-disposition', `inline; filename="${fileName}"`)
        .header('x-content-type-options', 'nosniff')
        .header('cache-control', 'private, max-age=3600')
        .send(pdf as never);
    },
  );
};
