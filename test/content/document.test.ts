/**
 * GitBook-flavoured markdown as the reference's JSONDocument (src/content/document.ts): each block, inline and mark
 * kind built so far, nesting included, every document valid against the reference schema; what the schema does not
 * let stand is fitted, never lost.
 */
import { describe, expect, it } from 'vitest';
import { markdownToDocument } from '../../src/content/document.js';
import type { DocumentBlock, DocumentContext } from '../../src/content/document-nodes.js';
import { referenceSchemaErrors } from '../helpers/contract.js';

const CONTEXT: DocumentContext = {
  resolveLink: (href) => {
    if (/^[a-z]+:/.test(href)) return { kind: 'url', url: href };
    if (href.startsWith('.gitbook/assets/')) return { kind: 'file', file: `file-${href.slice(16)}` };
    const [path, anchor] = href.split('#');
    if (!path) return { kind: 'anchor', anchor };
    return anchor ? { kind: 'anchor', anchor, page: `page-${path}` } : { kind: 'page', page: `page-${path}` };
  },
  resolveInclude: (path) => (path.endsWith('footer.md') ? 'reusable-footer' : undefined),
};

function convert(markdown: string): DocumentBlock[] {
  const document = markdownToDocument(markdown, CONTEXT);
  expect(referenceSchemaErrors('JSONDocument', document)).toBeUndefined();
  return document.nodes;
}

/** The text of a paragraph's leaves. */
const leaves = (block: DocumentBlock) => (block.nodes ?? []).flatMap((node) => ('leaves' in node ? node.leaves.map((leaf) => [leaf.text, leaf.marks.map((mark) => mark.type)]) : [[node.type]]));

describe('markdown as a JSONDocument', () => {
  it('writes paragraphs with marks, links, images and expressions', () => {
    const [first] = convert('Some **bold _both_** and `code` and ~~gone~~, a [page](setup.md#run), {{ space.vars.version }}, ![logo](.gitbook/assets/logo.png).\n');
    expect(first.type).toBe('paragraph');
    expect(leaves(first).slice(0, 6)).toEqual([
      ['Some ', []],
      ['bold ', ['bold']],
      ['both', ['bold', 'italic']],
      [' and ', []],
      ['code', ['code']],
      [' and ', []],
    ]);
    const inlines = first.nodes!.filter((node) => node.object === 'inline');
    expect(inlines).toEqual([
      { object: 'inline', type: 'link', data: { ref: { kind: 'anchor', anchor: 'run', page: 'page-setup.md' } }, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'page', marks: [] }] }] },
      { object: 'inline', type: 'expression', isVoid: true, data: { expression: 'space.vars.version' } },
      { object: 'inline', type: 'inline-image', isVoid: true, data: { ref: { kind: 'file', file: 'file-logo.png' }, caption: 'logo' } },
    ]);
  });

  it('writes headings (deeper ones as heading-3), lists of each kind with their start, quotes and dividers', () => {
    const blocks = convert('# One\n\n#### Four\n\n* a\n* b\n\n3. three\n4. four\n\n- [x] done\n- [ ] to do\n\n> quoted\n\n---\n');
    expect(blocks.map((block) => block.type)).toEqual(['heading-1', 'heading-3', 'list-unordered', 'list-ordered', 'list-tasks', 'blockquote', 'divider']);
    expect(blocks[3].data).toEqual({ start: 3 });
    expect(blocks[4].nodes!.map((item) => (item as DocumentBlock).data)).toEqual([{ checked: true }, { checked: false }]);
  });

  it('writes code with one line per code-line and the options of a {% code %} tag', () => {
    const [plain, titled] = convert('```js\nconst a = 1;\nconst b = 2;\n```\n\n{% code title="install.sh" overflow="wrap" lineNumbers="true" %}\n```bash\nnpm i\n```\n{% endcode %}\n');
    expect(plain.data).toEqual({ syntax: 'js' });
    expect(plain.nodes!.map((line) => leaves(line as DocumentBlock)[0][0])).toEqual(['const a = 1;', 'const b = 2;']);
    expect(titled.data).toEqual({ syntax: 'bash', title: 'install.sh', overflow: 'wrap', lineNumbers: true });
  });

  it('writes hints, tabs, steppers and columns holding markdown, fitting what the schema does not let them hold', () => {
    const blocks = convert(
      [
        '{% hint style="warning" %}',
        'Careful.',
        '```sh',
        'rm -rf /',
        '```',
        '{% endhint %}',
        '{% tabs %}',
        '{% tab title="npm" %}',
        '{% hint style="nonsense" %}',
        'Inside a tab.',
        '{% endhint %}',
        '{% endtab %}',
        '{% endtabs %}',
        '{% stepper %}',
        '{% step %}',
        '### First',
        '{% endstep %}',
        '{% endstepper %}',
        '{% columns %}',
        '{% column %}',
        'Left',
        '{% endcolumn %}',
        '{% column %}',
        'Right',
        '{% endcolumn %}',
        '{% endcolumns %}',
      ].join('\n'),
    );
    // Columns: the schema lets no document hold them; their contents stand in their place.
    expect(blocks.map((block) => block.type)).toEqual(['hint', 'tabs', 'stepper', 'paragraph', 'paragraph']);
    expect(blocks[0].data).toEqual({ style: 'warning' });
    // A hint takes no code block: its line stays, as code-marked text.
    expect(blocks[0].nodes!.map((node) => leaves(node as DocumentBlock))).toEqual([[['Careful.', []]], [['rm -rf /', ['code']]]]);
    const tab = blocks[1].nodes![0] as DocumentBlock;
    expect(tab).toMatchObject({ type: 'tabs-item', data: { title: 'npm' }, nodes: [{ type: 'hint', data: { style: 'info' } }] });
    expect((blocks[2].nodes![0] as DocumentBlock).nodes![0]).toMatchObject({ type: 'heading-3' });
    expect(blocks.slice(3).map((block) => leaves(block)[0][0])).toEqual(['Left', 'Right']);
  });

  it('writes content-refs, embeds, files and includes; the contents of conditions; unknown tags as written', () => {
    const blocks = convert(
      [
        '{% content-ref url="setup.md" %}',
        '[setup.md](setup.md)',
        '{% endcontent-ref %}',
        '',
        '{% embed url="https://example.com/v" %}',
        '',
        '{% file src=".gitbook/assets/a.pdf" %}',
        '',
        '{% include "../.gitbook/includes/footer.md" %}',
        '',
        '{% if visitor.claims.pro %}',
        'Pro.',
        '{% endif %}',
        '',
        '{% mystery thing="x" %}',
      ].join('\n'),
    );
    expect(blocks).toEqual([
      { object: 'block', type: 'content-ref', isVoid: true, data: { ref: { kind: 'page', page: 'page-setup.md' } } },
      { object: 'block', type: 'embed', isVoid: true, data: { url: 'https://example.com/v' } },
      { object: 'block', type: 'file', isVoid: true, data: { ref: { kind: 'file', file: 'file-a.pdf' } } },
      { object: 'block', type: 'reusable-content', isVoid: true, data: { ref: { kind: 'reusable-content', reusableContent: 'reusable-footer' } } },
      // A condition: no document of the schema may hold one; its contents stand in its place.
      expect.objectContaining({ type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Pro.', marks: [] }] }] }),
      expect.objectContaining({ type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: '{% mystery thing="x" %}', marks: [] }] }] }),
    ]);
  });

  it('writes a paragraph of images alone as an images block', () => {
    const [images] = convert('![one](.gitbook/assets/1.png) ![two](https://example.com/2.png)\n');
    expect(images).toMatchObject({ type: 'images', nodes: [{ type: 'image', data: { ref: { kind: 'file', file: 'file-1.png' }, alt: 'one' } }, { type: 'image', data: { ref: { kind: 'url', url: 'https://example.com/2.png' } } }] });
  });

  it('writes a GFM table as a grid table, and as rows of text where the schema takes no table', () => {
    const [table, hint] = convert('| Name | Size |\n| :-- | --: |\n| **a** | 1 |\n| b | [two](setup.md) |\n\n{% hint %}\n| x | y |\n| - | - |\n| 1 | 2 |\n{% endhint %}\n');
    expect(table.data).toMatchObject({
      view: { type: 'grid', columns: ['c0', 'c1'], hideHeader: false },
      definition: { c0: { id: 'c0', title: 'Name', type: 'text', textAlignment: 'left' }, c1: { id: 'c1', title: 'Size', type: 'text', textAlignment: 'right' } },
      records: { r0: { orderIndex: '000000', values: { c0: 'r0c0', c1: 'r0c1' } }, r1: { orderIndex: '000001', values: { c0: 'r1c0', c1: 'r1c1' } } },
    });
    const cell = (id: string) => (table.fragments as Array<{ fragment: string; nodes: DocumentBlock[] }>).find((fragment) => fragment.fragment === id)!.nodes[0];
    expect(leaves(cell('r0c0'))).toEqual([['a', ['bold']]]);
    expect(cell('r1c1').nodes![0]).toMatchObject({ type: 'link', data: { ref: { kind: 'page', page: 'page-setup.md' } } });
    expect(hint.nodes!.map((row) => leaves(row as DocumentBlock)[0][0])).toEqual(['1 | 2']);
  });

  it("writes the platform's HTML tables: cards with their link and cover columns, and grids", () => {
    const cards =
      '<table data-view="cards"><thead><tr><th></th><th></th><th data-hidden data-card-target data-type="content-ref"></th><th data-hidden data-card-cover data-type="files"></th></tr></thead>' +
      '<tbody><tr><td><span data-gb-custom-inline data-tag="emoji" data-code="1f5dd">🗝️</span> <strong>Get API Key</strong></td><td>Learn &#x26; <a href="setup.md">set up</a>.</td><td><a href="get-api-key.md">get-api-key.md</a></td><td><a href=".gitbook/assets/cover.png">cover.png</a></td></tr>' +
      '<tr><td>Second</td><td></td><td><a href="https://example.com/">https://example.com/</a></td><td></td></tr></tbody></table>';
    const [table] = convert(`${cards}\n`);
    expect(table.type).toBe('table');
    expect(table.data).toEqual({
      view: { type: 'cards', columns: ['c0', 'c1'], cardSize: 'medium', targetDefinition: 'c2', coverDefinition: 'c3', hideColumnTitle: true },
      definition: {
        c0: { id: 'c0', title: '', type: 'text', textAlignment: 'left' },
        c1: { id: 'c1', title: '', type: 'text', textAlignment: 'left' },
        c2: { id: 'c2', title: '', type: 'content-ref' },
        c3: { id: 'c3', title: '', type: 'files' },
      },
      records: {
        r0: { orderIndex: '000000', values: { c0: 'r0c0', c1: 'r0c1', c2: { kind: 'page', page: 'page-get-api-key.md' }, c3: ['file-cover.png'] } },
        r1: { orderIndex: '000001', values: { c0: 'r1c0', c1: 'r1c1', c2: { kind: 'url', url: 'https://example.com/' } } },
      },
    });
    const cell = (id: string) => (table.fragments as Array<{ fragment: string; nodes: DocumentBlock[] }>).find((fragment) => fragment.fragment === id)!.nodes[0];
    expect(cell('r0c0').nodes).toEqual([
      { object: 'inline', type: 'emoji', isVoid: true, data: { code: '1f5dd' } },
      { object: 'text', leaves: [{ object: 'leaf', text: ' ', marks: [] }, { object: 'leaf', text: 'Get API Key', marks: [{ object: 'mark', type: 'bold' }] }] },
    ]);
    expect(leaves(cell('r0c1'))).toEqual([['Learn & ', []], ['link'], ['.', []]]);

    const [grid] = convert('<table data-header-hidden><thead><tr><th>A</th><th align="right">B</th></tr></thead><tbody><tr><td>1</td><td><p>two</p><p>lines</p></td></tr></tbody></table>\n');
    expect(grid.data).toMatchObject({ view: { type: 'grid', columns: ['c0', 'c1'], hideHeader: true }, definition: { c1: { title: 'B', textAlignment: 'right' } } });
    expect((grid.fragments as Array<{ fragment: string; nodes: DocumentBlock[] }>).find((f) => f.fragment === 'r0c1')!.nodes.map((p) => leaves(p)[0][0])).toEqual(['two', 'lines']);
    // HTML that is more than one table stays text.
    expect(convert('<table><tr><td>a</td></tr></table><p>after</p>\n')[0].type).toBe('paragraph');
  });

  it('keeps Liquid within {% raw %} as text, block and inline, and leaves the raw tags out', () => {
    const [block, inline, after] = convert('{% raw %}\nUse {{ page.title }} and **{{x}}**.\n{% endraw %}\n\nInline {% raw %}{{ a }}{% endraw %} and {{ b }}; {% raw %}{{ c }}\n\nThen {{ d }}.\n');
    expect(leaves(block)).toEqual([
      ['Use {{ page.title }} and ', []],
      ['{{x}}', ['bold']],
      ['.', []],
    ]);
    expect(leaves(inline)).toEqual([['Inline {{ a }} and ', []], ['expression'], ['; {{ c }}', []]]);
    // A raw opened and never closed ends with its paragraph.
    expect(leaves(after)).toEqual([['Then ', []], ['expression'], ['.', []]]);
  });

  it("writes the platform's emoji span within text as an emoji", () => {
    const [p] = convert('Hot <span data-gb-custom-inline data-tag="emoji" data-code="1f525">🔥</span> news\n');
    expect(p.nodes![1]).toEqual({ object: 'inline', type: 'emoji', isVoid: true, data: { code: '1f525' } });
  });

  it('writes $$ math as blocks and within text; a single dollar stays a dollar', () => {
    const [formula, text] = convert('$$\n\\frac{a}{b}\n$$\n\nCosts $5, area $$\\pi r^2$$.\n');
    expect(formula).toEqual({ object: 'block', type: 'math', isVoid: true, data: { formula: '\\frac{a}{b}' } });
    expect(text.nodes).toEqual([
      { object: 'text', leaves: [{ object: 'leaf', text: 'Costs $5, area ', marks: [] }] },
      { object: 'inline', type: 'inline-math', isVoid: true, data: { formula: '\\pi r^2' } },
      { object: 'text', leaves: [{ object: 'leaf', text: '.', marks: [] }] },
    ]);
  });

  it('writes <details> as an expandable with its title and body', () => {
    const [expandable] = convert('<details>\n\n<summary>Advanced</summary>\n\nSet **this**.\n\n```sh\nrun\n```\n\n</details>\n');
    expect(expandable).toMatchObject({
      type: 'expandable',
      isVoid: true,
      fragments: [
        { fragment: 'expandable-title', nodes: [{ type: 'paragraph', nodes: [{ leaves: [{ text: 'Advanced' }] }] }] },
        { fragment: 'expandable-body', nodes: [{ type: 'paragraph' }, { type: 'code', data: { syntax: 'sh' } }] },
      ],
    });
  });

  it('reads the HTML marks of text: keyboard, superscript, subscript, colors; <br> as a line break; other HTML as text', () => {
    const [first] = convert('Press <kbd>Ctrl</kbd>, x<sup>2</sup> H<sub>2</sub>O, <mark style="color:red;">red</mark> and **<mark style="background-color:$success;">green</mark>**<br>next <span>kept</span>.\n');
    expect(leaves(first)).toEqual([
      ['Press ', []],
      ['Ctrl', ['keyboard']],
      [', x', []],
      ['2', ['superscript']],
      [' H', []],
      ['2', ['subscript']],
      ['O, ', []],
      ['red', ['color']],
      [' and ', []],
      ['green', ['bold', 'color']],
      ['\nnext <span>kept</span>.', []],
    ]);
    const colors = (first.nodes![0] as { leaves: Array<{ marks: Array<{ data?: unknown }> }> }).leaves.flatMap((leaf) => leaf.marks.map((mark) => mark.data).filter(Boolean));
    expect(colors).toEqual([{ text: 'red', background: 'default' }, { text: 'default', background: '$success' }]);
  });

  it('writes the platform\'s <figure> as an image with its alt, width and caption', () => {
    const [figure, bare] = convert(
      '<figure><img src=".gitbook/assets/d.png" alt="A &quot;diagram&quot;" width="375"><figcaption><p>Data <strong>flow</strong></p></figcaption></figure>\n\n<figure><img src="https://example.com/x.png" alt=""><figcaption></figcaption></figure>\n',
    );
    expect(figure).toEqual({
      object: 'block',
      type: 'images',
      isVoid: false,
      data: {},
      nodes: [
        {
          object: 'block',
          type: 'image',
          isVoid: true,
          data: { ref: { kind: 'file', file: 'file-d.png' }, alt: 'A "diagram"', width: 375 },
          fragments: [{ object: 'fragment', fragment: 'caption', nodes: [{ object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Data flow', marks: [] }] }] }] }],
        },
      ],
    });
    expect(bare.nodes).toEqual([{ object: 'block', type: 'image', isVoid: true, data: { ref: { kind: 'url', url: 'https://example.com/x.png' } }, fragments: [] }]);
  });
});
