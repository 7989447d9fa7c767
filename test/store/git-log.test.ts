/**
 * A page of history through one `git log` (src/store/git/log.ts): git's walk from a commit, past `skip`, at most
 * `maxCount`; fields cut at MAX_FIELD_BYTES as they stream; a path taken literally.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitStore } from '../../src/store/git/repositories.js';
import { logCommits, MAX_FIELD_BYTES } from '../../src/store/git/log.js';

describe('logCommits', () => {
  let root: string;
  let store: GitStore;
  const spaceId = 'log-test';
  const oids: string[] = [];
  let gitDir: string;

  const git = (args: string[], input?: string, env: Record<string, string> = {}) =>
    execFileSync('git', ['--git-dir', gitDir, ...args], { input, env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', ...env }, maxBuffer: 64 * 1024 * 1024 })
      .toString()
      .trim();
  /** A commit of one file's content over the previous commit, with `message`, at `seconds`. */
  const commit = (file: string, content: string, message: string, seconds: number) => {
    const parent = oids.at(-1);
    const blob = git(['hash-object', '-w', '--stdin'], content);
    const base = parent ? git(['ls-tree', parent]).split('\n').filter((line) => line && !line.endsWith(`\t${file}`)) : [];
    const tree = git(['mktree'], [...base, `100644 blob ${blob}\t${file}`].join('\n') + '\n');
    const date = `${seconds} +0000`;
    const env = { GIT_AUTHOR_NAME: 'Ann Author', GIT_AUTHOR_EMAIL: 'ann@example.com', GIT_AUTHOR_DATE: date, GIT_COMMITTER_NAME: 'Carl', GIT_COMMITTER_EMAIL: 'carl@example.com', GIT_COMMITTER_DATE: date };
    oids.push(git(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-F', '-'], message, env));
  };

  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-git-log-test-'));
    store = new GitStore(root);
    gitDir = store.repositoryPath(spaceId);
    fs.mkdirSync(path.dirname(gitDir), { recursive: true });
    execFileSync('git', ['init', '-q', '--bare', gitDir]);
    commit('a.md', 'one', 'First\n', 1_000_000_000);
    commit('*.md', 'star', 'A subject\nover two lines\n\nThe body.\n', 1_000_000_100);
    // 1 MB of two-byte characters after one byte: the cut falls inside a character.
    commit('a.md', 'two', `Long\n\nx${'é'.repeat(500_000)}\n`, 1_000_000_200);
    commit('b.md', 'three', 'Last\n', 1_000_000_300);
  });
  afterAll(async () => {
    await store.close();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('lists the walk newest first, each commit with its parents, author, committer and message', async () => {
    const all = await logCommits(store, spaceId, { from: oids[3], skip: 0, maxCount: 10 });
    expect(all.map((c) => c.oid)).toEqual([...oids].reverse());
    expect(all[2]).toEqual({
      oid: oids[1],
      parents: [oids[0]],
      authorName: 'Ann Author',
      authorEmail: 'ann@example.com',
      authoredAt: new Date(1_000_000_100 * 1000).toISOString(),
      committerName: 'Carl',
      committerEmail: 'carl@example.com',
      subject: 'A subject over two lines',
      body: 'The body.\n',
    });
    expect(all[3].parents).toEqual([]);
  });

  it('passes over `skip` commits and answers at most `maxCount`', async () => {
    expect((await logCommits(store, spaceId, { from: oids[3], skip: 1, maxCount: 2 })).map((c) => c.oid)).toEqual([oids[2], oids[1]]);
    expect(await logCommits(store, spaceId, { from: oids[3], skip: 4, maxCount: 2 })).toEqual([]);
    expect(await logCommits(store, spaceId, { from: oids[3], skip: 0, maxCount: 0 })).toEqual([]);
  });

  it('cuts a field at MAX_FIELD_BYTES, at a character boundary', async () => {
    const [long] = await logCommits(store, spaceId, { from: oids[2], skip: 0, maxCount: 1 });
    expect(long.subject).toBe('Long');
    expect(Buffer.byteLength(long.body)).toBe(MAX_FIELD_BYTES - 1);
    expect(long.body).toBe(`x${'é'.repeat((MAX_FIELD_BYTES - 2) / 2)}`);
  });

  it('takes a path literally, and a folder or file limits the walk to the commits changing it', async () => {
    expect((await logCommits(store, spaceId, { from: oids[3], skip: 0, maxCount: 10, path: '*.md' })).map((c) => c.oid)).toEqual([oids[1]]);
    expect((await logCommits(store, spaceId, { from: oids[3], skip: 0, maxCount: 10, path: 'a.md' })).map((c) => c.oid)).toEqual([oids[2], oids[0]]);
    expect((await logCommits(store, spaceId, { from: oids[3], skip: 1, maxCount: 10, path: 'a.md' })).map((c) => c.oid)).toEqual([oids[0]]);
  });

  it('fails on a commit the repository does not have, and refuses what is not a commit id', async () => {
    await expect(logCommits(store, spaceId, { from: '1'.repeat(40), skip: 0, maxCount: 1 })).rejects.toThrow(/git log failed/);
    await expect(logCommits(store, spaceId, { from: 'HEAD', skip: 0, maxCount: 1 })).rejects.toThrow(/not a commit id/);
  });
});
