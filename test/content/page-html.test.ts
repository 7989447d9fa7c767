/**
 * GitBook-flavoured markdown as sanitized HTML (src/content/page-html.ts): each block as the published site shows
 * it, checked on the parsed result; links through the caller; nothing executable survives.
 */
import type { Root } from 'hast';
import { describe, expect, it } from 'vitest';
import { findOperation, openApiRefsOf } from '../../src/content/openapi-html.js';
import { pageHtml } from '../../src/content/page-html.js';
import { all, hasClass, parseHtml, text } from '../helpers/html.js';

const render = (markdown: string) => {
  const result = pageHtml(markdown, {
    resolveHref: (href) => (href.endsWith('.md') ? `/site/${href.slice(0, -3)}` : undefined),
    linkTitle: (href) => (href === 'setup.md' ? 'Set it up' : undefined),
    variables: { space: { version: '2.0' }, page: { who: 'you' } },
  });
  return { ...result, tree: parseHtml(result.html, { fragment: true }) };
};
const classed = hasClass;

describe('pageHtml', () => {
  it('resolves the URLs raw HTML writes as markdown\'s are: figures, pictures, links in HTML tables; each once, none unsafe', () => {
    const resolveHref = (href: string) => (href.startsWith('.gitbook/assets/') ? `/files/${encodeURIComponent(href.slice(16))}` : href.endsWith('.md') ? `/site/${href.slice(0, -3)}` : undefined);
    const { html } = pageHtml(
      [
        '<figure><img src=".gitbook/assets/shot (1).png" alt="A shot"><figcaption><p>The shot</p></figcaption></figure>',
        '<picture><source srcset=".gitbook/assets/dark.png 2x, .gitbook/assets/dark-1.png 1x" media="(prefers-color-scheme: dark)"><img src=\'.gitbook/assets/light.png\' alt="Light"></picture>',
        '<table><tr><td><a href="guide/setup.md">Setup</a></td><td><img src=".gitbook/assets/a&amp;b.png"></td></tr></table>',
        '[Markdown](guide/setup.md) ![Image](.gitbook/assets/md.png) <a href="https://example.com/">out</a> <a href="javascript:alert(1)">bad</a>',
        '<source srcset="javascript:alert(2) 1x"><img src="constructor">',
      ].join('\n\n'),
      { resolveHref },
    );
    const tree = parseHtml(html, { fragment: true });
    expect(all(tree, (e) => e.tagName === 'img').map((e) => e.properties.src)).toEqual([
      '/files/shot%20(1).png',
      '/files/light.png',
      '/files/a%26b.png',
      '/files/md.png',
      'constructor',
    ]);
    expect(all(tree, (e) => e.tagName === 'source').map((e) => e.properties.srcSet)).toEqual(['/files/dark.png 2x, /files/dark-1.png 1x', undefined]);
    expect(all(tree, (e) => e.tagName === 'a').map((e) => e.properties.href)).toEqual(['/site/guide/setup', '/site/guide/setup', 'https://example.com/', undefined]);
    expect(html).not.toContain('data-quire');
  });

  it('marks the links the caller says lead nowhere as broken, in markdown and in raw HTML, and no other', () => {
    const { html } = pageHtml('[Gone](gone.md) [Here](here.md) [Out](https://example.com/)\n\n<a href="gone-too.md">Gone too</a> <a href="here.md">Here</a>', {
      resolveHref: (href) => (href === 'here.md' ? '/site/here' : undefined),
      isBroken: (href) => href.startsWith('gone'),
    });
    const links = all(parseHtml(html, { fragment: true }), (e) => e.tagName === 'a');
    expect(links.map((e) => [text(e), e.properties.href, e.properties.className, e.properties.rel])).toEqual([
      ['Gone', 'gone.md', ['broken-link'], ['nofollow']],
      ['Here', '/site/here', undefined, undefined],
      ['Out', 'https://example.com/', undefined, undefined],
      ['Gone too', 'gone-too.md', ['broken-link'], ['nofollow']],
      ['Here', '/site/here', undefined, undefined],
    ]);
  });

  it('renders steppers, columns, content-refs, embeds, files and expressions', () => {
    const { tree } = render(
      [
        '{% stepper %}\n{% step %}\nOne\n{% endstep %}\n{% step %}\nTwo\n{% endstep %}\n{% endstepper %}',
        '{% columns %}\n{% column %}\nLeft\n{% endcolumn %}\n{% column %}\nRight\n{% endcolumn %}\n{% endcolumns %}',
        '{% content-ref url="setup.md" %}\n[setup.md](setup.md)\n{% endcontent-ref %}',
        '{% embed url="https://www.youtube.com/watch?v=1" %}',
        '{% file src="guide.pdf" %}',
        'Version {{ space.vars.version }} for {{ page.vars.who }}, {{ unknown }}.',
        '$$\nE = mc^2\n$$',
      ].join('\n\n'),
    );
    expect(all(tree, classed('step')).map(text)).toEqual(['One', 'Two']);
    expect(all(tree, classed('column')).map(text)).toEqual(['Left', 'Right']);
    expect(all(tree, classed('card'))[0].properties.href).toBe('/site/setup');
    // A content-ref card shows the title of the page it leads to.
    expect(text(all(tree, classed('card'))[0])).toBe('Set it up');
    expect(all(tree, classed('embed-link'))[0].properties.href).toBe('https://www.youtube.com/watch?v=1');
    const download = all(tree, classed('download'))[0].properties;
    expect(download.href).toBe('guide.pdf');
    expect(download.download).toBeDefined();
    expect(all(tree, (e) => e.tagName === 'p').map(text)).toContain('Version 2.0 for you, {{ unknown }}.');
    expect(all(tree, classed('math-display'))).toHaveLength(1);
  });

  it('renders math as MathML on the server (display and inline), a formula KaTeX cannot read as its source, and nothing a formula could run', () => {
    const { tree, html } = render('Inline $$a^2 + b_i$$ here.\n\n$$\n\\frac{1}{\\sqrt{x}} \\href{javascript:alert(1)}{x} \\url{javascript:alert(2)}\n$$\n\n$$\n\\frac{\n$$\n');
    const [inline] = all(tree, classed('math-inline'));
    const inlineMath = all(inline, (e) => e.tagName === 'math')[0];
    expect(inlineMath.properties.display).toBeUndefined();
    expect(all(inlineMath, (e) => e.tagName === 'msup').map(text)).toEqual(['a2']);
    expect(all(inlineMath, (e) => e.tagName === 'annotation').map((e) => [text(e), e.properties.encoding])).toEqual([['a^2 + b_i', 'application/x-tex']]);
    const [display, broken] = all(tree, classed('math-display'));
    const math = all(display, (e) => e.tagName === 'math')[0];
    expect(math.properties.display).toBe('block');
    expect(all(math, (e) => e.tagName === 'mfrac')).toHaveLength(1);
    expect(all(math, (e) => e.tagName === 'msqrt')).toHaveLength(1);
    // \href and \url are not trusted: their names as red text, no link.
    expect(all(math, (e) => e.tagName === 'mtext').map(text)).toEqual(['\\href', '\\url']);
    expect(all(tree, (e) => e.tagName === 'a' || e.properties.href !== undefined || Object.keys(e.properties).some((key) => /^on|^style$/i.test(key)))).toEqual([]);
    // The TeX source stays in the annotation, as text.
    expect(html).not.toContain('href=');
    // Unreadable TeX: its source, as text.
    const error = all(broken, classed('katex-error'))[0];
    expect(text(error)).toBe('\\frac{');
    expect(all(broken, (e) => e.tagName === 'math')).toEqual([]);
  });

  it("renders cards tables as a grid of cards (cover, visible cells, target resolved as a link) and keeps other tables tables", () => {
    const cards =
      '<table data-view="cards" data-card-size="large"><thead><tr><th></th><th></th><th data-hidden data-card-target data-type="content-ref"></th><th data-hidden data-card-cover data-type="files"></th></tr></thead>' +
      '<tbody><tr><td><span data-gb-custom-inline data-tag="emoji" data-code="1f5dd">🗝️</span> <strong>Get API Key</strong></td><td>Learn &#x26; <a href="setup.md">set up</a>.</td><td><a href="get-api-key.md">get-api-key.md</a></td><td><a href=".gitbook/assets/cover.png">cover.png</a></td></tr>' +
      '<tr><td>Second</td><td><a href="setup.md">Setup</a></td><td></td><td></td></tr>' +
      '<tr><td>Evil</td><td></td><td><a href="javascript:alert(1)">x</a></td><td><a href="javascript:alert(2)">y</a></td></tr></tbody></table>';
    const result = pageHtml(`${cards}\n\n<table><tr><td>plain</td></tr></table>\n\n| A | B |\n| - | - |\n| 1 | 2 |\n`, {
      resolveHref: (href) => (href.endsWith('.md') ? `/site/${href.slice(0, -3)}` : href.startsWith('.gitbook/') ? `/files/${href.split('/').pop()}` : undefined),
    });
    const tree = parseHtml(result.html, { fragment: true });
    const grid = all(tree, classed('cards'))[0];
    expect(grid.tagName).toBe('div');
    expect(grid.properties.className).toEqual(['cards', 'cards-large']);
    const [first, second, evil] = grid.children.filter((c) => c.type === 'element');
    expect([first.tagName, first.properties.href, first.properties.className]).toEqual(['a', '/site/get-api-key', ['card']]);
    const cover = first.children.find((c) => c.type === 'element')!;
    expect([cover.type === 'element' && cover.tagName, cover.type === 'element' && cover.properties.src]).toEqual(['img', '/files/cover.png']);
    expect(all(first, classed('card-text')).map((cell) => text(cell).trim())).toEqual(['🗝️ Get API Key', 'Learn & set up.']);
    // A card that is a link holds no other link; a card without a target is a plain box whose links stay links.
    expect(all(first, (e) => e.tagName === 'a')).toEqual([]);
    expect(second.tagName).toBe('div');
    expect(all(second, (e) => e.tagName === 'a').map((a) => a.properties.href)).toEqual(['/site/setup']);
    expect(all(second, (e) => e.tagName === 'img')).toEqual([]);
    // A javascript: target or cover is dropped by the sanitizer.
    expect([evil.properties.href, ...all(evil, (e) => e.tagName === 'img').map((img) => img.properties.src)]).toEqual([undefined, undefined]);
    expect(result.html).not.toContain('javascript:');
    expect(all(grid, (e) => e.tagName === 'table')).toEqual([]);
    expect(all(tree, (e) => e.tagName === 'table').map((table) => all(table, (e) => e.tagName === 'td').map(text))).toEqual([['plain'], ['1', '2']]);
  });

  it('marks a card cover the revision has nothing at as a broken image', () => {
    const cards =
      '<table data-view="cards"><thead><tr><th></th><th data-hidden data-card-cover data-type="files"></th></tr></thead>' +
      '<tbody><tr><td>Here</td><td><a href=".gitbook/assets/here.png">here.png</a></td></tr><tr><td>Gone</td><td><a href=".gitbook/assets/gone.png">gone.png</a></td></tr></tbody></table>';
    const result = pageHtml(`${cards}\n`, {
      resolveHref: (href) => (href.endsWith('here.png') ? '/files/here.png' : undefined),
      isBroken: (href) => href.endsWith('gone.png'),
    });
    const covers = all(parseHtml(result.html, { fragment: true }), classed('card-cover'));
    expect(covers.map((img) => [img.properties.src, img.properties.className])).toEqual([
      ['/files/here.png', ['card-cover']],
      ['.gitbook/assets/gone.png', ['card-cover', 'broken-image']],
    ]);
  });

  it('shows the first branch of an {% if %} whose condition the caller says holds: the block, an elif, else, or none', () => {
    const markdown = [
      'Before.',
      '{% if visitor.claims.a %}\nFirst.\n{% elif visitor.claims.b %}\nSecond.\n{% elsif visitor.claims.c %}\nThird.\n{% else %}\nOtherwise.\n{% endif %}',
      '{% if visitor.claims.a %}\n{% hint style="info" %}\nNested.\n{% endhint %}\n{% endif %}',
      'After.',
    ].join('\n\n');
    const shown = (holds: string[] | undefined) => {
      const { html } = pageHtml(markdown, { resolveHref: () => undefined, ...(holds ? { condition: (expression: string) => holds.some((claim) => expression === `visitor.claims.${claim}`) } : {}) });
      return all(parseHtml(html, { fragment: true }), (e) => e.tagName === 'p').map(text);
    };
    expect(shown(['a', 'b'])).toEqual(['Before.', 'First.', 'Nested.', 'After.']);
    expect(shown(['b'])).toEqual(['Before.', 'Second.', 'After.']);
    expect(shown(['c'])).toEqual(['Before.', 'Third.', 'After.']);
    expect(shown([])).toEqual(['Before.', 'Otherwise.', 'After.']);
    // No evaluator: no condition holds.
    expect(shown(undefined)).toEqual(['Before.', 'Otherwise.', 'After.']);
  });

  it('highlights code on the server, with line numbers and a title when the code tag asks, and leaves unknown languages as text', () => {
    const { tree } = render('{% code title="app.js" lineNumbers="true" %}\n```js\nconst a = 1;\nlet b = "<x>";\n```\n{% endcode %}\n\n```nosuchlang\n<b>bold?</b>\n```\n');
    const figure = all(tree, (e) => e.tagName === 'figure')[0];
    // The caption is the block's header: its title and its language.
    const caption = all(figure, (e) => e.tagName === 'figcaption')[0];
    expect([text(all(caption, classed('code-title'))[0]), text(all(caption, classed('code-lang'))[0])]).toEqual(['app.js', 'JavaScript']);
    expect(text(all(figure, classed('gutter'))[0])).toBe('1\n2\n');
    const code = all(figure, (e) => e.tagName === 'code')[0];
    expect(code.properties.className).toEqual(['hljs', 'language-js']);
    expect(all(code, classed('hljs-keyword')).map(text)).toEqual(['const', 'let']);
    expect(all(code, classed('hljs-string')).map(text)).toEqual(['"<x>"']);
    const plain = all(tree, (e) => e.tagName === 'code')[1];
    expect(plain.children).toEqual([expect.objectContaining({ type: 'text', value: '<b>bold?</b>\n' })]);
  });

  it('renders an include with the reusable content it names, and stops a reusable content that includes itself', () => {
    const parts: Record<string, string> = {
      '.gitbook/includes/footer.md': 'Made with **care**. See [setup](setup.md).\n',
      '.gitbook/includes/loop.md': 'Again:\n\n{% include ".gitbook/includes/loop.md" %}\n',
    };
    const { tree } = (() => {
      const result = pageHtml('{% include ".gitbook/includes/footer.md" %}\n\n{% include ".gitbook/includes/loop.md" %}\n\n{% include "missing.md" %}\n', {
        resolveHref: (href) => (href.endsWith('.md') ? `/site/${href.slice(0, -3)}` : undefined),
        include: (path) => parts[path],
      });
      return { tree: parseHtml(result.html, { fragment: true }) as Root };
    })();
    const includes = all(tree, classed('include'));
    expect(text(includes[0]).trim()).toBe('Made with care. See setup.');
    expect(all(includes[0], (e) => e.tagName === 'a')[0].properties.href).toBe('/site/setup');
    // The loop: its own text three times, then the depth limit's note.
    expect(all(tree, (e) => e.tagName === 'p' && text(e) === 'Again:')).toHaveLength(3);
    expect(all(tree, (e) => e.tagName === 'p').map(text).filter((t) => t.startsWith('(included'))).toEqual(['(included content not found)', '(included content not found)']);
  });

  it('keeps unknown tags as text, HTML marks as elements, and heading anchors unique', () => {
    const { tree, outline } = render('{% mystery a="b" %}\nInside\n{% endmystery %}\n\nPress <kbd>K</kbd> and <mark style="color:red;">this</mark>.\n\n## Run\n\n## Run\n');
    expect(all(tree, (e) => e.tagName === 'p').map(text)).toEqual(['{% mystery a="b" %}', 'Inside', '{% endmystery %}', 'Press K and this.']);
    expect(all(tree, (e) => e.tagName === 'kbd').map(text)).toEqual(['K']);
    expect(outline).toEqual([
      { depth: 2, text: 'Run', id: 'run' },
      { depth: 2, text: 'Run', id: 'run-1' },
    ]);
  });

  it('drops scripts, event handlers, javascript: URLs, iframes and forms from the HTML a page carries', () => {
    const { tree, html } = render(
      '<script>alert(1)</script>\n\n<img src="x.png" onerror="alert(1)"> <a href="javascript:alert(1)">x</a> <iframe src="https://evil.test"></iframe>\n\n<form action="https://evil.test"><input name="q"></form>\n\n[y](javascript:alert(2)) <div style="position:fixed">over</div>\n',
    );
    expect(all(tree, (e) => ['script', 'iframe', 'form', 'style'].includes(e.tagName))).toEqual([]);
    expect(all(tree, (e) => Object.keys(e.properties ?? {}).some((key) => /^on/i.test(key) || key === 'style' && e.tagName !== 'mark'))).toEqual([]);
    expect(html).not.toContain('javascript:');
  });

  it('keeps only colours in a mark\'s style, and only http(s), mailto and relative URLs in links, images and cards', () => {
    const { tree } = render(
      [
        '<mark style="color:red;background-color:#ffe08a">kept</mark> <mark style="position:fixed;top:0;left:0;width:100vw;height:100vh;color:blue;background:url(https://evil.test/x)">covers</mark> <mark style="color:red;background-color:expression(alert(1))">half</mark>',
        '<a href="HTTPS://example.com/a">upper</a> <a href="&#106;avascript:alert(1)">entity</a> <a href=" &#x0A;JaVaScRiPt:alert(2)">spaced</a> <a href="vbscript:msgbox(1)">vb</a> <a href="data:text/html,<script>alert(3)</script>">data</a> <a href="mailto:ops@example.com">mail</a> <a href="setup.md">page</a>',
        '[md](JavaScript:alert(4)) ![img](data:image/svg+xml,<svg/onload=alert(5)>)',
        '<table data-view="cards"><thead><tr><th>Title</th><th data-hidden data-card-target data-type="content-ref">Target</th></tr></thead><tbody><tr><td>Card</td><td><a href="jAvAsCrIpT:alert(6)">x</a></td></tr></tbody></table>',
      ].join('\n\n'),
    );
    expect(all(tree, (e) => e.tagName === 'mark').map((e) => e.properties?.style)).toEqual(['color:red;background-color:#ffe08a;', 'color:blue;', 'color:red;']);
    const hrefs = all(tree, (e) => e.tagName === 'a').map((e) => [text(e), e.properties?.href]);
    expect(hrefs).toEqual([
      ['upper', 'HTTPS://example.com/a'],
      ['entity', undefined],
      ['spaced', undefined],
      ['vb', undefined],
      ['data', undefined],
      ['mail', 'mailto:ops@example.com'],
      ['page', '/site/setup'],
      ['md', undefined],
      ['Card', undefined],
    ]);
    expect(all(tree, (e) => e.tagName === 'img').map((e) => e.properties?.src)).toEqual([undefined]);
  });

  describe('OpenAPI operations', () => {
    const petstore = {
      openapi: '3.0.3',
      info: { title: 'Pets', version: '1' },
      paths: {
        '/pets/{petId}': {
          parameters: [{ name: 'petId', in: 'path', required: true, description: 'The pet', schema: { type: 'string' } }],
          get: {
            summary: 'Get a pet',
            description: 'Reads **one** pet. <script>alert(1)</script><img src="x" onerror="alert(2)"> [x](javascript:alert(3))',
            parameters: [{ $ref: '#/components/parameters/Verbose' }],
            responses: {
              '200': { description: 'The pet', content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } },
              default: { description: 'An error' },
            },
          },
          put: {
            requestBody: { required: true, content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' } } } },
            responses: { '204': { description: 'Saved' } },
          },
        },
      },
      components: {
        parameters: { Verbose: { name: 'verbose', in: 'query', schema: { type: 'boolean' } } },
        schemas: {
          Pet: {
            type: 'object',
            required: ['name'],
            properties: {
              name: { type: 'string', description: 'Its *name*' },
              born: { type: 'string', format: 'date' },
              owner: { $ref: '#/components/schemas/Owner' },
              tags: { type: 'array', items: { type: 'string' } },
            },
          },
          Owner: { type: 'object', properties: { id: { type: 'integer' }, address: { type: 'object', properties: { city: { type: 'string' } } }, pet: { $ref: '#/components/schemas/Pet' } } },
        },
      },
    };
    const swagger = {
      swagger: '2.0',
      info: { title: 'Old', version: '1' },
      consumes: ['application/json'],
      paths: { '/pets': { post: { parameters: [{ name: 'body', in: 'body', required: true, schema: { type: 'object', properties: { name: { type: 'string' } } } }, { name: 'dry', in: 'query', type: 'boolean' }], responses: { '201': { description: 'Made', schema: { type: 'object', properties: { id: { type: 'integer' } } } } } } } },
    };
    const specs: Record<string, Record<string, unknown>> = { petstore, 'https://example.com/old.yaml': swagger };
    const renderOperations = (markdown: string) => {
      const result = pageHtml(markdown, {
        resolveHref: () => undefined,
        openapiOperation: (ref) => {
          const name = ref.spec ?? ref.src ?? '';
          return specs[name] ? findOperation(specs[name], name, ref.path, ref.method) : undefined;
        },
      });
      return { html: result.html, tree: parseHtml(result.html, { fragment: true }) };
    };

    it('finds the blocks a page holds, whatever their form', () => {
      expect(openApiRefsOf('{% openapi src="https://x.test/a.yaml" path="/pets" method="GET" %}\n[a](b)\n{% endopenapi %}\n\n{% openapi-operation spec="petstore" path="/pets/{petId}" method="put" %}\n\n{% swagger src="s" path="/p" method="post" %}\n{% endswagger %}')).toEqual([
        { src: 'https://x.test/a.yaml', path: '/pets', method: 'get' },
        { spec: 'petstore', path: '/pets/{petId}', method: 'put' },
        { src: 's', path: '/p', method: 'post' },
      ]);
    });

    it('renders an operation: method and path, summary, description, parameters, request body and responses with their schema outline', () => {
      const { tree } = renderOperations('{% openapi-operation spec="petstore" path="/pets/{petId}" method="get" %}\n{% endopenapi-operation %}\n\n{% openapi-operation spec="petstore" path="/pets/{petId}" method="put" %}\n');
      const [get, put] = all(tree, classed('openapi-operation'));
      expect(all(get, classed('openapi-method')).map((e) => [text(e), e.properties.className])).toEqual([['GET', ['openapi-method', 'openapi-method-get']]]);
      expect(text(all(get, classed('openapi-path'))[0])).toBe('/pets/{petId}');
      expect(text(all(get, classed('openapi-summary'))[0])).toBe('Get a pet');
      expect(all(all(get, classed('openapi-description'))[0], (e) => e.tagName === 'strong').map(text)).toEqual(['one']);
      const rows = all(all(get, classed('openapi-parameters'))[0], (e) => e.tagName === 'tr').map((tr) => all(tr, (e) => e.tagName === 'td' || e.tagName === 'th').map((c) => text(c).trim()));
      expect(rows).toEqual([
        ['Name', 'In', 'Type', 'Required', 'Description'],
        ['petId', 'path', 'string', 'required', 'The pet'],
        ['verbose', 'query', 'boolean', '', ''],
      ]);
      const responses = all(get, classed('openapi-response'));
      expect(responses.map((r) => text(all(r, classed('openapi-status'))[0]))).toEqual(['200', 'default']);
      // The schema outline: $ref named and resolved, nested two levels, no further (and no loop on Owner.pet -> Pet).
      const outline = all(responses[0], classed('schema'))[0];
      const top = outline.children.filter((c) => c.type === 'element').map((li) => [text(all(li, classed('schema-name'))[0]), text(all(li, classed('schema-type'))[0]), all(li, classed('schema-required')).length > 0]);
      expect(top).toEqual([
        ['name', 'string', true],
        ['born', 'string (date)', false],
        ['owner', 'Owner', false],
        ['tags', 'array of string', false],
      ]);
      expect(all(outline, classed('schema-name')).map(text)).toEqual(['name', 'born', 'owner', 'id', 'address', 'pet', 'tags']);
      expect(all(outline, (e) => e.tagName === 'em').map(text)).toEqual(['name']);
      expect(text(all(responses[0], classed('openapi-media'))[0])).toBe('application/json Pet');

      expect(text(all(put, classed('openapi-method'))[0])).toBe('PUT');
      expect(all(put, (e) => e.tagName === 'h4').map(text)).toEqual(['Parameters', 'Request body', 'Responses']);
      expect(all(put, classed('schema-name')).map(text)).toContain('owner');
    });

    it('renders Swagger 2.0 operations (body parameter as the request body), and a note for what is not there', () => {
      const { tree } = renderOperations(
        '{% swagger src="https://example.com/old.yaml" path="/pets" method="post" %}\n{% endswagger %}\n\n{% openapi src="https://example.com/old.yaml" path="/nope" method="get" %}\n{% endopenapi %}\n\n{% openapi-operation spec="unknown" path="/pets" method="get" %}\n',
      );
      const [post] = all(tree, classed('openapi-operation'));
      expect(all(post, classed('openapi-parameters')).flatMap((table) => all(table, (e) => e.tagName === 'code').map(text))).toEqual(['dry']);
      expect(all(post, classed('openapi-media')).map(text)).toEqual(['application/json object', 'application/json object']);
      expect(all(post, classed('schema-name')).map(text)).toEqual(['name', 'id']);
      expect(all(tree, classed('note')).map(text)).toEqual([
        'OpenAPI operation GET /nope: not found in specification https://example.com/old.yaml',
        'OpenAPI operation GET /pets: not found in specification unknown',
      ]);
    });

    it('renders script in a description inert', () => {
      const { tree, html } = renderOperations('{% openapi-operation spec="petstore" path="/pets/{petId}" method="get" %}\n');
      expect(all(tree, (e) => e.tagName === 'script')).toEqual([]);
      expect(all(tree, (e) => Object.keys(e.properties ?? {}).some((key) => /^on/i.test(key)))).toEqual([]);
      expect(html).not.toContain('javascript:');
      expect(all(tree, (e) => e.tagName === 'img')).toHaveLength(1);
    });
  });
});
