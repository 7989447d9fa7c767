/**
 * The link index of a space, written: every link of every page of a revision (src/content/links.ts), stored in SQL
 * per revision (space, commit) so each revision is computed once. The lists read from it are in ./link-lists.ts;
 * apart because indexing is a job's work (incremental, in parts, racing other writers) and reading is not.
 *
 * - The `index-links` job indexes main's new revision after every push and merge (indexLinks), then prunes the
 *   rows of revisions nobody reads any more (all but main, the heads of draft and open change requests and the
 *   revisions they started from).
 * - Indexing is incremental: a revision starts from an indexed one (its nearest indexed ancestor, else
 *   the one indexed last) and redoes only the pages whose rows may differ: pages added, moved or changed (blob or
 *   cover files), and pages with a link whose target may differ: to a page, file or reusable content no longer at
 *   the path it was reached by (renamed, moved, deleted, another id), or trying a path where something now is (a
 *   `missing:` link a new page satisfies; a `%20` link whose other spelling now exists). The other pages keep their
 *   rows; only their place in the page order may change. A push that only edits pages (the same targets at the
 *   same paths, the same page order) is told from the base's revision when it is still in memory, page by page,
 *   without reading the base's rows (editsOnly). The base's rows are changed in place when nobody reads the
 *   base any more (main's previous revision, a change request's previous head: its slot is taken over, see
 *   src/store/sql/links.ts), else copied first. A revision with no base, or where most pages change, is indexed in
 *   full. Either way the rows equal a full index of the revision (test/domain/links-incremental.test.ts).
 * - A read whose revision is not indexed (the job has not run yet, the queue is down, a push to a change request,
 *   which queues nothing) indexes it first with the same function and stores it.
 */
import type { Context } from '../context.js';
import { newId, nowIso } from '../ids.js';
import { NotFound } from '../errors.js';
import { brokenTargets } from '../../store/sql/link-reads.js';
import { cachedRevision, loadRevision } from './revisions.js';
import { branchOf, LINKS_VERSION, MAIN_REF } from './refs.js';
import {
  documentPages,
  linkAnswers,
  linkLookups,
  pageLinks,
  type LinkLookups,
  type RawLink,
} from '../../content/links.js';
import type { DocumentPage, Revision } from '../../content/model.js';
import { indexedPart } from '../../content/bounded-markdown.js';
import { resolvePageLinks, type LinkAnswers, type ResolvedLinks } from '../../content/site-links.js';
import {
  indexedLinkRevisions,
  linkIndexVersion,
  pagesLinkingTo,
  pruneLinks,
  readLinkSlot,
  writeLinks,
  addLinkRows,
  claimLinkSlot,
  giveUpLinkSlot,
  LINK_ROWS_PER_WRITE,
  linkRowsOf,
  removableLinkSlots,
  removeLinkRows,
  startLinkSlot,
  type IndexedLinkRevision,
  type LinkPageRow,
  type LinkRowInput,
  type LinkSlotChanges,
} from '../../store/sql/links.js';
import { findSpace } from '../../store/sql/spaces.js';
import { liveChangeRequests } from '../../store/sql/change-requests.js';
import { Turns } from '../../content/turns.js';
import { chunks } from '../../store/sql/chunks.js';

// Bodies per task of the CPU pool (several tasks let every thread work).
const BODIES_PER_TASK = 100;

/**
 * The links written in each page, by blob: from the cache, else extracted on the CPU pool (each body as far as the
 * index reads it, see src/content/bounded-markdown.ts).
 */
async function linksOfPages(ctx: Context, pages: DocumentPage[]): Promise<Map<string, RawLink[]>> {
  const links = new Map<string, RawLink[]>();
  const missing = new Map<string, string>();
  for (const page of pages) {
    const known = ctx.revisions.linksByBlob.get(page.blobOid);
    if (known) links.set(page.blobOid, known);
    // Only what the index reads crosses to the thread.
    else missing.set(page.blobOid, indexedPart(page.markdown).text);
  }
  const oids = [...missing.keys()];
  const tasks: Promise<RawLink[][]>[] = [];
  for (let i = 0; i < oids.length; i += BODIES_PER_TASK) {
    tasks.push(ctx.cpu.run('extractLinks', oids.slice(i, i + BODIES_PER_TASK).map((oid) => missing.get(oid)!)));
  }
  (await Promise.all(tasks)).flat().forEach((found, i) => {
    links.set(oids[i], found);
    ctx.revisions.linksByBlob.set(oids[i], found);
  });
  return links;
}

/**
 * The links written in a page (as far as the index reads it), distinct: those the link index found for its blob, else
 * extracted on the CPU pool and kept for the index.
 */
async function writtenLinks(ctx: Context, page: DocumentPage): Promise<RawLink[]> {
  return (await linksOfPages(ctx, [page])).get(page.blobOid) ?? [];
}

/**
 * The answers to the links of a page about to be rendered on the CPU pool, and of what it includes
 * (src/content/site-links.ts resolvePageLinks): the page's own links as the index knows them, its includes' found on
 * the pool.
 */
export async function resolvedPageLinks(ctx: Context, page: DocumentPage, answers: LinkAnswers): Promise<ResolvedLinks> {
  return resolvePageLinks(page.markdown, answers, (bodies) => ctx.cpu.run('extractLinks', bodies), await writtenLinks(ctx, page));
}

/** What a page's rows are made from besides its path and the answers of the revision: its blob and cover files. */
function signatureOf(page: DocumentPage): string {
  return `${page.blobOid} ${page.cover?.file ?? ''} ${page.cover?.fileDark ?? ''}`;
}

/** The stored rows of some pages of a revision (`order`: each page's place in the page order). */
async function rowsOf(ctx: Context, pages: Array<{ page: DocumentPage; order: number }>, lookups: LinkLookups): Promise<{ pages: LinkPageRow[]; links: LinkRowInput[] }> {
  const written = await linksOfPages(ctx, pages.map(({ page }) => page));
  const out: { pages: LinkPageRow[]; links: LinkRowInput[] } = { pages: [], links: [] };
  // 10,000 pages' links take hundreds of milliseconds to resolve: other requests run between turns.
  const turns = new Turns();
  for (const { page, order } of pages) {
    if (turns.due()) await turns.take();
    const probes = new Set<string>();
    for (const link of pageLinks(page, order, written.get(page.blobOid)!, lookups, probes)) {
      out.links.push({
        page_id: link.pageId,
        relation: link.relation,
        target: link.target,
        target_kind: link.kind,
        target_value: link.value,
        anchor: link.anchor ?? null,
        status: link.status,
      });
    }
    out.pages.push({
      page_id: page.id,
      page_order: order,
      git_path: page.gitPath,
      signature: signatureOf(page),
      probes: probes.size > 0 ? JSON.stringify([...probes]) : null,
    });
  }
  return out;
}

/** The revisions the index keeps: main, and the heads and starting revisions of draft and open change requests. */
async function keptRevisions(ctx: Context, spaceId: string): Promise<Set<string>> {
  const keep = new Set<string>();
  const main = await ctx.reader.resolveRef(spaceId, MAIN_REF);
  if (main) keep.add(main);
  for (const changeRequest of await liveChangeRequests(ctx.db, spaceId)) {
    const head = await ctx.reader.resolveRef(spaceId, branchOf(changeRequest.number));
    if (head) keep.add(head);
    keep.add(changeRequest.revision_merged_ancestor ?? changeRequest.revision_initial);
  }
  return keep;
}

// How far up the first-parent line a base is looked for.
const BASE_DEPTH = 32;

/**
 * The indexed revision (same rules, same content root) a revision starts from: the nearest indexed one up its
 * parents (a merge: either parent first), else the one indexed last. Its slot is taken over unless the index keeps it.
 */
async function linkBase(ctx: Context, spaceId: string, commit: string, root: string): Promise<(IndexedLinkRevision & { take: boolean }) | undefined> {
  const indexed = new Map<string, IndexedLinkRevision>();
  for (const revision of await indexedLinkRevisions(ctx.db, spaceId, LINKS_VERSION)) {
    if (revision.commit !== commit && revision.root === root) indexed.set(revision.commit, revision);
  }
  if (indexed.size === 0) return undefined;
  let found: IndexedLinkRevision | undefined;
  let oid: string | undefined = commit;
  for (let depth = 0; oid !== undefined && depth < BASE_DEPTH && !found; depth++) {
    const parents: string[] = (await ctx.reader.readCommit(spaceId, oid))?.parents ?? [];
    found = parents.map((parent) => indexed.get(parent)).find((revision) => revision !== undefined);
    oid = parents[0];
  }
  found ??= [...indexed.values()].reduce((last, revision) => (revision.indexedAt > last.indexedAt ? revision : last));
  return { ...found, take: !(await keptRevisions(ctx, spaceId)).has(found.commit) };
}

type Placed = { id: string; gitPath: string };
/** Whether two lists hold the same things at the same paths, in the same order. */
const samePlaces = (a: readonly Placed[], b: readonly Placed[]) => a.length === b.length && a.every((x, i) => x.id === b[i].id && x.gitPath === b[i].gitPath);

/** Whether every path of two revisions resolves alike: the same content root, document pages, files and reusable contents at the same paths. */
const sameTargets = (a: Revision, aPages: DocumentPage[], b: Revision, bPages: DocumentPage[]) =>
  a.root === b.root && samePlaces(aPages, bPages) && samePlaces(a.files, b.files) && samePlaces(a.reusableContents, b.reusableContents);

/**
 * The changes of a push that only edits pages, when the base's revision is still in memory: with the same targets
 * at the same paths (sameTargets) and the same page order, every link resolves as it did and no page moves, so only
 * the pages whose rows are made from something else (signatureOf) are redone. Found by comparing the two revisions
 * page by page, without reading the base's ~20,000 rows of 10,000 pages or working out what each path
 * answers. Undefined otherwise (incrementalChanges compares the stored rows).
 */
async function editsOnly(
  ctx: Context,
  spaceId: string,
  base: IndexedLinkRevision,
  revision: Revision,
  pages: DocumentPage[],
  lookups: LinkLookups,
): Promise<LinkSlotChanges | undefined> {
  const kept = await cachedRevision(ctx, spaceId, base.commit);
  if (!kept) return undefined;
  const before = documentPages(kept.revision.pages);
  if (!sameTargets(kept.revision, before, revision, pages)) return undefined;
  // Page ids are unique in a revision; were they not, the page rows could not say which page is which.
  if (new Set(pages.map((page) => page.id)).size !== pages.length) return undefined;
  const redo = pages.flatMap((page, order) => (signatureOf(page) === signatureOf(before[order]) ? [] : [{ page, order }]));
  // As incrementalChanges counts work: each page redone is removed and written.
  if (redo.length * 2 > FULL_INDEX_AT && redo.length * 4 > pages.length) return undefined;
  const rows = await rowsOf(ctx, redo, lookups);
  const removed = redo.map(({ page }) => page.id);
  return { removedLinks: removed, removedPages: [...removed], moves: [], pages: rows.pages, links: rows.links, removedAnswers: [], answers: [] };
}

// Past this many pages to redo, and half of the revision's, a full index into a new slot costs less.
const FULL_INDEX_AT = 500;
// Past this many runs of pages moving by different amounts, their page rows are rewritten rather than moved.
const MAX_MOVES = 100;

/**
 * The changes that turn the base's rows into the revision's (see the top of this file); undefined when a full index
 * costs less.
 */
async function incrementalChanges(
  ctx: Context,
  spaceId: string,
  base: IndexedLinkRevision,
  pages: DocumentPage[],
  lookups: LinkLookups,
  answers: Map<string, string>,
): Promise<LinkSlotChanges | undefined> {
  const stored = await readLinkSlot(ctx.db, spaceId, base.slot);
  const ids = new Map(pages.map((page, order) => [page.id, order]));
  // Page ids are unique in a revision; were they not, the page rows could not say which page is which.
  if (ids.size !== pages.length) return undefined;

  // Paths whose answer differs, and the answers gone from them (the targets links reached through those paths).
  const changed = new Set<string>();
  for (const [path, answer] of answers) if (stored.answers.get(path) !== answer) changed.add(path);
  for (const path of stored.answers.keys()) if (!answers.has(path)) changed.add(path);
  const gone = new Set<string>();
  for (const path of changed) {
    const answer = stored.answers.get(path);
    if (answer !== undefined) gone.add(answer);
  }

  const before = new Map(stored.pages.map((page) => [page.page_id, page]));
  const redo = new Set<string>();
  for (const page of pages) {
    const old = before.get(page.id);
    if (!old || old.git_path !== page.gitPath || old.signature !== signatureOf(page)) redo.add(page.id);
    else if (old.probes !== null && changed.size > 0 && (JSON.parse(old.probes) as string[]).some((path) => changed.has(path))) redo.add(page.id);
  }
  if (gone.size > 0) {
    for (const id of await pagesLinkingTo(ctx.db, spaceId, base.slot, gone)) if (ids.has(id)) redo.add(id);
  }
  const removed = stored.pages.filter((page) => !ids.has(page.page_id) || redo.has(page.page_id)).map((page) => page.page_id);
  const work = redo.size + removed.length;
  if (work > FULL_INDEX_AT && work * 2 > pages.length) return undefined;

  // Pages kept move in runs (an inserted page moves every later one by 1): one range of places per run, moved by one
  // UPDATE of their page rows (link_pages: one row per page, not per link; their links stay as they are).
  const kept = stored.pages.filter((page) => ids.has(page.page_id) && !redo.has(page.page_id)).sort((a, b) => a.page_order - b.page_order);
  const moves: LinkSlotChanges['moves'] = [];
  let run: LinkSlotChanges['moves'][number] | undefined;
  for (const page of kept) {
    const by = ids.get(page.page_id)! - page.page_order;
    if (run && run.by === by) {
      run.to = page.page_order;
      continue;
    }
    run = by === 0 ? undefined : { from: page.page_order, to: page.page_order, by };
    if (run) moves.push(run);
  }
  const rows = await rowsOf(ctx, pages.flatMap((page, order) => (redo.has(page.id) ? [{ page, order }] : [])), lookups);
  const removedPages = [...removed];
  if (moves.length > MAX_MOVES) {
    // A reordered table of contents: the kept pages that moved get new page rows instead.
    for (const page of kept) {
      const order = ids.get(page.page_id)!;
      if (order === page.page_order) continue;
      removedPages.push(page.page_id);
      rows.pages.push({ ...page, page_order: order });
    }
    moves.length = 0;
  }
  return {
    removedLinks: removed,
    removedPages,
    moves,
    pages: rows.pages,
    links: rows.links,
    removedAnswers: [...changed].filter((path) => stored.answers.has(path)),
    answers: [...changed].flatMap((path) => {
      const answer = answers.get(path);
      return answer === undefined ? [] : [{ path, answer }];
    }),
  };
}

export interface IndexLinksOptions {
  /** Index the revision in full, from no other (tests compare it with an incremental index). */
  full?: boolean;
}

// Writes lost to concurrent writers before giving up (each loss means another writer made progress).
const MAX_ATTEMPTS = 5;

/**
 * Computes the links of one revision of a space and stores them, replacing what was stored for it (one
 * transaction), incrementally from an indexed revision when there is one (see the top of this file). Returns how
 * many link rows it wrote (all of the revision's for a full index).
 */
export async function indexLinks(ctx: Context, spaceId: string, commit: string, options: IndexLinksOptions = {}): Promise<number> {
  // Final facts: the index stores page ids, which provisional facts may not have right yet.
  const content = await loadRevision(ctx, spaceId, commit, { final: true });
  const { root } = content.revision;
  const pages = documentPages(content.revision.pages);
  const lookups = linkLookups(content.revision, pages);
  // What every path answers: only a full index, or an incremental one that compares the stored rows, needs them.
  let answers: Map<string, string> | undefined;
  const answersNow = () => (answers ??= linkAnswers(lookups));
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    // A write lost to another writer: that writer may have indexed this very revision.
    if (attempt > 0 && (await linkIndexVersion(ctx.db, spaceId, commit)) === LINKS_VERSION) return 0;
    // The last attempts start from nothing: no base to lose.
    const base = options.full || attempt >= 2 ? undefined : await linkBase(ctx, spaceId, commit, root);
    let incremental = base ? ((await editsOnly(ctx, spaceId, base, content.revision, pages, lookups)) ?? (await incrementalChanges(ctx, spaceId, base, pages, lookups, answersNow()))) : undefined;
    // A change too big for one short write, or a big base to copy (one statement over all its rows), is indexed
    // in full instead, written in parts.
    if (incremental && (linkRowsOf(incremental) > LINK_ROWS_PER_WRITE || (!base!.take && pages.length > PAGES_COPIED_AT_ONCE))) incremental = undefined;
    let changes = incremental;
    if (!changes) {
      const rows = await rowsOf(ctx, pages.map((page, order) => ({ page, order })), lookups);
      changes = { removedLinks: [], removedPages: [], moves: [], ...rows, removedAnswers: [], answers: [...answersNow()].map(([path, answer]) => ({ path, answer })) };
    }
    const from = incremental && base ? { commit: base.commit, slot: base.slot, take: base.take } : undefined;
    const at = nowIso();
    if (!from && linkRowsOf(changes) > LINK_ROWS_PER_WRITE) {
      if (await writeLinksInParts(ctx, spaceId, commit, { slot: newId(), root, at }, changes)) return changes.links.length;
      continue;
    }
    const slot = from?.take ? from.slot : newId();
    if (await writeLinks(ctx.db, spaceId, commit, { slot, root, version: LINKS_VERSION, at, base: from, changes })) return changes.links.length;
  }
  throw new Error(`links of ${spaceId}@${commit}: lost ${MAX_ATTEMPTS} writes in a row to concurrent indexing`);
}

/** Pages of a base revision whose rows are copied in one statement at most (~1,000 rows with their links and paths). */
const PAGES_COPIED_AT_ONCE = 125;

/** How long a write in parts may stay unclaimed before its rows count as abandoned (its process stopped). */
const ABANDONED_AFTER_MS = 60 * 60_000;

/** The parts of a big revision's rows, each within LINK_ROWS_PER_WRITE rows of one table. */
function* linkParts(changes: LinkSlotChanges): Generator<Pick<LinkSlotChanges, 'pages' | 'links' | 'answers'>> {
  for (const pages of chunks(changes.pages, LINK_ROWS_PER_WRITE)) yield { pages, links: [], answers: [] };
  for (const links of chunks(changes.links, LINK_ROWS_PER_WRITE)) yield { pages: [], links, answers: [] };
  for (const answers of chunks(changes.answers, LINK_ROWS_PER_WRITE)) yield { pages: [], links: [], answers };
}

/**
 * Writes a big revision's rows (a full index) in parts, each its own short transaction with other requests
 * between them, into a new slot that only the last one makes the revision's; false when that claim is lost (the
 * slot's rows are then removed).
 */
async function writeLinksInParts(ctx: Context, spaceId: string, commit: string, write: { slot: string; root: string; at: string }, changes: LinkSlotChanges): Promise<boolean> {
  const turns = new Turns();
  await startLinkSlot(ctx.db, spaceId, write.slot, write.at);
  let claimed = false;
  try {
    for (const part of linkParts(changes)) {
      await addLinkRows(ctx.db, spaceId, write.slot, part);
      await turns.take();
    }
    claimed = await claimLinkSlot(ctx.db, spaceId, commit, { ...write, version: LINKS_VERSION });
    return claimed;
  } finally {
    if (!claimed) {
      await giveUpLinkSlot(ctx.db, spaceId, write.slot);
      await removeUnindexedLinkRows(ctx, spaceId);
    }
  }
}

/** Removes, in parts, the rows of slots no revision owns: pruned ones, and writes in parts lost or abandoned. */
export async function removeUnindexedLinkRows(ctx: Context, spaceId: string): Promise<void> {
  const turns = new Turns();
  const before = new Date(Date.now() - ABANDONED_AFTER_MS).toISOString();
  for (const slot of await removableLinkSlots(ctx.db, spaceId, before)) {
    while (await removeLinkRows(ctx.db, spaceId, slot)) await turns.take();
  }
}

/** Indexes the revision unless it is indexed already (with the current rules). */
export async function ensureLinksIndexed(ctx: Context, spaceId: string, commit: string): Promise<void> {
  if ((await linkIndexVersion(ctx.db, spaceId, commit)) === LINKS_VERSION) return;
  // Concurrent reads of one missing revision share one indexing.
  await ctx.workByKey.run(`index-links:${spaceId}:${commit}`, () => indexLinks(ctx, spaceId, commit));
}

/**
 * The `index-links` job: indexes a revision of a live space (nothing for a deleted or purged one), then removes
 * the rows of revisions no list reads any more.
 */
export async function indexLinksOfRevision(ctx: Context, spaceId: string, commit: string): Promise<void> {
  const space = await findSpace(ctx.db, spaceId);
  if (!space || space.deleted_at) return;
  await ensureLinksIndexed(ctx, spaceId, commit);
  await pruneUnreadLinks(ctx, spaceId, commit);
}

/** Keeps the rows of `commit`, of main, and of the heads and starting revisions of draft and open change requests. */
async function pruneUnreadLinks(ctx: Context, spaceId: string, commit: string): Promise<void> {
  const keep = await keptRevisions(ctx, spaceId);
  keep.add(commit);
  await pruneLinks(ctx.db, spaceId, [...keep]);
  await removeUnindexedLinkRows(ctx, spaceId);
}

/**
 * The broken links of `head` that `base` does not have broken, as `relation target` keys (sorted); both revisions
 * are indexed first. A base gone from the repository counts every broken link of the head as added.
 */
export async function brokenLinksAdded(ctx: Context, spaceId: string, head: string, base: string): Promise<string[]> {
  await ensureLinksIndexed(ctx, spaceId, head);
  // The app's URL only tells `in-app` links apart, which are never broken.
  const broken = await brokenTargets(ctx.db, { spaceId, commit: head, appUrl: '' });
  if (broken.size === 0 || head === base) return [];
  try {
    await ensureLinksIndexed(ctx, spaceId, base);
  } catch (error) {
    if (error instanceof NotFound) return [...broken].sort();
    throw error;
  }
  const before = await brokenTargets(ctx.db, { spaceId, commit: base, appUrl: '' });
  return [...broken].filter((key) => !before.has(key)).sort();
}
