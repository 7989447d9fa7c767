/**
 * `quire site export SITE_ID DIR`: the whole public site as static files for any static host serving DIR at the root
 * of its host, the same pages as the served site's (render.ts renderPage, at the root: siteBase ''): each page as
 * `PATH/index.html` (and its markdown as `PATH.md` when the site serves agents), the files pages show under `~files/`, Quire's own scripts and
 * icon at the paths the pages name (`~quire/`, site-assets.ts; the site's icon as `favicon.svg`), the served results
 * page (`~search/index.html`) and "not found" page (`404.html`, which static hosts answer for any missing address),
 * and the search index those and the header's search box read in the reader's browser (export-search.ts).
 *
 * What the served site does on its server, the export's script does in the browser (export-search.ts): the live
 * search, the results (`~search/?q=`: the layout's search form sends `~search?q=`, which static hosts redirect to
 * the folder with its query, as they do for every page's address) and the nearest pages of the "not found" page. The
 * "Was this page helpful?" form has no server to go to: the exported pages leave it out.
 *
 * A static host sets no headers of ours, so what the live site says in headers the export says otherwise: each page
 * carries its CSP in a meta tag (pagePolicy: scripts of the export's own origin only, Quire's; its stylesheet by hash
 * unless it has style attributes), and a user file a
 * browser would run script in (HTML, SVG, XML, JavaScript: files.ts runsScript) is written as `NAME.txt`, with the
 * pages' links to it: every static host serves `.txt` as text/plain without being configured, which browsers show
 * as text and never sniff into a document (a `Content-Disposition` download would need the host's configuration).
 * The cost: an SVG image shows as a link to its source, not as an image, in an export.
 *
 * Only what anyone may read is exported: a public or unlisted site (share-link and private sites are refused).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Context } from '../../../domain/context.js';
import { InvalidArgument, NotFound } from '../../../domain/errors.js';
import { publishedSpaces, readPublishedSite, servesAgents } from '../../../domain/sites/published.js';
import { findSiteById } from '../../../store/sql/sites.js';
import { escapeHtml } from '../../../content/html-text.js';
import { contentTypeOf, runsScript } from '../../../content/files.js';
import { pageMarkdown, pageUrls, renderPage, renderSpacePages, siteFrame, spaceToc } from './render.js';
import { ASSETS } from './site-assets.js';
import { SITE_CSS } from './site-css.js';
import { renderSearch } from './search-page.js';
import { renderSiteNotFound } from './not-found.js';
import { searchFilters } from './site-reads.js';
import { EXPORT_SEARCH_ASSET, exportIndex, SEARCH_INDEX_PATH } from './export-search.js';
import { ExportWriter } from './export-writes.js';
import { writableByGit, type BlobFile } from '../../../store/git/blob-files.js';
import type { DocumentPage } from '../../../content/model.js';
import type { PageSection } from '../../../content/search-text.js';

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

/**
 * Writes at once: pages' (their HTML made on the event loop) and files' (each read from git first, a few MB for an
 * image), in lanes of their own so that pages never wait behind files' reads.
 */
const PAGE_WRITES = 8;
const FILE_COPIES = 4;

/** The `<style>` of every page (layout.ts siteShell): the one inline style a page needs when it has no style attribute. */
const STYLE_HASH = `'sha256-${createHash('sha256').update(SITE_CSS).digest('base64')}'`;

/**
 * What an exported page may do: show its styles, images and media, run Quire's scripts and read the search index;
 * no other base, forms to the site. Its styles: the stylesheet by its hash, unless the page has a style attribute
 * (a cover's position, a `<mark>`'s colours), which only `'unsafe-inline'` allows in every browser.
 */
function pagePolicy(html: string): string {
  const styles = /\sstyle\s*=/i.test(html.slice(html.indexOf('</head>'))) ? "'unsafe-inline'" : STYLE_HASH;
  return `default-src 'none'; script-src 'self'; connect-src 'self'; img-src * data:; media-src *; style-src ${styles}; base-uri 'none'; form-action 'self'`;
}

/** `html` (a page of ours, which starts with its charset) with its Content-Security-Policy (pagePolicy) as a meta tag. */
function withPolicy(html: string): string {
  const charset = '<meta charset="utf-8">';
  const at = html.indexOf(charset);
  if (at < 0 || at > html.indexOf('</head>')) throw new Error('an exported page has no <meta charset> in its head to put its policy after');
  return `${html.slice(0, at + charset.length)}<meta http-equiv="Content-Security-Policy" content="${escapeHtml(pagePolicy(html))}">${html.slice(at + charset.length)}`;
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

export async function exportSite(ctx: Context, siteId: string, dir: string, progress?: (done: { pages: number; files: number }) => void): Promise<ExportResult> {
  const site = await findSiteById(ctx.db, siteId);
  if (!site) throw new NotFound(`siteId: no site "${siteId}"`);
  const tree = await readPublishedSite(ctx, {}, site.organization_id, site.id).catch((error: unknown) => {
    if (error instanceof NotFound) throw new InvalidArgument(`siteId: site "${siteId}" is not published for everyone (public or unlisted, with at least one site space); only such sites are exported`);
    throw error;
  });
  const root = path.resolve(dir);
  await fs.mkdir(root, { recursive: true });
  const liveSearch = EXPORT_SEARCH_ASSET.path;
  const spaces = await publishedSpaces(ctx, tree);
  // The search index's sections of each page, from the parse that renders it (one parse per page, export-search.ts).
  const sections = new Map<DocumentPage, PageSection[]>();
  const keepSections = (page: DocumentPage, found: PageSection[]) => void sections.set(page, found);
  const writer = new ExportWriter();
  const pageWrites = writer.lane(PAGE_WRITES);
  let pages = 0;
  let files = 0;
  // The spaces' files, written while the pages are rendered: by git itself where it can (their bytes never pass
  // through this process, blob-files.ts), else read from git and written here.
  const fileCopies = writer.lane(FILE_COPIES);
  let stopped = false;
  const copy = async (spaceId: string, oid: string, to: string) => {
    await fileCopies.queue(async () => {
      // As read from git, never joined into one buffer (a few MB for an image): written as they came.
      const parts = await ctx.reader.readBlobParts(spaceId, oid);
      if (!parts) return;
      await writer.write(to, parts);
      files++;
      progress?.({ pages, files });
    });
  };
  const copied = (async () => {
    for (const space of spaces) {
      const { spaceId } = space.content;
      const byGit: BlobFile[] = [];
      const here: Array<{ oid: string; to: string }> = [];
      for (const file of space.content.files) {
        const to = fileUnder(root, `/~files/${encodeURIComponent(spaceId)}/${file.blobOid}`, exportedFileName(file.name.replace(/[\\/]/g, '-')));
        const relative = path.relative(root, to).split(path.sep).join('/');
        if (writableByGit(relative)) byGit.push({ oid: file.blobOid, path: relative });
        else here.push({ oid: file.blobOid, to });
      }
      const written = await ctx.reader.writeBlobFiles(spaceId, root, byGit).catch((error: unknown) => {
        ctx.log.warn({ err: (error as Error).message, space: spaceId }, 'export: files not written by git, written here instead');
        for (const file of byGit) here.push({ oid: file.oid, to: path.join(root, ...file.path.split('/')) });
        return [];
      });
      files += written.length;
      progress?.({ pages, files });
      for (const { oid, to } of here) {
        if (stopped) return;
        await copy(spaceId, oid, to);
      }
    }
  })();
  copied.catch(() => undefined);
  try {
    for (const space of spaces) {
      const urlOf = pageUrls('', space);
      const { spaceId } = space.content;
      const renamed = new Set(space.content.files.filter((file) => exportedFileName(file.name) !== file.name).map((file) => fileUrl(spaceId, file.blobOid, file.name)));
      await renderSpacePages(ctx, space, '', async (published, content, specs) => {
        const { page } = published;
        const url = urlOf(page);
        const html = renameFileLinks(renderPage(published, '', { liveSearch, content, ...(specs ? { specs } : {}) }), renamed);
        const at = fileUnder(root, url, 'index.html');
        await pageWrites.queue(async () => {
          await writer.write(at, withPolicy(html));
          // As for a reader without claims, like the HTML: what a `{% if %}` hides from them is in neither. Only for a
          // site that serves agents (servesAgents), as the served site's `.md` twins.
          if (url !== '/' && servesAgents(tree.site)) await writer.write(`${at.slice(0, -'/index.html'.length)}.md`, pageMarkdown(page));
          pages++;
          progress?.({ pages, files });
        });
      }, keepSections);
    }
    await copied;
  } catch (error) {
    // Nothing is left writing into the folder once the export has failed.
    stopped = true;
    await copied.catch(() => undefined);
    await writer.done().catch(() => undefined);
    throw error;
  }
  await writer.done();
  // The search: its index, and the served results page with no query, which the script fills in.
  await writer.write(fileUnder(root, SEARCH_INDEX_PATH, ''), JSON.stringify(await exportIndex(ctx, tree, spaces, sections)));
  const searchFrame = siteFrame(tree, '', { currentSection: null, liveSearch });
  await writer.write(path.join(root, '~search', 'index.html'), withPolicy(renderSearch(searchFrame, { query: '', results: [], filters: searchFilters(tree, searchFrame) })));
  // The one "not found" page static hosts answer for every missing address (`404.html` at the root): the served page
  // for an address that leads into no section or space (the table of contents of the site's own space), the nearest
  // pages found by the script in the reader's browser.
  const home = spaces.find((space) => space.prefix.length === 0) ?? spaces[0];
  const notFoundFrame = siteFrame(tree, '', { currentSection: home?.section?.id ?? tree.defaultSection, liveSearch });
  await writer.write(path.join(root, '404.html'), withPolicy(renderSiteNotFound(notFoundFrame, { nearest: [], ...(home ? { toc: spaceToc(home, '') } : {}) })));
  // Quire's scripts and icon, where the pages load them from, and the icon the pages link as the site's.
  for (const asset of [...Object.values(ASSETS), EXPORT_SEARCH_ASSET]) await writer.write(fileUnder(root, asset.path, ''), asset.body);
  await writer.write(path.join(root, 'favicon.svg'), ASSETS.icon.body);
  return { dir: root, pages, files };
}
