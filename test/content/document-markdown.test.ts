/**
 * A JSONDocument back to GitBook-flavoured markdown (src/content/document-markdown.ts): per kind, and the round trip
 * markdown -> document -> markdown -> document giving the same document again, nesting included.
 */
import { describe, expect, it } from 'vitest';
import { markdownToDocument } from '../../src/content/document.js';
import type { ContentRef, DocumentContext } from '../../src/content/document-nodes.js';
import { documentToMarkdown, type ReverseContext } from '../../src/content/document-markdown.js';
import { referenceSchemaErrors } from '../helpers/contract.js';

// A page's links as ids and back: `setup.md` <-> page `p:setup.md`, `.gitbook/assets/x` <-> file `f:x`.
const FORWARD: DocumentContext = {
  resolveLink(href) {
    if (/^[a-z]+:/.test(href)) return { kind: 'url', url: href };
    if (href.startsWith('.gitbook/assets/')) return { kind: 'file', file: `f:${href.slice(16)}` };
    if (href.startsWith('.gitbook/includes/')) return { kind: 'reusable-content', reusableContent: `r:${href.slice(18)}` };
    const [path, anchor] = href.split('#');
    if (!path) return { kind: 'anchor', anchor };
    return anchor ? { kind: 'anchor', anchor, page: `p:${path}` } : { kind: 'page', page: `p:${path}` };
  },
  resolveInclude: (path) => (path.startsWith('.gitbook/includes/') ? `r:${path.slice(18)}` : undefined),
};
const BACKWARD: ReverseContext = {
  hrefOf(ref: ContentRef) {
    switch (ref.kind) {
      case 'url':
        return ref.url;
      case 'file':
        return `.gitbook/assets/${ref.file.slice(2)}`;
      case 'reusable-content':
        return `.gitbook/includes/${ref.reusableContent.slice(2)}`;
      case 'page':
        return ref.page.slice(2);
      case 'anchor':
        return `${ref.page ? ref.page.slice(2) : ''}#${ref.anchor}`;
    }
  },
};

function roundTrip(markdown: string): string {
  const first = markdownToDocument(markdown, FORWARD);
  expect(referenceSchemaErrors('JSONDocument', first)).toBeUndefined();
  const written = documentToMarkdown(first, BACKWARD);
  expect(markdownToDocument(written, FORWARD)).toEqual(first);
  return written;
}

describe('a document as markdown', () => {
  it('writes marks nested as they were, links, images and expressions', () => {
    expect(roundTrip('Some **bold _both_** and `code`, ~~gone~~, a [page](setup.md#run) and {{ space.vars.v }}.\n')).toBe(
      'Some **bold _both_** and `code`, ~~gone~~, a [page](setup.md#run) and {{ space.vars.v }}.\n',
    );
    expect(roundTrip('![Logo](.gitbook/assets/logo.png) and text ![inline](https://example.com/i.png).\n')).toContain('![Logo](.gitbook/assets/logo.png)');
  });

  it('writes the marks HTML carries: keyboard, superscript, subscript, colors', () => {
    expect(roundTrip('Press <kbd>Ctrl</kbd>+<kbd>C</kbd>, x<sup>2</sup>, H<sub>2</sub>O, <mark style="color:red;">red</mark>, **<mark style="background-color:green;">bold green</mark>**.\n')).toBe(
      'Press <kbd>Ctrl</kbd>+<kbd>C</kbd>, x<sup>2</sup>, H<sub>2</sub>O, <mark style="color:red;">red</mark>, **<mark style="background-color:green;">bold green</mark>**.\n',
    );
  });

  it('writes images with a caption or a width as the platform\'s figures, others as markdown images', () => {
    const written = roundTrip(
      '<figure><img src=".gitbook/assets/d.png" alt="A &quot;q&quot; &#x26; b" width="375"><figcaption><p>Data &lt;flow&gt;</p></figcaption></figure>\n\n<figure><img src=".gitbook/assets/e.png" alt="plain"><figcaption></figcaption></figure>\n',
    );
    expect(written).toBe(
      '<figure><img src=".gitbook/assets/d.png" alt="A &quot;q&quot; &amp; b" width="375"><figcaption><p>Data &lt;flow&gt;</p></figcaption></figure>\n\n![plain](.gitbook/assets/e.png)\n',
    );
  });

  it("writes tables markdown cannot hold as the platform's HTML tables: cards, hidden headers, several paragraphs in a cell", () => {
    const cards =
      '<table data-view="cards"><thead><tr><th></th><th data-hidden data-card-target data-type="content-ref"></th><th data-hidden data-card-cover data-type="files"></th></tr></thead>' +
      '<tbody><tr><td><span data-gb-custom-inline data-tag="emoji" data-code="1f680">🚀</span> <strong>Quickstart</strong> &#x26; <em>SDKs</em> with <code>npm</code></td><td><a href="quickstart/">quickstart</a></td><td><a href=".gitbook/assets/q.png">q.png</a></td></tr></tbody></table>';
    const written = roundTrip(`${cards}\n`);
    expect(written).toBe(
      '<table data-view="cards"><thead><tr><th></th><th data-hidden data-card-target data-type="content-ref"></th><th data-hidden data-card-cover data-type="files"></th></tr></thead>' +
        '<tbody><tr><td><span data-gb-custom-inline data-tag="emoji" data-code="1f680">🚀</span> <strong>Quickstart</strong> &amp; <em>SDKs</em> with <code>npm</code></td><td><a href="quickstart/">quickstart/</a></td><td><a href=".gitbook/assets/q.png">.gitbook/assets/q.png</a></td></tr></tbody></table>\n',
    );
    expect(roundTrip('<table data-header-hidden><thead><tr><th>A</th><th align="center">B</th></tr></thead><tbody><tr><td>1</td><td><p>two</p><p>lines</p></td></tr></tbody></table>\n')).toBe(
      '<table data-header-hidden><thead><tr><th>A</th><th align="center">B</th></tr></thead><tbody><tr><td>1</td><td><p>two</p><p>lines</p></td></tr></tbody></table>\n',
    );
    // A grid markdown can hold is a GFM table again.
    expect(roundTrip('<table><thead><tr><th>A</th><th>B</th></tr></thead><tbody><tr><td>1</td><td><strong>2</strong></td></tr></tbody></table>\n')).toBe('| A  | B     |\n| :- | :---- |\n| 1  | **2** |\n');
  });

  it('writes Liquid that is text (from {% raw %}) so that it reads back as text', () => {
    expect(roundTrip('{% raw %}\nUse {{ page.title }} and {% tag %}.\n{% endraw %}\n\nAnd {{ real }}.\n')).toBe('Use \\{{ page.title }} and \\{% tag %}.\n\nAnd {{ real }}.\n');
  });

  it('reads HTML in a GFM table cell as HTML (paragraphs, links, breaks), and writes it back so that it reads the same', () => {
    const written = roundTrip('| Name | Notes |\n| - | - |\n| Web  SDK | <p>Use <a href="https://example.com/x">the SDK</a>.<br><br>Then go.</p><p><code>a |</code> b</p> |\n');
    const [table] = markdownToDocument(written, FORWARD).nodes;
    const cell = (table.fragments as Array<{ fragment: string; nodes: Array<{ type: string; nodes?: unknown[] }> }>).find((f) => f.fragment === 'r0c1')!;
    expect(cell.nodes.map((p) => p.type)).toEqual(['paragraph', 'paragraph']);
    expect(cell.nodes[0].nodes![1]).toMatchObject({ type: 'link', data: { ref: { kind: 'url', url: 'https://example.com/x' } } });
    // The other cell keeps its markdown (two spaces and all): the table stays a GFM table.
    expect(written).toContain('| Web  SDK |');
  });

  it('writes a table in a list item with its blank line, after a paragraph or a list, so it stays a table', () => {
    const written = roundTrip('* **Changes:**\n\n  | Removed | Added |\n  | - | - |\n  | `a` | `b` |\n* next\n');
    const itemKinds = (markdown: string) => (markdownToDocument(markdown, FORWARD).nodes[0].nodes![0] as { nodes: Array<{ type: string }> }).nodes.map((node) => node.type);
    expect(itemKinds(written)).toEqual(['paragraph', 'table']);
    expect(written).toContain('**Changes:**\n\n  |');
    const afterList = roundTrip('* Changes:\n\n  * Markup\n  * Compared:\n\n  | Removed | Added |\n  | - | - |\n  | `a` | `b` |\n');
    expect(itemKinds(afterList)).toEqual(['paragraph', 'list-unordered', 'table']);
  });

  it("writes emoji as the platform's span", () => {
    expect(roundTrip('Hot <span data-gb-custom-inline data-tag="emoji" data-code="1f525">🔥</span> news\n')).toBe('Hot <span data-gb-custom-inline data-tag="emoji" data-code="1f525">🔥</span> news\n');
  });

  it('writes buttons as the platform does', () => {
    const written = roundTrip('Start: <a href="setup.md" class="button primary">Set up</a> or <a href="https://example.com/?a=1&#x26;b=2" class="button secondary">Read</a>.\n');
    expect(written).toContain('<a href="setup.md" class="button primary">Set up</a>');
    expect(markdownToDocument(written, FORWARD).nodes[0].nodes!.filter((node) => node.object === 'inline')).toEqual([
      { object: 'inline', type: 'button', isVoid: true, data: { ref: { kind: 'page', page: 'p:setup.md' }, label: 'Set up', kind: 'primary' } },
      { object: 'inline', type: 'button', isVoid: true, data: { ref: { kind: 'url', url: 'https://example.com/?a=1&b=2' }, label: 'Read', kind: 'secondary' } },
    ]);
    // A reference that names no character is U+FFFD, as HTML and CommonMark read it.
    const [bad] = markdownToDocument('<a href="https://x.test/&#x110000;" class="button primary">Go</a>\n', FORWARD).nodes;
    expect(bad.nodes![0]).toMatchObject({ type: 'button', data: { ref: { kind: 'url', url: 'https://x.test/\ufffd' } } });
  });

  it('writes headings, lists of each kind, quotes, dividers and code with its options', () => {
    const written = roundTrip(
      '# One\n\n## Two\n\n### Three\n\n* a\n* b\n  * nested\n\n3. three\n4. four\n\n* [x] done\n* [ ] to do\n\n> quoted\n>\n> > twice\n\n---\n\n```js\nconst a = 1;\n\nconst b = 2;\n```\n\n{% code title="install.sh" overflow="wrap" lineNumbers="true" %}\n```bash\nnpm i\n```\n{% endcode %}\n',
    );
    expect(written).toContain('{% code title="install.sh" overflow="wrap" lineNumbers="true" %}\n```bash\nnpm i\n```\n{% endcode %}');
    expect(written).toContain('3. three\n4. four');
    expect(written).toContain('* [x] done');
  });

  it('writes hints, tabs, steppers, content-refs, embeds, files and includes as tags', () => {
    const written = roundTrip(
      [
        '{% hint style="warning" %}',
        'Careful with **this**.',
        '{% endhint %}',
        '',
        '{% tabs %}',
        '{% tab title="A \\"quoted\\" tab" %}',
        '* in a tab',
        '',
        '{% hint style="info" %}',
        'Nested.',
        '{% endhint %}',
        '{% endtab %}',
        '',
        '{% tab title="Two" %}',
        'Second.',
        '{% endtab %}',
        '{% endtabs %}',
        '',
        '{% stepper %}',
        '{% step %}',
        '### First',
        '',
        '```sh',
        'run',
        '```',
        '{% endstep %}',
        '{% endstepper %}',
        '',
        '{% content-ref url="setup.md" %}',
        '[setup.md](setup.md)',
        '{% endcontent-ref %}',
        '',
        '{% embed url="https://example.com/v" %}',
        '',
        '{% file src=".gitbook/assets/a.pdf" %}',
        '',
        '{% include ".gitbook/includes/footer.md" %}',
      ].join('\n'),
    );
    expect(written).toContain('{% hint style="warning" %}\nCareful with **this**.\n{% endhint %}');
    expect(written).toContain('{% tab title="A \\"quoted\\" tab" %}');
    expect(written).toContain('{% embed url="https://example.com/v" %}');
    expect(written).toContain('{% include ".gitbook/includes/footer.md" %}');
  });

  it('writes OpenAPI blocks: the older one on a spec file, and an operation of a spec of the organization', () => {
    const written = roundTrip(
      '{% openapi src=".gitbook/assets/api.yaml" path="/v1/{collection}/sms" method="post" %}\n[api.yaml](.gitbook/assets/api.yaml)\n{% endopenapi %}\n\n{% openapi-operation spec="petstore" path="/pets" method="get" %}\n{% endopenapi-operation %}\n',
    );
    expect(written).toBe(
      '{% openapi src=".gitbook/assets/api.yaml" path="/v1/{collection}/sms" method="post" %}\n{% endopenapi %}\n\n{% openapi-operation spec="petstore" path="/pets" method="get" %}\n{% endopenapi-operation %}\n',
    );
    expect(markdownToDocument(written, FORWARD).nodes).toEqual([
      { object: 'block', type: 'swagger', isVoid: true, data: { ref: { kind: 'file', file: 'f:api.yaml' }, path: '/v1/{collection}/sms', method: 'post' } },
      { object: 'block', type: 'openapi-operation', isVoid: true, data: { ref: { kind: 'openapi', spec: 'petstore' }, path: '/pets', method: 'get' } },
    ]);
  });

  it('keeps what it cannot write as such as text: unknown tags, tables, fitted blocks', () => {
    roundTrip('<details>\n\n<summary>Title</summary>\n\n* a list\n\n</details>\n');
    roundTrip('{% mystery thing="x" %}\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n{% hint %}\n```\ncode in a hint\n```\n{% endhint %}\n');
  });

  it('reads documents of the hosted platform: expandables, emoji, math; and nothing from what is not a document', () => {
    const written = documentToMarkdown({
      object: 'document',
      data: {},
      nodes: [
        {
          object: 'block',
          type: 'expandable',
          isVoid: true,
          data: {},
          fragments: [
            { object: 'fragment', fragment: 'expandable-title', type: 'expandable-title', nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'More', marks: [] }] }] }] },
            { object: 'fragment', fragment: 'expandable-body', type: 'expandable-body', nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Hidden.', marks: [] }] }] }] },
          ],
        },
        { object: 'block', type: 'paragraph', nodes: [{ object: 'inline', type: 'emoji', isVoid: true, data: { code: '1f680' } }, { object: 'inline', type: 'inline-math', isVoid: true, data: { formula: 'x^2' } }] },
      ],
    });
    expect(written).toBe('<details>\n\n<summary>More</summary>\n\nHidden.\n\n</details>\n\n<span data-gb-custom-inline data-tag="emoji" data-code="1f680">🚀</span>$$x^2$$\n');
    expect(markdownToDocument(written, FORWARD).nodes[1].nodes![0]).toEqual({ object: 'inline', type: 'emoji', isVoid: true, data: { code: '1f680' } });
    expect(roundTrip('$$\nE = mc^2\n$$\n\nInline $$a+b$$ and $5.\n')).toBe('$$\nE = mc^2\n$$\n\nInline $$a+b$$ and $5.\n');
    expect(documentToMarkdown(undefined)).toBe('');
    expect(documentToMarkdown({ nodes: 'no' })).toBe('');
  });
});
