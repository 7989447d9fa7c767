/**
 * The organization's MCP server at `/v1/mcp` (server.ts), for agents acting as an API token's user. Authenticated as
 * every /v1 route (the bearer token of src/http/plugins/auth.ts: none or a bad one is a 401). A Quire extension,
 * left out of the OpenAPI document as the sites' MCP servers are: it speaks the protocol's JSON-RPC messages, not
 * the API's resources. Streamable HTTP without sessions (src/http/mcp.ts): POST only.
 */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { RouteDeps } from '../deps.js';
import { callerOf } from '../../plugins/auth.js';
import { errorBody } from '../../plugins/errors.js';
import { answerMcpExchange, SESSION_METHODS } from '../../mcp.js';

export const mcpRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, { ctx, urls }) => {
  // The server's module, with the SDK, is loaded at the first exchange (src/http/mcp.ts says why).
  app.post('/mcp', { schema: { hide: true } }, async (request, reply) => {
    const { organizationMcpServer } = await import('./server.js');
    return answerMcpExchange(request, reply, organizationMcpServer(ctx, urls, callerOf(request)));
  });

  app.route({
    method: [...SESSION_METHODS],
    url: '/mcp',
    schema: { hide: true },
    handler: async (request, reply) =>
      reply
        .status(405)
        .header('allow', 'POST')
        .send(errorBody(405, `method: ${request.method} is not served at /v1/mcp: its exchanges are POSTs, without sessions`)),
  });
};
