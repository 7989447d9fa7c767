/**
 * The `website` source: a crawl of the pages under a URL, converted to pages of the space.
 *
 * Decisions:
 * - Scope: pages of the start URL's origin whose path is under the start URL's folder (`https://x.com/docs/intro`
 *   -> everything under `/docs/`), reached by following links (navigation included) from the start page, breadth
 *   first. Links with a query string are not followed (they are usually views of a page, not pages).
 * - Limits (WEBSITE_LIMITS): pages, link depth, bytes in all (pages and images) and time in all; 4 fetches at once.
 *   What a limit stops is left out and counted in `totalResources`, and the import goes on with what it has.
 * - robots.txt of the origin is respected for Quire's user agent (a start page it disallows refuses the import).
 * - A failure on the start page refuses the import, naming `url`; on any other page the page is left out.
 * - Page tree: from the URL paths under the start folder: `/docs/guide/install.html` -> `guide/install.md`, and a
 *   page with pages below it is its folder's README.md (`/docs/guide/` -> `guide/README.md`). `index.html` and
 *   extensions (`.html`, `.htm`, `.php`...) are dropped; each segment is slugified. A folder that has pages below
 *   it but no page of its own gets a generated page listing them (not counted as imported). Siblings are in the
 *   order the site links them, from the start page on (its navigation order, as a rule): see compareRanks.
 * - Links to crawled pages become relative links to their files; a link to a page of the site that answered 404
 *   stays as written (so the link index reports it broken); links to anything else become absolute URLs.
 * - Images (any origin, each through the guard) are downloaded into files; one that fails keeps its absolute URL.
 */
import PQueue from 'p-queue';
import robotsParserModule from 'robots-parser';
import type { Root } from 'mdast';
import { FetchFailure, type FetchedResource } from '../../store/net/guarded-fetch.js';
import { ImportRefused } from './import-refused.js';
import { convertHtml, mapUrls, urlsOf, type ConvertedDocument } from '../convert.js';
import { assetRef, pageRef, type ImportNode, type ImportPageNode, type ImportTree } from '../import-plan.js';
import { decodePath, slugify } from '../paths.js';
import { Budget, decodeText, downloadImages, fetchProblem, mediaType, tryFetch, USER_AGENT, type ImportFetcher } from './fetching.js';

export interface CrawlLimits {
  /** Pages fetched at most. */
  maxPages: number;
  /** Links followed from the start page at most. */
  maxDepth: number;
  /** Bytes of pages and images at most. */
  maxBytes: number;
  /** Time for the whole crawl, images included. */
  timeMs: number;
  /** Fetches at once. */
  concurrency: number;
}

export const WEBSITE_LIMITS: Readonly<CrawlLimits> = Object.freeze({
  maxPages: 500,
  maxDepth: 10,
  maxBytes: 200 * 1024 * 1024,
  timeMs: 120_000,
  concurrency: 4,
});

// robots-parser is CommonJS: its module object is the function (the typings describe a default export).
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

const HTML_TYPES = new Set(['text/html', 'application/xhtml+xml']);
/** Links to these are files, not pages: not fetched by the crawl (they stay links to the site). */
const NOT_A_PAGE = /\.(pdf|zip|gz|tgz|tar|7z|rar|png|jpe?g|gif|svg|webp|avif|ico|bmp|css|js|mjs|json|xml|rss|atom|txt|csv|md|mp[34]|webm|mov|woff2?|ttf|otf|eot|exe|dmg|msi|deb|rpm|wasm|map)$/i;

interface CrawledPage {
  /** The URL the page was found at (after redirects), without its fragment. */
  url: string;
  /** The URL the crawl asked for (the same, unless it redirected). */
  requested: string;
  document: ConvertedDocument;
  /** Route: the slugified path segments under the start folder ([] for the folder itself). */
  route: string[];
  /** Where the crawl found it: the link indexes from the start page (see compareRanks). */
  rank: number[];
}

/**
 * The order pages are listed in: by where they were first linked, as a path of link indexes from the start page,
 * compared element by element (so a page's links come right after it, in their order on the page). Deterministic
 * whatever order the concurrent fetches finish in.
 */
function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

/** A URL without its fragment, or undefined when it is not one. */
function withoutHash(raw: string, base: string): URL | undefined {
  try {
    const url = new URL(raw, base);
    url.hash = '';
    return url;
  } catch {
    return undefined;
  }
}

const INDEX_FILE = /^(index|default)\.(html?|php|aspx?|jsp)$/i;
const PAGE_EXTENSION = /\.(html?|php|aspx?|jsp|shtml)$/i;

/** The route of a URL under the start folder (see the decisions above). */
export function routeOf(url: URL, folder: string): string[] {
  const segments = url.pathname
    .slice(folder.length)
    .split('/')
    .filter((s) => s !== '')
    .map(decodePath);
  if (segments.length > 0 && INDEX_FILE.test(segments[segments.length - 1])) segments.pop();
  if (segments.length > 0) segments[segments.length - 1] = segments[segments.length - 1].replace(PAGE_EXTENSION, '');
  return segments.map((s) => slugify(s)).filter((s) => s !== '');
}

/** How far an import got: pages converted so far, and in-scope URLs found so far (both grow while it runs). */
export interface ImportProgress {
  imported: number;
  found: number;
}

/** Crawls the site under `startUrl` and converts what it found (see the decisions at the top of this file). */
export async function importWebsite(
  fetcher: ImportFetcher,
  startUrl: string,
  limits: CrawlLimits = WEBSITE_LIMITS,
  progress?: (counts: ImportProgress) => void,
): Promise<ImportTree> {
  const start = withoutHash(startUrl, startUrl)!;
  const folder = start.pathname.slice(0, start.pathname.lastIndexOf('/') + 1);
  const inScope = (url: URL): boolean => url.origin === start.origin && url.pathname.startsWith(folder) && url.search === '';
  const budget = new Budget(limits.maxBytes, limits.timeMs);

  // robots.txt: a refusal by the guard is the answer for the whole site; any other failure means no rules.
  const robotsUrl = new URL('/robots.txt', start).toString();
  const robotsAnswer = await tryFetch(fetcher, robotsUrl);
  if (robotsAnswer instanceof FetchFailure && robotsAnswer.code === 'FETCH_REFUSED') throw new ImportRefused(`url: ${fetchProblem(startUrl, robotsAnswer)}`);
  const robots =
    !(robotsAnswer instanceof FetchFailure) && robotsAnswer.status >= 200 && robotsAnswer.status < 300
      ? robotsParser(robotsUrl, decodeText(robotsAnswer))
      : undefined;
  const allowed = (url: string): boolean => robots?.isAllowed(url, USER_AGENT) !== false;
  if (!allowed(start.toString())) throw new ImportRefused(`url: ${robotsUrl} does not allow ${USER_AGENT} to fetch ${start.toString()}`);

  /** Every in-scope URL the crawl came across (what `totalResources` counts), and what became of it. */
  const found = new Map<string, CrawledPage | 'missing' | 'skipped'>();
  /** Fetched URL -> the URL of the page it turned out to be (redirects). */
  const aliases = new Map<string, string>();
  const pages: CrawledPage[] = [];
  /** The smallest rank each in-scope URL was linked with. */
  const ranks = new Map<string, number[]>([[start.toString(), []]]);
  const images = new Set<string>();
  const queue = new PQueue({ concurrency: limits.concurrency });
  let reserved = 0;

  const visit = async (url: string, depth: number): Promise<void> => {
    const isStart = depth === 0;
    if (!isStart && (!budget.open || reserved >= limits.maxPages || !allowed(url))) return void found.set(url, 'skipped');
    reserved++;
    const outcome: FetchedResource | FetchFailure = await tryFetch(fetcher, url);
    if (outcome instanceof FetchFailure || outcome.status < 200 || outcome.status > 299) {
      if (isStart) throw new ImportRefused(`url: ${fetchProblem(url, outcome)}; nothing was imported`);
      found.set(url, !(outcome instanceof FetchFailure) && (outcome.status === 404 || outcome.status === 410) ? 'missing' : 'skipped');
      return;
    }
    if (!HTML_TYPES.has(mediaType(outcome))) {
      if (isStart) throw new ImportRefused(`url: ${url} is not an HTML page (it is ${mediaType(outcome) || 'of no stated type'}); for one file, use the source that fits it`);
      return void found.set(url, 'skipped');
    }
    const final = withoutHash(outcome.url, outcome.url)!;
    const finalKey = final.toString();
    if (finalKey !== url) {
      aliases.set(url, finalKey);
      if (found.has(finalKey) || !inScope(final)) {
        if (!inScope(final)) found.set(url, 'skipped');
        return;
      }
    }
    if (!budget.spend(outcome.body.length)) {
      if (isStart) throw new ImportRefused(`url: ${url} is larger than the ${limits.maxBytes} bytes an import may fetch`);
      return void found.set(url, 'skipped');
    }
    const document = convertHtml(decodeText(outcome), { url: finalKey });
    const rank = ranks.get(url) ?? [];
    const page: CrawledPage = { url: finalKey, requested: url, document, route: routeOf(final, folder), rank };
    pages.push(page);
    progress?.({ imported: pages.length, found: found.size });
    found.set(finalKey, page);
    if (finalKey !== url) found.set(url, page);
    for (const image of urlsOf(document.body).images) {
      const absolute = image.startsWith('data:') ? image : withoutHash(image, document.baseUrl)?.toString();
      if (absolute) images.add(absolute);
    }
    document.links.forEach((link, index) => {
      const target = withoutHash(link, document.baseUrl);
      if (!target || !inScope(target) || NOT_A_PAGE.test(target.pathname)) return;
      const key = target.toString();
      const linkRank = [...rank, index];
      const known = ranks.get(key);
      if (!known || compareRanks(linkRank, known) < 0) ranks.set(key, linkRank);
      if (found.has(key)) return;
      found.set(key, 'skipped');
      // Beyond the depth limit: found (and counted), not fetched.
      if (depth >= limits.maxDepth) return;
      // Only the start page's failures are the import's; any other page that fails is left out.
      void queue.add(() => visit(key, depth + 1)).catch(() => found.set(key, 'skipped'));
    });
  };

  found.set(start.toString(), 'skipped');
  await visit(start.toString(), 0);
  await queue.onIdle();

  const assets = await downloadImages(fetcher, images, { budget, concurrency: limits.concurrency });

  // Pages by route: the first in rank order wins, others are the same page under another URL.
  // A page may have been linked with a smaller rank after it was fetched, under either of its URLs.
  for (const page of pages) {
    for (const rank of [ranks.get(page.requested), ranks.get(page.url)]) if (rank && compareRanks(rank, page.rank) < 0) page.rank = rank;
  }
  pages.sort((a, b) => compareRanks(a.rank, b.rank));
  const byRoute = new Map<string, CrawledPage>();
  for (const page of pages) {
    const key = page.route.join('/');
    const first = byRoute.get(key);
    if (first) aliases.set(page.url, first.url);
    else byRoute.set(key, page);
  }
  const pageOf = (url: string): CrawledPage | undefined => {
    const entry = found.get(aliases.get(url) ?? url);
    if (typeof entry !== 'object') return undefined;
    return byRoute.get(entry.route.join('/'));
  };

  const nodes = buildTree([...byRoute.values()]);
  for (const [page, node] of nodes.byPage) {
    mapUrls(node.body, (raw, kind) => rewrite(raw, kind, page.document.baseUrl));
    if (page.document.description) node.frontMatter = { description: page.document.description };
  }

  function rewrite(raw: string, kind: 'link' | 'image', base: string): string | null {
    const trimmed = raw.trim();
    if (/^javascript:/i.test(trimmed)) return null;
    if (kind === 'image') {
      const absolute = trimmed.startsWith('data:') ? trimmed : withoutHash(trimmed, base)?.toString();
      if (absolute && assets.has(absolute)) return assetRef(absolute);
      return trimmed.startsWith('data:') ? null : (absolute ?? raw);
    }
    if (trimmed.startsWith('#') || trimmed === '') return raw;
    let resolved: URL;
    try {
      resolved = new URL(trimmed, base);
    } catch {
      return raw;
    }
    if (resolved.protocol !== 'http:' && resolved.protocol !== 'https:') return raw;
    const hash = resolved.hash.slice(1);
    resolved.hash = '';
    const target = pageOf(resolved.toString());
    if (target) return pageRef(target.url, hash ? decodePath(hash) : undefined);
    // A page of the site that is not there: kept as written, so the link shows as broken.
    if (found.get(resolved.toString()) === 'missing') return raw;
    resolved.hash = hash;
    return resolved.toString();
  }

  // Each resource once: a URL that redirected to a page is that page.
  const resources = [...found.keys()].filter((url) => !aliases.has(url) || found.get(url) === 'skipped').length;
  return { nodes: nodes.roots, assets: [...assets.values()], total: resources + images.size };
}

interface TreeNode {
  route: string[];
  page?: CrawledPage;
  children: Map<string, TreeNode>;
  /** The smallest rank of its pages. */
  rank: number[];
}

/** The page tree from the routes (see the decisions at the top of this file). */
function buildTree(pages: CrawledPage[]): { roots: ImportNode[]; byPage: Map<CrawledPage, ImportPageNode> } {
  const top: TreeNode = { route: [], children: new Map(), rank: [] };
  for (const page of pages) {
    let node = top;
    for (let i = 0; i < page.route.length; i++) {
      const segment = page.route[i];
      let child = node.children.get(segment);
      if (!child) {
        child = { route: page.route.slice(0, i + 1), children: new Map(), rank: page.rank };
        node.children.set(segment, child);
      }
      if (compareRanks(page.rank, child.rank) < 0) child.rank = page.rank;
      node = child;
    }
    node.page = page;
  }
  const byPage = new Map<CrawledPage, ImportPageNode>();
  const convert = (node: TreeNode): ImportPageNode => {
    const children = [...node.children.values()].sort((a, b) => compareRanks(a.rank, b.rank)).map(convert);
    const name = node.route.length === 0 ? 'README' : node.route[node.route.length - 1];
    const folder = node.route.join('/');
    const file = node.route.length === 0 ? 'README.md' : children.length > 0 ? `${folder}/README.md` : `${folder}.md`;
    if (node.page) {
      const document = node.page.document;
      const result: ImportPageNode = {
        kind: 'page',
        key: node.page.url,
        file,
        title: document.title ?? titleFromSegment(name),
        body: document.body,
        children,
      };
      byPage.set(node.page, result);
      return result;
    }
    return { kind: 'page', key: `generated:${folder}`, file, title: titleFromSegment(name), body: listOf(children), children, generated: true };
  };
  // The start folder's own page holds everything else; without it, its folders are the top level.
  if (top.page) return { roots: [convert(top)], byPage };
  return { roots: [...top.children.values()].sort((a, b) => compareRanks(a.rank, b.rank)).map(convert), byPage };
}

/** `getting-started` -> `Getting started`. */
function titleFromSegment(segment: string): string {
  const words = segment.replace(/[-_]+/g, ' ').trim();
  return words === '' ? 'Page' : words[0].toUpperCase() + words.slice(1);
}

/** The body of a generated folder page: a list of links to the pages in it. */
function listOf(children: ImportNode[]): Root {
  return {
    type: 'root',
    children: [
      {
        type: 'list',
        ordered: false,
        spread: false,
        children: children
          .filter((c): c is ImportPageNode => c.kind === 'page')
          .map((c) => ({
            type: 'listItem',
            spread: false,
            children: [{ type: 'paragraph', children: [{ type: 'link', url: pageRef(c.key), children: [{ type: 'text', value: c.title }] }] }],
          })),
      },
    ],
  };
}
