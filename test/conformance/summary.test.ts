/**
 * The harness's own reading of `.gitbook.yaml` and SUMMARY.md (scripts/conformance/summary.ts): what it expects
 * decides PASS or FAIL, so it is checked here on the forms real repositories use.
 */
import { describe, expect, it } from 'vitest';
import { layoutOf, pagesWithoutSummary, parseExpectedSummary } from '../../scripts/conformance/summary.js';

describe('harness layout from .gitbook.yaml', () => {
  it('defaults without a file, with an empty file and with invisible characters around keys', () => {
    expect(layoutOf(undefined)).toEqual({ root: '', summaryPath: 'SUMMARY.md' });
    expect(layoutOf('')).toEqual({ root: '', summaryPath: 'SUMMARY.md' });
    expect(layoutOf('\uFEFFroot: ./docs/\n\u200Bstructure:\n  summary: toc/SUMMARY.md\u200B\n')).toEqual({ root: 'docs/', summaryPath: 'docs/toc/SUMMARY.md' });
    expect(layoutOf('root: docs')).toEqual({ root: 'docs/', summaryPath: 'docs/SUMMARY.md' });
    expect(layoutOf('root: ./\n')).toEqual({ root: '', summaryPath: 'SUMMARY.md' });
  });
});

describe('harness SUMMARY.md expectations', () => {
  const layout = { root: '', summaryPath: 'SUMMARY.md' };

  it('takes link texts as titles, resolves escaped, angle-bracket, encoded, anchored, folder and root targets', () => {
    const expected = parseExpectedSummary(
      [
        '# Table of Contents',
        '',
        '* [Welcome](README.md)',
        '  * [Minimax Music \\[legacy\\]](models/minimax-music-\\[legacy].md)',
        '  * [First steps](<user guide/first steps.md> "Start")',
        '* [Getting started](getting%20started.md)',
        '* [Billing](faq.md#billing)',
        ' * [Version nine](/contents/9/)',
        '- [Migrating to SDK\\(3.x\\) reference](sdk/migration.md)',
        '<!-- * [Hidden](hidden.md) -->',
      ].join('\n'),
      layout,
    );
    expect(expected.listings.map(({ gitPath, title }) => [gitPath, title])).toEqual([
      ['README.md', 'Welcome'],
      ['models/minimax-music-[legacy].md', 'Minimax Music [legacy]'],
      ['user guide/first steps.md', 'First steps'],
      ['getting started.md', 'Getting started'],
      ['faq.md', 'Billing'],
      ['contents/9/README.md', 'Version nine'],
      ['sdk/migration.md', 'Migrating to SDK(3.x) reference'],
    ]);
    expect(expected.groups).toEqual([]);
  });

  it('counts groups (anchors dropped, a `##` first heading included), URL items, yaml blocks and text items', () => {
    const expected = parseExpectedSummary(
      [
        '## 9',
        '### Get started <a href="#get-started" id="get-started"></a>',
        '* [Status](https://status.example.com)',
        '* [Section](#section)',
        '- Overview',
        '    - [Nodes](mining/nodes.md)',
        '  * ```yaml',
        '    type: builtin:openapi',
        '    props:',
        '      models: true',
        '    ```',
        '## Reference <a id="ref"></a>',
        '* [Page](folder/page.html)',
      ].join('\n'),
      layout,
    );
    expect(expected.groups).toEqual(['9', 'Get started', 'Reference']);
    expect(expected.urlItems).toBe(2);
    expect(expected.computedItems).toBe(1);
    expect(expected.listings.map((l) => l.gitPath)).toEqual(['mining/nodes.md']);
    expect(expected.otherTargets).toEqual(['folder/page.html']);
  });

  it('resolves targets from a SUMMARY.md in a folder of the root, and leaves out targets outside the root', () => {
    const expected = parseExpectedSummary('* [Intro](../intro.md)\n* [Out](../../outside.md)\n', { root: 'docs/', summaryPath: 'docs/toc/SUMMARY.md' });
    expect(expected.listings.map((l) => l.gitPath)).toEqual(['docs/intro.md']);
  });

  it('without SUMMARY.md: every .md under the root outside dot-folders', () => {
    expect(pagesWithoutSummary(['README.md', 'a/b.md', '.gitbook/assets/n.md', 'x/.hidden/y.md', 'logo.png', 'other/c.MD'], layout)).toEqual(['README.md', 'a/b.md', 'other/c.MD']);
    expect(pagesWithoutSummary(['README.md', 'docs/a.md'], { root: 'docs/', summaryPath: 'docs/SUMMARY.md' })).toEqual(['docs/a.md']);
  });
});
