import { describe, expect, it } from 'vitest';
import { boundedParagraphs, convertedParts, indexedPart, MAX_BLOCK_RUN, MAX_INDEXED_TEXT, MAX_PARAGRAPH } from '../../src/content/bounded-markdown.js';
import { markdownToDocument } from '../../src/content/document.js';
import { pageHtml } from '../../src/content/page-html.js';
import { pageSections } from '../../src/content/search-text.js';
import { extractLinks } from '../../src/content/links.js';
import { splitTitle } from '../../src/content/page-title.js';

// Unclosed brackets and emphasis: micromark matches them back across the whole paragraph.
const WORDS = ['lorem', 'ipsum', '[dolor', 'sit', 'amet', '*consectetur', 'adipiscing', 'elit', '[sed](other.md)', 'do', 'eiusmod', '*tempor*'];

function oneLine(bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    parts.push(WORDS[i % WORDS.length]);
    size += WORDS[i % WORDS.length].length + 1;
  }
  return parts.join(' ');
}

/**
 * The CPU time this process spent on `run`, in ms, the best of four runs. CPU time, not time on the clock: other
 * processes busy on the same cores (the other test files) delay a run without adding to it. The best of several: the
 * process's other threads (a collector's, a finished suite's pool) add to some runs.
 */
function cpuTimed(run: () => unknown): number {
  let best = Infinity;
  for (let i = 0; i < 4; i++) {
    const started = process.cpuUsage();
    run();
    const { user, system } = process.cpuUsage(started);
    best = Math.min(best, (user + system) / 1000);
  }
  return best;
}

describe('boundedParagraphs', () => {
  it('leaves text with short paragraphs as it is', () => {
    const text = `# Title\n\n${'word '.repeat(1000)}\n\nmore\n`;
    expect(boundedParagraphs(text).text).toBe(text);
  });

  it('ends every paragraph within the limit, adding only line breaks, and maps offsets back', () => {
    const text = `# Title\n\n${oneLine(100_000)}\n${'a line of text\n'.repeat(3000)}\n`;
    const { text: bounded, originalOffset } = boundedParagraphs(text);
    for (const paragraph of bounded.split(/\n[ \t]*\n/)) expect(paragraph.length).toBeLessThanOrEqual(MAX_PARAGRAPH);
    expect(bounded.replace(/\s+/g, '')).toBe(text.replace(/\s+/g, ''));
    const last = bounded.lastIndexOf('a line of text');
    expect(text.slice(originalOffset(last), originalOffset(last) + 14)).toBe('a line of text');
  });

  it('leaves fenced code whole, and starts a new count at list items, headings and table rows', () => {
    const code = `\`\`\`js\n${'const x = 1;\n'.repeat(5_000)}\`\`\`\n`;
    const list = '- [item](x.md) with *some* text\n'.repeat(2_000);
    const table = `| a | b |\n| --- | :-: |\n${'| [x](y.md) | *z* |\n'.repeat(2_000)}`;
    for (const block of [code, list, table]) {
      expect(block.length).toBeGreaterThan(MAX_PARAGRAPH);
      expect(block.length).toBeLessThan(MAX_BLOCK_RUN);
      const text = `# Title\n\n${block}\nAfter.\n`;
      expect(boundedParagraphs(text).text).toBe(text);
    }
    // Past MAX_BLOCK_RUN without a blank line, even such lines are cut: the parser never gets more at once.
    const long = '- item\n'.repeat(MAX_BLOCK_RUN / 4);
    for (const part of boundedParagraphs(long).text.split('\n\n')) expect(part.length).toBeLessThanOrEqual(MAX_BLOCK_RUN);
    // An ordered item after 1 continues a paragraph: counted with it.
    const continued = `text\n${'2. [a](b) *c*\n'.repeat(3_000)}`;
    for (const part of boundedParagraphs(continued).text.split('\n\n')) expect(part.length).toBeLessThanOrEqual(MAX_PARAGRAPH);
  });

  it('cuts a line without spaces too', () => {
    const { text } = boundedParagraphs('x'.repeat(3 * MAX_PARAGRAPH));
    expect(text.split('\n\n').map((p) => p.length)).toEqual([MAX_PARAGRAPH, MAX_PARAGRAPH, MAX_PARAGRAPH]);
  });
});

describe('indexedPart', () => {
  it('is the whole text up to the limit, else its first MAX_INDEXED_TEXT characters, cut at a line end nearby', () => {
    expect(indexedPart('short')).toEqual({ text: 'short', cut: false });
    const long = `${'x'.repeat(MAX_INDEXED_TEXT - 10)}\n${'y'.repeat(100)}`;
    expect(indexedPart(long)).toEqual({ text: 'x'.repeat(MAX_INDEXED_TEXT - 10), cut: true });
    expect(indexedPart('z'.repeat(2 * MAX_INDEXED_TEXT)).text.length).toBe(MAX_INDEXED_TEXT);
  });
});

describe('convertedParts', () => {
  it('converts the first MAX_INDEXED_TEXT characters with their markup, the rest as plain paragraphs', { timeout: 300_000 }, () => {
    expect(convertedParts('# Short\n\n*page*\n')).toEqual({ markup: '# Short\n\n*page*\n', plain: [] });
    const head = `# Big\n\n${'lorem ipsum dolor sit amet\n\n'.repeat(MAX_INDEXED_TEXT / 28)}`;
    const markdown = `${head}\nxx *one*\n\n  \n[two](x.md)\n`;
    const { markup, plain } = convertedParts(markdown);
    expect(markup.length).toBeLessThanOrEqual(MAX_INDEXED_TEXT);
    expect(markup + markdown.slice(markup.length)).toBe(markdown);
    expect(plain.at(-2)?.endsWith('xx *one*')).toBe(true);
    expect(plain.at(-1)).toBe('[two](x.md)');
    const document = markdownToDocument(markdown);
    expect(document.nodes.at(-1)).toEqual({ object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: '[two](x.md)', marks: [] }] }] });
    expect(pageHtml(markdown, { resolveHref: () => undefined }).html.endsWith('<p>[two](x.md)</p>')).toBe(true);
  });
});

describe('parsing a one-line page takes time proportional to its size', () => {
  // Before the paragraphs were bounded, 4x the text took 12x (search) and 18x (links) the time.
  it.each([
    ['search sections', pageSections],
    ['links', extractLinks],
  ])('%s: 4x the text, less than 7x the CPU time', { timeout: 120_000 }, (_name, parse) => {
    const small = oneLine(128 * 1024);
    const big = oneLine(512 * 1024);
    parse(small); // warm up
    const ratio = cpuTimed(() => parse(big)) / cpuTimed(() => parse(small));
    expect(ratio).toBeLessThan(7);
  });

  it('finds the title after a 1 MB one-line paragraph within a generous bound of CPU time', { timeout: 120_000 }, () => {
    const body = `${oneLine(1024 * 1024)}\n# a\n\n# Title\n`;
    const started = process.cpuUsage();
    expect(splitTitle(body)).toMatchObject({ title: 'a' });
    const { user, system } = process.cpuUsage(started);
    expect((user + system) / 1000).toBeLessThan(30_000);
  });
});
