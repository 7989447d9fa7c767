/**
 * Blobs written as files by git itself (src/store/git/blob-files.ts): the bytes as stored, whatever the machine's git
 * settings say of line endings and attributes; a missing blob fails the whole write; which paths git takes as they are.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writableByGit, writeBlobFiles } from '../../src/store/git/blob-files.js';

describe('writeBlobFiles', () => {
  let root: string;
  let gitDir: string;
  const saved = process.env.GIT_CONFIG_GLOBAL;
  const blobs = [Buffer.from('line one\r\nline two\n'), Buffer.from(Array.from({ length: 300_000 }, (_, i) => (i * 13) % 256)), Buffer.alloc(0)];
  let oids: string[];

  beforeAll(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-blob-files-test-'));
    gitDir = path.join(root, 'repo.git');
    execFileSync('git', ['init', '-q', '--bare', gitDir]);
    oids = blobs.map((data) => execFileSync('git', ['--git-dir', gitDir, 'hash-object', '-w', '--stdin'], { input: data }).toString().trim());
    // A machine whose git would convert line endings of every file it checks out.
    const attributes = path.join(root, 'attributes');
    fs.writeFileSync(attributes, '* text eol=crlf\n');
    const config = path.join(root, 'gitconfig');
    fs.writeFileSync(config, `[core]\n\tautocrlf = true\n\tattributesFile = ${attributes}\n`);
    process.env.GIT_CONFIG_GLOBAL = config;
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.GIT_CONFIG_GLOBAL;
    else process.env.GIT_CONFIG_GLOBAL = saved;
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('writes each blob at its path, byte for byte, folders made', async () => {
    const dir = path.join(root, 'out');
    const files = oids.map((oid, i) => ({ oid, path: `~files/space/${oid}/name ${i} (1).png` }));
    await writeBlobFiles(gitDir, dir, files);
    files.forEach((file, i) => expect(fs.readFileSync(path.join(dir, ...file.path.split('/'))).equals(blobs[i])).toBe(true));
  });

  it('fails when a blob is missing', async () => {
    await expect(writeBlobFiles(gitDir, path.join(root, 'missing'), [{ oid: '1'.repeat(40), path: 'a/b.png' }])).rejects.toThrow();
  });

  it('takes only plain relative paths', () => {
    expect(writableByGit('~files/space/0123/hero image.png')).toBe(true);
    for (const bad of ['', 'a//b', './a', 'a/../b', 'a/.gitattributes', '.git/config', 'a/b\\c', 'a/b\nc']) expect(writableByGit(bad)).toBe(false);
  });
});
