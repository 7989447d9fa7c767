/**
 * reviseTree: a tree that differs from an analyzed one only in the contents of page files is built from that
 * analysis, and must equal what analyzeTree makes of it, in every part; anything else it declines.
 */
import { describe, expect, it } from 'vitest';
import type { CommitInfo, HistoryFacts } from '../../src/content/model.js';
import { analyzeTree, type TreeAnalysis } from '../../src/content/revision.js';
import { reviseTree } from '../../src/content/revise-tree.js';
import type { ParsedPage } from '../../src/content/page.js';
import type { KeptSummary } from '../../src/content/summary-kept.js';
import { memoryTree, TEST_COMMIT, tinyPng, type MemoryFile } from '../helpers/content.js';

type Files = Record<string, MemoryFile>;

/** A small deterministic generator (mulberry32), so a failing history can be replayed from its seed. */
function random(seed: number) {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    chance: (p: number) => next() < p,
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)],
  };
}
type Random = ReturnType<typeof random>;

const WORDS = 'install configure deploy search index cluster replica token webhook schema'.split(' ');

/** The parts of a page file that reviseTree must follow: front matter (its `id` fixed per page), H1, body. */
interface PageSpec {
  id?: string;
}

/** A page file's text: its front matter id kept, everything else drawn anew (titles, wrong types, covers, text). */
function pageText(rng: Random, spec: PageSpec, label: string): string {
  const front: string[] = [];
  if (spec.id !== undefined) front.push(`id: ${spec.id}`);
  // A wrong type now and then: a problem of the page.
  if (rng.chance(0.3)) front.push(rng.chance(0.3) ? 'description: [1, 2]' : `description: ${rng.pick(WORDS)} ${label}`);
  if (rng.chance(0.15)) front.push(`cover: ${rng.pick(['/.gitbook/assets/hero.png', '/.gitbook/assets/missing.png'])}`);
  if (rng.chance(0.1)) front.push('hidden: true');
  if (rng.chance(0.05)) front.push('icon: rocket');
  if (rng.chance(0.05)) front.push('computed:\n  type: list');
  let text = front.length > 0 ? `---\n${front.join('\n')}\n---\n\n` : '';
  // Front matter that does not parse only where no id is claimed (a page that loses its id claims none).
  if (spec.id === undefined && rng.chance(0.05)) text = '---\nbroken: [\n---\n\n';
  const heading = rng.int(3);
  if (heading === 0) text += `# ${rng.pick(WORDS)} ${label}\n\n`;
  if (heading === 1) text += `# Title ${label}\n\n`;
  for (let p = 0, n = 1 + rng.int(3); p < n; p++) text += `${rng.pick(WORDS)} ${rng.pick(WORDS)} paragraph ${p} (${rng.int(1000)}).\n\n`;
  if (rng.chance(0.2)) text += '## Usage\n\nSee [install](install.md).\n';
  return text;
}

/** A space's tree, and which page files it has (path -> spec), for the edits. */
interface Space {
  files: Files;
  pages: Map<string, PageSpec>;
}

/**
 * A random space: a content root or not, with or without SUMMARY.md (groups, link pages, a page listed twice,
 * an anchor, a missing target, nesting), front matter ids (one claimed twice), a manifest, includes, variables,
 * images (covers), redirects to pages, a URL and nowhere, and slugs that clash.
 */
function randomSpace(rng: Random): Space {
  const root = rng.chance(0.5) ? 'docs/' : '';
  const withSummary = rng.chance(0.6);
  const files: Files = {};
  const pages = new Map<string, PageSpec>();
  const pagePaths = [
    'README.md',
    'install.md',
    'configure.md',
    'a b.md',
    'a-b.md',
    'guide/README.md',
    'guide/start.md',
    'guide/advanced/README.md',
    'guide/advanced/tuning.md',
    'guide/advanced/limits.md',
    'api/reference.md',
    'api/errors.md',
    'Ref Docs/intro.md',
    ...Array.from({ length: 5 + rng.int(10) }, (_, i) => `more/page-${i}.md`),
  ].filter((_, i) => i < 2 || rng.chance(0.85));
  const ids = ['fm-one', 'fm-two', 'fm-three', 'fm-one'];
  for (const path of pagePaths) {
    const spec: PageSpec = rng.chance(0.25) ? { id: rng.pick(ids) } : {};
    pages.set(root + path, spec);
  }
  if (root !== '') {
    const redirects = ['  old/install: install.md', '  old/guide: guide/', '  old/away: https://example.com/away', '  old/gone: gone.md'];
    files['.gitbook.yaml'] = `root: ./${root}\n\nstructure:\n  readme: README.md\n  summary: SUMMARY.md\n\nredirects:\n${redirects.join('\n')}\n`;
    files['README.md'] = '# The repository, not the content\n';
    files['.gitbook/includes/top.md'] = `---\ntitle: Top\n${rng.chance(0.5) ? 'id: fm-two\n' : ''}---\n\nShared at the top.\n`;
  } else if (rng.chance(0.5)) {
    files['.gitbook.yaml'] = 'redirects:\n  old/start: guide/start.md\n  old/api: api/reference\n';
  }
  for (const [path, spec] of pages) files[path] = pageText(rng, spec, path);
  files[`${root}.gitbook/assets/hero.png`] = tinyPng(4 + rng.int(4), 3);
  files[`${root}.gitbook/assets/guide.pdf`] = Buffer.from('%PDF-1.4 not really');
  files[`${root}notes.txt`] = 'notes';
  files[`${root}.gitbook/includes/footer.md`] = `---\ntitle: Footer\n${rng.chance(0.5) ? 'id: fm-three\n' : ''}---\n\nHelp: {{ $vars.support }}.\n`;
  files[`${root}.gitbook/vars.yaml`] = 'support: help@example.com\n';
  if (rng.chance(0.5)) {
    const manifestPages = [...pages.keys()].filter(() => rng.chance(0.2)).map((path, i) => `  ${path}: mf-page-${i}`);
    manifestPages.push(`  ${root}SUMMARY.md#reference: mf-group`, `  ${root}.gitbook/includes/footer.md: mf-include`, '  install.md: fm-one');
    files['.quire/manifest.yaml'] = `pages:\n${manifestPages.join('\n')}\nfiles:\n  ${root}.gitbook/assets/hero.png: mf-hero\n  ${root}notes.txt: fm-one\n`;
  }
  if (withSummary) {
    const listed = [...pages.keys()].map((path) => path.slice(root.length)).filter((path) => path !== 'README.md');
    const lines = ['# Table of contents', '', '* [Welcome](README.md)'];
    const item = (path: string, depth: number) => {
      const title = rng.chance(0.3) ? `Title ${root}${path}` : rng.pick(WORDS);
      const target = path.includes(' ') ? `<${path}>` : path;
      lines.push(`${'  '.repeat(depth)}* [${title}](${target}${rng.chance(0.1) ? ' "Short"' : ''})`);
    };
    let depth = 0;
    for (const [i, path] of listed.entries()) {
      if (i > 0 && i % 5 === 0) {
        lines.push('', `## ${rng.pick(['Reference', 'Guides', 'Reference'])}`, '');
        depth = 0;
      }
      // Most files listed; some are not (they are files of the revision then).
      if (rng.chance(0.1)) continue;
      item(path, depth);
      depth = rng.chance(0.4) ? Math.min(depth + 1, 2) : rng.chance(0.5) ? 0 : depth;
      if (rng.chance(0.1)) lines.push(`${'  '.repeat(depth)}* [Again](${path.includes(' ') ? `<${path}>` : path})`);
      if (rng.chance(0.1)) lines.push(`${'  '.repeat(depth)}* [Section](${path.includes(' ') ? `<${path}>` : path}#usage)`);
      if (rng.chance(0.05)) lines.push(`${'  '.repeat(depth)}* [Status](https://status.example.com)`);
    }
    lines.push('* [Gone](gone.md)', '', '## Reference', '', '* [Changelog](https://example.com/changelog)');
    files[`${root}SUMMARY.md`] = `${lines.join('\n')}\n`;
  }
  files['LICENSE'] = 'MIT';
  return { files, pages };
}

/**
 * The next commit's tree: new contents for some of the pages (`paths`; ids claimed as before), every other file as
 * it was.
 */
function editPages(rng: Random, space: Space, paths: string[], step: number): { files: Files; changed: string[] } {
  const files = { ...space.files };
  const changed = [...new Set(Array.from({ length: 1 + rng.int(3) }, () => rng.pick(paths)))];
  for (const path of changed) files[path] = pageText(rng, space.pages.get(path)!, `${path} v${step}`);
  return { files, changed };
}

/** History facts as a history gives them: stable ids per path, a page's updatedAt its last change's step. */
class StepFacts implements HistoryFacts {
  readonly updated = new Map<string, number>();
  constructor(private readonly ids: Record<string, string> = {}) {}
  idOf(kind: 'page' | 'file', path: string): string {
    return this.ids[`${kind}:${path}`] ?? `${kind}:${path}`;
  }
  createdAt(path: string): string {
    return `created ${path}`;
  }
  updatedAt(path: string): string {
    return `updated ${path} at ${this.updated.get(path) ?? 0}`;
  }
  /** The facts of the next commit: `changed` updated at `step`. */
  next(step: number, changed: string[]): StepFacts {
    const facts = new StepFacts(this.ids);
    for (const [path, at] of this.updated) facts.updated.set(path, at);
    for (const path of changed) facts.updated.set(path, step);
    return facts;
  }
}

function commitAt(step: number): CommitInfo {
  return { ...TEST_COMMIT, oid: step.toString(16).padStart(40, '0'), message: `step ${step}` };
}

/** Stores of parses shared by the builds of one history, as the server's cache shares them. */
function stores() {
  const pages = new Map<string, ParsedPage>();
  const summaries = new Map<string, KeptSummary>();
  return { parsedPages: pages, parsedSummaries: summaries };
}

/** An analysis that throws on any write to its revision, page checks, problems or tree listing. */
function deepFreeze<T>(value: T, seen = new Set<unknown>()): T {
  if (typeof value !== 'object' || value === null || seen.has(value) || value instanceof Map || Buffer.isBuffer(value)) return value;
  seen.add(value);
  for (const inner of Object.values(value)) deepFreeze(inner, seen);
  return Object.freeze(value);
}

async function expectSame(revised: TreeAnalysis | undefined, full: TreeAnalysis): Promise<void> {
  expect(revised).toBeDefined();
  expect(revised).toStrictEqual(full);
  // The same keys in the same order: what the API writes is the same JSON.
  expect(JSON.stringify(revised!.revision)).toBe(JSON.stringify(full.revision));
}

describe('reviseTree over random histories of page edits', () => {
  for (let seed = 1; seed <= 40; seed++) {
    it(`history ${seed}: equals a full analysis at every step`, async () => {
      const rng = random(seed);
      const space = randomSpace(rng);
      const kept = seed % 4 === 0 ? {} : stores();
      // Some histories give a page the id another page claims in its front matter: two pages share it then.
      let facts = new StepFacts(rng.chance(0.5) ? { [`page:${rng.pick([...space.pages.keys()])}`]: 'fm-one' } : {});
      let analysis = deepFreeze(await analyzeTree({ ...memoryTree(space.files), ...kept }, commitAt(0), facts));
      for (let step = 1; step <= 6; step++) {
        const pagePaths = analysis.pageChecks.map((check) => check.options.gitPath);
        const { files, changed } = editPages(rng, space, pagePaths, step);
        space.files = files;
        facts = facts.next(step, changed);
        // Now and then a date moves for a page the commit did not change (a merge taking the other side).
        if (rng.chance(0.3)) facts.updated.set(rng.pick([...space.pages.keys()]), 100 + step);
        const commit = commitAt(step);
        const revised = await reviseTree(analysis, { ...memoryTree(files), ...kept }, commit, facts);
        const full = await analyzeTree({ ...memoryTree(files), ...stores() }, commit, facts);
        await expectSame(revised, full);
        // The next step builds on the revised analysis (a chain of pushes).
        analysis = deepFreeze(revised!);
      }
    });
  }
});

/** A fixed space with SUMMARY.md, for the cases reviseTree must decline. */
const SPACE: Files = {
  '.gitbook.yaml': 'redirects:\n  old/install: guide/install.md\n  old/limits: guide/limits.md\n',
  'README.md': '# Welcome\n',
  'SUMMARY.md': [
    '# Table of contents',
    '',
    '* [Welcome](README.md)',
    '* [Guide](guide/README.md)',
    '  * [Install](guide/install.md)',
    '  * [Limits](guide/limits.md)',
    '  * [Install again](guide/install.md#usage)',
    '',
    '## Reference',
    '',
    '* [API](api.md)',
    '* [Status](https://status.example.com)',
    '',
  ].join('\n'),
  'guide/README.md': '---\nid: fm-guide\n---\n\n# Guide\n',
  'guide/install.md': '# Install\n\nRun it.\n',
  'guide/limits.md': '---\ndescription: Limits\ncover: ../.gitbook/assets/hero.png\n---\n\n# Limits\n',
  'api.md': '# API\n',
  'unlisted.md': '# Not in the table of contents\n',
  '.gitbook/assets/hero.png': tinyPng(5, 5),
  '.gitbook/includes/footer.md': '---\nid: fm-footer\n---\n\nFooter.\n',
};

async function baseOf(files: Files): Promise<TreeAnalysis> {
  return deepFreeze(await analyzeTree(memoryTree(files), commitAt(0), new StepFacts()));
}

describe('reviseTree', () => {
  it('builds a page edit from the analysis, sharing what did not change', async () => {
    const before = await baseOf(SPACE);
    const snapshot = structuredClone(before);
    const files = { ...SPACE, 'guide/install.md': '# Install the CLI\n\nRun it now.\n' };
    const facts = new StepFacts().next(1, ['guide/install.md']);
    const revised = await reviseTree(before, memoryTree(files), commitAt(1), facts);
    await expectSame(revised, await analyzeTree(memoryTree(files), commitAt(1), facts));
    // The analysis built from is as it was (it is frozen too: a write would have thrown).
    expect(before).toStrictEqual(snapshot);
    const [welcome, guide, reference] = revised!.revision.pages;
    expect(welcome).toBe(before.revision.pages[0]);
    // Along the changed page: new objects; beside it, the same ones.
    expect(guide).not.toBe(before.revision.pages[1]);
    expect(guide.pages[0]).not.toBe(before.revision.pages[1].pages[0]);
    expect(guide.pages[1]).toBe(before.revision.pages[1].pages[1]);
    expect(reference).toBe(before.revision.pages[2]);
    expect(revised!.revision.files).toBe(before.revision.files);
  });

  it('gives the same analysis for the same tree, with the new commit and dates', async () => {
    const before = await baseOf(SPACE);
    const facts = new StepFacts().next(3, ['api.md']);
    const revised = await reviseTree(before, memoryTree(SPACE), commitAt(3), facts);
    await expectSame(revised, await analyzeTree(memoryTree(SPACE), commitAt(3), facts));
  });

  it('follows a page whose problems come and go', async () => {
    const before = await baseOf(SPACE);
    const broken = { ...SPACE, 'guide/install.md': '---\nhidden: sometimes\ncover: nowhere.png\n---\n\n# Install\n' };
    const revised = await reviseTree(before, memoryTree(broken), commitAt(1), new StepFacts());
    const full = await analyzeTree(memoryTree(broken), commitAt(1), new StepFacts());
    expect(full.problems.length).toBeGreaterThan(before.problems.length);
    await expectSame(revised, full);
    const fixed = await reviseTree(deepFreeze(revised!), memoryTree(SPACE), commitAt(2), new StepFacts());
    await expectSame(fixed, await analyzeTree(memoryTree(SPACE), commitAt(2), new StepFacts()));
  });

  const declines: Array<[string, Files, HistoryFacts?]> = [
    ['a changed front matter id', { ...SPACE, 'guide/README.md': '---\nid: fm-other\n---\n\n# Guide\n' }],
    ['an added front matter id', { ...SPACE, 'guide/install.md': '---\nid: fm-install\n---\n\n# Install\n' }],
    ['a removed front matter id', { ...SPACE, 'guide/README.md': '# Guide\n' }],
    ['a front matter id that no longer parses', { ...SPACE, 'guide/README.md': '---\nid: [\n---\n\n# Guide\n' }],
    ['an added file', { ...SPACE, 'guide/new.md': '# New\n' }],
    ['a removed file', Object.fromEntries(Object.entries(SPACE).filter(([path]) => path !== 'api.md'))],
    ['a renamed page', Object.fromEntries(Object.entries(SPACE).map(([path, text]) => [path === 'api.md' ? 'api2.md' : path, text]))],
    ['an edited SUMMARY.md', { ...SPACE, 'SUMMARY.md': `${SPACE['SUMMARY.md']}* [Extra](https://example.com)\n` }],
    ['an edited .gitbook.yaml', { ...SPACE, '.gitbook.yaml': 'redirects:\n  old/install: api.md\n' }],
    ['a changed image', { ...SPACE, '.gitbook/assets/hero.png': tinyPng(6, 6) }],
    ['a changed include', { ...SPACE, '.gitbook/includes/footer.md': '---\nid: fm-footer\n---\n\nAnother footer.\n' }],
    ['an edited markdown file that is not a page', { ...SPACE, 'unlisted.md': '# Still not listed\n' }],
    ['a page that became executable', { ...SPACE, 'api.md': { content: '# API\n', mode: '100755' } }],
    ['ids the history now gives differently', SPACE, new StepFacts({ 'page:api.md': 'moved-here' })],
    ['file ids the history now gives differently', SPACE, new StepFacts({ 'file:.gitbook/assets/hero.png': 'moved-here' })],
    ['group ids the history now gives differently', SPACE, new StepFacts({ 'page:SUMMARY.md#reference': 'moved-here' })],
  ];
  for (const [what, files, facts = new StepFacts()] of declines) {
    it(`declines ${what} (analyzeTree builds it)`, async () => {
      const before = await baseOf(SPACE);
      expect(await reviseTree(before, memoryTree(files), commitAt(1), facts)).toBeUndefined();
    });
  }

  it('declines entries listed in another order', async () => {
    const before = await baseOf(SPACE);
    const reversed = Object.fromEntries(Object.entries(SPACE).reverse());
    expect(await reviseTree(before, memoryTree(reversed), commitAt(1), new StepFacts())).toBeUndefined();
  });

  it('keeps a claim that another page took first (the id stays the first page\'s)', async () => {
    const copied = { ...SPACE, 'api.md': '---\nid: fm-guide\n---\n\n# API\n' };
    const before = await baseOf(copied);
    const edited = { ...copied, 'api.md': '---\nid: fm-guide\n---\n\n# API v2\n' };
    const revised = await reviseTree(before, memoryTree(edited), commitAt(1), new StepFacts());
    await expectSame(revised, await analyzeTree(memoryTree(edited), commitAt(1), new StepFacts()));
  });
});
