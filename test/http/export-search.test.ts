/**
 * The static export's search (src/http/routes/published/export-search.ts) without a browser: its index searched as the
 * results page shows it (sections and excerpts of plain text, words as the page marks them, stop words left out,
 * title matches first, section ids for the filters), and the same functions taken from the script's own source (what
 * a browser runs), which must give the same answers: a function of the script that names something it does not
 * declare fails here.
 */
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { EXPORT_SCRIPT, indexCandidates, SCRIPT_DECLARATIONS, searchIndex, type ExportIndex } from '../../src/http/routes/published/export-search.js';
import { nearestHtml, nearestPages } from '../../src/http/routes/published/not-found.js';
import { searchContent } from '../../src/http/routes/published/search-page.js';

const INDEX: ExportIndex = {
  v: 1,
  site: 'Docs',
  stop: ['the', 'to', 'how', 'a'],
  filters: [{ title: 'All sections' }, { title: 'Guides', id: 'sec-guides' }, { title: 'API', id: 'sec-api' }],
  places: ['Guides', 'API'],
  pages: [
    ['Welcome', '/', 0, 1, 0, ['', '', 'Start with the install guide.', 'why', 'Why Quire', 'Because docs live in git.']],
    ['Install', '/setup/install', 0, 1, 0, ['', '', 'How to install it: run the installer.', 'requirements', 'Requirements', 'Node and git.', 'steps', 'Steps', 'Install the package, then run it.']],
    ['Tokens', '/api', 1, 2, 0, ['', '', '', 'tokens', 'Installing tokens', 'Create a token. ' + 'Padding words here. '.repeat(20) + 'Then install it.']],
    ['Hidden notes', '/notes', 0, 1, 1, ['', '', 'Nothing about setup.']],
  ],
};

/** The script's declarations run as a browser runs them: what they name must be declared there. */
function scriptFunctions() {
  return vm.runInNewContext(`${SCRIPT_DECLARATIONS}\n({ searchIndex, indexCandidates, nearestPages, nearestHtml, searchContent })`, {}) as {
    searchIndex: typeof searchIndex;
    indexCandidates: typeof indexCandidates;
    nearestPages: typeof nearestPages;
    nearestHtml: typeof nearestHtml;
    searchContent: typeof searchContent;
  };
}

describe('the static export search', () => {
  it('finds pages with a title match first, their matching sections with plain excerpts, and the section of each', () => {
    const results = searchIndex(INDEX, 'how to install');
    expect(results.map((r) => r.title)).toEqual(['Install', 'Tokens', 'Welcome']);
    expect(results[0]).toEqual({
      title: 'Install',
      href: '/setup/install',
      place: 'Guides',
      sectionId: 'sec-guides',
      // The text before the first heading counts, but is no section of the results (as the served ones).
      sections: [{ title: 'Steps', href: '/setup/install#steps', body: 'Install the package, then run it.' }],
    });
    // A heading match comes first among sections; a long text is cut around its first match.
    expect(results[1].sections[0].title).toBe('Installing tokens');
    expect(results[1].sections[0].body.length).toBeLessThan(220);
    expect(results[1].sections[0].body).toMatch(/^….* Then install it\.$/);
    expect(results[1].sectionId).toBe('sec-api');
    // Only stop words: they are searched for ("the", and "then" as the results page marks it).
    expect(searchIndex(INDEX, 'the').map((r) => r.title).sort()).toEqual(['Install', 'Tokens', 'Welcome']);
    // The last word from two letters as the start of longer words; nothing for what no page holds.
    expect(searchIndex(INDEX, 'requ').map((r) => r.title)).toEqual(['Install']);
    expect(searchIndex(INDEX, 'zebrafish')).toEqual([]);
    expect(searchIndex(INDEX, '  ')).toEqual([]);
  });

  it('offers the pages the table of contents shows as nearest pages', () => {
    expect(indexCandidates(INDEX).map((c) => c.path)).toEqual(['', 'setup/install', 'api']);
    expect(nearestPages('setup/instal', indexCandidates(INDEX))[0].href).toBe('/setup/install');
  });

  it('runs the same code from the script: same results, same HTML', () => {
    const browser = scriptFunctions();
    for (const query of ['install', 'how to install', 'requ', 'git', 'token padding']) {
      const results = searchIndex(INDEX, query);
      expect(browser.searchIndex(INDEX, query), query).toEqual(results);
      expect(browser.searchContent('/~search', { query, results, filters: INDEX.filters }), query).toBe(searchContent('/~search', { query, results, filters: INDEX.filters }));
    }
    const nearest = nearestPages('setup/instal', indexCandidates(INDEX));
    expect(browser.nearestPages('setup/instal', browser.indexCandidates(INDEX))).toEqual(nearest);
    expect(browser.nearestHtml(nearest)).toBe(nearestHtml(nearest));
    expect(searchContent('/~search', { query: 'install', results: searchIndex(INDEX, 'install'), filters: INDEX.filters })).toContain('<p><mark>Install</mark> the package, then run it.</p>');
  });

  it('is a script that runs on any page: nothing of the page it needs is taken for granted', () => {
    const context = { document: { querySelector: () => null }, location: { search: '', pathname: '/' }, fetch: () => Promise.reject(new Error('no network')) };
    expect(() => vm.runInNewContext(EXPORT_SCRIPT, context)).not.toThrow();
  });
});
