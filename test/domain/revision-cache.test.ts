/**
 * The content cache at its default size keeps what a push to a 10,000-page space reuses: its SUMMARY.md parse and
 * its trees' listings (a store whose share is smaller than one entry keeps nothing, silently).
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../config/index.js';
import { RevisionCache } from '../../src/domain/content/revisions.js';
import { keptSummary, parseAndKeepSummary, summaryKey } from '../../src/content/summary-kept.js';
import type { ListedTree } from '../../src/store/git/reader.js';

describe('the content cache at its default size', () => {
  const config = loadConfig({}, { dataDir: '/nonexistent' });
  // As the container makes it: the content cache's bytes less the history facts' eighth.
  const cache = new RevisionCache(config.contentCacheBytes - Math.floor(config.contentCacheBytes / 8));
  const paths = Array.from({ length: 10_000 }, (_, i) => `section-${Math.floor(i / 50)}/page-${i}.md`);

  it("keeps a 10,000-line SUMMARY.md's parse", () => {
    const text = ['# Table of contents', '', ...paths.map((p, i) => `* [Page number ${i}](${p})`)].join('\n');
    const existing = new Set(paths);
    const exists = (gitPath: string) => existing.has(gitPath);
    const key = summaryKey('a'.repeat(40), { path: 'SUMMARY.md', root: '' });
    const parsed = parseAndKeepSummary(cache.parsedSummaries, key, text, { path: 'SUMMARY.md', root: '', exists });
    expect(parsed.structure.entries).toHaveLength(10_000);
    expect(keptSummary(cache.parsedSummaries, key, exists)).toBe(parsed);
  });

  it("keeps the listings of a 10,000-page space's 200 folders", () => {
    for (let folder = 0; folder < 200; folder++) {
      const tree: ListedTree = paths.slice(folder * 50, folder * 50 + 50).map((p, i) => ({ name: p.split('/')[1], mode: '100644', oid: `${folder}`.padStart(20, '0') + `${i}`.padStart(20, '0'), isTree: false, size: 1500 }));
      cache.treeListings.set(`tree-${folder}`, tree);
    }
    for (let folder = 0; folder < 200; folder++) expect(cache.treeListings.get(`tree-${folder}`)).toHaveLength(50);
  });
});
