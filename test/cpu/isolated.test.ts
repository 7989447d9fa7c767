import { afterEach, describe, expect, it } from 'vitest';
import { IsolatedThreads } from '../../src/cpu/isolated.js';
import { ImportRefused } from '../../src/content/imports/import-refused.js';
import type { ConversionCalls, ConversionInput } from '../../src/content/imports/conversion.js';
import { ARCHIVE_LIMITS } from '../../src/content/imports/archive.js';

const LIMITS = { maxHeapMb: 256, timeMs: 60_000 };
/** An empty space: neither task gets as far as placing the import. */
const existing: ConversionInput['existing'] = { entries: [], root: '', summaryPath: 'SUMMARY.md', pageEntries: [] };
const input = (source: string, url = 'http://docs.example/guide.md'): ConversionInput => ({ source, url, existing, archiveLimits: ARCHIVE_LIMITS });

describe('IsolatedThreads: the errors of a task', () => {
  let threads: IsolatedThreads | undefined;
  afterEach(async () => threads?.close());

  it('gives back an import refused in the thread as an ImportRefused with its message, any other error as an Error naming the task', { timeout: 60_000 }, async () => {
    threads = new IsolatedThreads();
    const refused = threads.run('convertImport', input('confluence'), LIMITS);
    await expect(refused).rejects.toBeInstanceOf(ImportRefused);
    await expect(refused).rejects.toThrow(/^source: Quire cannot import from "confluence"/);

    // A call of this side that fails with an error of its own: not a refusal, the import may be tried again.
    const calls: Partial<ConversionCalls> = {
      fetch: () => Promise.reject(new Error('the fetcher is gone')),
    };
    const failed = threads.run('convertImport', input('markdown'), LIMITS, calls);
    await expect(failed).rejects.not.toBeInstanceOf(ImportRefused);
    await expect(failed).rejects.toThrow(/^convertImport: the fetcher is gone$/);
  });
});
