import type { Nodes } from 'mdast';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { describe, expect, it } from 'vitest';
import { parsePage } from '../../src/content/page.js';
import { inlinePlainText, sameTitle, splitTitle, splitTitles } from '../../src/content/page-title.js';
import { writePageFile } from '../../src/content/page-writing.js';

const parser = unified().use(remarkParse);

function remarkText(node: Nodes): string {
  if (node.type === 'html') return '';
  if ('value' in node && typeof node.value === 'string') return node.value;
  if ('children' in node) return (node.children as Nodes[]).map(remarkText).join('');
  return '';
}

/** The heading text remark gives for `# <content>`. */
function viaRemark(content: string): string {
  const tree = parser.parse(`# ${content}\n`);
  const heading = tree.children[0];
  if (heading?.type !== 'heading') throw new Error(`not a heading: ${content}`);
  return remarkText(heading);
}

describe('inlinePlainText agrees with remark', () => {
  const titles = [
    'Install the CLI',
    'Install *the* CLI',
    'Install **the** CLI',
    '***strong em***',
    '**bold *nested* bold**',
    '*a **b** c*',
    'snake_case_name and __init__',
    '_under_ and __double__',
    'a * b * c',
    'a*b*c',
    'foo*bar',
    '*unclosed',
    'closed*',
    '**foo*',
    '*foo**',
    '*foo**bar**baz*',
    '*foo**bar*',
    'foo***bar***baz',
    '*(*foo*)*',
    '_(_foo_)_',
    '_foo_bar_',
    'пристаням_стремятся_',
    '*$*alpha.',
    '**Gomphocarpus (*Gomphocarpus physocarpus*, syn.\n*Asclepias physocarpa*)**'.replace('\n', ' '),
    '`code` and ``co`de`` and ` spaced `',
    '`unclosed code',
    '`` `tick` ``',
    '`*not em*` *em*',
    '\\*not em\\* and \\_nor\\_ \\\\ back',
    'C# and F#',
    'Q&A: 50% off!',
    'trailing backslash \\',
    '~tilde~ and ~~strike~~',
    'emoji 🚀 *rocket*',
    'a_*b*_c',
    '*foo _bar* baz_',
    '__foo, __bar__, baz__',
    '*foo *bar**',
    '**foo "*bar*" foo**',
  ];
  for (const title of titles) {
    it(JSON.stringify(title), () => {
      const fast = inlinePlainText(title);
      expect(fast).toBeDefined();
      expect(fast).toBe(viaRemark(title));
    });
  }

  it('leaves links, HTML and character references to remark', () => {
    expect(inlinePlainText('[link](x.md)')).toBeUndefined();
    expect(inlinePlainText('Title <a href="#t" id="t"></a>')).toBeUndefined();
    expect(inlinePlainText('Caf&eacute;')).toBeUndefined();
  });
});

describe('splitTitle', () => {
  it('takes the first H1 and the body after it, leading blank lines trimmed', () => {
    expect(splitTitle('\n# Install the CLI\n\n\nBody\n')).toEqual({ title: 'Install the CLI', markdown: 'Body\n' });
    expect(splitTitle('# Only a title')).toEqual({ title: 'Only a title', markdown: '' });
    expect(splitTitle('# Closed title ##\nBody')).toEqual({ title: 'Closed title', markdown: 'Body' });
  });

  it('reads inline markup and heading anchors like remark', () => {
    expect(splitTitle('# Install *the* `CLI`\n\nBody\n').title).toBe('Install the CLI');
    expect(splitTitle('# Getting started <a href="#gs" id="gs"></a>\n\nBody\n')).toEqual({ title: 'Getting started', markdown: 'Body\n' });
    expect(splitTitle('# [Linked](x.md) title\n').title).toBe('Linked title');
  });

  it('does not take a # line inside a code fence', () => {
    const body = '```bash\n# install it\nnpm i quire\n```\n\nText\n';
    expect(splitTitle(body)).toEqual({ markdown: body });
    expect(splitTitle('~~~~\n# no\n~~~\n# still code\n~~~~\n# Real title\n\nAfter\n')).toEqual({
      title: 'Real title',
      markdown: '~~~~\n# no\n~~~\n# still code\n~~~~\n\nAfter\n',
    });
  });

  it('does not take a heading inside a list or a quote, nor an H2', () => {
    expect(splitTitle('- # in a list\n').title).toBeUndefined();
    expect(splitTitle('> # quoted\n').title).toBeUndefined();
    expect(splitTitle('## Second level\n').title).toBeUndefined();
    expect(splitTitle('#hashtag\n').title).toBeUndefined();
  });

  it('reads a setext H1 and keeps text before the heading', () => {
    expect(splitTitle('Install\n=======\n\nBody\n')).toEqual({ title: 'Install', markdown: 'Body\n' });
    expect(splitTitle('Intro line\n\n# Title\n\nBody\n')).toEqual({ title: 'Title', markdown: 'Intro line\n\nBody\n' });
  });

  it('finds a title after many candidate lines that are not titles', () => {
    const noise = Array.from({ length: 6 }, (_, i) => `- # item ${i}\n`).join('');
    expect(splitTitle(`${noise}\n# Found\n\nBody\n`).title).toBe('Found');
  });

  it('splitTitles reads many bodies at once (remark reads the marked-up titles in one document)', () => {
    const bodies = ['# A *b*\nx', '# Plain\ny', 'none', '```\n# c\n```\n# D `e`\n', '# [F](g)\n', '# <b>H</b> &amp; I\n\nz'];
    expect(splitTitles(bodies)).toEqual([
      { title: 'A b', markdown: 'x' },
      { title: 'Plain', markdown: 'y' },
      { markdown: 'none' },
      { title: 'D e', markdown: '```\n# c\n```\n' },
      { title: 'F', markdown: '' },
      { title: 'H & I', markdown: 'z' },
    ]);
  });
});

/**
 * The hosted platform's "Content configuration" (Git Sync): in SUMMARY.md `* [Page main title](page.md "Page link
 * title")` the link text is the page's title, the quoted text its title in the sidebar.
 */
describe('the page title: SUMMARY.md first, then the H1', () => {
  const read = (text: string, summaryTitle?: string) => {
    const { page } = parsePage(text, { gitPath: 'guide/install.md', summaryTitle });
    return { title: page.title, markdown: page.markdown, titleInBody: page.titleInBody };
  };

  it('SUMMARY.md\'s title wins; an H1 that reads the same is the title heading and leaves the markdown', () => {
    expect(read('# Install the CLI\n\nBody\n', 'Install the CLI')).toEqual({ title: 'Install the CLI', markdown: 'Body\n', titleInBody: true });
    expect(read('# Install *the* CLI\n\nBody\n', 'Install the CLI')).toEqual({ title: 'Install the CLI', markdown: 'Body\n', titleInBody: true });
    expect(read('# ℹ️ Overview\n\nBody\n', 'ℹ Overview').titleInBody).toBe(true);
    expect(sameTitle('Café', 'Cafe\u0301')).toBe(true);
    expect(sameTitle('API Reference', 'API reference')).toBe(false);
  });

  it('an H1 that says something else stays in the markdown as written: no text is lost', () => {
    expect(read('# Axon AMQP Extension\n\nBody\n', 'AMQP')).toEqual({ title: 'AMQP', markdown: '# Axon AMQP Extension\n\nBody\n', titleInBody: false });
    // A page made of numbered H1 sections: its first section heading is not a title.
    expect(read('\n# 1. Overview\n\nText\n\n# 2. Setup\n', 'Hardware Guide').markdown).toBe('# 1. Overview\n\nText\n\n# 2. Setup\n');
  });

  it('without a SUMMARY.md title: the H1, else the file name', () => {
    expect(read('# Install\n\nBody\n')).toEqual({ title: 'Install', markdown: 'Body\n', titleInBody: true });
    expect(read('Body\n')).toEqual({ title: 'install', markdown: 'Body\n', titleInBody: false });
    expect(read('Body\n', 'From SUMMARY')).toEqual({ title: 'From SUMMARY', markdown: 'Body\n', titleInBody: false });
  });

  it('writing the page back as read gives the same bytes, whichever title rule applied', () => {
    const cases: [string, string | undefined][] = [
      ['# Axon AMQP Extension\n\nBody\n', 'AMQP'],
      ['---\ndescription: d\n---\n\n# Other heading\n\nBody\n', 'Title'],
      ['# Same\n\nBody\n', 'Same'],
      ['No heading at all.\n', 'Title'],
      ['# Heading\n\nBody\n', undefined],
    ];
    for (const [text, summaryTitle] of cases) {
      const { page } = parsePage(text, { gitPath: 'p.md', summaryTitle });
      expect(writePageFile({ title: page.title, markdown: page.markdown, description: page.description }, text, { summaryTitle })).toBe(text);
    }
  });

  it('an edited body of a page titled by SUMMARY.md only is written without a heading added, and reads back the same', () => {
    const text = '# Axon AMQP Extension\n\nBody\n';
    const written = writePageFile({ title: 'AMQP', markdown: '# Axon AMQP Extension\n\nNew body\n' }, text, { summaryTitle: 'AMQP' });
    expect(written).toBe('# Axon AMQP Extension\n\nNew body\n');
    expect(read(written, 'AMQP')).toEqual({ title: 'AMQP', markdown: '# Axon AMQP Extension\n\nNew body\n', titleInBody: false });
    // A page whose heading is its title keeps writing it.
    expect(writePageFile({ title: 'Same', markdown: 'New\n' }, '# Same\n\nOld\n', { summaryTitle: 'Same' })).toBe('# Same\n\nNew\n');
  });
});
