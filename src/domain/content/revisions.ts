/**
 * Reading a space's content: the revision at a ref (main, or a change request's branch), its pages and files.
 *
 * A revision is parsed once per commit and kept in the container's bounded cache (commits never change, so an
 * entry built from final history facts needs no invalidation); only the ref is read per request, from the ref file.
 * An entry built from provisional facts (a long history still being computed) is rebuilt once the facts are final.
 * A commit that only changes the contents of pages (most pushes) is built from its parent's entry when the cache
 * keeps it (reviseTree): one changed page of 10,000 is parsed, and the others walked once for their ids and dates.
 */
import type { Context, Caller } from '../context.js';
import { DomainError, NotFound } from '../errors.js';
import { ReadCache } from '../cache.js';
import { collectPage, type Page as ListPage, type PageRequest } from '../lists.js';
import { requireSpacePermission, type Role } from '../permissions.js';
import { loadSpace, projectDirectoryOf, resolveSpaceRef } from './spaces.js';
import type { ReadFacts } from './history.js';
import { derivedId, pathId } from './path-facts.js';
import { inProjectDirectory } from '../../content/project-directory.js';
import { trimSlashes } from '../../content/paths.js';
import type { CommitInfo, ContentProblem, HistoryFacts, Page, Revision, RevisionFile } from '../../content/model.js';
import type { TreeSource } from '../../content/tree-source.js';
import type { TreeAnalysis } from '../../content/revision.js';
import { QUIRE_SIGNATURE } from '../../store/git/repositories.js';
import type { SpaceRow } from '../../store/sql/spaces.js';
import { MAIN_REF } from './refs.js';
import { imageDimensionsReader } from './image-dimensions.js';
import { analysisWeightOf, RevisionCache, stringBytes, weightOf, type IndexedRevision } from './revision-cache.js';

// The revision as read, and the cache it is kept in, for readers of content (./revision-cache.ts: what the Context names).
export { RevisionCache, stringBytes, type IndexedRevision };

function indexRevision(spaceId: string, revision: Revision, provisionalIdOf: (gitPath: string) => string): IndexedRevision {
  const pagesById = new Map<string, Page>();
  const pagesByPath = new Map<string, Page>();
  const walk = (pages: Page[]) => {
    for (const page of pages) {
      pagesById.set(page.id, page);
      if (!pagesByPath.has(page.path)) pagesByPath.set(page.path, page);
      walk(page.pages);
    }
  };
  walk(revision.pages);
  const files = [...revision.files].sort((a, b) => (a.gitPath < b.gitPath ? -1 : a.gitPath > b.gitPath ? 1 : 0));
  return { spaceId, revision, pagesById, pagesByPath, filesById: new Map(files.map((f) => [f.id, f])), files, provisionalIdOf };
}

/**
 * The analysis of a commit's tree: built from an earlier analysis when one is at hand and the tree differs from it
 * only in the contents of pages (a one-page push into a 10,000-page space then parses one page and walks the others
 * once, instead of analyzing the whole tree again), else from scratch. `earlier`: the commit's own provisional
 * build (rebuilt with final facts), its first parent's.
 */
async function analyzeCommit(
  earlier: Array<TreeAnalysis | undefined>,
  source: TreeSource,
  commit: CommitInfo,
  facts: HistoryFacts,
): Promise<TreeAnalysis> {
  // The content code (remark, YAML) is loaded by the first build: commands that read no content start without it.
  const [{ analyzeTree }, { reviseTree }] = await Promise.all([import('../../content/revision.js'), import('../../content/revise-tree.js')]);
  for (const before of earlier) {
    const revised = before && (await reviseTree(before, source, commit, facts));
    if (revised) return revised;
  }
  return analyzeTree(source, commit, facts);
}

/** The key of a space's revision in the RevisionCache: monorepo spaces of one repository see different revisions. */
const revisionKey = (spaceId: string, directory: string, commitOid: string) => `${spaceId}:${directory}:${commitOid}`;

/**
 * Parses (or takes from the cache) the revision at a commit of a space. Reads take provisional history facts when
 * a long history is still being computed; `final` waits for the real ones (indexing stores page ids, so it must).
 */
export async function loadRevision(ctx: Context, spaceId: string, commitOid: string, options: { final?: boolean } = {}): Promise<IndexedRevision> {
  // Monorepos: the space sees only its project directory; history facts stay keyed by full path.
  const directory = await projectDirectoryOf(ctx, spaceId);
  const key = revisionKey(spaceId, directory, commitOid);
  const cached = ctx.revisions.get(key);
  if (cached && (cached.final || (!options.final && !ctx.history.isFinal(spaceId, commitOid)))) return cached.revision;
  // A provisional build of this commit, being replaced: the new one starts from it.
  const provisional = cached?.analysis;
  // The load's own promise, which its body compares with what the cache holds.
  const self: { loading?: Promise<IndexedRevision> } = {};
  const loading = (async (): Promise<IndexedRevision> => {
    const commit = await ctx.reader.readCommit(spaceId, commitOid);
    if (!commit) throw new NotFound(`revisionId: no revision "${commitOid}" in this space`);
    const history: Promise<ReadFacts> = options.final
      ? ctx.history.factsOf(spaceId, commitOid).then((facts) => ({ facts, final: true }))
      : ctx.history.forRead(spaceId, commitOid);
    const [blobs, { facts, final }] = await Promise.all([ctx.reader.listBlobs(spaceId, commit.tree), history]);
    if (final) {
      // Readers and indexing jobs that waited for the same facts share one build.
      const other = ctx.revisions.get(key);
      if (other?.final && other.revision !== self.loading) return other.revision;
      ctx.revisions.set(key, { revision: self.loading!, final: true }, 4096);
    }
    const entries = inProjectDirectory(blobs, directory);
    const info: CommitInfo = {
      oid: commit.oid,
      parents: commit.parents,
      message: commit.message,
      authorName: commit.authorName,
      authorEmail: commit.authorEmail,
      createdAt: commit.committedAt,
      createdByQuire: commit.committerEmail === QUIRE_SIGNATURE.email && commit.committerName === QUIRE_SIGNATURE.name,
    };
    const parent = commit.parents.length > 0 ? ctx.revisions.get(revisionKey(spaceId, directory, commit.parents[0]))?.analysis : undefined;
    const analysis = await analyzeCommit(
      [provisional, parent],
      {
        entries,
        readBlob: (oid) => ctx.reader.readBlob(spaceId, oid),
        dimensionsOf: imageDimensionsReader(ctx, spaceId),
        parsePages: (input) => ctx.cpu.run('parsePages', input),
        parseSummary: (input) => ctx.cpu.run('parseSummary', input),
        parsedPages: ctx.revisions.parsedPages,
        parsedSummaries: ctx.revisions.parsedSummaries,
      },
      info,
      {
        // Groups and link pages have no file: their key (`SUMMARY.md#path`) gets an id stable across commits.
        idOf: (_kind, path) => facts.get(directory + path)?.i ?? derivedId(spaceId, 'structure', path),
        createdAt: (path) => facts.get(directory + path)?.c ?? commit.committedAt,
        updatedAt: (path) => facts.get(directory + path)?.u ?? commit.committedAt,
      },
    );
    const { revision } = analysis;
    const indexed = indexRevision(spaceId, revision, (gitPath) => pathId(spaceId, directory + gitPath));
    // A provisional build never replaces a final one made meanwhile.
    if (final || !ctx.revisions.get(key)?.final) {
      const entry = { revision: Promise.resolve(indexed), built: indexed, final, analysis };
      ctx.revisions.set(key, entry, weightOf(revision) + analysisWeightOf(analysis));
      indexed.weigh = (bytes) => ctx.revisions.grow(key, entry, bytes);
    }
    return indexed;
  })();
  self.loading = loading;
  // Concurrent readers of one commit share the parse; a failure is not cached. A load that waits for final facts
  // (indexing) is shared only once they are known (above): a read must not wait behind a long history's computation.
  if (!options.final) ctx.revisions.set(key, { revision: loading, final: false }, 4096);
  loading.catch(() => {
    if (ctx.revisions.get(key)?.revision === loading) ctx.revisions.delete(key);
  });
  return loading;
}

export interface ContentTarget {
  space: SpaceRow;
  role: Role | null;
  content: IndexedRevision;
  /** The ref it was read at (e.g. `refs/heads/main`), when read through one. */
  ref?: string;
}

/**
 * What a caller's read of a space's content rests on: the space, the caller's role on it (allowed to view), and the
 * commit the ref points at (undefined: the ref does not exist).
 */
interface SpaceRead {
  space: SpaceRow;
  role: Role | null;
  oid: string | undefined;
}

const spaceReadKey = (caller: Caller, spaceId: string, ref: string) => `read:${caller.user.id}:${spaceId}:${ref}`;

/**
 * The caller's read of a space at a ref, kept by the read cache as one entry per user, space and ref (a refusal
 * too): a read then costs one lookup instead of one per check. The entry is loaded past the cache, from the database
 * and the repository: built from cached parts it could outlive them, and a revoked access, a changed role or a
 * moved ref would take up to twice the cache's time to live to show instead of once.
 */
async function readSpace(ctx: Context, caller: Caller, spaceId: string, ref: string): Promise<SpaceRead> {
  const read = await ctx.cache.get(spaceReadKey(caller, spaceId, ref), async (): Promise<SpaceRead | DomainError> => {
    const direct: Context = { ...ctx, cache: new ReadCache(0) };
    try {
      const { space, role } = await loadSpace(direct, caller, spaceId);
      requireSpacePermission(role, spaceId, 'view', 'read its content');
      return { space, role, oid: await resolveSpaceRef(direct, spaceId, ref) };
    } catch (error) {
      if (error instanceof DomainError) return error;
      throw error;
    }
  });
  if (read instanceof DomainError) throw read;
  return read;
}

/** The space (read permission checked) and its content at `ref` (main by default). */
export async function readContent(ctx: Context, caller: Caller, spaceId: string, ref = MAIN_REF): Promise<ContentTarget> {
  const { space, role, oid } = await readSpace(ctx, caller, spaceId, ref);
  if (!oid) throw new NotFound(`spaceId: space "${spaceId}" has no content at ${ref}`);
  const content = await loadRevision(ctx, spaceId, oid);
  return { space, role, content, ref };
}

/**
 * What `readContent` (at main) would answer the caller, when that is at hand without waiting or loading: the
 * caller's read of the space is current in the read cache and its revision is built, from final history facts.
 * Undefined otherwise (then `readContent` does the work). For answers sent from a hook (src/http/present.ts).
 */
export function peekContent(ctx: Context, caller: Caller, spaceId: string): IndexedRevision | undefined {
  const read = ctx.cache.peek<SpaceRead | DomainError>(spaceReadKey(caller, spaceId, MAIN_REF));
  if (!read || read instanceof DomainError || !read.oid) return undefined;
  const cached = ctx.revisions.get(revisionKey(spaceId, read.space.project_directory ?? '', read.oid));
  return cached?.final ? cached.built : undefined;
}

/** A revision of the space by commit oid (any commit of its repository). */
export async function readRevisionById(ctx: Context, caller: Caller, spaceId: string, revisionId: string): Promise<ContentTarget> {
  const { space, role } = await loadSpace(ctx, caller, spaceId);
  if (!/^[0-9a-f]{40}$/.test(revisionId)) throw new NotFound(`revisionId: no revision "${revisionId}" in this space`);
  return { space, role, content: await loadRevision(ctx, spaceId, revisionId) };
}

/**
 * A page or file by the id a provisional read showed (see history.ts): a client that listed pages while a long
 * history was being computed keeps reaching them by those ids afterwards.
 */
function findAlias(content: IndexedRevision, id: string): Page | RevisionFile | undefined {
  if (!content.aliases) {
    const aliases = new Map<string, Page | RevisionFile>();
    for (const page of content.pagesById.values()) {
      if ('gitPath' in page) {
        const alias = content.provisionalIdOf(page.gitPath);
        if (alias !== page.id && !content.pagesById.has(alias)) aliases.set(alias, page);
      }
    }
    for (const file of content.files) {
      const alias = content.provisionalIdOf(file.gitPath);
      if (alias !== file.id && !content.filesById.has(alias)) aliases.set(alias, file);
    }
    content.aliases = aliases;
  }
  return content.aliases.get(id);
}

export function findPage(content: IndexedRevision, pageId: string): Page {
  const page = content.pagesById.get(pageId) ?? findAlias(content, pageId);
  if (!page || !('pages' in page)) throw new NotFound(`pageId: no page "${pageId}" in this revision`);
  return page;
}

export function findPageByPath(content: IndexedRevision, pagePath: string): Page {
  const page = content.pagesByPath.get(trimSlashes(pagePath));
  if (!page) throw new NotFound(`pagePath: no page at "${pagePath}" in this revision`);
  return page;
}

export function findFile(content: IndexedRevision, fileId: string): RevisionFile {
  const file = content.filesById.get(fileId) ?? findAlias(content, fileId);
  if (!file || 'pages' in file) throw new NotFound(`fileId: no file "${fileId}" in this revision`);
  return file;
}

/** Files of the revision, paged by path. */
export async function listFiles(ctx: Context, content: IndexedRevision, request: PageRequest): Promise<ListPage<RevisionFile>> {
  const { files } = content;
  return collectPage({
    codec: ctx.cursors,
    scope: `files:${content.spaceId}:${content.revision.commit.oid}`,
    request,
    fetch: async (after, n) => {
      const start = after ? files.findIndex((f) => f.gitPath > String(after[0])) : 0;
      return start < 0 ? [] : files.slice(start, start + n);
    },
    positionOf: (file) => [file.gitPath],
    present: (file) => file,
  });
}

/**
 * The bytes of a blob of the space, for file downloads (read permission). Any blob of the repository: the same
 * permission covers every branch, and a repository holds only objects its own refs brought (a duplicate is packed
 * from main alone, GitStore.copyRepository).
 */
export async function readFileBlob(ctx: Context, caller: Caller, spaceId: string, oid: string): Promise<Buffer> {
  const { role } = await loadSpace(ctx, caller, spaceId);
  requireSpacePermission(role, spaceId, 'view', 'download its files');
  const object = /^[0-9a-f]{40}$/.test(oid) ? await ctx.reader.readObject(spaceId, oid) : undefined;
  if (!object || object.type !== 'blob') throw new NotFound(`fileId: no file "${oid}" in this space`);
  return object.data;
}

/**
 * The revision at a commit when it is in memory with final history facts (being built, or built); never builds one.
 * For work that can start from an earlier revision when it is at hand and read what it needs otherwise.
 */
export async function cachedRevision(ctx: Context, spaceId: string, commitOid: string): Promise<IndexedRevision | undefined> {
  const directory = await projectDirectoryOf(ctx, spaceId);
  const cached = ctx.revisions.get(revisionKey(spaceId, directory, commitOid));
  return cached?.final ? cached.revision.catch(() => undefined) : undefined;
}

/**
 * The content problems of a space's revision (errors and warnings, sorted by path and line): what the push checks
 * would report of its tree (src/content/validate-content.ts). Pages parsed before are not parsed again.
 */
export async function revisionProblems(ctx: Context, spaceId: string, commitOid: string): Promise<ContentProblem[]> {
  const commit = await ctx.reader.readCommit(spaceId, commitOid);
  if (!commit) throw new NotFound(`revisionId: no revision "${commitOid}" in this space`);
  const directory = await projectDirectoryOf(ctx, spaceId);
  const blobs = await ctx.reader.listBlobs(spaceId, commit.tree);
  // The content code is loaded by the first check, as by the first build.
  const { validateContent } = await import('../../content/validate-content.js');
  return validateContent({
    entries: inProjectDirectory(blobs, directory),
    readBlob: (oid) => ctx.reader.readBlob(spaceId, oid),
    parsePages: (input) => ctx.cpu.run('parsePages', input),
    parseSummary: (input) => ctx.cpu.run('parseSummary', input),
    parsedPages: ctx.revisions.parsedPages,
    parsedSummaries: ctx.revisions.parsedSummaries,
  });
}
