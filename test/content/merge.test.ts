import { describe, expect, it } from 'vitest';
import { mergeFrontMatter, mergePageFile, type TextMerge } from '../../src/content/merge.js';

/** A text merge for the pure tests: clean when at most one side changed. */
const oneSided: TextMerge = async (base, ours, theirs) => {
  if (ours === theirs || theirs === base) return { text: ours, clean: true };
  if (ours === base) return { text: theirs, clean: true };
  return { text: ours, clean: false };
};

describe('merging by structure', () => {
  it('merges front matter key by key, keeping our order and their new keys', () => {
    const merged = mergeFrontMatter({ a: 1, b: 2, c: 3 }, { a: 10, b: 2, c: 3, d: 4 }, { a: 1, b: 20, e: 5 });
    expect(merged).toEqual({ data: { a: 10, b: 20, d: 4, e: 5 }, conflicts: [] });
    expect(Object.keys(merged.data)).toEqual(['a', 'b', 'd', 'e']);
  });

  it('reports keys both sides changed differently, and accepts the same change on both', () => {
    expect(mergeFrontMatter({ a: 1 }, { a: 2 }, { a: 3 }).conflicts).toEqual(['a']);
    expect(mergeFrontMatter({ a: { x: 1 } }, { a: { x: 2 } }, { a: { x: 2 } })).toEqual({ data: { a: { x: 2 } }, conflicts: [] });
  });

  it('merges a page: front matter by key and the body by the text merge; a body conflict stays a conflict', async () => {
    const page = (description: string, icon: string, body = 'Body.\n') => `---\ndescription: ${description}\nicon: ${icon}\n---\n\n# Guide\n\n${body}`;
    const result = await mergePageFile(page('old', 'book'), page('new', 'book'), page('old', 'rocket'), 'guide.md', oneSided);
    expect(result.clean).toBe(true);
    expect(result.text).toContain('description: new');
    expect(result.text).toContain('icon: rocket');
    expect(result.text).toContain('# Guide\n\nBody.\n');
    const bodies = await mergePageFile(page('a', 'b', 'One.\n'), page('a', 'b', 'Two.\n'), page('a', 'b', 'Three.\n'), 'guide.md', oneSided);
    expect(bodies.clean).toBe(false);
    const broken = await mergePageFile('---\na: [\n---\n', '---\na: 1\n---\n', '---\na: 2\n---\n', 'guide.md', oneSided);
    expect(broken.clean).toBe(false);
  });

  it('keeps front matter bytes as written when one side did not touch it', async () => {
    const ours = '---\ndescription:   spaced  \n---\n# T\n\nOurs.\n';
    const base = '---\ndescription:   spaced  \n---\n# T\n\nBase.\n';
    const result = await mergePageFile(base, ours, base, 'p.md', oneSided);
    expect(result).toEqual({ text: ours, clean: true });
  });
});

describe('merging the id manifest', () => {
  it('keeps ids both sides added, and refuses one path given two ids', async () => {
    const { mergeManifestFile } = await import('../../src/content/merge.js');
    const base = 'pages:\n  a.md: id-a\nfiles: {}\n';
    const ours = 'pages:\n  a.md: id-a\n  b.md: id-b\nfiles: {}\n';
    const theirs = 'pages:\n  a.md: id-a\n  c.md: id-c\nfiles:\n  x.png: id-x\n';
    const merged = mergeManifestFile(base, ours, theirs);
    expect(merged.clean).toBe(true);
    expect(merged.text).toContain('b.md: id-b');
    expect(merged.text).toContain('c.md: id-c');
    expect(merged.text).toContain('x.png: id-x');
    const clash = mergeManifestFile(base, 'pages:\n  a.md: id-a\n  d.md: one\n', 'pages:\n  a.md: id-a\n  d.md: two\n');
    expect(clash.clean).toBe(false);
  });
});
