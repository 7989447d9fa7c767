/**
 * A page of a revision as HTML for the app's views (a Quire extension): rendered by the published sites' block
 * renderer (src/content/page-html.ts, sanitized there), on the CPU pool, with its links leading to the app's view of
 * the same revision (`pagesAt`) and its images and files to the API's downloads, as paths of the origin the app is
 * opened on. Kept with the revision, once per
 * page and place.
 */
import type { Context } from '../../../domain/context.js';
import type { IndexedRevision } from '../../../domain/content/revisions.js';
import type { DocumentPage } from '../../../content/model.js';
import { linkLookups } from '../../../content/links.js';
import { sitePageLinks, type SiteLinks } from '../../../content/site-links.js';
import type { PageHtml } from '../../../content/page-html.js';
import { cachedBytes } from '../../present.js';
import { pooledPageHtml } from '../../pooled-page-html.js';
import type { Urls } from '../../urls.js';

const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');

function appLinks(urls: Urls, content: IndexedRevision, pagesAt: string): SiteLinks {
  const reusable = new Map(content.revision.reusableContents.map((r) => [r.id, r.markdown]));
  return {
    lookups: linkLookups(content.revision),
    pageUrl: (id) => {
      const target = content.pagesById.get(id);
      return target?.type === 'document' ? urls.appPath(`${pagesAt}/${encodePath(target.path)}`) : undefined;
    },
    pageTitle: (id) => content.pagesById.get(id)?.title,
    fileUrl: (id) => {
      const file = content.filesById.get(id);
      return file && 'blobOid' in file ? urls.apiPath(`/spaces/${content.spaceId}/files/${file.blobOid}/${encodeURIComponent(file.name)}`) : undefined;
    },
    reusableMarkdown: (id) => reusable.get(id),
  };
}

/**
 * The page's HTML and outline as the JSON bytes of the answer. `pagesAt`: the app path below which the revision's
 * pages are viewed (`/s/SPACE` for main, `/s/SPACE/~/changes/N` for a change request, `/s/SPACE/~/revisions/OID`).
 */
export function renderedPageJson(ctx: Context, urls: Urls, content: IndexedRevision, page: DocumentPage, pagesAt: string): Promise<Buffer> {
  return cachedBytes(content, `app-html:${pagesAt}:${page.id}`, async () => {
    const links = sitePageLinks(appLinks(urls, content, pagesAt), page);
    const html: PageHtml = await pooledPageHtml(ctx, page, links, { page: page.variables ?? {}, space: content.revision.variables });
    return JSON.stringify({ object: 'page-html', id: page.id, title: page.title, path: page.path, html: html.html, outline: html.outline });
  });
}
