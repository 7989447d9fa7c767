/**
 * An import's work from its source to the files it writes, in an isolated thread (src/cpu/isolated.ts): fetching
 * (the server fetches, through its guard), converting, placing beside the space's content (src/content/import-plan.ts)
 * and checking the result like a push. A source can be made to need gigabytes or hours (a zip bomb, a paragraph of
 * megabytes); in a thread of its own with memory and time limits, such an import fails alone while the server goes on
 * answering. The server side (src/domain/imports/imports.ts) reads the space and writes the commit; this side only computes.
 */
import type { TaskHost } from '../../cpu/task-host.js';
import { FetchFailure, type FetchedResource, type FetchFailureCode } from '../../store/net/guarded-fetch.js';
import { planImport, type ExistingContent } from '../import-plan.js';
import { blobOid } from '../files.js';
import type { TreeEntry } from '../model.js';
import { formatProblem, isError } from '../problems.js';
import { validateContent } from '../validate-content.js';
import { ImportRefused } from './import-refused.js';
import type { ArchiveLimits } from './archive.js';
import type { ImportFetcher } from './fetching.js';
import { convertSource } from './sources.js';
import type { ImportProgress } from './website.js';

export interface ConversionInput {
  source: string;
  url: string;
  /** The content the import goes beside: the tree at the branch's head, in the space's project directory. */
  existing: Omit<ExistingContent, 'entries'> & { entries: TreeEntry[] };
  archiveLimits: ArchiveLimits;
}

export interface ConversionOutput {
  /** Files to write, by path in the project directory. */
  files: Array<[string, Uint8Array]>;
  importedResources: number;
  totalResources: number;
}

/** What a fetch of the server side answers: the resource, or the guard's refusal (thrown again on this side). */
export type FetchOutcome = { ok: true; resource: FetchedResource } | { ok: false; code: FetchFailureCode; message: string };

/** The calls this work makes to the server side (src/domain/imports/imports.ts gives them). */
export interface ConversionCalls {
  fetch(arg: { url: string; headers: Record<string, string> }): Promise<FetchOutcome>;
  readBlob(oid: string): Promise<Uint8Array>;
  progress(counts: ImportProgress): void;
}

function remoteFetcher(host: TaskHost): ImportFetcher {
  return {
    fetch: async (url, headers = {}) => {
      const outcome = (await host.call('fetch', { url, headers })) as FetchOutcome;
      if (!outcome.ok) throw new FetchFailure(outcome.code, outcome.message);
      const body = outcome.resource.body as Uint8Array;
      return { ...outcome.resource, body: Buffer.from(body.buffer, body.byteOffset, body.byteLength) };
    },
  };
}

/** The isolated task: the source converted, placed and checked; the files to write (an ImportRefused otherwise). */
export async function convertImport(input: ConversionInput, host: TaskHost): Promise<ConversionOutput> {
  const progress = (counts: ImportProgress) => void host.call('progress', counts).catch(() => undefined);
  const tree = await convertSource(remoteFetcher(host), input.source, input.url, input.archiveLimits, progress);
  const plan = planImport(input.existing, tree);

  // The new tree must read as the format says, like any push; only what the import wrote is its business.
  const added = new Map<string, Buffer>();
  const overlay = new Map<string, TreeEntry>(input.existing.entries.map((e) => [e.path, e]));
  for (const [path, bytes] of plan.files) {
    const oid = blobOid(bytes);
    added.set(oid, bytes);
    overlay.set(path, { path, mode: '100644', oid, size: bytes.length });
  }
  const readBlob = async (oid: string): Promise<Buffer> => {
    const kept = added.get(oid);
    if (kept) return kept;
    const bytes = (await host.call('readBlob', oid)) as Uint8Array;
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  };
  const problems = (await validateContent({ entries: [...overlay.values()], readBlob })).filter((p) => isError(p) && plan.files.has(p.path));
  if (problems.length > 0) {
    throw new ImportRefused(`url: the imported content does not fit Quire's format: ${problems.slice(0, 3).map(formatProblem).join('; ')}`);
  }
  const imported = plan.pages + plan.assets;
  return { files: [...plan.files], importedResources: imported, totalResources: Math.max(tree.total, imported) };
}
