/**
 * GitReader's cat-file processes, one per repository up to a limit: a process still answering reads is not closed to
 * make room for another repository's (its reads would fail, and with them a request that did nothing wrong).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitReader } from '../../src/store/git/reader.js';
import { GitStore } from '../../src/store/git/repositories.js';

describe('GitReader processes', () => {
  let dataDir: string;
  let store: GitStore;
  const blobs = new Map<string, string>();

  beforeAll(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-reader-processes-'));
    store = new GitStore(dataDir);
    for (const spaceId of ['space-a', 'space-b', 'space-c']) {
      const gitDir = store.repositoryPath(spaceId);
      execFileSync('git', ['init', '-q', '--bare', gitDir]);
      blobs.set(spaceId, execFileSync('git', ['--git-dir', gitDir, 'hash-object', '-w', '--stdin'], { input: `# ${spaceId}\n` }).toString().trim());
    }
  });
  afterAll(() => {
    store.launcher.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps a process that has reads pending when another repository needs one past the limit', async () => {
    const reader = new GitReader(store, { maxProcesses: 1 });
    try {
      // Asked in the same turn: the first repository's read is still pending when the second's process starts.
      const [a, b] = await Promise.all(['space-a', 'space-b'].map((spaceId) => reader.readBlob(spaceId, blobs.get(spaceId)!)));
      expect([a.toString(), b.toString()]).toEqual(['# space-a\n', '# space-b\n']);
      // Both idle now: the next repository's process takes the place of the least recently used, and reads go on.
      expect((await reader.readBlob('space-c', blobs.get('space-c')!)).toString()).toBe('# space-c\n');
      expect((await reader.readBlob('space-b', blobs.get('space-b')!)).toString()).toBe('# space-b\n');
    } finally {
      reader.close();
    }
  });
});
