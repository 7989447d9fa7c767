/**
 * The conformance harness on every fixture of test/helpers/gitbook-fixtures.ts: each repository pushes into a fresh
 * space of a temporary `quire serve`, clones back identical and reads as its SUMMARY.md says. One server and one
 * harness run for all fixtures (what `npm run conformance -- DIR...` does), then one test per fixture with the
 * harness's reasons as the message; and the harness's own promises: it fails a repository it cannot push and names
 * the failure, and its command line refuses a call without repositories.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runConformance, type RepositoryResult } from '../../scripts/conformance/harness.js';
import { formatResult, main } from '../../scripts/conformance/main.js';
import { GITBOOK_FIXTURES, FixtureRepository, buildGitbookFixture, page, summary } from '../helpers/gitbook-fixtures.js';

describe('conformance harness on the fixtures', () => {
  let parent: string;
  const results = new Map<string, RepositoryResult>();

  beforeAll(async () => {
    parent = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-fixtures-'));
    const dirs = await Promise.all(GITBOOK_FIXTURES.map((fixture) => buildGitbookFixture(fixture.name, parent)));
    // A refused push: a symbolic link is one of the few things Quire must refuse.
    const refused = await FixtureRepository.init(path.join(parent, 'refused-symlink'));
    await refused.commitFiles('Pages', { 'README.md': page('Welcome'), 'SUMMARY.md': summary('* [Welcome](README.md)') });
    await fs.symlink('/etc/passwd', path.join(refused.dir, 'passwd.md'));
    await refused.commit('A symbolic link');
    for (const result of await runConformance([...dirs, refused.dir], { searchTimeoutMs: 10_000, parallel: 2 })) results.set(result.name, result);
  }, 420_000);

  afterAll(async () => {
    await fs.rm(parent, { recursive: true, force: true });
  });

  it.each(GITBOOK_FIXTURES.map((fixture) => [fixture.name, fixture.pattern]))('%s (%s) passes', (name) => {
    const result = results.get(name)!;
    expect(result, `no result for ${name}`).toBeDefined();
    expect(result.failures, formatResult(result)).toEqual([]);
    expect(result.status).toBe('PASS');
  });

  it('crawls the published site of each fixture: every image form of real repositories answers, links to nothing are shown broken', () => {
    const site = results.get('images-and-html-links')!.site!;
    // Five image files, each fetched once: the figure's (shown again by a tab, percent-encoded, and by a subpage), the
    // picture's source and image, the table's (again root-relative from a subpage), the hint's.
    expect(site).toEqual({ pages: 3, images: 5, files: 0, markedBroken: 2, failed: 0 });
    for (const fixture of GITBOOK_FIXTURES) expect(results.get(fixture.name)!.site?.pages, fixture.name).toBeGreaterThan(0);
  });

  it('fails a repository whose push is refused, naming the push and the reason', () => {
    const result = results.get('refused-symlink')!;
    expect(result.status).toBe('FAIL');
    expect(result.failures[0]).toMatch(/^push: .*passwd\.md/);
    expect(formatResult(result)).toMatch(/^FAIL {2}refused-symlink .*push: /);
  });

  it('answers 2 to a command line without repositories', async () => {
    expect(await main([])).toBe(2);
  });
});
