/**
 * The organization's MCP server, made for one caller (an API token's user) for one exchange: the read tools over
 * every space they may read (read-tools.ts) and the write tools, which go only through change requests
 * (write-tools.ts).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Caller, Context } from '../../../domain/context.js';
import type { Urls } from '../../urls.js';
import { registerReadTools } from './read-tools.js';
import { registerWriteTools } from './write-tools.js';

export function organizationMcpServer(ctx: Context, urls: Urls, caller: Caller): McpServer {
  const server = new McpServer(
    { name: 'Quire', version: '1.0.0' },
    {
      instructions:
        'The documentation spaces of your Quire organizations, as your API token may read them. Find spaces with listSpaces, ' +
        'search and read pages, review change requests. To change content, open a change request, write pages in it and ' +
        'comment: nothing is written on main, which changes when someone merges the change request.',
    },
  );
  const deps = { ctx, urls, caller };
  registerReadTools(server, deps);
  registerWriteTools(server, deps);
  return server;
}
