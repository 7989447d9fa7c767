/**
 * Small repositories in the hosted platform's Git Sync layout, built with real git in temp folders, one per pattern
 * that real repositories showed: merge shapes, SUMMARY.md forms, `.gitbook.yaml` forms and odd names.
 * None holds content of a real repository: each reproduces a shape, with made-up pages.
 *
 *   const dir = await buildGitbookFixture('criss-cross', parent);   // parent/criss-cross, a folder with a .git
 *
 * Every fixture has at least one page whose title has a word of three letters or more (the conformance harness
 * searches for one). Outside the fixture about titles, a page's H1 is its SUMMARY.md link text, so that each
 * fixture fails only for its own pattern.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { isolatedGitEnv } from './git.js';

const exec = promisify(execFile);

/** A working repository whose commits get increasing, fixed dates (so histories are the same on every run). */
export class FixtureRepository {
  private clock = Date.UTC(2024, 0, 1) / 1000;

  private constructor(
    readonly dir: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** `git init` of `dir` on branch main. */
  static async init(dir: string, env?: NodeJS.ProcessEnv): Promise<FixtureRepository> {
    await fs.mkdir(dir, { recursive: true });
    const repository = new FixtureRepository(dir, env ?? (await isolatedGitEnv()));
    await repository.git('init', '--quiet', '--initial-branch=main');
    return repository;
  }

  async git(...args: string[]): Promise<string> {
    const date = `${this.clock} +0000`;
    const { stdout } = await exec('git', args, { cwd: this.dir, env: { ...this.env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } });
    return stdout;
  }

  /** Writes files (paths relative to the repository, folders made as needed). */
  async write(files: Record<string, string | Buffer>): Promise<void> {
    for (const [file, content] of Object.entries(files)) {
      const full = path.join(this.dir, file);
      await fs.mkdir(path.dirname(full), { recursive: true });
      await fs.writeFile(full, content);
    }
  }

  /** Stages everything and commits (a minute after the previous commit); the commit's oid. */
  async commit(message: string): Promise<string> {
    this.clock += 60;
    await this.git('add', '--all');
    await this.git('commit', '--quiet', '--allow-empty', '-m', message);
    return (await this.git('rev-parse', 'HEAD')).trim();
  }

  /** Writes and commits. */
  async commitFiles(message: string, files: Record<string, string | Buffer>): Promise<string> {
    await this.write(files);
    return this.commit(message);
  }

  /** A new branch at `from` (default HEAD), checked out. */
  async branch(name: string, from = 'HEAD'): Promise<void> {
    await this.git('checkout', '--quiet', '-b', name, from);
  }

  async checkout(name: string): Promise<void> {
    await this.git('checkout', '--quiet', name);
  }

  /** A merge commit of HEAD and `branches` (an octopus when several), even when a fast-forward was possible. */
  async merge(message: string, ...branches: string[]): Promise<string> {
    this.clock += 60;
    await this.git('merge', '--quiet', '--no-ff', '--no-edit', '-m', message, ...branches);
    return (await this.git('rev-parse', 'HEAD')).trim();
  }

  /** `git mv`, folders made as needed. */
  async move(from: string, to: string): Promise<void> {
    await fs.mkdir(path.dirname(path.join(this.dir, to)), { recursive: true });
    await this.git('mv', from, to);
  }
}

/** A page file: an H1 and a paragraph. */
export function page(title: string, body = `About ${title.toLowerCase()}.`): string {
  return `# ${title}\n\n${body}\n`;
}

/** A SUMMARY.md of `lines`, under `# Table of contents`. */
export function summary(...lines: string[]): string {
  return ['# Table of contents', '', ...lines, ''].join('\n');
}

/** A tiny PNG (1x1), for assets. */
export const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c63f8ffff3f0005fe02fea7d6a4a80000000049454e44ae426082',
  'hex',
);

/** The usual start: a readme and two pages, listed in SUMMARY.md. */
async function basic(repo: FixtureRepository): Promise<void> {
  await repo.commitFiles('Initial pages', {
    'README.md': page('Welcome', 'Start here.'),
    'guides/install.md': page('Installation'),
    'guides/configure.md': page('Configuration'),
    'SUMMARY.md': summary('* [Welcome](README.md)', '* [Installation](guides/install.md)', '* [Configuration](guides/configure.md)'),
  });
}

export interface GitbookFixture {
  /** The folder name and the harness's name of the repository. */
  name: string;
  /** The pattern of real repositories it reproduces. */
  pattern: string;
  /** Builds the repository in `dir` (a new, empty folder). */
  build(dir: string): Promise<void>;
}

async function withRepository(dir: string, work: (repo: FixtureRepository) => Promise<void>): Promise<void> {
  await work(await FixtureRepository.init(dir));
}

const mergeShapes: GitbookFixture[] = [
  {
    name: 'merge-pull-request',
    pattern: 'an ordinary "Merge pull request" history: M with parents A and B, B on A',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await basic(repo);
        await repo.branch('feature');
        await repo.commitFiles('Explain upgrades', { 'guides/install.md': page('Installation', 'Upgrades keep your settings.') });
        await repo.checkout('main');
        await repo.merge('Merge pull request #1 from example/feature', 'feature');
        await repo.commitFiles('Reword the welcome', { 'README.md': page('Welcome', 'Start here, then install.') });
      }),
  },
  {
    name: 'criss-cross',
    pattern: 'a criss-cross merge (two merge bases)',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await basic(repo);
        await repo.branch('left');
        await repo.commitFiles('Left: installation', { 'guides/install.md': page('Installation', 'Left side.') });
        await repo.branch('right', 'main');
        await repo.commitFiles('Right: configuration', { 'guides/configure.md': page('Configuration', 'Right side.') });
        await repo.checkout('left');
        await repo.git('tag', 'left-1');
        await repo.merge('Merge right into left', 'right');
        await repo.checkout('right');
        await repo.merge('Merge left into right', 'left-1');
        await repo.commitFiles('Right: welcome', { 'README.md': page('Welcome', 'Right again.') });
        await repo.checkout('left');
        await repo.commitFiles('Left: troubleshooting', {
          'guides/troubleshooting.md': page('Troubleshooting'),
          'SUMMARY.md': summary('* [Welcome](README.md)', '* [Installation](guides/install.md)', '* [Configuration](guides/configure.md)', '* [Troubleshooting](guides/troubleshooting.md)'),
        });
        await repo.merge('Merge right into left again', 'right');
        await repo.checkout('main');
        await repo.git('merge', '--quiet', '--ff-only', 'left');
        await repo.git('tag', '-d', 'left-1');
      }),
  },
  {
    name: 'octopus',
    pattern: 'an octopus merge (three branches at once)',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await basic(repo);
        const topics = ['alpha', 'bravo', 'charlie'];
        for (const topic of topics) {
          await repo.branch(topic, 'main');
          await repo.commitFiles(`Add ${topic}`, { [`topics/${topic}.md`]: page(`Topic ${topic}`) });
        }
        await repo.checkout('main');
        await repo.write({
          'SUMMARY.md': summary('* [Welcome](README.md)', '* [Installation](guides/install.md)', '* [Configuration](guides/configure.md)', ...topics.map((t) => `* [Topic ${t}](topics/${t}.md)`)),
        });
        await repo.merge('Merge branches alpha, bravo and charlie', ...topics);
        await repo.commit('List the topics');
      }),
  },
  {
    name: 'long-lived-branch',
    pattern: 'a long-lived branch, kept up to date with main, merged back',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await basic(repo);
        await repo.branch('next');
        for (let round = 1; round <= 4; round++) {
          await repo.checkout('main');
          await repo.commitFiles(`Main, round ${round}`, { 'README.md': page('Welcome', `Round ${round} on main.`) });
          await repo.checkout('next');
          await repo.commitFiles(`Next, round ${round}`, { [`next/chapter-${round}.md`]: page(`Chapter ${round} preview`) });
          await repo.merge(`Merge branch 'main' into next (round ${round})`, 'main');
        }
        await repo.commitFiles('List the chapters', {
          'SUMMARY.md': summary('* [Welcome](README.md)', '* [Installation](guides/install.md)', '* [Configuration](guides/configure.md)', ...[1, 2, 3, 4].map((r) => `* [Chapter ${r} preview](next/chapter-${r}.md)`)),
        });
        await repo.checkout('main');
        await repo.merge('Merge pull request #42 from example/next', 'next');
      }),
  },
  {
    name: 'renamed-many-times',
    pattern: 'a file renamed many times (and edited between renames)',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await basic(repo);
        const names = ['guides/install.md', 'guides/setup.md', 'setup/README.md', 'start/setup.md', 'start/installing.md', 'installing.md'];
        const steps = ['Download the archive for your system.', 'Unpack it into a folder of your choice.', 'Add the folder to your PATH.', 'Run the tool once to create its settings.'];
        for (let i = 1; i < names.length; i++) {
          await repo.move(names[i - 1], names[i]);
          await repo.write({
            [names[i]]: page('Installation', [...steps, `Moved ${i} times.`].join('\n\n')),
            'SUMMARY.md': summary('* [Welcome](README.md)', `* [Installation](${names[i]})`, '* [Configuration](guides/configure.md)'),
          });
          await repo.commit(`Move the installation page to ${names[i]}`);
        }
      }),
  },
];

const summaryForms: GitbookFixture[] = [
  {
    name: 'summary-link-text-vs-h1',
    pattern: "SUMMARY's link text is the title, not the page's H1 (and a page without H1)",
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await repo.commitFiles('Pages', {
          'README.md': page('Home page heading'),
          'install.md': page('How to install the tool'),
          'plain.md': 'No heading on this page.\n',
          'SUMMARY.md': summary('* [Overview](README.md)', '* [Installation](install.md)', '* [Plain notes](plain.md)'),
        });
      }),
  },
  {
    name: 'summary-sidebar-title',
    pattern: 'a quoted link title (the sidebar title): `* [Title](page.md "Sidebar")`',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await repo.commitFiles('Pages', {
          'README.md': page('Welcome'),
          'reference.md': page('Command reference'),
          'SUMMARY.md': summary('* [Welcome](README.md)', '* [Command reference](reference.md "Commands")'),
        });
      }),
  },
  {
    name: 'summary-listed-twice',
    pattern: 'the same file listed twice, with and without #anchor, and under two titles (the listings again lead to its page from pages in folders too)',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await repo.commitFiles('Pages', {
          'README.md': page('Welcome'),
          'faq.md': page('Frequent questions', '## Billing\n\nHow billing works.'),
          'guide/start.md': page('Start'),
          'SUMMARY.md': summary('* [Welcome](README.md)', '* [Frequent questions](faq.md)', '  * [Billing](faq.md#billing)', '* [Start](guide/start.md)', '* [Questions again](faq.md)'),
        });
      }),
  },
  {
    name: 'summary-group-anchors',
    pattern: 'group headings with `<a href>` anchors (with and without #)',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await repo.commitFiles('Pages', {
          'README.md': page('Welcome'),
          'start.md': page('First steps'),
          'api.md': page('Endpoints'),
          'old.md': page('Archive'),
          'SUMMARY.md': summary(
            '* [Welcome](README.md)',
            '',
            '## Get started <a href="#get-started" id="get-started"></a>',
            '',
            '* [First steps](start.md)',
            '',
            '## API <a href="api" id="api"></a>',
            '',
            '* [Endpoints](api.md)',
            '',
            '## Archive <a id="archive"></a>',
            '',
            '* [Archive](old.md)',
          ),
        });
      }),
  },
  {
    name: 'summary-table-of-contents',
    pattern: 'a `# Table of Contents` first heading (another first heading than the usual one)',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await repo.commitFiles('Pages', {
          'README.md': page('Welcome'),
          'guide.md': page('User guide'),
          'SUMMARY.md': '# Table of Contents\n\n* [Welcome](README.md)\n* [User guide](guide.md)\n',
        });
      }),
  },
  {
    name: 'summary-readme-in-first-group',
    pattern: 'the readme listed inside the first group',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await repo.commitFiles('Pages', {
          'README.md': page('Introduction'),
          'quickstart.md': page('Quickstart'),
          'reference/cli.md': page('Command line'),
          'SUMMARY.md': summary('## Getting started', '', '* [Introduction](README.md)', '* [Quickstart](quickstart.md)', '', '## Reference', '', '* [Command line](reference/cli.md)'),
        });
      }),
  },
  {
    name: 'summary-backslash-escapes',
    pattern: 'link targets and texts with backslash escapes (`minimax-music-\\[legacy].md`, `error\\_001.md`)',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await repo.commitFiles('Pages', {
          'README.md': page('Welcome'),
          'models/minimax-music-[legacy].md': page('Minimax Music [legacy]'),
          'errors/error_001.md': page('ERROR_001'),
          'sdk/migration.md': page('Migrating to SDK(3.x) reference'),
          'SUMMARY.md': summary(
            '* [Welcome](README.md)',
            '* [Minimax Music \\[legacy\\]](models/minimax-music-\\[legacy].md)',
            '* [ERROR\\_001](errors/error\\_001.md)',
            '* [Migrating to SDK\\(3.x\\) reference](sdk/migration.md)',
          ),
        });
      }),
  },
  {
    name: 'summary-angle-targets',
    pattern: 'angle-bracket targets with spaces (`[x](<a b.md>)`)',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await repo.commitFiles('Pages', {
          'README.md': page('Welcome'),
          'user guide/first steps.md': page('First steps'),
          'release notes.md': page('Release notes'),
          'SUMMARY.md': summary('* [Welcome](README.md)', '* [First steps](<user guide/first steps.md>)', '* [Release notes](<release notes.md> "Notes")'),
        });
      }),
  },
  {
    name: 'summary-url-items',
    pattern: 'URL items (link pages), at the top and nested',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await repo.commitFiles('Pages', {
          'README.md': page('Welcome'),
          'sdk.md': page('Software kits'),
          'SUMMARY.md': summary('* [Welcome](README.md)', '* [Status page](https://status.example.com)', '* [Software kits](sdk.md)', '  * [JavaScript kit](https://github.com/example/js-sdk)'),
        });
      }),
  },
  {
    name: 'summary-computed-block',
    pattern: 'a fenced ```yaml block as an item: a computed page (builtin:openapi with props and dependencies.spec.ref)',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await repo.commitFiles('Pages', {
          'README.md': page('Welcome'),
          'api/README.md': page('Interface reference'),
          'SUMMARY.md': summary(
            '* [Welcome](README.md)',
            '* [Interface reference](api/README.md)',
            '  * ```yaml',
            '    type: builtin:openapi',
            '    props:',
            '      models: true',
            '      downloadLink: true',
            '    dependencies:',
            '      spec:',
            '        ref:',
            '          kind: openapi',
            '          spec: petstore',
            '    ```',
          ),
        });
      }),
  },
  {
    name: 'summary-readme-children-elsewhere',
    pattern: 'children of the readme that live in another folder',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await repo.commitFiles('Pages', {
          'README.md': page('Welcome'),
          'guides/setup.md': page('Setup'),
          'reference/limits.md': page('Limits'),
          'SUMMARY.md': summary('* [Welcome](README.md)', '  * [Setup](guides/setup.md)', '  * [Limits](reference/limits.md)'),
        });
      }),
  },
  {
    name: 'summary-text-items',
    pattern: 'list items that are plain text (no link) with linked children (seen in a real repository)',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await repo.commitFiles('Pages', {
          'README.md': page('Welcome'),
          'mining/nodes.md': page('Node types'),
          'mining/pools.md': page('Pool mining'),
          'SUMMARY.md': summary('## Mining', '', '- [Welcome](README.md)', '- Overview', '    - [Node types](mining/nodes.md)', '    - [Pool mining](mining/pools.md)'),
        });
      }),
  },
  {
    name: 'summary-absolute-targets',
    pattern: 'targets from the root (`/contents/page.md`), a folder target (`/contents/`), `###` groups after a `## ` first heading (seen in a real repository)',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await repo.commitFiles('Pages', {
          'README.md': page('Welcome'),
          'contents/9/README.md': page('Version nine'),
          'contents/9/Basics.md': page('Basic concepts'),
          'SUMMARY.md': '## 9\n\n### Version 9\n\n * [Welcome](README.md)\n * [Version nine](/contents/9/)\n\n### Overview\n\n * [Basic concepts](/contents/9/Basics.md)\n',
        });
      }),
  },
  {
    name: 'summary-missing-target',
    pattern: 'SUMMARY items whose file does not exist (a folder without README.md, a deleted page; seen in a real repository)',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await repo.commitFiles('Pages', {
          'README.md': page('Welcome'),
          'contents/10/Basics.md': page('Basic concepts'),
          'SUMMARY.md': summary('* [Welcome](README.md)', '* [Version ten](contents/10/)', '  * [Basic concepts](contents/10/Basics.md)', '* [Removed page](removed.md)'),
        });
      }),
  },
];

const configForms: GitbookFixture[] = [
  {
    name: 'config-empty',
    pattern: 'an empty .gitbook.yaml',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await repo.write({ '.gitbook.yaml': '' });
        await basic(repo);
      }),
  },
  {
    name: 'config-invisible-characters',
    pattern: 'U+200B and U+FEFF around .gitbook.yaml keys',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await repo.write({ '.gitbook.yaml': '\uFEFFroot: ./\n\n\u200Bstructure:  \n    readme: README.md  \n    summary: SUMMARY.md\u200B\n' });
        await basic(repo);
      }),
  },
  {
    name: 'config-root-dot-slash',
    pattern: 'root written `./docs/` (with ./ and a trailing /)',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await repo.commitFiles('Docs under docs/', {
          '.gitbook.yaml': 'root: ./docs/\n',
          'README.md': '# The repository\n\nNot a page: the content root is docs/.\n',
          'docs/README.md': page('Welcome'),
          'docs/usage.md': page('Usage'),
          'docs/SUMMARY.md': summary('* [Welcome](README.md)', '* [Usage](usage.md)'),
          'docs/.gitbook/assets/diagram.png': PNG,
        });
      }),
  },
  {
    name: 'config-root-plain',
    pattern: 'root written `docs` (without ./ or trailing /), structure.summary in a folder',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await repo.commitFiles('Docs under docs/', {
          '.gitbook.yaml': 'root: docs\nstructure:\n  readme: intro.md\n  summary: toc/SUMMARY.md\n',
          'docs/intro.md': page('Introduction'),
          'docs/usage.md': page('Usage'),
          'docs/toc/SUMMARY.md': summary('* [Introduction](../intro.md)', '* [Usage](../usage.md)'),
        });
      }),
  },
  {
    name: 'config-redirects',
    pattern: 'dozens of redirects, to pages and to full URLs',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        const redirects = Array.from({ length: 40 }, (_, i) =>
          i % 4 === 0 ? `  old/page-${i}: https://example.com/moved/${i}` : `  old/page-${i}: ${i % 2 ? './guides/install.md' : 'README.md'}`,
        );
        await repo.write({ '.gitbook.yaml': `root: ./\n\nredirects:\n${redirects.join('\n')}\n` });
        await basic(repo);
      }),
  },
];

const names: GitbookFixture[] = [
  {
    name: 'names-punctuation',
    pattern: 'names with spaces, #, &, [ ] and (1), referenced percent-encoded or not',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await repo.commitFiles('Pages and assets', {
          'README.md': page('Welcome', '![Screen](.gitbook/assets/image%20(1).png) ![Chart](<.gitbook/assets/chart #2 & more.png>)'),
          'getting started.md': page('Getting started'),
          'c#-guide.md': page('Sharp guide'),
          'q&a.md': page('Questions and answers'),
          'tools [beta].md': page('Beta tools'),
          'SUMMARY.md': summary(
            '* [Welcome](README.md)',
            '* [Getting started](getting%20started.md)',
            '* [Sharp guide](c%23-guide.md)',
            '* [Questions and answers](q\\&a.md)',
            '* [Beta tools](<tools [beta].md>)',
          ),
          '.gitbook/assets/image (1).png': PNG,
          '.gitbook/assets/image.png': PNG,
          '.gitbook/assets/chart #2 & more.png': PNG,
          '.gitbook/assets/[draft] plan.png': PNG,
        });
      }),
  },
  {
    name: 'names-unicode',
    pattern: 'names with U+202F, CJK and Cyrillic',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await repo.commitFiles('Pages and assets', {
          'README.md': page('Welcome'),
          '安装指南.md': page('安装指南', 'Installation steps in Chinese.'),
          'руководство.md': page('Руководство', 'A guide in Russian.'),
          'SUMMARY.md': summary('* [Welcome](README.md)', '* [安装指南](安装指南.md)', `* [Руководство](${encodeURIComponent('руководство.md')})`),
          '.gitbook/assets/Screenshot 2024-01-01 at 10.00.00\u202FAM.png': PNG,
          '.gitbook/assets/схема.png': PNG,
          '.gitbook/assets/图表.png': PNG,
        });
      }),
  },
  {
    name: 'names-case',
    pattern: 'names that differ only in case (pages and assets)',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await repo.commitFiles('Pages and assets', {
          'README.md': page('Welcome'),
          'Guide.md': page('Guide for admins'),
          'guide.md': page('Guide for users'),
          'SUMMARY.md': summary('* [Welcome](README.md)', '* [Guide for admins](Guide.md)', '* [Guide for users](guide.md)'),
          '.gitbook/assets/Logo.png': PNG,
          '.gitbook/assets/logo.png': PNG,
        });
      }),
  },
  {
    name: 'names-assets',
    pattern: '.md files among the assets (files, not pages) and assets without extension',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await basic(repo);
        await repo.commitFiles('Assets', {
          '.gitbook/assets/notes.md': '# Notes kept as a file\n',
          '.gitbook/assets/image': PNG,
          '.gitbook/assets/LICENSE': 'MIT\n',
        });
      }),
  },
];

/** How real Git Sync repositories show images and link pages (the crawl of the site step reaches every one). */
const images: GitbookFixture[] = [
  {
    name: 'images-and-html-links',
    pattern: 'images as Git Sync writes them (figures, pictures, in tables, hints and tabs; names with spaces, #, &, brackets, non-ASCII), links in HTML tables, a link and an image to nothing',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await repo.commitFiles('Images', {
          'README.md': [
            '# Welcome',
            '',
            '<figure><img src=".gitbook/assets/image (1).png" alt=""><figcaption><p>A figure</p></figcaption></figure>',
            '',
            '<picture><source srcset=".gitbook/assets/dark mode.png" media="(prefers-color-scheme: dark)"><img src=".gitbook/assets/light&#x26;mode.png" alt="Light"></picture>',
            '',
            '<table><thead><tr><th>Guide</th><th>Shot</th></tr></thead><tbody><tr><td><a href="guides/install.md">Install</a></td><td><img src=".gitbook/assets/C#[1].png"></td></tr></tbody></table>',
            '',
            '{% hint style="info" %}',
            '![Hint image](<.gitbook/assets/ünïcode shot.png>) and [the guide](guides/)',
            '{% endhint %}',
            '',
            '{% tabs %}',
            '{% tab title="One" %}',
            '![Tab image](.gitbook/assets/image%20%281%29.png)',
            '{% endtab %}',
            '{% endtabs %}',
            '',
            '[Gone](guides/gone.md) ![Missing](.gitbook/assets/missing.png)',
            '',
          ].join('\n'),
          'guides/README.md': page('Guides', '<img src="../.gitbook/assets/image (1).png"> and [home](../README.md)'),
          'guides/install.md': page('Installation', '<a href="/README.md">Root-relative home</a> <img src="/.gitbook/assets/C#[1].png">'),
          'SUMMARY.md': summary('* [Welcome](README.md)', '* [Guides](guides/README.md)', '  * [Installation](guides/install.md)'),
          '.gitbook/assets/image (1).png': PNG,
          '.gitbook/assets/dark mode.png': PNG,
          '.gitbook/assets/light&mode.png': PNG,
          '.gitbook/assets/C#[1].png': PNG,
          '.gitbook/assets/ünïcode shot.png': PNG,
        });
      }),
  },
];

const layouts: GitbookFixture[] = [
  {
    name: 'no-summary',
    pattern: 'no SUMMARY.md: every .md outside dot-folders is a page',
    build: (dir) =>
      withRepository(dir, async (repo) => {
        await repo.commitFiles('Pages without a table of contents', {
          'README.md': page('Welcome'),
          'guides/README.md': page('Guides'),
          'guides/install.md': page('Installation'),
          'faq.md': page('Questions'),
          '.github/PULL_REQUEST_TEMPLATE.md': 'Describe the change.\n',
          '.gitbook/assets/notes.md': '# Notes\n',
        });
      }),
  },
  {
    name: 'content-folder',
    pattern: 'a folder of content without git (the harness commits it)',
    build: async (dir) => {
      const repo = await FixtureRepository.init(dir);
      await basic(repo);
      await fs.rm(path.join(dir, '.git'), { recursive: true, force: true });
    },
  },
];

/** Every fixture, by group of patterns. */
export const GITBOOK_FIXTURES: readonly GitbookFixture[] = [...mergeShapes, ...summaryForms, ...configForms, ...names, ...images, ...layouts];

/** Builds the fixture `name` in `parent/name`; answers that folder. */
export async function buildGitbookFixture(name: string, parent: string): Promise<string> {
  const fixture = GITBOOK_FIXTURES.find((f) => f.name === name);
  if (!fixture) throw new Error(`no fixture ${name}`);
  const dir = path.join(parent, name);
  await fixture.build(dir);
  return dir;
}
