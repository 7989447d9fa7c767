/**
 * The redirects of `.gitbook.yaml`, resolved to the pages of a revision. Apart from analyzeTree: its last step, and
 * rules of their own (what a target may be, which warnings a stale one gives).
 */
import { CONFIG_PATH, type GitbookConfig } from './config.js';
import type { ContentProblem, Page, RevisionRedirect } from './model.js';
import { decodePath, isUrl, normalizePath, trimSlashes } from './paths.js';
import { isAllowedUrl, WEB_SCHEMES } from './url-scheme.js';
import { walkPages } from './revision-pages.js';

/**
 * `.gitbook.yaml` redirects, resolved: the source as a page path (leading and trailing `/` removed, percent-decoded);
 * the target a URL, or a file relative to the content root (`page.md`, `folder/README.md`; `folder`, `folder/` and
 * a path without `.md` are tried too, as people write them) that is a page. A target that names no page is kept
 * (kind `missing`) with a warning: the hosted platform tolerates it. A URL other than http(s) (`javascript:`, ...) is
 * left out, with a warning: a redirect sends readers to a page or to the web, never runs anything.
 */
export function resolveRedirects(config: GitbookConfig, pages: Page[], problems: ContentProblem[]): RevisionRedirect[] {
  const byGitPath = new Map<string, string>();
  walkPages(pages, (page) => {
    if (page.type === 'document' || page.type === 'computed') byGitPath.set(page.gitPath, page.id);
  });
  const nowhere: string[] = [];
  const unsafe: string[] = [];
  const redirects = Object.entries(config.redirects).flatMap(([from, to]): RevisionRedirect[] => {
    const source = trimSlashes(decodePath(from));
    if (isUrl(to)) {
      if (isAllowedUrl(to, WEB_SCHEMES)) return [{ source, target: { kind: 'url', url: to } }];
      unsafe.push(from);
      return [];
    }
    const written = normalizePath(decodePath(to).replace(/^\/+/, ''));
    const base = written === undefined ? undefined : config.root + written;
    const candidates = base === undefined ? [] : [base, `${base}.md`, `${base}/README.md`];
    for (const candidate of candidates) {
      const pageId = byGitPath.get(candidate);
      if (pageId !== undefined) return [{ source, target: { kind: 'page', pageId } }];
    }
    nowhere.push(from);
    return [{ source, target: { kind: 'missing', path: written ?? to } }];
  });
  // Stale redirects are common in synced repositories (dozens, after pages moved): one warning for all of them.
  if (nowhere.length > 0) {
    const named = nowhere.slice(0, 3).map((from) => `${from} -> ${config.redirects[from]}`).join(', ');
    problems.push({
      path: CONFIG_PATH,
      line: config.redirectLines[nowhere[0]],
      severity: 'warning',
      message: `${nowhere.length === 1 ? 'a redirect leads' : `${nowhere.length} redirects lead`} to no page of the table of contents: ${named}${nowhere.length > 3 ? ', ...' : ''}`,
    });
  }
  if (unsafe.length > 0) {
    problems.push({
      path: CONFIG_PATH,
      line: config.redirectLines[unsafe[0]],
      severity: 'warning',
      message: `a redirect may lead only to a page or an http(s) URL: ignored ${unsafe.slice(0, 3).map((from) => `${from} -> ${config.redirects[from]}`).join(', ')}${unsafe.length > 3 ? ', ...' : ''}`,
    });
  }
  return redirects;
}
