import { describe, expect, it } from 'vitest';
import { parseGitbookConfig, parseVariables, serializeVariables } from '../../src/content/config.js';
import { parseManifest, serializeManifest } from '../../src/content/manifest.js';

describe('manifest', () => {
  it('parses pages and files', () => {
    const text = 'pages:\n  README.md: pg_1\n  SUMMARY.md#reference: pg_group\nfiles:\n  .gitbook/assets/hero.png: fl_1\n';
    expect(parseManifest(text)).toEqual({
      manifest: { pages: { 'README.md': 'pg_1', 'SUMMARY.md#reference': 'pg_group' }, files: { '.gitbook/assets/hero.png': 'fl_1' } },
      problems: [],
    });
    expect(parseManifest('')).toEqual({ manifest: { pages: {}, files: {} }, problems: [] });
    expect(parseManifest('pages:\n')).toEqual({ manifest: { pages: {}, files: {} }, problems: [] });
  });

  it('serializes sorted by path and reads back the same', () => {
    const manifest = { pages: { 'b.md': 'pg_b', 'a b.md': 'pg_a' }, files: { 'z.png': 'fl_z', '.gitbook/assets/a.png': 'fl_a' } };
    const text = serializeManifest(manifest);
    expect(text).toBe('pages:\n  a b.md: pg_a\n  b.md: pg_b\nfiles:\n  .gitbook/assets/a.png: fl_a\n  z.png: fl_z\n');
    expect(parseManifest(text).manifest).toEqual(manifest);
    expect(serializeManifest({ pages: {}, files: {} })).toBe('pages: {}\nfiles: {}\n');
  });

  it('reports broken manifests', () => {
    expect(parseManifest('pages: [a\n').problems).toEqual([
      { path: '.quire/manifest.yaml', line: 2, message: expect.stringMatching(/^not valid YAML: /) },
    ]);
    expect(parseManifest('- a\n').problems).toEqual([{ path: '.quire/manifest.yaml', line: 1, message: 'the manifest must be a mapping with `pages` and `files`' }]);
    expect(parseManifest('pages:\n  a.md: "bad id!"\nfiles: [x]\n').problems).toEqual([
      { path: '.quire/manifest.yaml', message: '`pages` entry a.md: the id must be letters, digits, `_` or `-`' },
      { path: '.quire/manifest.yaml', message: '`files` must be a mapping of paths to ids' },
    ]);
  });
});

describe('.gitbook.yaml', () => {
  it('reads root and structure, normalizing the root to a folder prefix', () => {
    expect(parseGitbookConfig('root: ./docs/\nstructure:\n  readme: intro.md\n  summary: toc/SUMMARY.md\nredirects:\n  old/page: new/page.md\n')).toEqual({
      config: { root: 'docs/', readme: 'intro.md', summary: 'toc/SUMMARY.md', redirects: { 'old/page': 'new/page.md' }, redirectLines: { 'old/page': 6 } },
      problems: [],
    });
    expect(parseGitbookConfig('root: ./\n').config.root).toBe('');
    expect(parseGitbookConfig('').config).toEqual({ root: '', readme: 'README.md', summary: 'SUMMARY.md', redirects: {}, redirectLines: {} });
  });

  it('refuses a root that escapes and broken YAML; warns of wrong types and uses the defaults', () => {
    expect(parseGitbookConfig('# config\nroot: ../elsewhere/\n').problems).toEqual([
      { path: '.gitbook.yaml', line: 2, message: '`root` ../elsewhere/ points outside the repository' },
    ]);
    expect(parseGitbookConfig('root: [docs\n').problems).toEqual([
      { path: '.gitbook.yaml', line: 2, message: expect.stringMatching(/^not valid YAML: /) },
    ]);
    expect(parseGitbookConfig('structure: SUMMARY.md\n').problems).toEqual([
      { path: '.gitbook.yaml', line: 1, message: '`structure` must be a mapping (readme, summary): the defaults are used', severity: 'warning' },
    ]);
    expect(parseGitbookConfig('root: 3\n')).toEqual({
      config: expect.objectContaining({ root: '' }),
      problems: [{ path: '.gitbook.yaml', line: 1, message: '`root` must be a path: the default is used', severity: 'warning' }],
    });
  });
});

describe('.gitbook/vars.yaml', () => {
  it('reads every scalar as written', () => {
    expect(parseVariables('version: 3.10\nenabled: true\nreleased: 2024-01-05\nempty:\nname: Quire\n', 'vars.yaml')).toEqual({
      variables: { version: '3.10', enabled: 'true', released: '2024-01-05', empty: '', name: 'Quire' },
      problems: [],
    });
  });

  it('warns of what is not a map of strings, and keeps the strings', () => {
    expect(parseVariables('- a\n', 'v.yaml').problems).toEqual([{ path: 'v.yaml', line: 1, message: 'must be a mapping of variable names to strings: ignored', severity: 'warning' }]);
    expect(parseVariables('a: x\nnested:\n  b: c\n', 'v.yaml')).toEqual({
      variables: { a: 'x' },
      problems: [{ path: 'v.yaml', line: 2, message: 'variable nested must be a string, found a mapping: ignored', severity: 'warning' }],
    });
  });

  it('serializes so that values read back unchanged', () => {
    const variables = { version: '3.10', enabled: 'true', name: 'Quire: docs' };
    expect(parseVariables(serializeVariables(variables), 'v.yaml').variables).toEqual(variables);
    expect(parseVariables(serializeVariables({}), 'v.yaml').variables).toEqual({});
  });
});
