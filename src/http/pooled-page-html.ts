/**
 * A page's HTML rendered on the CPU pool: its links (and those of what it includes, nested up to INCLUDE_DEPTH) are
 * found on the pool, answered here from `links` (functions cannot cross to a thread), and the page is rendered there
 * with the answers as plain data. Published pages and the app's views of pages both render so, with the one block
 * renderer (src/content/page-html.ts).
 */
import type { Context } from '../domain/context.js';
import { INCLUDE_DEPTH, type PageHtml, type PageHtmlOptions } from '../content/page-html.js';

export type PageLinkAnswers = Required<Pick<PageHtmlOptions, 'resolveHref' | 'isBroken' | 'linkTitle' | 'include'>>;

export async function pooledPageHtml(
  ctx: Context,
  markdown: string,
  links: PageLinkAnswers,
  variables: NonNullable<PageHtmlOptions['variables']>,
  outcomes: Array<[string, boolean]> = [],
): Promise<PageHtml> {
  const hrefs: Record<string, string> = {};
  const broken: string[] = [];
  const titles: Record<string, string> = {};
  const includes: Record<string, string> = {};
  let bodies = [markdown];
  for (let depth = 0; bodies.length > 0 && depth <= INCLUDE_DEPTH; depth++) {
    const found = (await ctx.cpu.run('extractLinks', bodies)).flat();
    bodies = [];
    for (const { href } of found) {
      const url = links.resolveHref(href);
      if (url !== undefined) hrefs[href] = url;
      else if (links.isBroken(href)) broken.push(href);
      const title = links.linkTitle(href);
      if (title !== undefined) titles[href] = title;
      const included = href in includes ? undefined : links.include(href);
      if (included !== undefined) bodies.push((includes[href] = included));
    }
  }
  return ctx.cpu.run('pageHtml', { markdown, hrefs, broken, titles, variables, includes, outcomes });
}
