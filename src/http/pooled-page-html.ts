/**
 * A page's HTML rendered on the CPU pool: its links (and those of what it includes) are found on the pool, or known
 * from the link index, and answered here (resolvePageLinks: functions cannot cross to a thread), and the page is
 * rendered there with the answers as plain data. Published pages and the app's views of pages both render so, with
 * the one block renderer (src/content/page-html.ts).
 */
import type { Context } from '../domain/context.js';
import type { DocumentPage } from '../content/model.js';
import type { PageHtml, PageHtmlOptions } from '../content/page-html.js';
import type { LinkAnswers } from '../content/site-links.js';
import { resolvedPageLinks } from '../domain/content/link-index.js';

export async function pooledPageHtml(
  ctx: Context,
  page: DocumentPage,
  answers: LinkAnswers,
  variables: NonNullable<PageHtmlOptions['variables']>,
  outcomes: Array<[string, boolean]> = [],
): Promise<PageHtml> {
  const links = await resolvedPageLinks(ctx, page, answers);
  return ctx.cpu.run('pageHtml', { markdown: page.markdown, ...links, variables, outcomes });
}
