/**
 * The CPU-heavy content work that runs on the container's worker threads (src/cpu/pool.ts), by name. Each task takes
 * and returns plain data (what structured clone copies: no functions, no class instances), so the same function runs
 * in a worker or, for a test, inline. Adding a task: a line here, then `ctx.cpu.run('name', input)` at the call site.
 */
import { parsePageFiles } from '../content/page.js';
import { extractLinks, type RawLink } from '../content/links.js';
import { pageRows, type SearchablePage } from '../domain/search/search.js';
import type { SearchPageRows } from '../store/sql/search.js';

export const cpuTasks = {
  /** Page files -> their fields (src/content/page.ts), for buildRevision. */
  parsePages: parsePageFiles,
  /** The search rows of pages (src/domain/search/search.ts pageRows). */
  searchRows: (pages: SearchablePage[]): SearchPageRows[] => pages.map(pageRows),
  /** The links written in markdown bodies (src/content/links.ts); callers send what the index reads (indexedPart). */
  extractLinks: (bodies: string[]): RawLink[][] => bodies.map(extractLinks),
};

export type CpuTasks = typeof cpuTasks;
export type CpuTaskName = keyof CpuTasks;
