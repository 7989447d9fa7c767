import { describe, expect, it } from 'vitest';
import { parseSiteConfig, planMonorepo } from '../../src/content/monorepo.js';
import { inProjectDirectory, normalizeProjectDirectory } from '../../src/content/project-directory.js';
import { blobOid } from '../../src/content/files.js';

function source(files: Record<string, string>) {
  const bytes = new Map<string, Buffer>();
  const entries = Object.entries(files).map(([path, text]) => {
    const data = Buffer.from(text);
    const oid = blobOid(data);
    bytes.set(oid, data);
    return { path, mode: '100644', oid, size: data.length };
  });
  return { entries, readBlob: async (oid: string) => bytes.get(oid)! };
}

describe('project directories', () => {
  it('normalizes the forms people write and refuses folders outside the tree', () => {
    expect(['', '.', './', '/'].map(normalizeProjectDirectory)).toEqual(['', '', '', '']);
    expect(['docs', './docs', '/docs/', 'docs//', './a/./b'].map(normalizeProjectDirectory)).toEqual(['docs/', 'docs/', 'docs/', 'docs/', 'a/b/']);
    expect(['../x', 'a/../../b', 'a/.git', 'a\\b', 'a//b'].map(normalizeProjectDirectory)).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });

  it('keeps the entries under the directory, relative to it', () => {
    const entries = [{ path: 'a/README.md' }, { path: 'ab/README.md' }, { path: 'a/b/c.md' }, { path: 'README.md' }];
    expect(inProjectDirectory(entries, 'a/').map((e) => e.path)).toEqual(['README.md', 'b/c.md']);
    expect(inProjectDirectory(entries, '')).toBe(entries);
  });
});

describe('docs.yaml (GitSyncSiteConfig)', () => {
  it('names the field of a problem', () => {
    const bad = (text: string) => () => parseSiteConfig(text);
    expect(bad('site: 3')).toThrow(/^docs\.yaml: site: must be a mapping/);
    expect(bad('site:\n  structure:\n    - type: page\n      key: a')).toThrow(/^docs\.yaml: site\.structure\[0\]\.type: /);
    expect(bad('site:\n  structure:\n    - type: space\n      key: a\n      content: {directory: ../x}')).toThrow(/site\.structure\[0\]\.content\.directory: /);
    expect(bad('site:\n  structure:\n    - {type: space, key: a, content: {directory: a}}\n    - {type: space, key: a, content: {directory: b}}')).toThrow(/site\.structure\[1\]\.key: /);
    expect(bad('site:\n  structure:\n    - {type: space, key: a, content: {directory: a}}\n    - {type: section, key: s, children: [{type: space, key: b, content: {directory: b}}]}')).toThrow(
      /site\.structure: mixes spaces with sections/,
    );
    expect(bad('site: [unclosed')).toThrow(/^docs\.yaml: not valid YAML/);
  });

  it('leaves out spaces whose directory is null', () => {
    const { site, skipped } = parseSiteConfig('site:\n  structure:\n    - {type: space, key: a, content: {directory: ./a}}\n    - {type: space, key: b, content: {directory: null}}');
    expect(site.structure.map((item) => item.key)).toEqual(['a']);
    expect(skipped).toEqual(['b']);
  });
});

describe('finding the project directories', () => {
  it('takes folders with a .gitbook.yaml, and folders with a SUMMARY.md outside every other project', async () => {
    const { plan } = await planMonorepo(
      source({
        'packages/api/.gitbook.yaml': 'root: ./docs/\n',
        'packages/api/docs/SUMMARY.md': '# S\n',
        'packages/app/SUMMARY.md': '# S\n',
        'packages/app/guide/SUMMARY.md': '# nested, part of app\n',
        'packages/styleguide/.gitbook.yaml': '',
        'package.json': '{}',
      }),
    );
    expect(plan.projects.map((p) => p.directory)).toEqual(['packages/api/', 'packages/app/', 'packages/styleguide/']);
  });

  it('takes the root when nothing marks a project', async () => {
    const { plan } = await planMonorepo(source({ 'README.md': '# Hi\n' }));
    expect(plan.projects.map((p) => p.directory)).toEqual(['']);
  });

  it('reports a docs.yaml directory that holds nothing', async () => {
    const { problems } = await planMonorepo(source({ 'docs.yaml': 'site:\n  structure:\n    - {type: space, key: a, content: {directory: ./missing}}', 'README.md': '' }));
    expect(problems.map((p) => p.message)).toEqual(['space "a": content.directory "missing/" holds no files in this repository']);
  });
});
