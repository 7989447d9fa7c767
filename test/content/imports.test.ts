import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zipSync, strToU8 } from 'fflate';
import { GuardedFetcher } from '../../src/store/net/guarded-fetch.js';
import { readZip } from '../../src/content/imports/zip.js';
import { importWebsite, routeOf, WEBSITE_LIMITS } from '../../src/content/imports/website.js';
import { stringifyMarkdown } from '../../src/content/convert.js';
import type { ImportNode, ImportPageNode } from '../../src/content/import-plan.js';
import { tinyPng } from '../helpers/content.js';
import { htmlPage, zipOf } from '../helpers/web.js';
import { declaringSizes } from '../helpers/zip-bombs.js';
import { startFileServer, type FileServer } from '../helpers/file-server.js';

describe('readZip: archives are checked before anything is imported', () => {
  it('refuses entries that leave the archive: .., absolute paths, drive letters, backslashes', () => {
    for (const name of ['../evil.md', 'docs/../../evil.md', '/etc/evil.md', 'C:/evil.md', '..\\evil.md']) {
      expect(() => readZip(zipOf({ 'ok.md': '# Ok\n', [name]: '# Evil\n' }), 'http://x/a.zip'), name).toThrow(/^url: the archive holds an entry whose path leaves the archive/);
    }
  });

  it('refuses archives that expand past the size caps or hold too many files (zip bombs), counting what inflates', () => {
    const limits = { maxEntries: 100, maxEntryBytes: 1_000_000, maxBytes: 3_000_000 };
    const bomb = Buffer.from(zipSync({ 'zeros.md': new Uint8Array(5_000_000) }, { level: 9 }));
    expect(bomb.length).toBeLessThan(20_000);
    expect(() => readZip(bomb, 'http://x/a.zip', limits)).toThrow(/^url: the archive is too large: zeros\.md inflates past 0\.95 MB; Quire imports archives of at most 100 files, 0\.95 MB per file and 2\.86 MB in all$/);
    // Headers that claim a few bytes change nothing: what inflates is counted.
    expect(() => readZip(declaringSizes(bomb, 10), 'http://x/a.zip', limits)).toThrow(/zeros\.md inflates past 0\.95 MB/);
    const spread = Buffer.from(zipSync(Object.fromEntries(Array.from({ length: 4 }, (_, i) => [`p${i}.md`, new Uint8Array(900_000)])), { level: 9 }));
    expect(() => readZip(declaringSizes(spread, 10), 'http://x/a.zip', limits)).toThrow(/the archive inflates past 2\.86 MB in all/);
    const many = zipOf(Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`p${i}.md`, '# P\n'])));
    expect(() => readZip(many, 'http://x/a.zip', { ...limits, maxEntries: 10 })).toThrow(/more than 10 files/);
    expect(readZip(many, 'http://x/a.zip', { ...limits, maxEntries: 12 }).files).toHaveLength(12);
  });

  it('skips symbolic links and junk, drops one folder around everything, refuses what is not a zip', () => {
    const archive = zipOf({
      'repo-main/README.md': '# Home\n',
      'repo-main/guide/a.md': '# A\n',
      'repo-main/guide/link.md': { content: '../../../../etc/passwd', symlink: true },
      'repo-main/.DS_Store': 'junk',
      '__MACOSX/repo-main/._README.md': 'junk',
    });
    const { files, skipped } = readZip(archive, 'http://x/a.zip');
    expect(files.map((f) => f.path).sort()).toEqual(['README.md', 'guide/a.md']);
    expect(skipped).toBe(1);
    expect(() => readZip(Buffer.from('<html>'), 'http://x/a.zip')).toThrow(/^url: http:\/\/x\/a\.zip is not a zip archive$/);
    expect(() => readZip(Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(30)]), 'http://x/a.zip')).toThrow(/^url: .* is not a zip archive Quire can read/);
    expect(readZip(Buffer.from(zipSync({ 'a.md': strToU8('# A\n') })), 'http://x/a.zip').files).toEqual([{ path: 'a.md', bytes: Buffer.from('# A\n') }]);
  });
});

describe('routeOf: the page tree comes from URL paths under the start folder', () => {
  it('drops index files and extensions, slugifies segments', () => {
    const route = (path: string) => routeOf(new URL(`https://x.test${path}`), '/docs/');
    expect(route('/docs/')).toEqual([]);
    expect(route('/docs/index.html')).toEqual([]);
    expect(route('/docs/Guide/')).toEqual(['guide']);
    expect(route('/docs/guide/Install%20Now.html')).toEqual(['guide', 'install-now']);
    expect(route('/docs/api.php')).toEqual(['api']);
  });
});

function pages(nodes: ImportNode[]): ImportPageNode[] {
  return nodes.flatMap((n) => (n.kind === 'page' ? [n, ...pages(n.children)] : pages(n.children)));
}

describe('importWebsite: the crawl against a real site on 127.0.0.1', () => {
  let site: FileServer;
  let images: FileServer;
  const fetcher = new GuardedFetcher({ allow: ['127.0.0.1'] });

  beforeAll(async () => {
    images = await startFileServer({ '/shot.png': { body: tinyPng(2, 2), contentType: 'image/png' }, '/broken.png': { body: 'nope', contentType: 'text/plain' } });
    site = await startFileServer({
      '/docs/': {
        body: htmlPage(
          'Home',
          `<h1>Home</h1><p><img src="${images.base}/shot.png" alt="Shot"><img src="${images.base}/broken.png" alt="Broken"></p>
           <a href="old.html">old</a> <a href="tools/cli/run.html">run</a> <a href="report.pdf">pdf</a> <a href="page.html?print=1">print</a>
           <a href="/outside.html">outside</a> <a href="https://example.com/">external</a>`,
          ['/docs/a.html', '/docs/b.html', '/docs/c.html'],
        ),
      },
      '/docs/old.html': { status: 301, body: '', contentType: 'text/html' },
      '/docs/a.html': { body: htmlPage('A', '<h1>A</h1><a href="deeper/one.html">one</a>') },
      '/docs/deeper/one.html': { body: htmlPage('One', '<h1>One</h1><a href="two.html">two</a>') },
      '/docs/deeper/two.html': { body: htmlPage('Two', '<h1>Two</h1>') },
      '/docs/b.html': { body: htmlPage('B', '<h1>B</h1>') },
      '/docs/c.html': { body: htmlPage('C', '<h1>C</h1>') },
      '/docs/tools/cli/run.html': { body: htmlPage('Run', '<h1>Run</h1>') },
      '/docs/report.pdf': { body: Buffer.from('%PDF'), contentType: 'application/pdf' },
      '/outside.html': { body: htmlPage('Outside', '<h1>Outside</h1>') },
    });
  });
  afterAll(async () => {
    await site?.close();
    await images?.close();
    await fetcher.close();
  });

  it('follows the navigation under the start folder, builds the tree from paths, downloads images from any origin', async () => {
    site.requests.length = 0;
    const tree = await importWebsite(fetcher, `${site.base}/docs/`);
    expect(site.requests).not.toContain('/outside.html');
    expect(site.requests).not.toContain('/docs/report.pdf');
    expect(site.requests.filter((r) => r.startsWith('/docs/page.html'))).toEqual([]);
    const home = tree.nodes[0] as ImportPageNode;
    expect(tree.nodes).toHaveLength(1);
    const outline = (node: ImportPageNode): unknown => [node.title, node.file, ...(node.children as ImportPageNode[]).map(outline)];
    expect(outline(home)).toEqual([
      'Home',
      'README.md',
      ['A', 'a.md'],
      // Found through A's link: listed right after A (pages come in the order the site links them).
      ['Deeper', 'deeper/README.md', ['One', 'deeper/one.md'], ['Two', 'deeper/two.md']],
      ['B', 'b.md'],
      ['C', 'c.md'],
      ['Tools', 'tools/README.md', ['Cli', 'tools/cli/README.md', ['Run', 'tools/cli/run.md']]],
    ]);
    const generated = pages(tree.nodes).filter((p) => p.generated).map((p) => p.file);
    expect(generated).toEqual(['deeper/README.md', 'tools/README.md', 'tools/cli/README.md']);
    expect(stringifyMarkdown(pages(tree.nodes).find((p) => p.file === 'deeper/README.md')!.body)).toMatch(/^\* \[One\]\(quire-import-page:.*\n\* \[Two\]/);
    // The image of another origin is downloaded; the one that is not an image keeps its URL.
    expect(tree.assets.map((a) => [a.key, a.name])).toEqual([[`${images.base}/shot.png`, 'shot.png']]);
    const body = stringifyMarkdown(home.body);
    expect(body).toContain('![Shot](quire-import-asset:');
    expect(body).toContain(`![Broken](${images.base}/broken.png)`);
    // old.html redirects to nothing useful (a 301 without Location is a non-page): an absolute link; others too.
    expect(body).toContain(`[outside](${site.base}/outside.html)`);
    expect(body).toContain(`[pdf](${site.base}/docs/report.pdf)`);
    expect(body).toContain('[external](https://example.com/)');
    // Pages: home, a, b, c, one, two, run, old.html (failed); images: 2.
    expect(tree.total).toBe(10);
  });

  it('stops at the page and depth limits, counting what it left out', async () => {
    const few = await importWebsite(fetcher, `${site.base}/docs/`, { ...WEBSITE_LIMITS, maxPages: 3 });
    expect(pages(few.nodes).filter((p) => !p.generated)).toHaveLength(3);
    expect(few.total).toBeGreaterThan(3 + 1);
    const shallow = await importWebsite(fetcher, `${site.base}/docs/`, { ...WEBSITE_LIMITS, maxDepth: 1 });
    const titles = pages(shallow.nodes).filter((p) => !p.generated).map((p) => p.title);
    expect(titles).toContain('A');
    expect(titles).not.toContain('One');
  });

  it('refuses a start page robots.txt disallows', async () => {
    const guarded = await startFileServer({ '/robots.txt': { body: 'User-agent: QuireImporter\nDisallow: /\n', contentType: 'text/plain' }, '/': { body: htmlPage('x', '<h1>x</h1>') } });
    try {
      await expect(importWebsite(fetcher, `${guarded.base}/`)).rejects.toThrow(/^url: .*robots\.txt does not allow QuireImporter/);
      expect(guarded.requests).toEqual(['/robots.txt']);
    } finally {
      await guarded.close();
    }
  });
});
