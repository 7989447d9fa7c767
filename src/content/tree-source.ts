/**
 * How the revision builder (./revision.ts) reads what it needs from a commit: its blobs, and what earlier builds and
 * the CPU pool spare it. Beside ./model.ts rather than in it: it names the parse steps of ./page.ts and
 * ./summary-kept.ts, which are written in the model's types.
 */
import type { TreeEntry } from './model.js';
import type { PageFilesInput, ParsedPage, ParsedPageStore } from './page.js';
import type { ParsedSummaryStore, PlainSummaryParse, SummaryInput } from './summary-kept.js';

export interface TreeSource {
  /** Every blob of the commit, in any order. */
  entries: TreeEntry[];
  readBlob(oid: string): Promise<Buffer>;
  /**
   * An image's width and height by blob oid, when the caller keeps them (images are read whole to find them, and a
   * repository's assets change rarely); without it, every image blob is read.
   */
  dimensionsOf?(oid: string): Promise<{ width: number; height: number } | undefined>;
  /** Parses the page files somewhere else than here (a worker thread: the CPU pool); inline without it. */
  parsePages?(input: PageFilesInput): Promise<ParsedPage[]>;
  /** Pages parsed by earlier builds: a page found here is neither read nor parsed again. */
  parsedPages?: ParsedPageStore;
  /** SUMMARY.md parsed by earlier builds: found here (and still holding), it is neither read nor parsed again. */
  parsedSummaries?: ParsedSummaryStore;
  /** Parses a big SUMMARY.md somewhere else than here (the CPU pool); inline without it. */
  parseSummary?(input: SummaryInput): Promise<PlainSummaryParse>;
}
