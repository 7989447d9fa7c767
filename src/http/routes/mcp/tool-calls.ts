/**
 * What every tool of the organization's MCP server shares: who it acts for, and how its failures reach the agent.
 * A domain error (its stable `code`, its message naming the field or the resource) becomes the tool's error result;
 * anything else is logged and answered as an internal error without its details (as the API answers a 500). Nothing
 * a tool does throws out of the exchange.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Caller, Context } from '../../../domain/context.js';
import { DomainError } from '../../../domain/errors.js';
import type { Urls } from '../../urls.js';
import { toolText } from '../../mcp.js';

/** What a tool works with: the same context and caller an API route has. */
export interface ToolDeps {
  ctx: Context;
  urls: Urls;
  caller: Caller;
}

/** `run` as a tool handler whose failures are results (see the top of this file). */
export function guarded<A>(deps: ToolDeps, tool: string, run: (args: A) => Promise<CallToolResult>): (args: A) => Promise<CallToolResult> {
  return async (args) => {
    try {
      return await run(args);
    } catch (error) {
      if (error instanceof DomainError) return toolText(`${error.code}: ${error.message}`, true);
      deps.ctx.log.error({ err: error, tool, userId: deps.caller.user.id }, 'MCP tool failed');
      return toolText(`internal error: the server could not complete ${tool}`, true);
    }
  };
}
