/**
 * `quire site export SITE_ID DIR` (issue 14 item 5): the whole public site as static files for any static host
 * serving DIR at the root of its host: each page as `PATH/index.html` (and its markdown as `PATH.md`), the files
 * pages show under `~files/`, and the search: `search-index.json` with `~search/index.html`, whose small script reads
 * it (the only script of the export; the server's own pages carry none).
 *
 * Only what anyone may read is exported: a public or unlisted site (share-link and private sites are refused).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Context } from '../../../domain/context.js';
import { InvalidArgument, NotFound } from '../../../domain/errors.js';
import { documentPages, publishedSpaces, readPublishedSite } from '../../../domain/sites/published.js';
import { findSiteById } from '../../../store/sql/sites.js';
import { escapeHtml } from '../../../content/html-text.js';
import { pageMarkdown, pageSpecs, pageUrls, renderPage } from './render.js';

export interface ExportResult {
  dir: string;
  pages: number;
  files: number;
}

/** `url` (`/a/b`, `/`) as a path under `dir`, never outside it. */
function fileUnder(dir: string, url: string, name: string): string {
  const segments = url
    .split('/')
    .filter((s) => s !== '')
    .map((s) => decodeURIComponent(s));
  const target = path.resolve(dir, ...segments, name);
  if (!target.startsWith(`${path.resolve(dir)}${path.sep}`)) throw new InvalidArgument(`path: "${url}" leaves the export folder`);
  return target;
}

async function write(file: string, content: string | Buffer): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, content);
}

const SEARCH_PAGE = (siteTitle: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Search | ${escapeHtml(siteTitle)}</title><meta name="robots" content="noindex">
<style>body{font:16px/1.6 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1.5rem}li p{color:#59636e;margin:.2rem 0 .6rem}</style></head>
<body><p><a href="/">${escapeHtml(siteTitle)}</a></p><h1>Search</h1><form action="/~search/" method="get"><input type="search" name="q" aria-label="Search"></form><ol id="results"></ol>
<script>
(async () => {
  const q = new URLSearchParams(location.search).get('q') || '';
  document.querySelector('input').value = q;
  const words = q.toLowerCase().split(/\\s+/).filter(Boolean);
  if (words.length === 0) return;
  const pages = await (await fetch('/search-index.json')).json();
  const found = pages.filter((p) => words.every((w) => (p.title + ' ' + p.text).toLowerCase().includes(w)));
  const list = document.getElementById('results');
  for (const page of found) {
    const item = document.createElement('li');
    const link = document.createElement('a');
    link.href = page.url;
    link.textContent = page.title;
    const text = document.createElement('p');
    text.textContent = page.description || page.text.slice(0, 160);
    item.append(link, text);
    list.append(item);
  }
  if (found.length === 0) list.outerHTML = '<p>No results.</p>';
})();
</script></body></html>
`;

export async function exportSite(ctx: Context, siteId: string, dir: string, progress?: (done: { pages: number; files: number }) => void): Promise<ExportResult> {
  const site = await findSiteById(ctx.db, siteId);
  if (!site) throw new NotFound(`siteId: no site "${siteId}"`);
  const tree = await readPublishedSite(ctx, {}, site.organization_id, site.id).catch((error: unknown) => {
    if (error instanceof NotFound) throw new InvalidArgument(`siteId: site "${siteId}" is not published for everyone (public or unlisted, with at least one site space); only such sites are exported`);
    throw error;
  });
  const root = path.resolve(dir);
  await fs.mkdir(root, { recursive: true });
  const index: Array<{ title: string; url: string; description: string; text: string }> = [];
  let pages = 0;
  let files = 0;
  for (const space of await publishedSpaces(ctx, tree)) {
    const urlOf = pageUrls('', space);
    for (const page of documentPages(space.content.revision.pages)) {
      const url = urlOf(page);
      const published = { ...space, page };
      await write(fileUnder(root, url, 'index.html'), renderPage(published, '', { specs: await pageSpecs(ctx, published) }));
      // As for a reader without claims, like the HTML: what a `{% if %}` hides from them is in neither.
      const markdown = pageMarkdown(page);
      if (url !== '/') await write(`${fileUnder(root, url, 'index.html').slice(0, -'/index.html'.length)}.md`, markdown);
      if (!page.hidden && !page.noIndex) index.push({ title: page.title, url, description: page.description ?? '', text: markdown.replace(/\s+/g, ' ').slice(0, 2000) });
      pages++;
      progress?.({ pages, files });
    }
    for (const file of space.content.files) {
      const object = await ctx.reader.readObject(space.content.spaceId, file.blobOid);
      if (!object || object.type !== 'blob') continue;
      await write(fileUnder(root, `/~files/${encodeURIComponent(space.content.spaceId)}/${file.blobOid}`, file.name.replace(/[\\/]/g, '-')), object.data);
      files++;
      progress?.({ pages, files });
    }
  }
  await write(path.join(root, 'search-index.json'), JSON.stringify(index));
  await write(path.join(root, '~search', 'index.html'), SEARCH_PAGE(tree.site.title));
  return { dir: root, pages, files };
}
