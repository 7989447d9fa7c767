/**
 * listBlobs with the container's tree listings: the listing of a commit is the same whether its trees were listed
 * before or not (renames, deletions, a symlink, a submodule), and a commit that changes one folder reads only the
 * trees it changed.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitReader, type ListedTree } from '../../src/store/git/reader.js';
import type { GitStore } from '../../src/store/git/repositories.js';

describe('listBlobs with tree listings', () => {
  let root: string;
  let gitDir: string;
  let work: string;
  const commits: string[] = [];
  const git = (...args: string[]) => execFileSync('git', ['-C', work, ...args], { env: { ...process.env, GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@example.com', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@example.com' } }).toString();
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
    fs.writeFileSync(path.join(work, file), text);
  };
  const commit = (message: string) => {
    git('add', '-A');
    git('commit', '-q', '-m', message);
    commits.push(git('rev-parse', 'HEAD^{tree}').trim());
  };
  /** The oids of every tree of a commit's tree, itself included. */
  const treesOf = (tree: string) =>
    new Set([
      tree,
      ...git('ls-tree', '-r', '-t', tree)
        .split('\n')
        .filter((line) => line.includes(' tree '))
        .map((line) => line.split(/\s+/)[2]),
    ]);

  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-listings-'));
    work = path.join(root, 'work');
    gitDir = path.join(work, '.git');
    execFileSync('git', ['init', '-q', work]);
    write('README.md', '# Home\n');
    for (let i = 0; i < 30; i++) write(`guides/page-${i}.md`, `# Guide ${i}\n${'text '.repeat(i * 10)}`);
    write('reference/api/get.md', '# Get\n');
    write('reference/api/put.md', '# Put\n');
    write('odd names/é ü #1.md', '# Odd\n');
    fs.symlinkSync('README.md', path.join(work, 'link.md'));
    commit('first');
    // A submodule's commit (mode 160000): listed with size 0.
    git('update-index', '--add', '--cacheinfo', `160000,${'a'.repeat(40)},vendor/module`);
    git('commit', '-q', '-m', 'submodule');
    commits.push(git('rev-parse', 'HEAD^{tree}').trim());
    write('guides/page-3.md', '# Guide 3, edited\n');
    commit('one page edited');
    git('mv', 'reference/api/put.md', 'reference/put.md');
    fs.rmSync(path.join(work, 'guides/page-7.md'));
    commit('a rename and a deletion');
  });
  afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

  const readerWith = (listings?: Map<string, ListedTree>, reads?: string[]) =>
    new GitReader({ repositoryPath: () => gitDir } as unknown as GitStore, {
      listings: listings && {
        get: (oid) => listings.get(oid),
        set: (oid, tree) => {
          reads?.push(oid);
          listings.set(oid, tree);
        },
      },
    });
  const sorted = <T extends { path: string }>(entries: T[]) => [...entries].sort((a, b) => (a.path < b.path ? -1 : 1));

  it('lists every commit as a reader with no listings does', async () => {
    const plain = readerWith();
    const listings = new Map<string, ListedTree>();
    const kept = readerWith(listings);
    try {
      for (const tree of commits) {
        const expected = sorted(await plain.listBlobs('space', tree));
        expect(sorted(await kept.listBlobs('space', tree))).toEqual(expected);
        // Again, every tree now taken from the listings.
        expect(sorted(await kept.listBlobs('space', tree))).toEqual(expected);
      }
      const withModule = await plain.listBlobs('space', commits[1]);
      expect(withModule.find((e) => e.path === 'vendor/module')).toMatchObject({ mode: '160000', size: 0 });
      const last = sorted(await plain.listBlobs('space', commits[3]));
      expect(last.find((e) => e.path === 'link.md')).toMatchObject({ mode: '120000', size: 'README.md'.length });
      expect(last.find((e) => e.path === 'odd names/é ü #1.md')?.size).toBe(Buffer.byteLength('# Odd\n'));
      expect(last.map((e) => e.path)).toContain('reference/put.md');
      expect(last.map((e) => e.path)).not.toContain('guides/page-7.md');
    } finally {
      plain.close();
      kept.close();
    }
  });

  it('reads only the trees a commit changed', async () => {
    const listings = new Map<string, ListedTree>();
    const reads: string[] = [];
    const reader = readerWith(listings, reads);
    try {
      await reader.listBlobs('space', commits[1]);
      expect(new Set(reads)).toEqual(treesOf(commits[1]));
      for (const [before, after] of [[1, 2], [2, 3]]) {
        reads.length = 0;
        await reader.listBlobs('space', commits[after]);
        const changed = [...treesOf(commits[after])].filter((oid) => !treesOf(commits[before]).has(oid));
        expect(new Set(reads)).toEqual(new Set(changed));
        expect(reads.length).toBeLessThan(treesOf(commits[after]).size);
      }
    } finally {
      reader.close();
    }
  });
});
