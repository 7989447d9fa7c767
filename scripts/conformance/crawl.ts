/**
 * The conformance harness's crawl of a published site, as a reader's browser goes through it: from the site's home,
 * every page its links reach (within the site), and every image, picture source and file those pages show or link
 * to, each fetched once. What does not answer 200 is a failure, with the page that showed it; so is a link to a
 * page's raw `.md` twin where the page itself was meant. A link or image the site marks as broken
 * (`class="broken-link"`, `"broken-image"`: the revision has nothing at its target, as in the source repository) is
 * counted apart: it is shown as broken, not followed.
 */
import PQueue from 'p-queue';
import type { Element } from 'hast';
import { all, parseHtml } from '../../test/helpers/html.js';
import { srcsetUrls } from '../../src/content/html-text.js';

export interface CrawlFailure {
  url: string;
  /** The answer's status (0: no answer), or what is wrong with the link. */
  status: number | 'md twin';
  /** The page that links to it or shows it. */
  from: string;
}

export interface CrawlResult {
  pages: number;
  images: number;
  files: number;
  /** Links the site shows as broken. */
  markedBroken: number;
  failures: CrawlFailure[];
}

/** What a page links to or shows, as absolute URLs. */
function references(html: string, pageUrl: string): { links: string[]; images: string[]; markedBroken: number } {
  const tree = parseHtml(html);
  const absolute = (url: string) => {
    try {
      return new URL(url, pageUrl).href;
    } catch {
      return undefined;
    }
  };
  const classes = (element: Element) => (element.properties.className as string[] | undefined) ?? [];
  const anchors = all(tree, (element) => element.tagName === 'a' && typeof element.properties.href === 'string');
  const broken = anchors.filter((element) => classes(element).includes('broken-link'));
  const links = anchors.filter((element) => !classes(element).includes('broken-link')).map((element) => absolute(String(element.properties.href)));
  const shown = all(tree, (element) => element.tagName === 'img' && typeof element.properties.src === 'string');
  const images = [
    ...shown.filter((element) => !classes(element).includes('broken-image')).map((element) => String(element.properties.src)),
    ...all(tree, (element) => element.tagName === 'source' && element.properties.srcSet !== undefined).flatMap((element) =>
      [element.properties.srcSet].flat().flatMap((candidate) => srcsetUrls(String(candidate))),
    ),
  ].map(absolute);
  const brokenImages = shown.length - shown.filter((element) => !classes(element).includes('broken-image')).length;
  return { links: links.filter((url) => url !== undefined), images: images.filter((url) => url !== undefined), markedBroken: broken.length + brokenImages };
}

/** Crawls the site whose home is `home` (an absolute URL), `concurrency` requests at a time. */
export async function crawlSite(home: string, concurrency = 4): Promise<CrawlResult> {
  const root = new URL(home);
  const base = root.pathname.replace(/\/$/, '');
  const result: CrawlResult = { pages: 0, images: 0, files: 0, markedBroken: 0, failures: [] };
  const seen = new Set<string>();
  const queue = new PQueue({ concurrency });
  const status = async (url: string): Promise<{ status: number; body?: string }> => {
    try {
      const response = await fetch(url, { redirect: 'follow' });
      const html = response.ok && (response.headers.get('content-type') ?? '').startsWith('text/html');
      return { status: response.status, body: html ? await response.text() : (await response.arrayBuffer(), undefined) };
    } catch {
      return { status: 0 };
    }
  };
  const visit = (url: string, from: string, kind: 'page' | 'image'): void => {
    const target = new URL(url);
    target.hash = '';
    const key = target.href;
    if (target.origin !== root.origin || seen.has(key)) return;
    const path = target.pathname;
    if (kind === 'page' && path !== base && !path.startsWith(`${base}/`)) return;
    const file = path.startsWith(`${base}/~files/`);
    // The site's own pages (search and the like) are not content.
    if (kind === 'page' && !file && path.startsWith(`${base}/~`)) return;
    seen.add(key);
    if (kind === 'page' && !file && /\.md$/i.test(path)) {
      result.failures.push({ url: key, status: 'md twin', from });
      return;
    }
    const visited = queue.add(async () => {
      const answer = await status(key);
      if (kind === 'image') result.images++;
      else if (file) result.files++;
      else result.pages++;
      if (answer.status !== 200) {
        result.failures.push({ url: key, status: answer.status, from });
        return;
      }
      if (kind === 'page' && !file && answer.body !== undefined) {
        const found = references(answer.body, key);
        result.markedBroken += found.markedBroken;
        for (const link of found.links) visit(link, key, 'page');
        for (const image of found.images) visit(image, key, 'image');
      }
    });
    // A page the crawl could not read (its HTML did not parse) is a failure, never an unobserved rejection.
    visited.catch(() => result.failures.push({ url: key, status: 0, from }));
  };
  visit(root.href, root.href, 'page');
  await queue.onIdle();
  return result;
}
