/**
 * The parser of GitBook-flavoured markdown (src/content/gitbook-markdown.ts): Liquid tag lines become blocks that
 * nest and hold ordinary markdown, wherever they stand (top level, list items, quotes); what only looks like
 * Liquid (in code, unbalanced, with text beside it) stays as written; writing the tree back gives it again.
 */
import { describe, expect, it } from 'vitest';
import remarkStringify from 'remark-stringify';
import { gitbookMarkdownParser, parseGitbookMarkdown, parseTagArguments, type GitbookNode } from '../../src/content/gitbook-markdown.js';

/** The tree without positions, for comparing shapes. */
function shape(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(shape);
  if (node && typeof node === 'object') {
    const { position: _position, ...rest } = node as Record<string, unknown>;
    return Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, shape(value)]));
  }
  return node;
}

const children = (markdown: string) => shape(parseGitbookMarkdown(markdown).children) as GitbookNode[];
const paragraph = (text: string) => ({ type: 'paragraph', children: [{ type: 'text', value: text }] });

function stringify(markdown: string): string {
  const processor = gitbookMarkdownParser().use(remarkStringify, { bullet: '*', fences: true, rule: '-', listItemIndent: 'one' });
  return processor.stringify(processor.runSync(processor.parse(markdown)) as never);
}

describe('GitBook-flavoured markdown', () => {
  it('makes a hint written without blank lines a block holding its markdown', () => {
    expect(children('Before.\n{% hint style="info" %}\nThis is **important**.\n{% endhint %}\nAfter.\n')).toEqual([
      paragraph('Before.'),
      {
        type: 'liquidBlock',
        name: 'hint',
        args: 'style="info"',
        attributes: { style: 'info' },
        children: [{ type: 'paragraph', children: [{ type: 'text', value: 'This is ' }, { type: 'strong', children: [{ type: 'text', value: 'important' }] }, { type: 'text', value: '.' }] }],
      },
      paragraph('After.'),
    ]);
  });

  it('ends a quote, a quote\'s lazy line and a list item at a tag line right after them (no blank line), as the hosted platform does', () => {
    for (const inside of [['> note'], ['> note', 'lazy'], ['* item'], ['1. step', '   > note']]) {
      const tree = children(['{% tabs %}', '{% tab title="A" %}', ...inside, '{% endtab %}', '{% tab title="B" %}', 'b', '{% endtab %}', '{% endtabs %}'].join('\n'));
      expect(tree).toHaveLength(1);
      const tabs = tree[0] as Extract<GitbookNode, { type: 'liquidBlock' }>;
      expect(tabs.name).toBe('tabs');
      expect(tabs.children.map((tab) => (tab as { attributes: Record<string, string> }).attributes.title)).toEqual(['A', 'B']);
      const [first] = tabs.children as Array<Extract<GitbookNode, { type: 'liquidBlock' }>>;
      expect(first.children.map((child) => child.type)).toEqual([inside[0].startsWith('>') ? 'blockquote' : 'list']);
    }
  });

  it('nests tabs in tabs, with lists and fenced code inside, and a code tag around a fence', () => {
    const tree = children(
      [
        '{% tabs %}',
        '{% tab title="npm" %}',
        '* one',
        '* two',
        '{% endtab %}',
        '',
        '{% tab title="Yarn \\"classic\\"" %}',
        '{% code title="install.sh" lineNumbers="true" overflow="wrap" %}',
        '```bash',
        'yarn add quire',
        '```',
        '{% endcode %}',
        '{% endtab %}',
        '{% endtabs %}',
      ].join('\n'),
    );
    expect(tree).toHaveLength(1);
    const tabs = tree[0] as Extract<GitbookNode, { type: 'liquidBlock' }>;
    expect(tabs.name).toBe('tabs');
    expect(tabs.children.map((tab) => (tab as { attributes: Record<string, string> }).attributes)).toEqual([{ title: 'npm' }, { title: 'Yarn "classic"' }]);
    const [npm, yarn] = tabs.children as Array<Extract<GitbookNode, { type: 'liquidBlock' }>>;
    expect(npm.children.map((child) => child.type)).toEqual(['list']);
    const code = yarn.children[0] as Extract<GitbookNode, { type: 'liquidBlock' }>;
    expect(code).toMatchObject({ name: 'code', attributes: { title: 'install.sh', lineNumbers: 'true', overflow: 'wrap' } });
    expect(code.children).toEqual([{ type: 'code', lang: 'bash', meta: null, value: 'yarn add quire' }]);
  });

  it('pairs tags inside list items and block quotes within their own container', () => {
    const [list] = children('1. Install\n   {% hint style="warning" %}\n   Needs Node 20.\n   {% endhint %}\n2. Run\n');
    const first = (list as { children: Array<{ children: GitbookNode[] }> }).children[0];
    expect(first.children.map((child) => child.type)).toEqual(['paragraph', 'liquidBlock']);
    expect(first.children[1]).toMatchObject({ name: 'hint', children: [paragraph('Needs Node 20.')] });

    const [quote] = children('> {% hint style="info" %}\n> Quoted.\n> {% endhint %}\n');
    expect((quote as { children: GitbookNode[] }).children).toMatchObject([{ type: 'liquidBlock', name: 'hint', children: [paragraph('Quoted.')] }]);
  });

  it('nests a block in a block of the same name, and the other kinds the platform writes', () => {
    const tree = children(
      [
        '{% hint %}',
        'Outer.',
        '{% hint style="danger" %}',
        'Inner.',
        '{% endhint %}',
        '{% endhint %}',
        '{% stepper %}',
        '{% step %}',
        '### First',
        '{% endstep %}',
        '{% endstepper %}',
        '{% columns %}',
        '{% column width="50%" %}',
        'Left',
        '{% endcolumn %}',
        '{% endcolumns %}',
        '{% content-ref url="setup.md" %}',
        '[setup.md](setup.md)',
        '{% endcontent-ref %}',
        '{% if visitor.claims.plan == "pro" %}',
        'Pro only.',
        '{% else %}',
        'Everyone.',
        '{% endif %}',
      ].join('\n'),
    );
    expect(tree.map((node) => (node as { name?: string }).name)).toEqual(['hint', 'stepper', 'columns', 'content-ref', 'if']);
    expect((tree[0] as { children: GitbookNode[] }).children).toMatchObject([paragraph('Outer.'), { name: 'hint', attributes: { style: 'danger' } }]);
    expect(tree[2]).toMatchObject({ children: [{ name: 'column', attributes: { width: '50%' } }] });
    expect(tree[3]).toMatchObject({ attributes: { url: 'setup.md' }, children: [{ type: 'paragraph', children: [{ type: 'link', url: 'setup.md' }] }] });
    expect(tree[4]).toMatchObject({
      name: 'if',
      args: 'visitor.claims.plan == "pro"',
      children: [paragraph('Pro only.'), { type: 'liquidTag', value: 'else' }, paragraph('Everyone.')],
    });
  });

  it('keeps leaf tags, unbalanced tags and tags with text beside them, never losing them', () => {
    expect(children('{% embed url="https://example.com/video" %}\n\n{% include "/.gitbook/includes/note.md" %}\n')).toEqual([
      { type: 'liquidTag', value: 'embed url="https://example.com/video"' },
      { type: 'liquidTag', value: 'include "/.gitbook/includes/note.md"' },
    ]);
    expect(children('{% endhint %}\nText.\n{% hint %}\n')).toEqual([{ type: 'liquidTag', value: 'endhint' }, paragraph('Text.'), { type: 'liquidTag', value: 'hint' }]);
    expect(children('A {% hint %} inline {% endhint %} tag.\n')).toEqual([paragraph('A {% hint %} inline {% endhint %} tag.')]);
    expect(children('{% hint %} trailing text\n')).toEqual([paragraph('{% hint %} trailing text')]);
    expect(children('{%%}\n')).toEqual([paragraph('{%%}')]);
  });

  it('leaves Liquid inside code as code', () => {
    expect(children('```liquid\n{% hint %}\n{{ x }}\n{% endhint %}\n```\n')).toEqual([{ type: 'code', lang: 'liquid', meta: null, value: '{% hint %}\n{{ x }}\n{% endhint %}' }]);
    expect(children('    {% hint %}\n')).toEqual([{ type: 'code', lang: null, meta: null, value: '{% hint %}' }]);
    expect(children('Use `{{ page.title }}` here.\n')).toEqual([
      { type: 'paragraph', children: [{ type: 'text', value: 'Use ' }, { type: 'inlineCode', value: '{{ page.title }}' }, { type: 'text', value: ' here.' }] },
    ]);
  });

  it('reads {{ expressions }} within text, and leaves an unclosed one as text', () => {
    expect(children('Version {{ space.vars.version }} is out.\n')).toEqual([
      {
        type: 'paragraph',
        children: [{ type: 'text', value: 'Version ' }, { type: 'liquidExpression', value: 'space.vars.version' }, { type: 'text', value: ' is out.' }],
      },
    ]);
    expect(children('Braces {{ are not closed.\n')).toEqual([paragraph('Braces {{ are not closed.')]);
  });

  it('reads tag arguments: double, single and bare values, escaped quotes; positional words left out', () => {
    expect(parseTagArguments(`title="A \\"b\\"" kind='x y' lineNumbers=true "/.gitbook/includes/a.md"`)).toEqual({ title: 'A "b"', kind: 'x y', lineNumbers: 'true' });
  });

  it('reads tag arguments and summaries in one pass, however long the line', () => {
    expect(parseTagArguments(`2x=1 a-b = "c" -d=e f="g\\h" i="never closed`)).toEqual({ x: '1', 'a-b': 'c', d: 'e', f: 'g\\h' });
    const words = 'a'.repeat(200_000);
    expect(parseTagArguments(`${words} ${'b="'.repeat(50_000)}`)).toEqual({ b: 'b=' });
    expect(parseTagArguments(`${'c=d '.repeat(50_000)}`)).toEqual({ c: 'd' });
    const details = (html: string) => (parseGitbookMarkdown(`${html}\n\nInside.\n\n</details>\n`).children[0] as { type: string; summary?: string });
    expect(details('<details><summary class="x">The <em>title</em></summary>')).toMatchObject({ type: 'details', summary: 'The title' });
    expect(details(`<details>${'<summary '.repeat(30_000)}`)).toMatchObject({ type: 'details', summary: '' });
    expect(details(`<details><SUMMARY>${'<'.repeat(200_000)}</Summary>`)).toMatchObject({ type: 'details', summary: '<'.repeat(200_000) });
  });

  it('writes the tree back as it was written, and reads that back to the same tree', () => {
    const markdown = [
      '# Title',
      '',
      '{% hint style="info" %}',
      'A **hint** with {{ space.vars.name }}.',
      '{% endhint %}',
      '',
      '{% tabs %}',
      '{% tab title="One" %}',
      '* item',
      '{% endtab %}',
      '{% endtabs %}',
      '',
      '{% embed url="https://example.com" %}',
      '',
    ].join('\n');
    const written = stringify(markdown);
    expect(written).toContain('{% hint style="info" %}\nA **hint** with {{ space.vars.name }}.\n{% endhint %}');
    expect(written).toContain('{% embed url="https://example.com" %}');
    expect(children(written)).toEqual(children(markdown));
    expect(stringify(written)).toBe(written);
  });

  it('makes <details> with its summary an expandable holding markdown, the summary written apart or not, nested', () => {
    expect(children('<details>\n\n<summary>More <b>here</b> &amp; there</summary>\n\nHidden **text**.\n\n</details>\n')).toEqual([
      {
        type: 'details',
        summary: 'More here & there',
        children: [{ type: 'paragraph', children: [{ type: 'text', value: 'Hidden ' }, { type: 'strong', children: [{ type: 'text', value: 'text' }] }, { type: 'text', value: '.' }] }],
      },
    ]);
    const [outer] = children('<details>\n<summary>Outer</summary>\n\n<details>\n<summary>Inner</summary>\n\nDeep.\n\n</details>\n\n</details>\n');
    expect(outer).toMatchObject({ type: 'details', summary: 'Outer', children: [{ type: 'details', summary: 'Inner', children: [paragraph('Deep.')] }] });
    // Without its closing tag, or closed on its own line, it stays HTML.
    expect(children('<details>\n\nOpen.\n').map((node) => node.type)).toEqual(['html', 'paragraph']);
    expect(children('<details><summary>One line</summary>Body</details>\n').map((node) => node.type)).toEqual(['html']);
  });
});
