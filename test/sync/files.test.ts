/**
 * The pieces of `quire sync` that decide names and patterns: which paths are never synced, where the server's copy
 * of a conflicting file goes, and the managed block of `.git/info/exclude`.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { commitMessage, isIgnoredPath, readState, serverCopyPath, writeExcludes, writeState } from '../../src/sync/files.js';

const temporary: string[] = [];
afterAll(async () => Promise.all(temporary.map((dir) => fs.rm(dir, { recursive: true, force: true }))));

describe('quire sync files', () => {
  it('never syncs .git or editor temp files, and syncs everything else', () => {
    for (const ignored of ['.git', '.git/config', 'sub/.git/HEAD', '.page.md.swp', 'docs/.page.md.swo', 'page.md~', '.#page.md', '#page.md#', '4913', 'docs/4913']) {
      expect(isIgnoredPath(ignored), ignored).toBe(true);
    }
    for (const synced of ['page.md', '.gitbook/assets/a.png', '.gitignore', 'docs/49130.md', 'swp.md', 'page.server.md', 'a~b.md']) {
      expect(isIgnoredPath(synced), synced).toBe(false);
    }
  });

  it('puts the server copy before the extension, and numbers it when the name is taken', async () => {
    const none = async () => false;
    expect(await serverCopyPath('guide/intro.md', none)).toBe('guide/intro.server.md');
    expect(await serverCopyPath('README.md', none)).toBe('README.server.md');
    expect(await serverCopyPath('Makefile', none)).toBe('Makefile.server');
    expect(await serverCopyPath('.gitbook/vars.yaml', none)).toBe('.gitbook/vars.server.yaml');
    expect(await serverCopyPath('.env', none)).toBe('.env.server');
    const taken = new Set(['a/b.server.md', 'a/b.server-2.md']);
    expect(await serverCopyPath('a/b.md', async (candidate) => taken.has(candidate))).toBe('a/b.server-3.md');
  });

  it('manages its own block of .git/info/exclude, leaving the rest alone, with names matched exactly', async () => {
    const gitDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-sync-files-'));
    temporary.push(gitDir);
    await fs.mkdir(path.join(gitDir, 'info'));
    await fs.writeFile(path.join(gitDir, 'info/exclude'), '# mine\n*.log');
    await writeExcludes(gitDir, ['docs/page.server.md', 'odd [1]*.server.md']);
    const first = await fs.readFile(path.join(gitDir, 'info/exclude'), 'utf8');
    expect(first.startsWith('# mine\n*.log\n# >>> quire sync')).toBe(true);
    expect(first).toContain('\n*.sw[a-p]\n*~\n.#*\n#*#\n4913\n');
    expect(first).toContain('\n/docs/page.server.md\n/odd \\[1\\]\\*.server.md\n# <<< quire sync\n');

    await writeExcludes(gitDir, []);
    const second = await fs.readFile(path.join(gitDir, 'info/exclude'), 'utf8');
    expect(second.startsWith('# mine\n*.log\n# >>> quire sync')).toBe(true);
    expect(second).not.toContain('server.md');
    expect(second.match(/# >>> quire sync/g)).toHaveLength(1);

    expect(await readState(gitDir)).toEqual({ held: {}, refused: {} });
    await writeState(gitDir, { held: { 'a.md': { copy: 'a.server.md' } }, refused: { 'b.md': null } });
    expect(await readState(gitDir)).toEqual({ held: { 'a.md': { copy: 'a.server.md' } }, refused: { 'b.md': null } });
  });

  it('names the changed files in the commit message', () => {
    const message = commitMessage([
      { path: 'a.md', change: 'edited' },
      { path: 'b.md', change: 'added' },
      { path: 'c.md', change: 'deleted' },
    ]);
    expect(message).toBe('quire sync: a.md, b.md, c.md\n\n- a.md (edited)\n- b.md (added)\n- c.md (deleted)\n');
    const many = commitMessage(Array.from({ length: 8 }, (_, i) => ({ path: `p${i}.md`, change: 'edited' as const })));
    expect(many.split('\n')[0]).toBe('quire sync: p0.md, p1.md, p2.md, p3.md, p4.md and 3 more');
  });
});
