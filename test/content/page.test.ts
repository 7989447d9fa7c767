import { describe, expect, it } from 'vitest';
import { parsePage, type ParsePageOptions } from '../../src/content/page.js';
import { DEFAULT_LAYOUT, type PageFields } from '../../src/content/page-front-matter.js';
import { writePageFile } from '../../src/content/page-writing.js';
import type { ContentProblem } from '../../src/content/model.js';

const FILES: Record<string, string> = {
  '.gitbook/assets/hero.png': 'file-hero',
  '.gitbook/assets/hero dark.png': 'file-hero-dark',
  'guide/local.png': 'file-local',
};

const OPTIONS: ParsePageOptions = {
  gitPath: 'guide/install.md',
  fileIdOf: (path) => FILES[path],
};

function page(text: string, options: Partial<ParsePageOptions> = {}): PageFields {
  const result = parsePage(text, { ...OPTIONS, ...options });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.page;
}

function problems(text: string): ContentProblem[] {
  const result = parsePage(text, OPTIONS);
  return result.ok ? [] : result.problems;
}

const FULL = `---
id: pg_7Hq2LmX9
description: >-
  Install the CLI and authenticate against your organization.
icon: rocket
emoji: 1f680
cover: ../.gitbook/assets/hero.png
coverDark: ../.gitbook/assets/hero%20dark.png
coverY: -40
hidden: true
noIndex: true
noRobotsIndex: false
vars:
  cli_version: 3.2.1
  retries: 3
layout:
  width: wide
  cover:
    visible: true
    size: background
  title:
    visible: false
  description:
    visible: true
  tableOfContents:
    visible: false
  outline:
    visible: true
  pagination:
    visible: false
  metadata:
    visible: false
custom: kept
---

# Install the CLI

Body in markdown...
`;

describe('parsePage', () => {
  it('reads every front matter key of the page table', () => {
    const result = page(FULL);
    expect(result).toEqual({
      id: 'pg_7Hq2LmX9',
      type: 'document',
      title: 'Install the CLI',
      titleInBody: true,
      markdown: 'Body in markdown...\n',
      description: 'Install the CLI and authenticate against your organization.',
      icon: 'rocket',
      emoji: '1f680',
      hidden: true,
      noIndex: true,
      noRobotsIndex: false,
      variables: { cli_version: '3.2.1', retries: '3' },
      layout: {
        width: 'wide',
        cover: true,
        coverSize: 'full',
        title: false,
        description: true,
        tableOfContents: false,
        outline: true,
        pagination: false,
        metadata: false,
      },
      coverPath: '../.gitbook/assets/hero.png',
      coverDarkPath: '../.gitbook/assets/hero%20dark.png',
      coverY: -40,
      cover: { file: 'file-hero', fileDark: 'file-hero-dark', yPos: -40 },
      frontMatter: expect.objectContaining({ custom: 'kept', id: 'pg_7Hq2LmX9' }),
    });
    expect(Object.keys(result.frontMatter)).toEqual([
      'id', 'description', 'icon', 'emoji', 'cover', 'coverDark', 'coverY', 'hidden', 'noIndex', 'noRobotsIndex', 'vars', 'layout', 'custom',
    ]);
  });

  it('gives the defaults for a file without front matter', () => {
    expect(page('# Plain\n\nText\n')).toEqual({
      type: 'document',
      title: 'Plain',
      titleInBody: true,
      markdown: 'Text\n',
      layout: { ...DEFAULT_LAYOUT },
      coverY: 0,
      frontMatter: {},
    });
    expect(DEFAULT_LAYOUT).toEqual({
      width: 'default',
      cover: true,
      coverSize: 'hero',
      title: true,
      description: true,
      tableOfContents: true,
      outline: true,
      pagination: true,
      metadata: true,
    });
  });

  it('maps layout.cover.size hero and full, and takes a null key as absent', () => {
    expect(page('---\nlayout:\n  cover:\n    size: hero\n---\n').layout.coverSize).toBe('hero');
    expect(page('---\nlayout:\n  cover:\n    size: full\n---\n').layout.coverSize).toBe('full');
    const nulls = page('---\ndescription:\nhidden: ~\nlayout:\n  title:\n---\n# T\n');
    expect(nulls.description).toBeUndefined();
    expect(nulls.hidden).toBeUndefined();
    expect(nulls.layout).toEqual(DEFAULT_LAYOUT);
  });

  it('makes a page with `computed` a computed page', () => {
    const computed = page('---\ncomputed:\n  type: builtin:openapi\n  props:\n    doc: models\ncomputedSeed: seed-1\n---\n# API\n');
    expect(computed.type).toBe('computed');
    expect(computed.computed).toEqual({ type: 'builtin:openapi', props: { doc: 'models' } });
    expect(computed.computedSeed).toBe('seed-1');
  });

  it('resolves covers relative to the page, from the content root with /, and warns of a missing file', () => {
    expect(page('---\ncover: local.png\n---\n').cover).toEqual({ file: 'file-local', yPos: 0 });
    expect(page('---\ncover: /.gitbook/assets/hero.png\ncoverY: 12.5\n---\n').cover).toEqual({ file: 'file-hero', yPos: 12.5 });
    expect(problems('---\ntitle: x\ncover: ../missing.png\n---\n')).toEqual([
      { path: 'guide/install.md', line: 3, severity: 'warning', message: 'front matter `cover` names ../missing.png, which is not a file of the content (paths are relative to the page)' },
    ]);
    expect(problems('---\ncoverDark: https://images.example.com/a.png\n---\n')).toEqual([
      { path: 'guide/install.md', line: 2, severity: 'warning', message: 'front matter `coverDark` must be the path of an image in the repository, not a URL (https://images.example.com/a.png)' },
    ]);
  });

  it('takes the title from SUMMARY.md, then from the file name, when there is no H1', () => {
    expect(page('Text only\n', { summaryTitle: 'From SUMMARY' })).toMatchObject({ title: 'From SUMMARY', titleInBody: false, markdown: 'Text only\n' });
    expect(page('Text only\n').title).toBe('install');
    expect(page('', { gitPath: 'getting-started/README.md' }).title).toBe('getting-started');
    expect(page('', { gitPath: 'README.md' }).title).toBe('README');
  });

  it('refuses wrong types in known keys, each with its line', () => {
    const text = [
      '---', // 1
      'hidden: "yes"', // 2
      'noIndex: 1', // 3
      'description: [a, b]', // 4
      'icon: 5', // 5
      'coverY: top', // 6
      'vars:', // 7
      '  ok: fine', // 8
      '  ratio: 3.10', // 9
      '  list: [1]', // 10
      'layout:', // 11
      '  width: huge', // 12
      '  title: false', // 13
      '  outline:', // 14
      '    visible: "no"', // 15
      '  cover:', // 16
      '    size: giant', // 17
      'computed: yes', // 18
      'id: "not valid!"', // 19
      'noRobotsIndex: null', // 20
      '---',
      '# T',
    ].join('\n');
    expect(problems(text)).toEqual([
      { path: 'guide/install.md', line: 19, message: 'front matter `id` may hold only letters, digits, `_` and `-`' },
      { path: 'guide/install.md', line: 4, message: 'front matter `description` must be a string, found a list' },
      { path: 'guide/install.md', line: 5, message: 'front matter `icon` must be a string, found number 5' },
      { path: 'guide/install.md', line: 2, message: 'front matter `hidden` must be true or false, found string "yes"' },
      { path: 'guide/install.md', line: 3, message: 'front matter `noIndex` must be true or false, found number 1' },
      { path: 'guide/install.md', line: 6, message: 'front matter `coverY` must be a number, found string "top"' },
      { path: 'guide/install.md', line: 7, message: 'front matter `vars.ratio` must be a string (quote numbers such as 3.10 to keep them as written), found number 3.1' },
      { path: 'guide/install.md', line: 7, message: 'front matter `vars.list` must be a string (quote numbers such as 3.10 to keep them as written), found a list' },
      { path: 'guide/install.md', line: 18, message: 'front matter `computed` must be a mapping, found string "yes"' },
      { path: 'guide/install.md', line: 11, message: 'front matter `layout.cover.size` must be `hero`, `full` or `background`, found string "giant"' },
      { path: 'guide/install.md', line: 11, message: 'front matter `layout.title` must be a mapping such as `{visible: true}`, found boolean false' },
      { path: 'guide/install.md', line: 11, message: 'front matter `layout.outline.visible` must be true or false, found string "no"' },
      { path: 'guide/install.md', line: 11, message: 'front matter `layout.width` must be `default` or `wide`, found string "huge"' },
    ]);
  });

  it('refuses a vars or layout that is not a mapping', () => {
    expect(problems('---\nvars: [a]\nlayout: wide\n---\n')).toEqual([
      { path: 'guide/install.md', line: 2, message: 'front matter `vars` must be a mapping of names to strings, found a list' },
      { path: 'guide/install.md', line: 3, message: 'front matter `layout` must be a mapping, found string "wide"' },
    ]);
  });
});

describe('writePageFile', () => {
  const SEEN = `---
description: >-
  Install the CLI and authenticate against your organization.
icon: rocket
x-custom:
  keep: [1, 2]
cover: ../.gitbook/assets/hero.png
coverY: -40
hidden: true
layout:
  cover:
    visible: true
    size: hero
  title:
    visible: true
---

# Install the CLI

Body in markdown...
`;
  const fields = page(SEEN);
  const unchanged = {
    title: fields.title,
    markdown: fields.markdown,
    description: fields.description,
    icon: fields.icon,
    hidden: fields.hidden,
    layout: fields.layout,
    cover: { path: fields.coverPath, yPos: fields.coverY },
  };

  it('returns the original byte for byte when nothing changed', () => {
    expect(writePageFile(unchanged, SEEN)).toBe(SEEN);
    expect(writePageFile({ title: 'Install the CLI', markdown: 'Body in markdown...\n', layout: { ...DEFAULT_LAYOUT }, cover: { path: '../.gitbook/assets/hero.png', yPos: -40 }, description: fields.description, icon: 'rocket', hidden: true }, SEEN)).toBe(SEEN);
  });

  it('changes only what changed, keeping unknown keys and the order of keys', () => {
    const text = writePageFile({ ...unchanged, hidden: false, icon: 'book', noIndex: true, layout: { ...fields.layout, outline: false } }, SEEN);
    expect(text).toBe(`---
description: Install the CLI and authenticate against your organization.
icon: book
x-custom:
  keep:
    - 1
    - 2
cover: ../.gitbook/assets/hero.png
coverY: -40
layout:
  cover:
    visible: true
    size: hero
  title:
    visible: true
  outline:
    visible: false
noIndex: true
---

# Install the CLI

Body in markdown...
`);
    expect(page(text)).toMatchObject({ icon: 'book', noIndex: true, layout: { ...fields.layout, outline: false } });
    expect(page(text).hidden).toBeUndefined();
  });

  it('keeps the front matter bytes when only the body changed', () => {
    const text = writePageFile({ ...unchanged, title: 'Install the Quire CLI', markdown: 'New body.\n' }, SEEN);
    expect(text).toBe(`${SEEN.slice(0, SEEN.indexOf('# Install'))}# Install the Quire CLI\n\nNew body.\n`);
  });

  it('writes a new page: known keys in the format order, no timestamps', () => {
    const text = writePageFile({
      id: 'pg_new',
      title: 'Fresh: a page',
      markdown: 'Hello',
      description: 'A fresh page',
      emoji: '1f680',
      hidden: true,
      variables: { version: '3.10' },
      layout: { width: 'wide', coverSize: 'full', title: false },
      cover: { path: '../.gitbook/assets/hero.png', pathDark: '../.gitbook/assets/hero dark.png', yPos: 10 },
      computedSeed: 'seed',
    });
    expect(text).toBe(`---
id: pg_new
description: A fresh page
emoji: 1f680
cover: ../.gitbook/assets/hero.png
coverDark: ../.gitbook/assets/hero dark.png
coverY: 10
hidden: true
vars:
  version: '3.10'
layout:
  width: wide
  cover:
    size: full
  title:
    visible: false
computedSeed: seed
---

# Fresh: a page

Hello
`);
    expect(page(text)).toMatchObject({
      id: 'pg_new',
      title: 'Fresh: a page',
      markdown: 'Hello\n',
      emoji: '1f680',
      variables: { version: '3.10' },
      layout: { ...DEFAULT_LAYOUT, width: 'wide', coverSize: 'full', title: false },
      cover: { file: 'file-hero', fileDark: 'file-hero-dark', yPos: 10 },
    });
    expect(writePageFile({ title: 'Bare', markdown: '' })).toBe('# Bare\n');
  });

  it('removes keys set back to their defaults', () => {
    const text = writePageFile({ ...unchanged, hidden: undefined, description: undefined, cover: undefined }, SEEN);
    expect(text).toBe(`---
icon: rocket
x-custom:
  keep:
    - 1
    - 2
layout:
  cover:
    visible: true
    size: hero
  title:
    visible: true
---

# Install the CLI

Body in markdown...
`);
  });
});
