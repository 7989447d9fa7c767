/**
 * A page's HTML rendered on the CPU pool: its links (and those of what it includes) are found on the pool and
 * answered here (resolvePageLinks: functions cannot cross to a thread), and the page is rendered there with the
 * answers as plain data. Published pages and the app's views of pages both render so, with the one block renderer
 * (src/content/page-html.ts).
 */
import type { Context } from '../domain/context.js';
import type { PageHtml, PageHtmlOptions } from '../content/page-html.js';
import { resolvePageLinks, type LinkAnswers } from '../content/site-links.js';

export async function pooledPageHtml(
  ctx: Context,
  markdown: string,
  answers: LinkAnswers,
  variables: NonNullable<PageHtmlOptions['variables']>,
  outcomes: Array<[string, boolean]> = [],
): Promise<PageHtml> {
  const links = await resolvePageLinks(markdown, answers, (bodies) => ctx.cpu.run('extractLinks', bodies));
  return ctx.cpu.run('pageHtml', { markdown, ...links, variables, outcomes });
}
