import { describe, expect, it } from 'vitest';
import { normalizePath, relativePath, resolvePath, slugify, trimSlashes } from '../../src/content/paths.js';
import { isEmail } from '../../src/domain/identity/users.js';

describe('paths', () => {
  it('normalizes and refuses escapes', () => {
    expect(normalizePath('./a//b/../c.md')).toBe('a/c.md');
    expect(normalizePath('a/../../b')).toBeUndefined();
    expect(resolvePath('guide/', '../.gitbook/assets/x.png')).toBe('.gitbook/assets/x.png');
    expect(resolvePath('guide/', '/root.md')).toBe('root.md');
  });

  it('writes a path relative to a folder', () => {
    expect(relativePath('', 'a/b.md')).toBe('a/b.md');
    expect(relativePath('docs/', 'docs/a.md')).toBe('a.md');
    expect(relativePath('toc/', 'README.md')).toBe('../README.md');
    expect(relativePath('a/b/', 'a/c/d.md')).toBe('../c/d.md');
  });

  it('slugifies titles and file names', () => {
    expect(slugify('Getting Started')).toBe('getting-started');
    expect(slugify('API reference (v2.1)')).toBe('api-reference-v2.1');
    expect(slugify('Café & Crème')).toBe('cafe-creme');
    expect(slugify('日本語のページ')).toBe('日本語のページ');
    expect(slugify('Привет мир')).toBe('привет-мир');
    expect(slugify('Йод')).toBe('йод');
    expect(slugify('  --  ')).toBe('page');
    expect(slugify('', 'group')).toBe('group');
    expect(slugify('.-a-.')).toBe('a');
  });

  it('trims in one pass over long runs that do not end the text (slugs, paths, e-mail addresses)', () => {
    expect(slugify(`a${'-.'.repeat(100_000)}b`)).toBe(`a${'-.'.repeat(100_000)}b`);
    expect(slugify(`a${' .'.repeat(100_000)}`)).toBe('a');
    expect(trimSlashes(`//a${'/'.repeat(200_000)}b//`)).toBe(`a${'/'.repeat(200_000)}b`);
    expect(isEmail(`a@${'b.'.repeat(100_000)} `)).toBe(false);
    expect(isEmail(`a@${'b.'.repeat(100_000)}c`)).toBe(true);
    expect(['a@b.c', 'a@b', 'a@.c', 'a@b.', '@b.c', 'a@@b.c', 'a b@c.d', 'a@b@c.d'].filter(isEmail)).toEqual(['a@b.c']);
  });
});
