/**
 * What a published site holds, for whoever reads it whole rather than page by page: its pages with their URLs (the
 * sitemap, llms.txt, an agent's page list) and its search results with their URLs (the search page, the live search
 * box, an agent's search). Only what the reader's tree shows: its sections, its variants, its spaces.
 */
import type { Context } from '../../../domain/context.js';
import type { DocumentPage } from '../../../content/model.js';
import { documentPages, publishedSpaces, type PublishedSpace, type PublishedTree } from '../../../domain/sites/published.js';
import { searchSpaces } from '../../../domain/search/search-queries.js';
import { pageUrl, pageUrls } from './render.js';
import type { SiteFrame } from './layout.js';
import type { SearchFilter, SearchResult } from './search-page.js';

export interface SitePage {
  space: PublishedSpace;
  page: DocumentPage;
  /** The page's path on the site (siteBase included). */
  path: string;
}

/** Every document page of the site the reader may see, in the order of its spaces and their tables of contents. */
export async function sitePages(ctx: Context, tree: PublishedTree, siteBase: string): Promise<SitePage[]> {
  const spaces = await publishedSpaces(ctx, tree);
  return spaces.flatMap((space) => {
    const urlOf = pageUrls(siteBase, space);
    return documentPages(space.content.revision.pages).map((page) => ({ space, page, path: urlOf(page) }));
  });
}

/** Where a space is on a site of several: its section's title and its own, each once. */
export function placeOf(tree: PublishedTree, space: PublishedSpace): string | undefined {
  if (tree.siteSpaces.length < 2) return undefined;
  const titles = [space.section?.title, tree.spaces.get(space.siteSpace.space_id)?.space.title].filter(
    // A section titled like the site (the one Quire makes) says nothing the page's site does not.
    (title): title is string => Boolean(title) && title !== tree.site.title,
  );
  return titles.filter((title, i) => titles.indexOf(title) === i).join(' › ') || undefined;
}

/**
 * The site's search for `query`: its spaces' best pages first, each with its matching sections and their excerpts,
 * and where it is on the site (its section, to filter by).
 */
export async function siteSearch(ctx: Context, tree: PublishedTree, siteBase: string, query: string): Promise<SearchResult[]> {
  const spaces = await publishedSpaces(ctx, tree);
  const hits = await searchSpaces(ctx, [...new Set(spaces.map((s) => s.siteSpace.space_id))], query);
  return hits.flatMap((hit) => {
    const space = spaces.find((s) => s.siteSpace.space_id === hit.spaceId);
    const page = space?.content.pagesById.get(hit.id);
    if (!space || !page || page.type !== 'document') return [];
    const href = pageUrl(siteBase, space, page);
    const place = placeOf(tree, space);
    return [
      {
        title: page.title,
        href,
        ...(place ? { place } : {}),
        ...(space.section ? { sectionId: space.section.id } : {}),
        sections: hit.sections.map((section) => ({ title: section.title, href: `${href}#${section.id}`, body: section.body })),
      },
    ];
  });
}

/**
 * The section filters of the site's results page: all sections, then each (titled as `frame`, the results page's,
 * shows them in its tabs); the page shows them on a site of several sections.
 */
export function searchFilters(tree: PublishedTree, frame: SiteFrame): SearchFilter[] {
  return [{ title: 'All sections' }, ...tree.sections.map((section, i) => ({ title: frame.sections[i].title, id: section.id }))];
}
