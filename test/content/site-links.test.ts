/**
 * A page's links answered before it is rendered on a thread (src/content/site-links.ts resolvePageLinks): those of
 * the page and of what it includes, and only where the page is rendered with its markup (its first megabyte).
 */
import { describe, expect, it } from 'vitest';
import { extractLinks } from '../../src/content/links.js';
import { MAX_INDEXED_TEXT } from '../../src/content/bounded-markdown.js';
import { pageHtml } from '../../src/content/page-html.js';
import { resolvePageLinks, resolvedLinkAnswers, type LinkAnswers } from '../../src/content/site-links.js';

const answers: LinkAnswers = {
  resolveHref: (href) => (href.endsWith('.md') && href !== 'gone.md' ? `/docs/${href.slice(0, -3)}` : undefined),
  isBroken: (href) => href === 'gone.md',
  linkTitle: (href) => (href === 'guide.md' ? 'The guide' : undefined),
  include: (href) => (href === 'snippet.md' ? 'See [the API](api.md).\n' : undefined),
};

/** Each body's links, and the bodies the extractor was given. */
function extractor() {
  const given: string[] = [];
  return {
    given,
    extract: async (bodies: string[]) => {
      given.push(...bodies);
      return bodies.map(extractLinks);
    },
  };
}

describe('resolvePageLinks', () => {
  it('answers the links of the page and of what it includes', async () => {
    const { extract } = extractor();
    const resolved = await resolvePageLinks('Read [the guide](guide.md), not [this](gone.md).\n\n{% include "snippet.md" %}\n', answers, extract);
    expect(resolved.hrefs).toEqual({ 'guide.md': '/docs/guide', 'snippet.md': '/docs/snippet', 'api.md': '/docs/api' });
    expect(resolved.broken).toEqual(['gone.md']);
    expect(resolved.titles).toEqual({ 'guide.md': 'The guide' });
    expect(resolved.includes).toEqual({ 'snippet.md': 'See [the API](api.md).\n' });
  });

  it('takes the links of the page the link index found already, and extracts only those of what it includes', async () => {
    const markdown = 'Read [the guide](guide.md).\n\n{% include "snippet.md" %}\n';
    const { given, extract } = extractor();
    const resolved = await resolvePageLinks(markdown, answers, extract, extractLinks(markdown));
    expect(given).toEqual(['See [the API](api.md).\n']);
    expect(resolved.hrefs).toEqual({ 'guide.md': '/docs/guide', 'snippet.md': '/docs/snippet', 'api.md': '/docs/api' });
  });

  it('reads only the part of a long page rendered with its markup: past it, links are plain text', async () => {
    const first = 'Start at [the guide](guide.md).\n\n';
    const filler = `${'word '.repeat(60)}\n\n`.repeat(Math.ceil(MAX_INDEXED_TEXT / 300));
    const markdown = `${first}${filler}Past the first megabyte: [far](far.md).\n`;
    const { given, extract } = extractor();
    const resolved = await resolvePageLinks(markdown, answers, extract);
    expect(Object.keys(resolved.hrefs)).toEqual(['guide.md']);
    expect(given[0].length).toBeLessThanOrEqual(MAX_INDEXED_TEXT);

    // As rendered: the link in the first megabyte leads to its page, the one past it is text.
    const { html } = pageHtml(markdown, resolvedLinkAnswers(resolved));
    expect(html).toContain('<a href="/docs/guide">the guide</a>');
    expect(html).toContain('[far](far.md)');
  });
});
