/**
 * A file holds one idea: no file of the program (src/, app/src/) is longer than 500 lines unless its header says why
 * it is one idea all the same (the words "one idea" in its first comment). A long file is usually several ideas, and
 * the seams between them are where a reader wants to cut.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MAX_LINES = 500;

/** Every TypeScript file under `dir`, relative to the repository. */
function sources(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => path.relative(ROOT, path.join(entry.parentPath, entry.name)));
}

/** The file's first block comment, where it says what it holds. */
const header = (text: string) => /^\s*\/\*\*?([\s\S]*?)\*\//.exec(text)?.[1] ?? '';

describe('the size of files', () => {
  it(`keeps every file of src/ and app/src/ under ${MAX_LINES} lines, or says in its header why it is one idea`, () => {
    const files = [...sources('src'), ...sources('app/src')];
    expect(files.length).toBeGreaterThan(100);
    const long = files.filter((file) => {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      return text.split('\n').length > MAX_LINES && !/one idea/i.test(header(text).replace(/\s*\*\s*/g, ' '));
    });
    expect(long).toEqual([]);
  });
});
