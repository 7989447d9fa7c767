import { describe, expect, it } from 'vitest';
import { convertHtml, htmlToMarkdown, mapUrls, parseMarkdown, stringifyMarkdown, urlsOf } from '../../src/content/convert.js';

const page = (head: string, body: string) => `<!doctype html><html><head>${head}</head><body>${body}</body></html>`;

describe('HTML to markdown', () => {
  it('keeps headings, lists, code with its language, tables, links and images', () => {
    const { title, markdown } = htmlToMarkdown(
      page(
        '<title>Ignored</title>',
        `<main><h1>Install</h1>
        <p>Run <code>acme</code> with <strong>care</strong> and <em>style</em>.</p>
        <h2>Steps</h2>
        <ol><li>Download</li><li>Unpack<ul><li>anywhere</li></ul></li></ol>
        <pre><code class="language-python">print("hi")
for x in y:
    pass</code></pre>
        <table><thead><tr><th>Key</th><th>Value</th></tr></thead><tbody><tr><td>a | b</td><td>1</td></tr></tbody></table>
        <p><a href="../api.html#auth" title="API">API</a> <img src="img/shot.png" alt="Shot"></p>
        <blockquote><p>Quoted</p></blockquote><hr><h3>Last</h3></main>`,
      ),
    );
    expect(title).toBe('Install');
    expect(markdown).toBe(
      [
        'Run `acme` with **care** and *style*.',
        '',
        '## Steps',
        '',
        '1. Download',
        '2. Unpack',
        '   * anywhere',
        '',
        '```python',
        'print("hi")',
        'for x in y:',
        '    pass',
        '```',
        '',
        '| Key    | Value |',
        '| ------ | ----- |',
        '| a \\| b | 1     |',
        '',
        '[API](../api.html#auth "API") ![Shot](img/shot.png)',
        '',
        '> Quoted',
        '',
        '---',
        '',
        '### Last',
        '',
      ].join('\n'),
    );
  });

  it('takes the main content: <main>, else <article>, else the body, without navigation, header, footer or scripts', () => {
    const chrome = '<header><h1>Site name</h1><a href="/">Home</a></header><nav><a href="/a">A</a></nav>';
    const tail = '<footer>Copyright</footer><script>track()</script><style>p{}</style>';
    expect(htmlToMarkdown(page('', `${chrome}<main><h1>T</h1><p>Main text</p><nav>inner nav</nav></main><p>Outside</p>${tail}`))).toEqual({
      title: 'T',
      markdown: 'Main text\n',
    });
    expect(htmlToMarkdown(page('', `${chrome}<div><article><h1>T</h1><p>Article text</p></article></div><aside>Side</aside>${tail}`)).markdown).toBe(
      'Article text\n',
    );
    expect(htmlToMarkdown(page('', `${chrome}<div><h1>T</h1><p>Body text</p><div hidden>secret</div></div>${tail}`))).toEqual({
      title: 'T',
      markdown: 'Body text\n',
    });
  });

  it('finds the title in the content first, then in a header inside it, then in <title>', () => {
    // The site's name in the page header is not the title of every page.
    expect(htmlToMarkdown(page('<title>Doc</title>', '<header><h1>Acme</h1></header><div><h1>Real title</h1><p>x</p></div>')).title).toBe('Real title');
    expect(htmlToMarkdown(page('<title>Doc</title>', '<article><header><h1>In the header</h1><p>By Ada</p></header><p>x</p></article>'))).toEqual({
      title: 'In the header',
      markdown: 'x\n',
    });
    expect(htmlToMarkdown(page('<title>  From   title </title>', '<main><h2>Sub</h2></main>'))).toEqual({ title: 'From title', markdown: '## Sub\n' });
    expect(htmlToMarkdown(page('', '<p>No title at all</p>')).title).toBeUndefined();
  });

  it('drops heading permalinks, keeps other in-page links', () => {
    const { title, markdown } = htmlToMarkdown(
      page('', '<main><h1>Guide<a class="headerlink" href="#guide">¶</a></h1><h2 id="x">Setup <a href="#x" aria-hidden="true">#</a></h2><p>See <a href="#x">setup</a>.</p></main>'),
    );
    expect(title).toBe('Guide');
    expect(markdown).toBe('## Setup\n\nSee [setup](#x).\n');
  });

  it('reads the description, the base URL and every link of the page, navigation included', () => {
    const converted = convertHtml(
      page('<meta name="description" content=" Install  it "><base href="/docs/">', '<nav><a href="a.html">A</a><a href="b.html">B</a></nav><main><h1>T</h1><a href="c.html">C</a><a href="a.html">again</a></main>'),
      { url: 'https://example.com/site/page.html' },
    );
    expect(converted.description).toBe('Install it');
    expect(converted.baseUrl).toBe('https://example.com/docs/');
    expect(converted.links).toEqual(['a.html', 'b.html', 'c.html']);
    expect(urlsOf(converted.body)).toEqual({ links: ['c.html', 'a.html'], images: [] });
  });

  it('converts fragments (what mammoth gives) as a body', () => {
    expect(htmlToMarkdown('<h1>Report</h1><p>Text <a href="https://x.test/">link</a></p><table><tr><td>a</td><td>b</td></tr></table>')).toEqual({
      title: 'Report',
      description: undefined,
      markdown: 'Text [link](https://x.test/)\n\n| a | b |\n| - | - |\n',
    });
  });
});

describe('markdown trees', () => {
  it('parses and writes GitHub-flavoured markdown', () => {
    const text = '# T\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n* [x] done\n* ~~gone~~\n';
    expect(stringifyMarkdown(parseMarkdown(text))).toBe(text);
    expect(stringifyMarkdown(parseMarkdown(''))).toBe('');
  });

  it('rewrites URLs of links, images and definitions; null unwraps a link and drops an image but keeps its alt text', () => {
    const tree = parseMarkdown('[keep](a.md) [drop](javascript:x) ![pic](p.png) ![gone](g.png) [ref][r]\n\n[r]: r.md\n');
    mapUrls(tree, (url, kind) => {
      if (url.startsWith('javascript:') || url === 'g.png') return null;
      return `${kind}:${url}`;
    });
    expect(stringifyMarkdown(tree)).toBe('[keep](link:a.md) drop ![pic](image:p.png) gone [ref][r]\n\n[r]: link:r.md\n');
    expect(urlsOf(tree)).toEqual({ links: ['link:a.md', 'link:r.md'], images: ['image:p.png'] });
  });
});
