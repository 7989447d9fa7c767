/**
 * Content imports (into a space, or into a change request): a row in `content_imports` records the request,
 * the `import-content` job does the work (fetch through the guard, convert, one commit), and the request waits for
 * it and answers with the new revision.
 *
 * The commit is built whole (every page, file and the table of contents in one tree) and the ref moves once, by
 * compare-and-swap; when someone else moved it first, the import is placed again on the new head. Nothing is left
 * half-written: a failure before the ref moves leaves the branch as it was.
 *
 * Running the job again for one import is harmless: a row with a result is done, and a commit of the import that
 * reached the branch before its row was updated (a worker that stopped in between) is found by the
 * `Quire-Import: <id>` trailer of its message and recorded instead of importing twice.
 */
import type { Caller, Context } from '../context.js';
import { Conflict, InvalidArgument, NotFound, PermissionDenied } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { collectPage, type Page, type PageRequest } from '../lists.js';
import { requireSpacePermission } from '../permissions.js';
import { loadSpace, projectDirectoryOf } from '../content/spaces.js';
import { loadRevision } from '../content/revisions.js';
import { recordMainMoved } from '../content/main-moved.js';
import { loadChangeRequest } from '../change-requests/change-requests.js';
import { branchOf, MAIN_REF } from '../content/refs.js';
import { entriesOfPages } from '../../content/import-plan.js';
import { folderOf } from '../../content/paths.js';
import { readConfig } from '../../content/revision.js';
import { inProjectDirectory } from '../../content/project-directory.js';
import { IsolatedLimitExceeded } from '../../cpu/isolated.js';
import { FetchFailure } from '../../store/net/guarded-fetch.js';
import { QUIRE_SIGNATURE, type Signature } from '../../store/git/repositories.js';
import { findChangeRequest, type ChangeRequestRow } from '../../store/sql/change-requests.js';
import { findSpace, type SpaceRow } from '../../store/sql/spaces.js';
import { findContentImport, insertContentImport, listContentImportRows, updateUnfinishedImport, type ContentImportRow } from '../../store/sql/imports.js';
import { findUserById } from '../../store/sql/users.js';
import type { ImportProgress } from '../../content/imports/website.js';
import type { ConversionCalls, ConversionInput, ConversionOutput } from '../../content/imports/conversion.js';
import { requireHttpUrl as requireImportUrl, requireImportableSource as requireImportSource } from '../../content/imports/sources.js';
import { asDomainError, refusalsAsInvalid } from './refusals.js';

export { IMPORT_SOURCES } from '../../content/imports/sources.js';

/** `url` is an absolute http(s) URL without credentials (an InvalidArgument naming `url` otherwise). */
export function requireHttpUrl(url: string): void {
  refusalsAsInvalid(() => requireImportUrl(url));
}

/** `source` is one Quire imports from (an InvalidArgument naming `source`, with the reason, otherwise). */
function requireImportableSource(source: string): void {
  refusalsAsInvalid(() => requireImportSource(source));
}

/** How long a request waits for its import (the crawl itself stops after WEBSITE_LIMITS.timeMs). */
export const IMPORT_WAIT_MS = 5 * 60 * 1000;

export interface ImportResult {
  /** The commit the import made. */
  revision: string;
  importedResources: number;
  totalResources: number;
}

/** The rules of a push, for content written through the API: a space in edit mode `locked` takes no changes. */
export function requireWritable(space: SpaceRow): void {
  if (space.edit_mode === 'locked') {
    throw new PermissionDenied(`spaceId: space "${space.id}" is locked: it takes no changes until an admin sets its edit mode back to "live"`);
  }
}

/** A change request takes changes while it is neither merged nor archived (as its branch takes pushes). */
export function requireTakesChanges(changeRequest: ChangeRequestRow): void {
  if (changeRequest.status === 'merged' || changeRequest.status === 'archived') {
    throw new Conflict(`changeRequestId: change request ${changeRequest.number} is ${changeRequest.status}; it takes no more changes`);
  }
}

/**
 * Imports `url` as `source` into the space's main content, or into a change request, and waits for the
 * job: the new revision and the counts. Needs edit on the space (which must not be locked); a change request must
 * be neither merged nor archived. A source Quire cannot import, or cannot reach, is a 400 naming the field.
 */
export async function importContent(
  ctx: Context,
  caller: Caller,
  spaceId: string,
  changeRequestId: string | undefined,
  input: { url: string; source: string },
): Promise<ImportResult> {
  let changeRequest: ChangeRequestRow | undefined;
  if (changeRequestId !== undefined) {
    const loaded = await loadChangeRequest(ctx, caller, spaceId, changeRequestId);
    requireSpacePermission(loaded.role, spaceId, 'edit', 'import content into its change requests');
    requireWritable(loaded.space);
    requireTakesChanges(loaded.changeRequest);
    changeRequest = loaded.changeRequest;
  } else {
    const { space, role } = await loadSpace(ctx, caller, spaceId);
    requireSpacePermission(role, spaceId, 'edit', 'import content into it');
    requireWritable(space);
  }
  requireImportableSource(input.source);
  requireHttpUrl(input.url);
  const now = nowIso();
  const row: ContentImportRow = {
    id: newId(),
    space_id: spaceId,
    change_request_id: changeRequest?.id ?? null,
    url: input.url,
    source: input.source,
    requested_by: caller.user.id,
    status: 'pending',
    result_revision: null,
    imported_resources: null,
    total_resources: null,
    error: null,
    created_at: now,
    updated_at: now,
  };
  await insertContentImport(ctx.db, row);
  await ctx.jobs.run({ name: 'import-content', payload: { importId: row.id } }, { timeoutMs: IMPORT_WAIT_MS });
  const done = await findContentImport(ctx.db, row.id);
  if (!done?.result_revision) throw new Error(`import ${row.id}: the job finished without recording a revision`);
  // The job may have run in another process: what this process cached about the branch is stale.
  ctx.cache.invalidate();
  return { revision: done.result_revision, importedResources: done.imported_resources ?? 0, totalResources: done.total_resources ?? 0 };
}

/**
 * Writes a running import's counts to its row, at most twice a second and one write at a time (so the last one lands
 * before the import's result, which a late progress write could otherwise overwrite): what the imports list shows
 * while the import runs.
 */
class ImportProgressWriter {
  private writing: Promise<unknown> = Promise.resolve();
  private last = 0;
  private logged = Date.now();

  constructor(
    private readonly ctx: Context,
    private readonly importId: string,
  ) {}

  report({ imported, found }: ImportProgress): void {
    // The server's log says how a long import goes, every few seconds.
    if (Date.now() - this.logged >= 5000) {
      this.logged = Date.now();
      this.ctx.log.info({ importId: this.importId, imported, found }, `import ${this.importId}: ${imported} pages imported, ${found} found so far`);
    }
    if (Date.now() - this.last < 500) return;
    this.last = Date.now();
    const changes = { imported_resources: imported, total_resources: found, updated_at: nowIso() };
    // A failed progress write only loses a count: the import goes on.
    this.writing = this.writing.then(() => updateUnfinishedImport(this.ctx.db, this.importId, changes)).catch(() => undefined);
  }

  /** Resolves once the last progress write is done. */
  settled(): Promise<unknown> {
    return this.writing;
  }
}

/**
 * The space's content imports, newest first, as they stand: pending, running (with the counts so far), done or failed
 * (with the reason). A client that started an import watches it here while its request waits (readers of the space).
 */
export async function listContentImports(ctx: Context, caller: Caller, spaceId: string, request: PageRequest): Promise<Page<ContentImportRow>> {
  const { role } = await loadSpace(ctx, caller, spaceId);
  requireSpacePermission(role, spaceId, 'view', 'see its imports');
  return collectPage({
    codec: ctx.cursors,
    scope: `content-imports:${spaceId}`,
    request,
    fetch: (after, n) => listContentImportRows(ctx.db, spaceId, after, n),
    positionOf: (row) => [row.created_at, row.id],
    present: (row) => row,
  });
}

/** One content import of the space (readers of the space). */
export async function getContentImport(ctx: Context, caller: Caller, spaceId: string, importId: string): Promise<ContentImportRow> {
  const { role } = await loadSpace(ctx, caller, spaceId);
  requireSpacePermission(role, spaceId, 'view', 'see its imports');
  const row = await findContentImport(ctx.db, importId);
  if (!row || row.space_id !== spaceId) throw new NotFound(`importId: no import "${importId}" in this space`);
  return row;
}

const TRAILER = 'Quire-Import:';

function commitMessage(row: ContentImportRow, imported: number, total: number): string {
  return `Import ${row.source} from ${row.url}\n\n${TRAILER} ${row.id} imported=${imported} total=${total}\n`;
}

/** The commit of this import already on `ref`, with the counts its message records. */
async function findImportCommit(ctx: Context, spaceId: string, ref: string, importId: string): Promise<ImportResult | undefined> {
  const oid = await ctx.git.findCommitByMessage(spaceId, ref, `${TRAILER} ${importId} `);
  if (!oid) return undefined;
  const commit = await ctx.reader.readCommit(spaceId, oid);
  const counts = new RegExp(`${TRAILER} ${importId} imported=(\\d+) total=(\\d+)`).exec(commit?.message ?? '');
  return { revision: oid, importedResources: Number(counts?.[1] ?? 0), totalResources: Number(counts?.[2] ?? 0) };
}

const MAX_ATTEMPTS = 8;

/**
 * Converts the import (convertInThread) beside the content at the ref's head and writes what it gives as one commit
 * on `ref` of the space, moved by compare-and-swap; converted again beside the new head when the ref moved in between.
 */
async function writeImport(
  ctx: Context,
  spaceId: string,
  ref: string,
  row: ContentImportRow,
  author: Signature,
  convert: (existing: ConversionInput['existing']) => Promise<ConversionOutput>,
): Promise<ImportResult> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const head = await ctx.reader.resolveRef(spaceId, ref);
    if (!head) throw new Conflict(`spaceId: ${ref} does not exist in space "${spaceId}"`);
    // A run of this job that lost the race to another run of it: that one's commit is the result.
    if (attempt > 0) {
      const already = await findImportCommit(ctx, spaceId, ref, row.id);
      if (already) return already;
    }
    const commit = await ctx.reader.readCommit(spaceId, head);
    if (!commit) throw new Error(`commit ${head} of ${ref} cannot be read`);
    // Monorepos: the import is placed in the space's project directory, as the space sees it.
    const directory = await projectDirectoryOf(ctx, spaceId);
    const entries = inProjectDirectory(await ctx.reader.listBlobs(spaceId, commit.tree), directory);
    const readBlob = (oid: string) => ctx.reader.readBlob(spaceId, oid);
    const { config } = await readConfig({ entries, readBlob });
    const summaryPath = config.root + config.summary;
    const summary = entries.find((e) => e.path === summaryPath);
    const converted = await convert({
      entries,
      root: config.root,
      summaryPath,
      summaryText: summary ? (await readBlob(summary.oid)).toString('utf8') : undefined,
      pageEntries: summary ? [] : entriesOfPages((await loadRevision(ctx, spaceId, head)).revision.pages, folderOf(summaryPath)),
    });
    const result = { importedResources: converted.importedResources, totalResources: converted.totalResources };
    const written = new Map(converted.files.map(([path, bytes]) => [directory + path, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)]));
    const newTree = await ctx.git.replaceInTree(spaceId, commit.tree, written);
    const newCommit = await ctx.git.commitTree(spaceId, newTree, [head], commitMessage(row, result.importedResources, result.totalResources), author);
    if (await ctx.git.compareAndSwapRef(spaceId, ref, newCommit, head)) return { revision: newCommit, ...result };
  }
  throw new Conflict(`${ref}: it kept moving while the import was written; try again`);
}

/**
 * The conversion of the row's source beside `existing`, in an isolated thread within the import limits: the thread
 * fetches through this process's guarded fetcher and reads the space's objects through it; an import past a limit is
 * a 400 naming `url` with the limit it passed.
 */
async function convertInThread(ctx: Context, row: ContentImportRow, existing: ConversionInput['existing'], progress: ImportProgressWriter): Promise<ConversionOutput> {
  const limits = ctx.importLimits;
  const calls: ConversionCalls = {
    fetch: async ({ url, headers }) => {
      try {
        return { ok: true, resource: await ctx.fetcher.fetch(url, headers) };
      } catch (error) {
        if (error instanceof FetchFailure) return { ok: false, code: error.code, message: error.message };
        throw error;
      }
    },
    readBlob: (oid) => ctx.reader.readBlob(row.space_id, oid),
    progress: (counts) => progress.report(counts),
  };
  try {
    return await ctx.cpu.isolated.run(
      'convertImport',
      { source: row.source, url: row.url, existing, archiveLimits: { maxEntries: limits.maxEntries, maxEntryBytes: limits.maxEntryBytes, maxBytes: limits.maxBytes } },
      { maxHeapMb: limits.memoryMb, timeMs: limits.timeMs },
      { ...calls },
    );
  } catch (error) {
    if (!(error instanceof IsolatedLimitExceeded)) throw asDomainError(error);
    const limit = error.limit === 'memory' ? `${limits.memoryMb} MB of memory` : `${Math.round(limits.timeMs / 1000)} s`;
    throw new InvalidArgument(`url: converting ${row.url} went past the import limit of ${limit} (${error.message}); nothing was imported`);
  }
}

/**
 * The import-content job: reloads the row, converts its source and writes one commit on main or on the change
 * request's branch; for main, the space records the new revision and indexing is queued. Does nothing for a row
 * that already has its result (or no longer exists: its space was deleted for good).
 */
export async function runContentImport(ctx: Context, importId: string): Promise<void> {
  const row = await findContentImport(ctx.db, importId);
  if (!row || row.result_revision) return;
  try {
    const space = await findSpace(ctx.db, row.space_id);
    if (!space || space.deleted_at) throw new NotFound(`spaceId: space "${row.space_id}" no longer exists`);
    requireWritable(space);
    let ref = MAIN_REF;
    if (row.change_request_id) {
      const changeRequest = await findChangeRequest(ctx.db, space.id, row.change_request_id);
      if (!changeRequest) throw new NotFound(`changeRequestId: change request "${row.change_request_id}" no longer exists`);
      requireTakesChanges(changeRequest);
      ref = branchOf(changeRequest.number);
    }
    await updateUnfinishedImport(ctx.db, row.id, { status: 'running', error: null, updated_at: nowIso() });
    let result = await findImportCommit(ctx, space.id, ref, row.id);
    if (!result) {
      const user = row.requested_by ? await findUserById(ctx.db, row.requested_by) : undefined;
      const author = user ? { name: user.display_name, email: user.email } : QUIRE_SIGNATURE;
      const progress = new ImportProgressWriter(ctx, row.id);
      result = await writeImport(ctx, space.id, ref, row, author, (existing) => convertInThread(ctx, row, existing, progress).finally(() => progress.settled()));
    }
    await updateUnfinishedImport(ctx.db, row.id, {
      status: 'done',
      result_revision: result.revision,
      imported_resources: result.importedResources,
      total_resources: result.totalResources,
      error: null,
      updated_at: nowIso(),
    });
    if (ref === MAIN_REF) await recordMainMoved(ctx, space.id);
  } catch (error) {
    await updateUnfinishedImport(ctx.db, row.id, { status: 'failed', error: (error as Error).message ?? String(error), updated_at: nowIso() });
    throw error;
  }
}
