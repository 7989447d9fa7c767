/**
 * A published site's MCP server (the Model Context Protocol, through its official SDK): what an AI agent reads of
 * the site, as its reader would. Tools:
 * - `searchDocumentation(query)`: the site's search, best pages first, with their matching sections' excerpts and URLs;
 * - `getPage(url)`: a page as markdown (its `.md` twin), by its URL, its path on the site or its path in the space;
 * - `listPages(section?)`: the site's pages with their URLs and descriptions, of one section when asked.
 * Everything comes from the reader's own tree (readPublishedSite): what the reader may not see, no tool returns.
 * One server per request: the transport is stateless (no session), each call answers as JSON.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { Context } from '../../../domain/context.js';
import { DomainError } from '../../../domain/errors.js';
import { toolText } from '../../mcp.js';
import { readPublishedPage, type PublishedTree } from '../../../domain/sites/published.js';
import { pageMarkdown } from './render.js';
import { sitePages, siteSearch } from './site-reads.js';

/** Results a search answers at most, and sections per result. */
const MAX_RESULTS = 10;
const MAX_SECTIONS = 3;

/** The path segments under the site of a URL, a site path (`/sites/ORG/SITE/a/b`) or a path in the site (`a/b`, `a/b.md`). */
export function siteSegments(url: string, siteBase: string): string[] {
  let path = url.trim();
  try {
    path = new URL(path).pathname;
  } catch {
    // Not an absolute URL: a path.
  }
  path = path.split(/[?#]/, 1)[0];
  if (path === siteBase || path.startsWith(`${siteBase}/`)) path = path.slice(siteBase.length);
  const segments = path.split('/').filter((segment) => segment !== '');
  const last = segments.length - 1;
  if (last >= 0 && segments[last].endsWith('.md')) segments[last] = segments[last].slice(0, -3);
  return segments.map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      return segment;
    }
  });
}

/** The MCP server of one site, as `tree`'s reader sees it; `absolute` makes a site path a full URL. */
export function siteMcpServer(ctx: Context, tree: PublishedTree, siteBase: string, absolute: (path: string) => string): McpServer {
  const server = new McpServer(
    { name: `${tree.site.title} (Quire)`, version: '1.0.0' },
    { instructions: `The documentation published as "${tree.site.title}". Search it, list its pages, and read any page as markdown by its URL.` },
  );
  const readOnly = { readOnlyHint: true, openWorldHint: false };

  server.registerTool(
    'searchDocumentation',
    {
      description: `Searches the documentation of ${tree.site.title}: the best pages first, each with its URL and the excerpts of its matching sections.`,
      inputSchema: { query: z.string().trim().min(1).max(512).describe('What to look for: words of the question') },
      annotations: readOnly,
    },
    async ({ query }) => {
      const results = (await siteSearch(ctx, tree, siteBase, query)).slice(0, MAX_RESULTS);
      if (results.length === 0) return toolText(`Nothing found for "${query}".`);
      const blocks = results.map((result) => {
        const sections = result.sections.slice(0, MAX_SECTIONS).map((section) => `  - ${section.title}: ${absolute(section.href)}\n    ${section.body.replace(/\s+/g, ' ').trim()}`);
        return [`- ${result.title}: ${absolute(result.href)}`, ...sections].join('\n');
      });
      return toolText(blocks.join('\n'));
    },
  );

  server.registerTool(
    'getPage',
    {
      description: `Reads one page of ${tree.site.title} as markdown, by its URL (as searchDocumentation and listPages give them) or its path on the site.`,
      inputSchema: { url: z.string().trim().min(1).max(4096).describe('The page URL, or its path on the site') },
      annotations: readOnly,
    },
    async ({ url }) => {
      try {
        const target = await readPublishedPage(ctx, tree, siteSegments(url, siteBase));
        if (target.kind !== 'page') return toolText(`${url} is a redirect: read ${'page' in target.to ? 'the page it leads to' : target.to.url} instead.`, true);
        return toolText(pageMarkdown(target.page, tree.claims));
      } catch (error) {
        if (error instanceof DomainError && error.code === 'NotFound') return toolText(`No page of ${tree.site.title} at ${url}.`, true);
        throw error;
      }
    },
  );

  server.registerTool(
    'listPages',
    {
      description: `Lists the pages of ${tree.site.title} with their URLs and descriptions, those of one section when one is named.`,
      inputSchema: { section: z.string().trim().max(200).optional().describe("A section's title or path; none: every page") },
      annotations: readOnly,
    },
    async ({ section }) => {
      const wanted = section?.toLowerCase();
      const pages = (await sitePages(ctx, tree, siteBase)).filter(
        ({ space, page }) => !page.hidden && (!wanted || space.section?.title.toLowerCase() === wanted || space.section?.path.toLowerCase() === wanted),
      );
      if (pages.length === 0) return toolText(section ? `No section "${section}" with pages.` : 'No page is published.', Boolean(section));
      return toolText(pages.map(({ page, path }) => `- ${page.title}: ${absolute(path)}${page.description ? ` — ${page.description}` : ''}`).join('\n'));
    },
  );
  return server;
}
