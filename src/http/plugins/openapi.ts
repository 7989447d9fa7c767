/**
 * The server's own OpenAPI document, generated from the route schemas and published at GET /v1/openapi.json.
 */
import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';

export async function registerOpenApi(app: FastifyInstance, publicUrl: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Quire API',
        version: '1.0.0',
        description: 'Documentation platform whose content lives in git. Every operation needs `Authorization: Bearer <token>`.',
      },
      servers: [{ url: publicUrl }],
      components: { securitySchemes: { user: { type: 'http', scheme: 'bearer' } } },
      security: [{ user: [] }],
    },
  });
  app.get('/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());
}
