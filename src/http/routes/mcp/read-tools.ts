/**
 * The organization MCP server's read tools, over every space the caller may read: each goes through the domain
 * function of the API operation it stands for (the same permission checks), and shows what that operation answers.
 * - `listSpaces`: the spaces of the caller's organizations they can see (the organizations' space lists);
 * - `searchContent(query, spaceId?)`: a space's search, or every organization's search, with excerpts;
 * - `getPage(spaceId, path | pageId)`: a page of main as markdown, as the page-by-path and page-by-id reads give it;
 * - `listChangeRequests(spaceId, status?)` and `getChangeRequest(spaceId, changeRequestId)`, with its changes.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { CHANGE_REQUEST_STATUSES, getChangeRequest, listChangeRequests, type ChangeRequestView } from '../../../domain/change-requests/change-requests.js';
import { changeRequestChanges } from '../../../domain/change-requests/changes.js';
import { findPageByPathOrRedirect } from '../../../domain/content/page-paths.js';
import { findPage, readContent } from '../../../domain/content/revisions.js';
import { listOrganizationSpaces } from '../../../domain/content/spaces.js';
import { MAX_LIMIT, type Page, type PageRequest } from '../../../domain/lists.js';
import { listOrganizations } from '../../../domain/organizations/organizations.js';
import { searchOrganization, searchSpace, type PageHit } from '../../../domain/search/search-queries.js';
import { toolText } from '../../mcp.js';
import { presentChangeRequest } from '../change-requests/presenter.js';
import { ContentPresenter } from '../content/presenter.js';
import { presentPageHit } from '../search/presenter.js';
import { presentSpace } from '../spaces/presenter.js';
import { guarded, type ToolDeps } from './tool-calls.js';

/** Spaces listSpaces shows at most (the caller's organizations together). */
const MAX_SPACES = 1000;
/** Pages a search shows at most, sections per page, and spaces an organization's search ranks. */
const MAX_RESULTS = 20;
const MAX_SECTIONS = 3;
const SEARCHED_SPACES = 10;
/** Change requests listed at most, and bytes of a change request's diff shown. */
const MAX_CHANGE_REQUESTS = 100;
const MAX_DIFF_BYTES = 64 * 1024;

export const SpaceId = z.string().trim().min(1).max(256).describe('A space id, as listSpaces gives it');
export const ChangeRequestId = z.string().trim().min(1).max(256).describe("A change request's id, or its number in the space");

const readOnly = { readOnlyHint: true, openWorldHint: false };

/** Every item of a paged list, at most `max`; `more` when the list went on. */
async function itemsOf<T>(list: (request: PageRequest) => Promise<Page<T>>, max: number): Promise<{ items: T[]; more: boolean }> {
  const items: T[] = [];
  let next: string | undefined;
  do {
    const page = await list({ limit: MAX_LIMIT, ...(next ? { page: next } : {}) });
    items.push(...page.items);
    next = page.next;
  } while (next && items.length < max);
  return { items: items.slice(0, max), more: items.length > max || next !== undefined };
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ').trim();

/** A page result with its first matching sections. */
function hitLines(deps: ToolDeps, hit: PageHit, space: string): string[] {
  const shown = presentPageHit(deps.urls, hit);
  const sections = shown.sections.slice(0, MAX_SECTIONS).map((section) => `  - ${section.title}: ${oneLine(section.body)}`);
  return [`- ${shown.title} (page ${shown.id}, path "${shown.path}", ${space}): ${shown.urls.app}`, ...sections];
}

function changeRequestLine(deps: ToolDeps, view: ChangeRequestView): string {
  const shown = presentChangeRequest(deps.urls, view);
  const author = view.createdBy ? `, by ${view.createdBy.display_name}` : '';
  const outdated = shown.outdated ? ', behind main' : '';
  return `- #${shown.number} ${shown.subject || '(no subject)'} (id ${shown.id}, ${shown.status}${author}, updated ${shown.updatedAt}${outdated}, ${shown.comments} open comments): ${shown.urls.app}`;
}

export function registerReadTools(server: McpServer, deps: ToolDeps): void {
  const { ctx, urls, caller } = deps;
  const organizations = async () => (await itemsOf((request) => listOrganizations(ctx, caller, request), Number.MAX_SAFE_INTEGER)).items;

  server.registerTool(
    'listSpaces',
    {
      description: 'Lists the spaces you can read in your organizations: their ids (which the other tools take), titles, organizations and URLs.',
      inputSchema: {},
      annotations: readOnly,
    },
    guarded(deps, 'listSpaces', async () => {
      const lines: string[] = [];
      let more = false;
      for (const { organization } of await organizations()) {
        const spaces = await itemsOf((request) => listOrganizationSpaces(ctx, caller, organization.id, request), MAX_SPACES - lines.length);
        for (const view of spaces.items) {
          const shown = presentSpace(urls, view);
          lines.push(`- ${shown.title || 'Untitled'} (space ${shown.id}; organization ${organization.title}, ${organization.id}; your role: ${view.role}): ${shown.urls.app}`);
        }
        more ||= spaces.more;
        if (lines.length >= MAX_SPACES) break;
      }
      if (lines.length === 0) return toolText('You can read no space.');
      return toolText([...lines, ...(more ? [`(the first ${MAX_SPACES} spaces: there are more)`] : [])].join('\n'));
    }),
  );

  server.registerTool(
    'searchContent',
    {
      description: 'Searches the content of one space, or of every space you can read: the best pages first, with excerpts of their matching sections.',
      inputSchema: {
        query: z.string().trim().min(1).max(512).describe('What to look for: words of the question'),
        spaceId: SpaceId.optional().describe('Only this space; none: every space you can read'),
      },
      annotations: readOnly,
    },
    guarded(deps, 'searchContent', async ({ query, spaceId }: { query: string; spaceId?: string }) => {
      const lines: string[] = [];
      if (spaceId !== undefined) {
        const found = await searchSpace(ctx, caller, spaceId, query, { limit: MAX_RESULTS });
        for (const hit of found.items) lines.push(...hitLines(deps, hit, `space ${spaceId}`));
      } else {
        let shown = 0;
        for (const { organization } of await organizations()) {
          const found = await searchOrganization(ctx, caller, organization.id, query, { limit: SEARCHED_SPACES });
          for (const { space, pages } of found.items) {
            for (const hit of pages.slice(0, MAX_RESULTS - shown)) lines.push(...hitLines(deps, hit, `space ${space.title} (${space.id})`));
            shown = Math.min(MAX_RESULTS, shown + pages.length);
          }
          if (shown >= MAX_RESULTS) break;
        }
      }
      return toolText(lines.length === 0 ? `Nothing found for "${query}".` : lines.join('\n'));
    }),
  );

  server.registerTool(
    'getPage',
    {
      description: "Reads a page of a space's main content as markdown, by its path in the space (as search results give it) or its id.",
      inputSchema: {
        spaceId: SpaceId,
        path: z.string().trim().max(1024).optional().describe('The page path, e.g. "guides/install"'),
        pageId: z.string().trim().min(1).max(256).optional().describe('The page id, instead of its path'),
      },
      annotations: readOnly,
    },
    guarded(deps, 'getPage', async ({ spaceId, path, pageId }: { spaceId: string; path?: string; pageId?: string }) => {
      if (path === undefined && pageId === undefined) return toolText('InvalidArgument: path: give the page path, or its pageId', true);
      const { content } = await readContent(ctx, caller, spaceId);
      const page = pageId !== undefined ? findPage(content, pageId) : findPageByPathOrRedirect(content, path!);
      // The page as the API answers it (markdown format, variables as written).
      const shown = new ContentPresenter(urls, content).page(page) as { id: string; title: string; path?: string; markdown?: string; description?: string; urls?: { app: string } };
      if (shown.markdown === undefined) return toolText(`InvalidArgument: page ${page.id} is a ${page.type} page, which has no markdown of its own`, true);
      const about = `Page ${shown.id} at path "${shown.path}" of space ${spaceId}${shown.description ? `: ${shown.description}` : ''} (${shown.urls?.app})`;
      return { content: [{ type: 'text' as const, text: `# ${shown.title}\n\n${shown.markdown}` }, { type: 'text' as const, text: about }] };
    }),
  );

  server.registerTool(
    'listChangeRequests',
    {
      description: "Lists a space's change requests with one status (open by default), newest first.",
      inputSchema: { spaceId: SpaceId, status: z.enum(CHANGE_REQUEST_STATUSES).optional().describe('open (default), draft, archived or merged') },
      annotations: readOnly,
    },
    guarded(deps, 'listChangeRequests', async ({ spaceId, status }: { spaceId: string; status?: (typeof CHANGE_REQUEST_STATUSES)[number] }) => {
      const found = await listChangeRequests(ctx, caller, spaceId, { status, limit: MAX_CHANGE_REQUESTS });
      if (found.items.length === 0) return toolText(`No ${status ?? 'open'} change request in space ${spaceId}.`);
      return toolText(found.items.map((view) => changeRequestLine(deps, view)).join('\n'));
    }),
  );

  server.registerTool(
    'getChangeRequest',
    {
      description: 'Reads a change request: its subject and status, the pages it adds, changes, moves and removes, and its diff.',
      inputSchema: { spaceId: SpaceId, changeRequestId: ChangeRequestId },
      annotations: readOnly,
    },
    guarded(deps, 'getChangeRequest', async ({ spaceId, changeRequestId }: { spaceId: string; changeRequestId: string }) => {
      const view = await getChangeRequest(ctx, caller, spaceId, changeRequestId);
      const changes = await changeRequestChanges(ctx, caller, spaceId, changeRequestId, { maxDiffBytes: MAX_DIFF_BYTES });
      const pages = changes.pages.map(
        (change) => `- ${change.change}: ${change.title} (page ${change.id}, path "${change.path}"${change.previousPath !== undefined ? `, was "${change.previousPath}"` : ''})`,
      );
      return toolText(
        [
          changeRequestLine(deps, view),
          '',
          `Pages changed from ${changes.base} to ${changes.head}:`,
          ...(pages.length > 0 ? pages : ['(none)']),
          '',
          'Diff:',
          changes.diff === '' ? '(no change)' : changes.diff,
          ...(changes.diffTruncated ? [`(the diff goes on past its first ${MAX_DIFF_BYTES} bytes)`] : []),
        ].join('\n'),
      );
    }),
  );
}
