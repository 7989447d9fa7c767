/**
 * The link index: the links of indexed revisions (commits) of spaces, one row per page and target, and which
 * revisions are indexed. Rows of one revision are written together and replaced together.
 */
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Database, LinksTable } from './schema.js';
import { keysetQuery, type KeysetKey } from './keyset.js';

/** A row of `links` without its revision (the space and commit it is stored under). */
export type LinkRowInput = Omit<LinksTable, 'space_id' | 'commit_oid'>;

/** The extraction version a revision was indexed with; undefined when it is not indexed. */
/** `space commit` of every revision indexed under `version` of the rules. */
export async function indexedLinkCommits(db: Kysely<Database>, version: number): Promise<Set<string>> {
  const rows = await db.selectFrom('link_index').select(['space_id', 'commit_oid']).where('version', '=', version).execute();
  return new Set(rows.map((row) => `${row.space_id} ${row.commit_oid}`));
}

export async function linkIndexVersion(db: Kysely<Database>, spaceId: string, commit: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('link_index')
    .select('version')
    .where('space_id', '=', spaceId)
    .where('commit_oid', '=', commit)
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.version);
}

const CHUNK = 500;

/**
 * Replaces the rows of one revision, in one transaction. Another process writing the same revision at the same
 * time writes the same rows: whichever lands second adds nothing.
 */
export async function replaceLinks(db: Kysely<Database>, spaceId: string, commit: string, rows: LinkRowInput[], version: number, at: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx.deleteFrom('links').where('space_id', '=', spaceId).where('commit_oid', '=', commit).execute();
    for (let i = 0; i < rows.length; i += CHUNK) {
      const values = rows.slice(i, i + CHUNK).map((row) => ({ space_id: spaceId, commit_oid: commit, ...row }));
      await trx
        .insertInto('links')
        .values(values)
        .onConflict((oc) => oc.columns(['space_id', 'commit_oid', 'page_id', 'relation', 'target']).doNothing())
        .execute();
    }
    await trx
      .insertInto('link_index')
      .values({ space_id: spaceId, commit_oid: commit, version, indexed_at: at })
      .onConflict((oc) => oc.columns(['space_id', 'commit_oid']).doUpdateSet({ version, indexed_at: at }))
      .execute();
  });
}

/** Removes the rows of every indexed revision of the space except `keep`. */
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
    await trx.deleteFrom('link_index').where('space_id', '=', spaceId).where('commit_oid', 'in', commits).execute();
    await trx.deleteFrom('links').where('space_id', '=', spaceId).where('commit_oid', 'in', commits).execute();
  });
}

export type StoredLinkStatus = 'ok' | 'broken' | 'in-app';

export interface LinkScope {
  spaceId: string;
  commit: string;
  /** Only the links of this page. */
  pageId?: string;
  /** URLs of the app: a `url` target equal to it or under it (`<appUrl>/…`) is `in-app`. */
  appUrl: string;
}

function inApp(appUrl: string): Expression<SqlBool> {
  const under = `${appUrl}/`;
  return sql<SqlBool>`(target_kind = 'url' and (target_value = ${appUrl} or substr(target_value, 1, ${under.length}) = ${under}))`;
}

function scoped(db: Kysely<Database>, scope: LinkScope, status?: StoredLinkStatus) {
  let query = db.selectFrom('links').where('space_id', '=', scope.spaceId).where('commit_oid', '=', scope.commit);
  if (scope.pageId !== undefined) query = query.where('page_id', '=', scope.pageId);
  if (status === 'broken') query = query.where('status', '=', 'broken');
  if (status === 'in-app') query = query.where(inApp(scope.appUrl));
  if (status === 'ok') query = query.where('status', '=', 'ok').where(sql<SqlBool>`not ${inApp(scope.appUrl)}`);
  return query;
}

export interface LinkTargetRow {
  target: string;
  relation: string;
  target_kind: string;
  target_value: string;
  anchor: string | null;
  status: string;
  in_app: number;
}

const TARGET_KEYS: KeysetKey[] = [
  { column: 't.target', direction: 'asc' },
  { column: 't.relation', direction: 'asc' },
];

/** Distinct targets (and relations) of the scope, by target key, after a keyset position. */
export async function listLinkTargets(
  db: Kysely<Database>,
  scope: LinkScope,
  status: StoredLinkStatus | undefined,
  after: unknown[] | undefined,
  limit: number,
): Promise<LinkTargetRow[]> {
  const grouped = scoped(db, scope, status)
    .select([
      'target',
      'relation',
      (eb) => eb.fn.min('target_kind').as('target_kind'),
      (eb) => eb.fn.min('target_value').as('target_value'),
      (eb) => eb.fn.min('anchor').as('anchor'),
      (eb) => eb.fn.min('status').as('status'),
      sql<number>`max(case when ${inApp(scope.appUrl)} then 1 else 0 end)`.as('in_app'),
    ])
    .groupBy(['target', 'relation']);
  const rows = await keysetQuery(db.selectFrom(grouped.as('t')).selectAll(), TARGET_KEYS, after, limit).execute();
  return rows as LinkTargetRow[];
}

/** The pages (in page order) where each of these targets is linked from, within the scope. */
export async function linkLocations(
  db: Kysely<Database>,
  scope: LinkScope,
  targets: readonly string[],
): Promise<Array<{ target: string; relation: string; page_id: string }>> {
  if (targets.length === 0) return [];
  return scoped(db, scope)
    .select(['target', 'relation', 'page_id'])
    .where('target', 'in', [...targets])
    .orderBy('page_order')
    .orderBy('page_id')
    .execute();
}

/** Counts of distinct targets (and relations) of the scope: all of them, and the broken ones. */
export async function linkStats(db: Kysely<Database>, scope: LinkScope): Promise<{ total: number; broken: number }> {
  const grouped = scoped(db, scope)
    .select(['target', 'relation', sql<number>`max(case when status = 'broken' then 1 else 0 end)`.as('broken')])
    .groupBy(['target', 'relation']);
  const row = await db
    .selectFrom(grouped.as('t'))
    .select([(eb) => eb.fn.countAll<number>().as('total'), (eb) => eb.fn.sum<number>('t.broken').as('broken')])
    .executeTakeFirst();
  return { total: Number(row?.total ?? 0), broken: Number(row?.broken ?? 0) };
}

/** The broken targets of the scope, as `relation target` keys. */
export async function brokenTargets(db: Kysely<Database>, scope: LinkScope): Promise<Set<string>> {
  const rows = await scoped(db, scope, 'broken').select(['target', 'relation']).distinct().execute();
  return new Set(rows.map((row) => `${row.relation} ${row.target}`));
}

const BACKLINK_KEYS: KeysetKey[] = [
  { column: 'b.page_order', direction: 'asc' },
  { column: 'b.page_id', direction: 'asc' },
];

/** The pages that link to a target (any relation), in page order, after a keyset position. */
export async function listLinkingPages(
  db: Kysely<Database>,
  scope: Pick<LinkScope, 'spaceId' | 'commit'>,
  target: string,
  after: unknown[] | undefined,
  limit: number,
): Promise<Array<{ page_id: string; page_order: number }>> {
  const pages = db
    .selectFrom('links')
    .select(['page_id', (eb) => eb.fn.min('page_order').as('page_order')])
    .where('space_id', '=', scope.spaceId)
    .where('commit_oid', '=', scope.commit)
    .where('target', '=', target)
    .groupBy('page_id');
  const rows = await keysetQuery(db.selectFrom(pages.as('b')).selectAll(), BACKLINK_KEYS, after, limit).execute();
  return rows.map((row) => ({ page_id: row.page_id, page_order: Number(row.page_order) }));
}
