/**
 * The link index: the links of indexed revisions (commits) of spaces, one row per page and target, and which
 * revisions are indexed; written here, and read for the lists by ./link-reads.ts.
 *
 * A revision's rows live in a slot (`link_index.slot`): its links, its pages (`link_pages`: page order, and what
 * each page's rows were made from) and what its paths resolve to (`link_answers`). A slot belongs to one revision at
 * a time. An incremental index (src/domain/content/link-index.ts) either takes the slot of a revision nobody reads any
 * more over (one row of `link_index` changes hands) and changes the rows that differ in place, or copies a slot
 * still read (INSERT ... SELECT) and changes the copy; a full index fills a new slot. Every write is one
 * transaction that first claims the revision: another process indexing the same revision at the same time either
 * finds it claimed and writes nothing, or (taking a slot) finds the slot gone and starts again. Only revisions the
 * index would prune are taken over: a read still in flight on one then reads the new revision's rows, as one in
 * flight on a pruned revision reads none. Reads find a revision's slot in the same statement as its rows.
 *
 * Why slots: a revision of 10,000 pages has ~80,000 rows; copying them per revision (INSERT ... SELECT), and moving the
 * page order of every row after an inserted page, cost a push far more than the pages it changed (bench/README.md).
 * Taken over, a one-page push rewrites that page's rows, one page row and the answers that changed; page order lives in
 * `link_pages` (one row per page), so an inserted page moves one row per later page.
 */
import type { Kysely, SqlBool, Transaction } from 'kysely';
import { isPostgres } from './dialect.js';
import { sql } from './kysely.js';
import type { Database, LinkPagesTable, LinksTable } from './schema.js';
import { isUniqueViolation } from './errors.js';
import { chunks } from './chunks.js';

/** A row of `links` without its slot. */
export type LinkRowInput = Omit<LinksTable, 'space_id' | 'slot'>;
/** A row of `link_pages` without its slot. */
export type LinkPageRow = Omit<LinkPagesTable, 'space_id' | 'slot'>;

/** `space commit` of every revision indexed under `version` of the rules. */
export async function indexedLinkCommits(db: Kysely<Database>, version: number): Promise<Set<string>> {
  const rows = await db.selectFrom('link_index').select(['space_id', 'commit_oid']).where('version', '=', version).execute();
  return new Set(rows.map((row) => `${row.space_id} ${row.commit_oid}`));
}

/** The extraction version a revision was indexed with; undefined when it is not indexed. */
export async function linkIndexVersion(db: Kysely<Database>, spaceId: string, commit: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('link_index')
    .select('version')
    .where('space_id', '=', spaceId)
    .where('commit_oid', '=', commit)
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.version);
}

export interface IndexedLinkRevision {
  commit: string;
  slot: string;
  root: string;
  indexedAt: string;
}

/** The revisions of a space indexed under `version` of the rules. */
export async function indexedLinkRevisions(db: Kysely<Database>, spaceId: string, version: number): Promise<IndexedLinkRevision[]> {
  const rows = await db
    .selectFrom('link_index')
    .select(['commit_oid', 'slot', 'root', 'indexed_at'])
    .where('space_id', '=', spaceId)
    .where('version', '=', version)
    .execute();
  return rows.map((row) => ({ commit: row.commit_oid, slot: row.slot, root: row.root, indexedAt: row.indexed_at }));
}

/** The pages of a slot and what its paths resolve to (what an incremental index compares a new revision with). */
export async function readLinkSlot(db: Kysely<Database>, spaceId: string, slot: string): Promise<{ pages: LinkPageRow[]; answers: Map<string, string> }> {
  const [pages, answers] = await Promise.all([
    db
      .selectFrom('link_pages')
      .select(['page_id', 'page_order', 'git_path', 'signature', 'probes'])
      .where('space_id', '=', spaceId)
      .where('slot', '=', slot)
      .execute(),
    db.selectFrom('link_answers').select(['path', 'answer']).where('space_id', '=', spaceId).where('slot', '=', slot).execute(),
  ]);
  return {
    pages: pages.map((page) => ({ ...page, page_order: Number(page.page_order) })),
    answers: new Map(answers.map((row) => [row.path, row.answer])),
  };
}

/** The pages of a slot with a link to one of `answers` (`kind:id`, as in `link_answers`). */
export async function pagesLinkingTo(db: Kysely<Database>, spaceId: string, slot: string, answers: Iterable<string>): Promise<Set<string>> {
  const byKind = new Map<string, string[]>();
  for (const answer of answers) {
    const colon = answer.indexOf(':');
    const kind = answer.slice(0, colon);
    byKind.set(kind, [...(byKind.get(kind) ?? []), answer.slice(colon + 1)]);
  }
  const pages = new Set<string>();
  for (const [kind, values] of byKind) {
    for (const chunk of chunks(values)) {
      // Not `distinct`: SQLite would then rather walk the primary key, in page order, than use links_target_id.
      const rows = await db
        .selectFrom('links')
        .select('page_id')
        .where('space_id', '=', spaceId)
        .where('slot', '=', slot)
        .where('target_kind', '=', kind)
        .where('target_value', 'in', chunk)
        // As written in the partial index links_target_id (0013), so that SQLite sees it applies.
        .where(sql<SqlBool>`target_kind in ('page', 'file', 'reusable-content')`)
        .execute();
      for (const row of rows) pages.add(row.page_id);
    }
  }
  return pages;
}

/** What a slot becomes: rows removed, then moved and added. */
export interface LinkSlotChanges {
  /** Pages whose links are removed. */
  removedLinks: string[];
  /** Pages whose page row is removed. */
  removedPages: string[];
  /** Pages kept whose place changed: those at places `from`..`to` (before) move by `by`. */
  moves: Array<{ from: number; to: number; by: number }>;
  pages: LinkPageRow[];
  links: LinkRowInput[];
  /** Paths whose answer is removed (before the new ones are added). */
  removedAnswers: string[];
  answers: Array<{ path: string; answer: string }>;
}

export interface LinkWrite {
  /** The slot the revision's rows are in once written: a new one, or the base's when it is taken over. */
  slot: string;
  root: string;
  version: number;
  at: string;
  /** The indexed revision the changes apply to: its slot taken over (`take`) or copied into `slot`; none: `slot` is new. */
  base?: { commit: string; slot: string; take: boolean };
  changes: LinkSlotChanges;
}

class Lost extends Error {}

/** Rows a write of the index changes in one transaction at most: on SQLite, ~1,000 rows hold its one connection ~15 ms. */
export const LINK_ROWS_PER_WRITE = 1_000;

/** The rows a change writes or removes. */
export function linkRowsOf(changes: LinkSlotChanges): number {
  return (
    changes.removedLinks.length +
    changes.removedPages.length +
    changes.pages.length +
    changes.links.length +
    changes.removedAnswers.length +
    changes.answers.length
  );
}

/** Lists slots no revision owns any more for their rows to be removed in parts (removeLinkRows). */
async function listForRemoval(trx: Transaction<Database>, spaceId: string, slots: string[]): Promise<void> {
  for (const chunk of chunks(slots)) {
    await trx
      .insertInto('link_slots_unindexed')
      .values(chunk.map((slot) => ({ space_id: spaceId, slot, since: '' })))
      .onConflict((oc) => oc.columns(['space_id', 'slot']).doUpdateSet({ since: '' }))
      .execute();
  }
}

async function copySlot(trx: Transaction<Database>, spaceId: string, from: string, to: string): Promise<void> {
  const slot = sql<string>`cast(${to} as text)`.as('slot');
  await trx
    .insertInto('links')
    .columns(['space_id', 'slot', 'page_id', 'relation', 'target', 'target_kind', 'target_value', 'anchor', 'status'])
    .expression(
      trx
        .selectFrom('links')
        .select(['space_id', slot, 'page_id', 'relation', 'target', 'target_kind', 'target_value', 'anchor', 'status'])
        .where('space_id', '=', spaceId)
        .where('slot', '=', from),
    )
    .execute();
  await trx
    .insertInto('link_pages')
    .columns(['space_id', 'slot', 'page_id', 'page_order', 'git_path', 'signature', 'probes'])
    .expression(
      trx
        .selectFrom('link_pages')
        .select(['space_id', slot, 'page_id', 'page_order', 'git_path', 'signature', 'probes'])
        .where('space_id', '=', spaceId)
        .where('slot', '=', from),
    )
    .execute();
  await trx
    .insertInto('link_answers')
    .columns(['space_id', 'slot', 'path', 'answer'])
    .expression(trx.selectFrom('link_answers').select(['space_id', slot, 'path', 'answer']).where('space_id', '=', spaceId).where('slot', '=', from))
    .execute();
}

async function applyChanges(trx: Transaction<Database>, spaceId: string, slot: string, changes: LinkSlotChanges): Promise<void> {
  for (const chunk of chunks(changes.removedLinks)) {
    await trx.deleteFrom('links').where('space_id', '=', spaceId).where('slot', '=', slot).where('page_id', 'in', chunk).execute();
  }
  for (const chunk of chunks(changes.removedPages)) {
    await trx.deleteFrom('link_pages').where('space_id', '=', spaceId).where('slot', '=', slot).where('page_id', 'in', chunk).execute();
  }
  if (changes.moves.length > 0) {
    // One statement: every row moves once, by the range its place was in before.
    const by = sql.join(changes.moves.map((m) => sql`when page_order between ${m.from} and ${m.to} then cast(${m.by} as integer)`), sql` `);
    const within = sql.join(changes.moves.map((m) => sql`page_order between ${m.from} and ${m.to}`), sql` or `);
    await trx
      .updateTable('link_pages')
      .set({ page_order: sql<number>`page_order + case ${by} end` })
      .where('space_id', '=', spaceId)
      .where('slot', '=', slot)
      .where(sql<SqlBool>`(${within})`)
      .execute();
  }
  for (const chunk of chunks(changes.pages)) {
    await trx
      .insertInto('link_pages')
      .values(chunk.map((page) => ({ space_id: spaceId, slot, ...page })))
      .onConflict((oc) => oc.columns(['space_id', 'slot', 'page_id']).doNothing())
      .execute();
  }
  for (const chunk of chunks(changes.links)) {
    await trx
      .insertInto('links')
      .values(chunk.map((row) => ({ space_id: spaceId, slot, ...row })))
      .onConflict((oc) => oc.columns(['space_id', 'slot', 'page_id', 'relation', 'target']).doNothing())
      .execute();
  }
  for (const chunk of chunks(changes.removedAnswers)) {
    await trx.deleteFrom('link_answers').where('space_id', '=', spaceId).where('slot', '=', slot).where('path', 'in', chunk).execute();
  }
  for (const chunk of chunks(changes.answers)) {
    await trx
      .insertInto('link_answers')
      .values(chunk.map((row) => ({ space_id: spaceId, slot, ...row })))
      .execute();
  }
}

/**
 * Writes the links of one revision, in one transaction, replacing what was stored for it. Returns false, having
 * written nothing, when the revision was claimed meanwhile by another writer (it indexed the same revision), or the
 * base is no longer what it was read as (taken over or pruned meanwhile): the caller reads again.
 */
export async function writeLinks(db: Kysely<Database>, spaceId: string, commit: string, write: LinkWrite): Promise<boolean> {
  const { slot, root, version, at, base, changes } = write;
  const postgres = isPostgres(db);
  try {
    await db.transaction().execute(async (trx) => {
      // A write first: SQLite takes its write lock here, so what follows reads what it writes over.
      const old = await trx.deleteFrom('link_index').where('space_id', '=', spaceId).where('commit_oid', '=', commit).returning('slot').execute();
      await listForRemoval(trx, spaceId, old.map((row) => row.slot));
      if (base?.take) {
        // The slot changes hands only if it is still the base's: a concurrent take or prune of it wins or waits.
        const taken = await trx
          .updateTable('link_index')
          .set({ commit_oid: commit, root, version, indexed_at: at })
          .where('space_id', '=', spaceId)
          .where('commit_oid', '=', base.commit)
          .where('slot', '=', base.slot)
          .where('version', '=', version)
          .executeTakeFirst()
          // PostgreSQL: another writer claimed the revision meanwhile (it committed while this waited for the row).
          .catch((error: unknown) => {
            throw isUniqueViolation(error) ? new Lost() : error;
          });
        if (Number(taken.numUpdatedRows) !== 1) throw new Lost();
      } else {
        if (base) {
          // The base must stay what it was read as until copied: a take or prune of it (PostgreSQL) waits for this.
          const query = trx
            .selectFrom('link_index')
            .select('slot')
            .where('space_id', '=', spaceId)
            .where('commit_oid', '=', base.commit)
            .where('slot', '=', base.slot)
            .where('version', '=', version);
          if (!(await (postgres ? query.forShare() : query).executeTakeFirst())) throw new Lost();
        }
        const claimed = await trx
          .insertInto('link_index')
          .values({ space_id: spaceId, commit_oid: commit, slot, root, version, indexed_at: at })
          .onConflict((oc) => oc.columns(['space_id', 'commit_oid']).doNothing())
          .executeTakeFirst();
        if (Number(claimed.numInsertedOrUpdatedRows ?? 0) !== 1) throw new Lost();
        if (base) await copySlot(trx, spaceId, base.slot, slot);
      }
      await applyChanges(trx, spaceId, slot, changes);
    });
    return true;
  } catch (error) {
    if (error instanceof Lost) return false;
    throw error;
  }
}

/**
 * Unindexes every revision of the space but `keep`: their slots are listed for their rows to be removed in parts
 * (removeLinkRows), so that no transaction removes a big revision's rows at once.
 */
export async function pruneLinks(db: Kysely<Database>, spaceId: string, keep: readonly string[]): Promise<void> {
  const stale = await db
    .selectFrom('link_index')
    .select('commit_oid')
    .where('space_id', '=', spaceId)
    .$if(keep.length > 0, (q) => q.where('commit_oid', 'not in', [...keep]))
    .execute();
  if (stale.length === 0) return;
  const commits = stale.map((row) => row.commit_oid);
  await db.transaction().execute(async (trx) => {
    // Only the slots still theirs: one taken over meanwhile belongs to the revision that took it.
    const removed = await trx.deleteFrom('link_index').where('space_id', '=', spaceId).where('commit_oid', 'in', commits).returning('slot').execute();
    await listForRemoval(trx, spaceId, removed.map((row) => row.slot));
  });
}

// ---- big revisions, in parts

/**
 * Starts writing a revision's rows in parts into a new slot (addLinkRows, then claimLinkSlot): the slot is listed
 * as unindexed from `since`, so that rows left by a process that stopped half-way are found and removed.
 */
export async function startLinkSlot(db: Kysely<Database>, spaceId: string, slot: string, since: string): Promise<void> {
  await db.insertInto('link_slots_unindexed').values({ space_id: spaceId, slot, since }).execute();
}

/** Adds rows to a slot being written (one transaction: keep each part within LINK_ROWS_PER_WRITE). */
export async function addLinkRows(db: Kysely<Database>, spaceId: string, slot: string, rows: Pick<LinkSlotChanges, 'pages' | 'links' | 'answers'>): Promise<void> {
  await db.transaction().execute((trx) => applyChanges(trx, spaceId, slot, { removedLinks: [], removedPages: [], moves: [], removedAnswers: [], ...rows }));
}

/**
 * Makes a slot written in parts the revision's: false, having changed nothing, when the revision was claimed
 * meanwhile by another writer, or the slot was given up as abandoned (removeLinkRows of a write older than it
 * allows); the caller then removes the slot's rows.
 */
export async function claimLinkSlot(db: Kysely<Database>, spaceId: string, commit: string, claim: { slot: string; root: string; version: number; at: string }): Promise<boolean> {
  try {
    await db.transaction().execute(async (trx) => {
      const listed = await trx.deleteFrom('link_slots_unindexed').where('space_id', '=', spaceId).where('slot', '=', claim.slot).where('since', '<>', '').executeTakeFirst();
      if (Number(listed.numDeletedRows) !== 1) throw new Lost();
      const old = await trx.deleteFrom('link_index').where('space_id', '=', spaceId).where('commit_oid', '=', commit).returning('slot').execute();
      await listForRemoval(trx, spaceId, old.map((row) => row.slot));
      const claimed = await trx
        .insertInto('link_index')
        .values({ space_id: spaceId, commit_oid: commit, slot: claim.slot, root: claim.root, version: claim.version, indexed_at: claim.at })
        .onConflict((oc) => oc.columns(['space_id', 'commit_oid']).doNothing())
        .executeTakeFirst();
      if (Number(claimed.numInsertedOrUpdatedRows ?? 0) !== 1) throw new Lost();
    });
    return true;
  } catch (error) {
    if (error instanceof Lost) return false;
    throw error;
  }
}

/** Lists a slot being written for removal (its write was lost, or failed). */
export async function giveUpLinkSlot(db: Kysely<Database>, spaceId: string, slot: string): Promise<void> {
  await db.transaction().execute((trx) => listForRemoval(trx, spaceId, [slot]));
}

/** The space's slots whose rows may be removed: listed for removal, or written in parts since before `before`. */
export async function removableLinkSlots(db: Kysely<Database>, spaceId: string, before: string): Promise<string[]> {
  const rows = await db.selectFrom('link_slots_unindexed').select('slot').where('space_id', '=', spaceId).where('since', '<', before).execute();
  return rows.map((row) => row.slot);
}

/**
 * Removes up to about `limit` rows of each table from a removable slot, in one transaction; returns false once
 * it has none left (and is no longer listed). A write in parts still under way then fails its claim.
 */
export async function removeLinkRows(db: Kysely<Database>, spaceId: string, slot: string, limit = LINK_ROWS_PER_WRITE / 4): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const pagesOf = (table: 'links' | 'link_pages') =>
      trx.selectFrom(table).select('page_id').where('space_id', '=', spaceId).where('slot', '=', slot).limit(limit);
    let removed = 0;
    for (const table of ['links', 'link_pages'] as const) {
      const deleted = await trx.deleteFrom(table).where('space_id', '=', spaceId).where('slot', '=', slot).where('page_id', 'in', pagesOf(table)).executeTakeFirst();
      removed += Number(deleted.numDeletedRows);
    }
    const paths = trx.selectFrom('link_answers').select('path').where('space_id', '=', spaceId).where('slot', '=', slot).limit(limit);
    const answers = await trx.deleteFrom('link_answers').where('space_id', '=', spaceId).where('slot', '=', slot).where('path', 'in', paths).executeTakeFirst();
    removed += Number(answers.numDeletedRows);
    if (removed > 0) return true;
    await trx.deleteFrom('link_slots_unindexed').where('space_id', '=', spaceId).where('slot', '=', slot).execute();
    return false;
  });
}
