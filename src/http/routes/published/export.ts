/**
 * `quire site export SITE_ID DIR`: the whole public site as static files for any static host serving DIR at the root
 * of its host: each page as `PATH/index.html` (and its markdown as `PATH.md`), the files pages show under `~files/`,
 * Quire's own scripts and icon at the paths the pages name (`~quire/`, site-assets.ts; the site's icon as
 * `favicon.svg`), and the search: `search-index.json` with `~search/index.html`, whose small script
 * (`~search/search.js`) reads it.
 *
 * A static host sets no headers of ours, so what the live site says in headers the export says otherwise: each page
 * carries its CSP in a meta tag (scripts of the export's own origin only: Quire's), and a user file a
 * browser would run script in (HTML, SVG, XML, JavaScript: files.ts runsScript) is written as `NAME.txt`, with the
 * pages' links to it: every static host serves `.txt` as text/plain without being configured, which browsers show
 * as text and never sniff into a document (a `Content-Disposition` download would need the host's configuration).
 * The cost: an SVG image shows as a link to its source, not as an image, in an export.
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
import { contentTypeOf, runsScript } from '../../../content/files.js';
import { pageMarkdown, pageSpecs, pageUrls, renderPage } from './render.js';
import { ASSETS } from './site-assets.js';

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

/** What exported pages may do: show their styles, images and media, run Quire's scripts; no other base, forms to the site. */
const PAGE_POLICY = "default-src 'none'; script-src 'self'; img-src * data:; media-src *; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'";
/** The search page runs its own script file and reads the index; nothing else. */
const SEARCH_POLICY = "default-src 'none'; script-src 'self'; connect-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'";

/** `html` (a page of ours, which starts with its charset) with `policy` as its Content-Security-Policy meta tag. */
function withPolicy(html: string, policy: string): string {
  const charset = '<meta charset="utf-8">';
  const at = html.indexOf(charset);
  if (at < 0 || at > html.indexOf('</head>')) throw new Error('an exported page has no <meta charset> in its head to put its policy after');
  return `${html.slice(0, at + charset.length)}<meta http-equiv="Content-Security-Policy" content="${escapeHtml(policy)}">${html.slice(at + charset.length)}`;
}

/** The name a file is exported under: `NAME.txt` for what a browser would run script in (see above). */
function exportedFileName(name: string): string {
  return runsScript(contentTypeOf(name)) ? `${name}.txt` : name;
}

/** The URL of a file in a page rendered at the root (as render.ts's fileUrl writes it). */
const fileUrl = (spaceId: string, blobOid: string, name: string) => `/~files/${encodeURIComponent(spaceId)}/${blobOid}/${encodeURIComponent(name)}`;

/**
 * `html` with its links to the files `renamed` holds (their URLs) leading to their exported names. A URL in an
 * attribute ends at its quote, or at a query or fragment.
 */
function renameFileLinks(html: string, renamed: Set<string>): string {
  if (renamed.size === 0) return html;
  return html.replace(/\/~files\/[^/"\s<>]+\/[0-9a-f]{40}\/[^"#?\s<>]*(?=["#?])/g, (url) => (renamed.has(url) ? `${url}.txt` : url));
}

const SEARCH_PAGE = (siteTitle: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Search | ${escapeHtml(siteTitle)}</title><meta name="robots" content="noindex">
<style>body{font:16px/1.6 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1.5rem}li p{color:#59636e;margin:.2rem 0 .6rem}</style><script src="/~search/search.js" defer></script></head>
<body><p><a href="/">${escapeHtml(siteTitle)}</a></p><h1>Search</h1><form action="/~search/" method="get"><input type="search" name="q" aria-label="Search"></form><ol id="results"></ol></body></html>
`;

const SEARCH_SCRIPT = `(async () => {
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
    const { spaceId } = space.content;
    const renamed = new Set(space.content.files.filter((file) => exportedFileName(file.name) !== file.name).map((file) => fileUrl(spaceId, file.blobOid, file.name)));
    for (const page of documentPages(space.content.revision.pages)) {
      const url = urlOf(page);
      const published = { ...space, page };
      const html = renameFileLinks(renderPage(published, '', { specs: await pageSpecs(ctx, published) }), renamed);
      await write(fileUnder(root, url, 'index.html'), withPolicy(html, PAGE_POLICY));
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
      await write(fileUnder(root, `/~files/${encodeURIComponent(spaceId)}/${file.blobOid}`, exportedFileName(file.name.replace(/[\\/]/g, '-'))), object.data);
      files++;
      progress?.({ pages, files });
    }
  }
  await write(path.join(root, 'search-index.json'), JSON.stringify(index));
  await write(path.join(root, '~search', 'index.html'), withPolicy(SEARCH_PAGE(tree.site.title), SEARCH_POLICY));
  await write(path.join(root, '~search', 'search.js'), SEARCH_SCRIPT);
  // Quire's scripts and icon, where the pages load them from, and the icon the pages link as the site's.
  for (const asset of Object.values(ASSETS)) await write(fileUnder(root, asset.path, ''), asset.body);
  await write(path.join(root, 'favicon.svg'), ASSETS.icon.body);
  return { dir: root, pages, files };
}
