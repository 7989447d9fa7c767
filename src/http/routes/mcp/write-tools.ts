/**
 * The organization MCP server's write tools. They write only through change requests, never on main: content
 * reaches main when someone with the merge permission merges the change request. Each goes through the domain
 * function the API uses, with its permission checks:
 * - `openChangeRequest(spaceId, subject)`: opens a change request (the API's createChangeRequest);
 * - `writePage(spaceId, changeRequestId, path, markdown, title?)`: creates or replaces a page in its branch;
 * - `comment(spaceId, changeRequestId, markdown)`: a comment on it (the API's postCommentInChangeRequest).
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { createChangeRequest } from '../../../domain/change-requests/change-requests.js';
import { writeChangeRequestPage } from '../../../domain/change-requests/page-writes.js';
import { changeRequestScope, postComment } from '../../../domain/comments/comments.js';
import { MAX_INDEXED_TEXT } from '../../../content/bounded-markdown.js';
import { toolText } from '../../mcp.js';
import { presentChangeRequest } from '../change-requests/presenter.js';
import { ChangeRequestId, SpaceId } from './read-tools.js';
import { guarded, type ToolDeps } from './tool-calls.js';

/**
 * Markdown a page or a comment may hold: what search and the link index read of a page whole (a longer page is
 * pushed with git). The API's 1 MiB request body bounds it first, in the JSON of the exchange.
 */
const Markdown = z.string().max(MAX_INDEXED_TEXT).regex(/\S/, 'must not be blank');
/** A subject as the API takes it (its change-request schema: 100 characters). */
const Subject = z.string().trim().min(1).max(100);
/** A title is a line people read; git and the table of contents take far more, agents need no more. */
const Title = z.string().trim().min(1).max(255);

const write = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };

export function registerWriteTools(server: McpServer, deps: ToolDeps): void {
  const { ctx, urls, caller } = deps;

  server.registerTool(
    'openChangeRequest',
    {
      description: "Opens a change request in a space: a branch from main's current content, where writePage writes. Needs edit on the space.",
      inputSchema: { spaceId: SpaceId, subject: Subject.describe('What the change is about') },
      annotations: write,
    },
    guarded(deps, 'openChangeRequest', async ({ spaceId, subject }: { spaceId: string; subject: string }) => {
      const shown = presentChangeRequest(urls, await createChangeRequest(ctx, caller, spaceId, { subject }));
      return toolText(`Opened change request #${shown.number} (id ${shown.id}) in space ${spaceId}: ${shown.urls.app}`);
    }),
  );

  server.registerTool(
    'writePage',
    {
      description:
        "Creates or replaces a page in a change request (never on main). The page keeps its front matter; a new page is added to the table of contents. Needs edit on the space; a merged or archived change request takes no changes.",
      inputSchema: {
        spaceId: SpaceId,
        changeRequestId: ChangeRequestId,
        path: z.string().trim().min(1).max(1024).describe('The page path in the space, e.g. "guides/install" (a .md ending is dropped)'),
        markdown: Markdown.describe("The page's markdown; a first # heading is its title"),
        title: Title.optional().describe('The page title, written as its first heading'),
      },
      annotations: write,
    },
    guarded(deps, 'writePage', async ({ spaceId, changeRequestId, path, markdown, title }: { spaceId: string; changeRequestId: string; path: string; markdown: string; title?: string }) => {
      const written = await writeChangeRequestPage(ctx, caller, spaceId, changeRequestId, { path, markdown, title });
      return toolText(
        `${written.created ? 'Created' : 'Replaced'} page "${written.path}" (${written.gitPath}) in change request #${written.changeRequestNumber}: revision ${written.revision}`,
      );
    }),
  );

  server.registerTool(
    'comment',
    {
      description: 'Posts a comment on a change request. Needs the comment permission on the space.',
      inputSchema: { spaceId: SpaceId, changeRequestId: ChangeRequestId, markdown: Markdown.describe('The comment, in markdown') },
      annotations: write,
    },
    guarded(deps, 'comment', async ({ spaceId, changeRequestId, markdown }: { spaceId: string; changeRequestId: string; markdown: string }) => {
      const scope = await changeRequestScope(ctx, caller, spaceId, changeRequestId);
      const posted = await postComment(ctx, caller, scope, { body: { markdown } });
      return toolText(`Posted comment ${posted.comment.id} on change request ${changeRequestId} of space ${spaceId}`);
    }),
  );
}
