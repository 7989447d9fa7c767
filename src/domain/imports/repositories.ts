/**
 * Repository imports: a whole git repository, with its history (same commit oids, so every space made from it
 * clones back with the source's commits), from a git URL (http or https, through the fetch guard's rules) or from an
 * uploaded git bundle or zip of a repository.
 *
 * - Into an organization (a Quire extension, POST /v1/orgs/{id}/git/import): one space per project directory
 *   (src/content/monorepo.ts: docs.yaml's spaces, else the folders holding a .gitbook.yaml or a SUMMARY.md), each
 *   repository holding the whole history with its project directory set, and, from docs.yaml, the site with its
 *   sections, section groups and site spaces (made with the functions of src/domain/sites).
 * - Into one space (the reference's importGitRepository, POST /v1/spaces/{id}/git/import `{url, ref,
 *   repoProjectDirectory, force}`): main becomes the repository's commit and the space shows its project directory.
 *
 * A row of `repository_imports` records the request; the `import-repository` job does the work, and the request
 * waits for it (as content imports do). The source is first brought into a staging repository (named by the
 * import's id, laid out like a space's); everything is checked there (docs.yaml, each space's content, as a push
 * would be) before anything is created, and what the job creates is written into its row first, so a failure or
 * a retry removes it again: nothing is left half-made.
 */
import type { Caller, Context } from '../context.js';
import { Conflict, InvalidArgument, NotFound, refusesRequest } from '../errors.js';
import { newId, nowIso } from '../ids.js';
import { requireOrgPermission, requireSpacePermission } from '../permissions.js';
import { organizationAccess } from '../organizations/organizations.js';
import { requireCreateUnder } from '../content/placement.js';
import { createSpaceFromRepository, getSpace, loadSpace, type SpaceView } from '../content/spaces.js';
import { recordMainMoved } from '../content/main-moved.js';
import { enqueueIndexingAfterPush } from '../content/indexing.js';
import { getSite, type SiteView } from '../sites/sites.js';
import { buildSite } from '../sites/build.js';
import { requireHttpUrl, requireWritable } from './imports.js';
import { readZip } from '../../content/imports/zip.js';
import { ARCHIVE_LIMITS } from '../../content/imports/archive.js';
import { refusalsAsInvalid } from './refusals.js';
import { planMonorepo } from '../../content/monorepo.js';
import { inProjectDirectory, normalizeProjectDirectory } from '../../content/project-directory.js';
import { formatProblem } from '../../content/problems.js';
import { validateContent } from '../../content/validate-content.js';
import type { ContentProblem, TreeEntry } from '../../content/model.js';
import { FetchFailure } from '../../store/net/guarded-fetch.js';
import { QUIRE_SIGNATURE } from '../../store/git/repositories.js';
import { bringBranch, createEmptyRepository, fetchFromBundle, fetchFromRepositoryFiles, fetchFromUrl, TransferFailure } from '../../store/git/transfer.js';
import { deleteSpaceRow, findSpace, updateSpaceRow } from '../../store/sql/spaces.js';
import { deleteSiteRow } from '../../store/sql/sites.js';
import { findRepositoryImport, insertRepositoryImport, updateUnfinishedRepositoryImport, type RepositoryImportRow } from '../../store/sql/imports.js';
import { findUserById } from '../../store/sql/users.js';
import { MAIN_REF } from '../content/refs.js';

/** How long a request waits for its import. */
export const REPOSITORY_IMPORT_WAIT_MS = 10 * 60 * 1000;

const MAIN = MAIN_REF;
const REF = /^(HEAD|[A-Za-z0-9._][A-Za-z0-9._/-]*)$/;

export type RepositoryUpload = { kind: 'bundle' | 'zip'; bytes: Buffer };

/** What an uploaded body is, by its first bytes: a git bundle (v2 or v3) or a zip archive; 400 naming `body` otherwise. */
export function uploadOf(bytes: Buffer): RepositoryUpload {
  if (bytes.subarray(0, 4).equals(Buffer.from('PK\x03\x04', 'latin1'))) return { kind: 'zip', bytes };
  if (/^# v[23] git bundle\n/.test(bytes.subarray(0, 16).toString('latin1'))) return { kind: 'bundle', bytes };
  throw new InvalidArgument('body: must be a git bundle (git bundle create FILE --all) or a zip of a repository with its .git folder');
}

export interface ImportedProject {
  key: string;
  projectDirectory: string;
  language?: string;
  space: SpaceView;
}

export interface OrganizationImportResult {
  /** The imported commit: main of every space made. */
  revision: string;
  projects: ImportedProject[];
  site?: SiteView;
  /** Keys of docs.yaml spaces whose directory is null (not synced from this repository): not imported. */
  skipped: string[];
}

/** What the job records in the row once done. */
interface StoredResult {
  revision: string;
  projects: Array<{ key: string; projectDirectory: string; language?: string; spaceId: string }>;
  siteId?: string;
  skipped: string[];
}

/** What the job creates, written to the row before it creates it. */
interface StoredPlan {
  spaceIds: string[];
  siteId?: string;
}

function requireRef(ref: string | undefined): void {
  if (ref !== undefined && (!REF.test(ref) || ref.includes('..') || ref.endsWith('/') || ref.endsWith('.lock'))) {
    throw new InvalidArgument('ref: must be a git ref name such as "refs/heads/main", "main" or "HEAD"');
  }
}

/** A failure of the source as a 400 naming the field that gave it (`url` or `body`). */
function sourceProblem(error: unknown, field: string): unknown {
  if (error instanceof TransferFailure) {
    const what = field === 'url' ? 'the repository at url' : 'the uploaded repository';
    return new InvalidArgument(`${field}: ${what} ${error.reason === 'source' ? `cannot be imported: ${error.message}` : error.message}; nothing was imported`);
  }
  if (error instanceof FetchFailure) return new InvalidArgument(`${field}: ${error.message.replace(/^url: /, '')}; nothing was imported`);
  if (error instanceof InvalidArgument && field !== 'url') return new InvalidArgument(error.message.replace(/^url: /, `${field}: `));
  return error;
}

async function removeStaging(ctx: Context, importId: string): Promise<void> {
  ctx.reader.close(importId);
  await ctx.git.removeRepository(importId);
}

/**
 * The files of the git directory inside a zip: `.git/...` of a checkout, or a bare repository at the top. A repository
 * keeps most of itself in one pack file, so one file may take the whole size an archive may have.
 */
function gitDirectoryFiles(bytes: Buffer): Array<{ path: string; bytes: Buffer }> {
  const { files } = refusalsAsInvalid(() => readZip(bytes, 'the upload', { ...ARCHIVE_LIMITS, maxEntryBytes: ARCHIVE_LIMITS.maxBytes }));
  const dotGit = files.filter((f) => f.path.startsWith('.git/'));
  if (dotGit.length > 0) return dotGit.map((f) => ({ path: f.path.slice('.git/'.length), bytes: f.bytes }));
  return files;
}

/** Brings an upload into the staging repository `importId` (in the request: the bytes are not kept anywhere else). */
async function stageUpload(ctx: Context, importId: string, upload: RepositoryUpload, ref: string | undefined): Promise<void> {
  await createEmptyRepository(ctx.git, importId);
  try {
    if (upload.kind === 'bundle') await fetchFromBundle(ctx.git, importId, upload.bytes, ref);
    else await fetchFromRepositoryFiles(ctx.git, importId, gitDirectoryFiles(upload.bytes), ref);
  } catch (error) {
    await removeStaging(ctx, importId);
    throw sourceProblem(error, 'body');
  }
}

function newRow(organizationId: string, caller: Caller, fields: Partial<RepositoryImportRow> & Pick<RepositoryImportRow, 'source'>): RepositoryImportRow {
  const now = nowIso();
  return {
    id: newId(),
    organization_id: organizationId,
    space_id: null,
    url: null,
    ref: null,
    project_directory: null,
    force: 0,
    requested_by: caller.user.id,
    status: 'pending',
    plan: null,
    result: null,
    error: null,
    created_at: now,
    updated_at: now,
    ...fields,
  };
}

async function runAndWait(ctx: Context, row: RepositoryImportRow): Promise<RepositoryImportRow> {
  await ctx.jobs.run({ name: 'import-repository', payload: { importId: row.id } }, { timeoutMs: REPOSITORY_IMPORT_WAIT_MS });
  // The job may have run in another process: what this process cached is stale.
  ctx.cache.invalidate();
  const done = await findRepositoryImport(ctx.db, row.id);
  if (!done || done.status !== 'done' || !done.result) throw new Error(`repository import ${row.id}: the job finished without recording its result`);
  return done;
}

/**
 * Imports a repository into an organization (org permission to create content at the top level): one space per
 * project directory and, from docs.yaml, a site. Either `url` (http or https; `ref`, default the remote's HEAD) or
 * an uploaded bundle or zip. Waits for the job; a bad source or a bad docs.yaml is a 400 and creates nothing.
 */
export async function importRepository(
  ctx: Context,
  caller: Caller,
  organizationId: string,
  input: { url?: string; ref?: string; upload?: RepositoryUpload },
): Promise<OrganizationImportResult> {
  const { access } = await organizationAccess(ctx, caller, organizationId);
  requireOrgPermission(access, 'createContent', 'import repositories');
  await requireCreateUnder(ctx, access, null, 'parent');
  requireRef(input.ref);
  if (input.upload === undefined) {
    if (input.url === undefined) throw new InvalidArgument('url: is required (or upload a git bundle or a zip of a repository as the body)');
    requireHttpUrl(input.url);
  }
  const row = newRow(organizationId, caller, { source: input.upload?.kind ?? 'url', url: input.url ?? null, ref: input.ref ?? null });
  if (input.upload) await stageUpload(ctx, row.id, input.upload, input.ref);
  await insertRepositoryImport(ctx.db, row);
  const done = await runAndWait(ctx, row);
  const result = JSON.parse(done.result!) as StoredResult;
  return {
    revision: result.revision,
    projects: await Promise.all(
      result.projects.map(async (p) => ({ key: p.key, projectDirectory: p.projectDirectory, language: p.language, space: await getSpace(ctx, caller, p.spaceId) })),
    ),
    site: result.siteId ? await getSite(ctx, caller, organizationId, result.siteId) : undefined,
    skipped: result.skipped,
  };
}

/**
 * importGitRepository: makes the space's main the commit at `ref` of the repository at `url`, with its history,
 * and sets its project directory (`repoProjectDirectory`, kept when absent). Needs edit (admin with `force`); main
 * moves only when the import contains it (or it is the space's first commit, made by Quire), unless `force`.
 */
export async function importGitRepository(
  ctx: Context,
  caller: Caller,
  spaceId: string,
  input: { url: string; ref: string; repoProjectDirectory?: string; force?: boolean },
): Promise<void> {
  const { space, role } = await loadSpace(ctx, caller, spaceId);
  requireSpacePermission(role, spaceId, input.force ? 'admin' : 'edit', input.force ? 'replace its history (force)' : 'import a repository into it');
  requireWritable(space);
  requireHttpUrl(input.url);
  requireRef(input.ref);
  const directory = input.repoProjectDirectory === undefined ? space.project_directory : normalizeProjectDirectory(input.repoProjectDirectory);
  if (directory === undefined) throw new InvalidArgument(`repoProjectDirectory: "${input.repoProjectDirectory}" is not a folder inside the repository`);
  const row = newRow(space.organization_id, caller, {
    source: 'url',
    space_id: spaceId,
    url: input.url,
    ref: input.ref,
    project_directory: directory,
    force: input.force ? 1 : 0,
  });
  await insertRepositoryImport(ctx.db, row);
  await runAndWait(ctx, row);
}

function contentProblemsMessage(field: string, problems: ContentProblem[]): string {
  const shown = problems.slice(0, 3).map(formatProblem).join('; ');
  return `${field}: the repository's content does not read: ${shown}${problems.length > 3 ? ` (and ${problems.length - 3} more)` : ''}; nothing was imported`;
}

/** Each project directory's content reads the way a push of it would be checked; problems name full paths. */
async function checkProjects(ctx: Context, importId: string, entries: TreeEntry[], directories: string[], field: string): Promise<void> {
  const readBlob = (oid: string) => ctx.reader.readBlob(importId, oid);
  const problems: ContentProblem[] = [];
  for (const directory of new Set(directories)) {
    for (const problem of await validateContent({ entries: inProjectDirectory(entries, directory), readBlob })) {
      problems.push({ ...problem, path: directory + problem.path });
    }
  }
  if (problems.length > 0) throw new InvalidArgument(contentProblemsMessage(field, problems));
}

/** Removes what an earlier run of the job created (spaces, site), if anything. */
async function removeCreated(ctx: Context, organizationId: string, plan: StoredPlan): Promise<void> {
  if (plan.siteId) await deleteSiteRow(ctx.db, organizationId, plan.siteId);
  for (const id of plan.spaceIds) {
    await deleteSpaceRow(ctx.db, id);
    ctx.reader.close(id);
    await ctx.git.removeRepository(id);
  }
}

function titleOf(directory: string, url: string | null): string {
  const segments = directory.split('/').filter((s) => s.length > 0);
  if (segments.length > 0) return segments[segments.length - 1];
  const name = url ? decodeURIComponent(new URL(url).pathname.split('/').filter((s) => s.length > 0).pop() ?? '') : '';
  return name.replace(/\.git$/, '') || 'Imported repository';
}

async function importIntoOrganization(ctx: Context, caller: Caller, row: RepositoryImportRow, head: string, entries: TreeEntry[]): Promise<StoredResult> {
  const field = row.source === 'url' ? 'url' : 'body';
  const { plan, problems } = await planMonorepo({ entries, readBlob: (oid) => ctx.reader.readBlob(row.id, oid) });
  if (problems.length > 0) throw new InvalidArgument(`${field}: ${problems.map(formatProblem).join('; ')}; nothing was imported`);
  await checkProjects(ctx, row.id, entries, plan.projects.map((p) => p.directory), field);

  if (row.plan) await removeCreated(ctx, row.organization_id, JSON.parse(row.plan) as StoredPlan);
  const stored: StoredPlan = { spaceIds: plan.projects.map(() => newId()) };
  const save = () => updateUnfinishedRepositoryImport(ctx.db, row.id, { plan: JSON.stringify(stored), updated_at: nowIso() });
  await save();
  try {
    const spaceOf = new Map<string, string>();
    const projects: StoredResult['projects'] = [];
    for (const [i, project] of plan.projects.entries()) {
      const id = stored.spaceIds[i];
      await createSpaceFromRepository(ctx, caller, row.organization_id, {
        id,
        sourceId: row.id,
        title: project.title ?? titleOf(project.directory, row.url),
        projectDirectory: project.directory,
      });
      spaceOf.set(project.key, id);
      projects.push({ key: project.key, projectDirectory: project.directory, ...(project.language ? { language: project.language } : {}), spaceId: id });
    }
    let siteId: string | undefined;
    if (plan.site) {
      siteId = await buildSite(ctx, caller, row.organization_id, plan.site, spaceOf, titleOf('', row.url), async (id) => {
        stored.siteId = id;
        await save();
      });
    }
    for (const project of projects) await enqueueIndexingAfterPush(ctx, { spaceId: project.spaceId, revision: head });
    return { revision: head, projects, siteId, skipped: plan.skipped };
  } catch (error) {
    await removeCreated(ctx, row.organization_id, stored);
    throw error;
  }
}

/** True for the first commit Quire makes in a new space (nothing of anyone's is lost by replacing it). */
async function isQuireInitialCommit(ctx: Context, spaceId: string, oid: string): Promise<boolean> {
  const commit = await ctx.reader.readCommit(spaceId, oid);
  return !!commit && commit.parents.length === 0 && commit.message.trim() === 'Create space' && commit.committerEmail === QUIRE_SIGNATURE.email;
}

async function importIntoSpace(ctx: Context, row: RepositoryImportRow, head: string, entries: TreeEntry[]): Promise<StoredResult> {
  const directory = row.project_directory ?? '';
  await checkProjects(ctx, row.id, entries, [directory], 'url');
  const space = await findSpace(ctx.db, row.space_id!);
  if (!space || space.deleted_at) throw new NotFound(`spaceId: space "${row.space_id}" no longer exists`);
  requireWritable(space);
  const current = await ctx.reader.resolveRef(space.id, MAIN);
  if (current !== head) {
    await bringBranch(ctx.git, row.id, space.id);
    const replaceable = !current || row.force === 1 || (await ctx.git.isAncestor(space.id, current, head)) || (await isQuireInitialCommit(ctx, space.id, current));
    if (!replaceable) {
      throw new Conflict(`ref: main of space "${space.id}" has commits that ${row.ref ?? 'HEAD'} of the repository does not contain; import with force: true (admin) to replace them`);
    }
    if (!(await ctx.git.compareAndSwapRef(space.id, MAIN, head, current ?? '0'.repeat(40)))) throw new Conflict(`${MAIN}: it moved while the repository was imported; try again`);
  }
  await updateSpaceRow(ctx.db, space.id, { project_directory: directory, updated_at: nowIso() });
  ctx.cache.invalidate();
  await recordMainMoved(ctx, space.id);
  // Same commit, another directory: the indexes of that commit were made for the old view.
  if (current === head) await enqueueIndexingAfterPush(ctx, { spaceId: space.id, revision: head });
  return { revision: head, projects: [{ key: '.', projectDirectory: directory, spaceId: space.id }], skipped: [] };
}

/**
 * The import-repository job: brings the source into the staging repository (a URL is fetched here; an upload was
 * staged by the request), checks it, then makes the spaces and the site (organization) or moves the space's main.
 * Does nothing for a row that is done (or gone). A failure the source causes (4xx) removes the staging repository
 * and fails for good; others keep it for the retry.
 */
export async function runRepositoryImport(ctx: Context, importId: string): Promise<void> {
  const row = await findRepositoryImport(ctx.db, importId);
  if (!row || row.status === 'done') return;
  try {
    await updateUnfinishedRepositoryImport(ctx.db, row.id, { status: 'running', error: null, updated_at: nowIso() });
    const user = row.requested_by ? await findUserById(ctx.db, row.requested_by) : undefined;
    if (!user) throw new NotFound('requestedBy: the user who asked for this import no longer exists');
    const caller: Caller = { user };
    if (row.source === 'url' && !(await ctx.reader.resolveRef(row.id, MAIN))) {
      await removeStaging(ctx, row.id);
      await createEmptyRepository(ctx.git, row.id);
      try {
        const pin = await ctx.fetcher.resolvePinned(row.url!);
        await fetchFromUrl(ctx.git, row.id, row.url!, row.ref ?? undefined, pin);
      } catch (error) {
        throw sourceProblem(error, 'url');
      }
    }
    const head = await ctx.reader.resolveRef(row.id, MAIN);
    if (!head) throw new InvalidArgument(`${row.source === 'url' ? 'url' : 'body'}: the repository has no commit to import; nothing was imported`);
    const commit = await ctx.reader.readCommit(row.id, head);
    const entries = await ctx.reader.listBlobs(row.id, commit!.tree);
    const result = row.space_id ? await importIntoSpace(ctx, row, head, entries) : await importIntoOrganization(ctx, caller, row, head, entries);
    await updateUnfinishedRepositoryImport(ctx.db, row.id, { status: 'done', result: JSON.stringify(result), error: null, updated_at: nowIso() });
    await removeStaging(ctx, row.id);
  } catch (error) {
    await updateUnfinishedRepositoryImport(ctx.db, row.id, { status: 'failed', error: (error as Error).message ?? String(error), updated_at: nowIso() });
    if (refusesRequest(error)) await removeStaging(ctx, row.id);
    throw error;
  }
}
