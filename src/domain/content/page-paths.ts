/**
 * Reading a page by its path (GET /v1/spaces/{spaceId}/content/path/{pagePath}), following the space's
 * `.gitbook.yaml` redirects the way the hosted platform does for an old URL.
 *
 * Decisions: a page at the path always wins (a redirect is for a path that no longer has a page). Otherwise the
 * first redirect whose source is the path (leading and trailing `/` aside; then ignoring case, since URLs typed by
 * people vary in case) answers with the page it leads to: the reply is that page, with its own `path`, so a client
 * sees where it landed. A redirect to a URL, or to a file that is not a page, is not a page of the space: 404
 * naming where it leads.
 */
import { NotFound } from '../errors.js';
import type { Page } from '../../content/model.js';
import { trimSlashes } from '../../content/paths.js';
import { findPageByPath, type IndexedRevision } from './revisions.js';

/** The page at `pagePath`, or the page a redirect from `pagePath` leads to (see the rules above). */
export function findPageByPathOrRedirect(content: IndexedRevision, pagePath: string): Page {
  const path = trimSlashes(pagePath);
  if (content.pagesByPath.has(path)) return findPageByPath(content, path);
  const { redirects } = content.revision;
  const redirect =
    redirects.find((r) => r.source === path) ?? redirects.find((r) => r.source.toLowerCase() === path.toLowerCase());
  if (!redirect) return findPageByPath(content, path);
  const { target } = redirect;
  if (target.kind === 'page') {
    const page = content.pagesById.get(target.pageId);
    if (page) return page;
  }
  const where = target.kind === 'url' ? target.url : target.kind === 'missing' ? target.path : target.pageId;
  throw new NotFound(`pagePath: "${pagePath}" redirects to ${where}, which is not a page of this revision`);
}
