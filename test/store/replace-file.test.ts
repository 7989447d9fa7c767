/** Files replaced whole (src/store/replace-file.ts), by writers that overlap. */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { replaceFile, replaceFileSync } from '../../src/store/replace-file.js';

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-replace-file-'));
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

it('lets writers that overlap each replace the file: one text whole remains, and no temporary file', async () => {
  const file = path.join(dir, 'serve.json');
  const texts = Array.from({ length: 20 }, (_, i) => `${JSON.stringify({ writer: i, padding: 'x'.repeat(10_000 * (i + 1)) })}\n`);
  await Promise.all(texts.map((text) => replaceFile(file, text)));
  expect(texts).toContain(await fs.readFile(file, 'utf8'));
  expect(await fs.readdir(dir)).toEqual(['serve.json']);
});

it('gives the file the mode asked for, and leaves nothing behind when it cannot write', async () => {
  const file = path.join(dir, 'hook');
  replaceFileSync(file, '#!/bin/sh\n', 0o755);
  expect((await fs.stat(file)).mode & 0o777).toBe(0o755);
  await expect(replaceFile(path.join(dir, 'missing', 'file'), 'text')).rejects.toThrow(/ENOENT/);
  await fs.mkdir(path.join(dir, 'a-folder'));
  expect(() => replaceFileSync(path.join(dir, 'a-folder'), 'text')).toThrow();
  expect((await fs.readdir(dir)).sort()).toEqual(['a-folder', 'hook']);
});
