/**
 * The HTML of the published site's frame where no browser is needed: the query's words marked in search excerpts
 * (escaped: a query or a text of markup never becomes markup), the nearest pages of a 404 (bounded, best first), and
 * the site's icon in the header when it has one.
 */
import { describe, expect, it } from 'vitest';
import { markedText, queryWords, renderSearch } from '../../src/http/routes/published/search-page.js';
import { nearestPages, type Candidate } from '../../src/http/routes/published/not-found.js';
import { siteHeader, type SiteFrame } from '../../src/http/routes/published/layout.js';
import { all, parseHtml, text } from '../helpers/html.js';

const FRAME: SiteFrame = { siteTitle: 'Docs <b>', siteHref: '/sites/o/s', searchHref: '/sites/o/s/~search', faviconHref: '/sites/o/s/favicon.svg', sections: [] };

describe('search excerpts', () => {
  it('marks the words asked for, whole, and their stems', () => {
    expect(markedText('Install it, then reinstall. Installing works.', queryWords('install'))).toBe('<mark>Install</mark> it, then reinstall. <mark>Installing</mark> works.');
    expect(markedText('Configure the configuration', queryWords('configuring'))).toBe('Configure the configuration');
    expect(markedText('no words', [])).toBe('no words');
  });

  it('escapes everything: a query of markup and a text of markup stay text', () => {
    const html = markedText('Use <script>alert(1)</script> & "quotes" in a script tag', queryWords('<script> alert'));
    expect(html).toBe('Use &lt;<mark>script</mark>&gt;<mark>alert</mark>(1)&lt;/<mark>script</mark>&gt; &amp; &quot;quotes&quot; in a <mark>script</mark> tag');
    const page = renderSearch(FRAME, { query: '<script>alert(1)</script>', results: [{ title: '<img src=x onerror=alert(1)>', href: '/a', sections: [{ title: 't', href: '/a#t', body: '<script>alert(1)</script>' }] }] });
    const tree = parseHtml(page);
    expect(all(tree, (e) => e.tagName === 'script' && !e.properties.src)).toEqual([]);
    expect(all(tree, (e) => e.tagName === 'img')).toEqual([]);
    // The title's and the excerpt's words, marked as text.
    expect(all(tree, (e) => e.tagName === 'mark').map(text)).toEqual(['alert', '1', 'script', 'alert', '1', 'script']);
  });

  it('offers section filters on a site of several sections only', () => {
    const filters = [{ title: 'All sections' }, { title: 'Guides', id: 's1' }, { title: 'API', id: 's2' }];
    const links = (html: string) => all(parseHtml(html), (e) => e.tagName === 'nav' && e.properties.ariaLabel === 'Filter by section').flatMap((nav) => all(nav, (e) => e.tagName === 'a'));
    const shown = links(renderSearch(FRAME, { query: 'a b', results: [], filters, section: 's2' }));
    expect(shown.map((a) => [text(a), a.properties.href, a.properties.ariaCurrent ?? null])).toEqual([
      ['All sections', '/sites/o/s/~search?q=a%20b', null],
      ['Guides', '/sites/o/s/~search?q=a%20b&section=s1', null],
      ['API', '/sites/o/s/~search?q=a%20b&section=s2', 'page'],
    ]);
    expect(links(renderSearch(FRAME, { query: 'a', results: [], filters: filters.slice(0, 2) }))).toEqual([]);
  });
});

describe('nearest pages of a 404', () => {
  const pages: Candidate[] = ['setup/install', 'setup/configure', 'topics/billing', 'topics/webhooks', 'reference/code'].map((path) => ({ title: path.split('/')[1], href: `/s/${path}`, path }));

  it('finds the pages whose paths or titles are closest to the address, best first', () => {
    expect(nearestPages('setup/instal', pages).map((page) => page.path)[0]).toBe('setup/install');
    expect(nearestPages('webhook', pages).map((page) => page.path)).toEqual(['topics/webhooks']);
    expect(nearestPages('zzzz', pages)).toEqual([]);
    expect(nearestPages('', pages)).toEqual([]);
  });

  it('shows at most five, and takes bounded time on a long address and many pages', () => {
    const many: Candidate[] = Array.from({ length: 20_000 }, (_, i) => ({ title: `Page ${i}`, href: `/p/${i}`, path: `guides/page-${i}` }));
    const started = performance.now();
    const found = nearestPages(`guides/page-12${'/'.repeat(100_000)}`, many);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(found.length).toBe(5);
  });
});

describe('the site header', () => {
  it('shows the site title once, escaped, with the icon when the site has one', () => {
    const plain = parseHtml(siteHeader(FRAME));
    expect(text(all(plain, (e) => e.tagName === 'a')[0])).toBe('Docs <b>');
    expect(all(plain, (e) => e.tagName === 'img')).toEqual([]);
    const withIcon = parseHtml(siteHeader({ ...FRAME, icon: { src: '/icon.png', dark: '/icon-dark.png' } }));
    expect(all(withIcon, (e) => e.tagName === 'img').map((img) => img.properties.src)).toEqual(['/icon.png', '/icon-dark.png']);
    expect(text(all(parseHtml(siteHeader({ ...FRAME, icon: { emoji: '📘' } })), (e) => e.tagName === 'a')[0])).toBe('📘Docs <b>');
  });
});
