/**
 * Serving an MCP server (the Model Context Protocol, through its official SDK) over this HTTP server, as both of
 * Quire's are served: a published site's at `{site}/~quire/mcp` and the organization's at `/v1/mcp`. The SDK's
 * Streamable HTTP transport without sessions: each POST is one exchange, answered as JSON, by a server made for it
 * (a server holds its caller, so none outlives the request).
 *
 * The SDK, its schemas (zod) and the servers' tools are loaded at the first exchange, not with the rest of the app:
 * some 200 modules that every start of a server (and of every test's app) would load for what few ask.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Without sessions there is no stream to open (GET) nor session to end (DELETE): these methods answer 405. */
export const SESSION_METHODS = ['GET', 'DELETE'] as const;

/** A tool's answer as text; `isError` marks it as the tool's failure (the agent reads why). */
export function toolText(value: string, isError = false): CallToolResult {
  return { content: [{ type: 'text', text: value }], ...(isError ? { isError: true } : {}) };
}

/** Answers the request's exchange with `server`, which is closed once the answer is sent. */
export async function answerMcpExchange(request: FastifyRequest, reply: FastifyReply, server: McpServer): Promise<void> {
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  reply.hijack();
  // Closing never throws to anyone: a failure to close is nothing the caller can act on.
  reply.raw.on('close', () => void server.close().catch(() => undefined));
  await server.connect(transport);
  await transport.handleRequest(request.raw, reply.raw, request.body);
}
