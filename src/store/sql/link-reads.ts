/**
 * The lists read from the link index (./links.ts): a revision's link targets, their locations, their counts and the
 * pages linking to a file, each scoped to the revision's slot (and to a page, a status). Apart from the writes: these
 * only read, and know nothing of slots changing hands beyond finding the revision's own.
 */
import type { Expression, Kysely, SqlBool } from 'kysely';
import { sql } from './kysely.js';
import type { Database } from './schema.js';
import { keysetQuery, type KeysetKey } from './keyset.js';

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

/** The slot of the scope's revision (none when it is not indexed). */
function slotOf(db: Kysely<Database>, scope: Pick<LinkScope, 'spaceId' | 'commit'>) {
  return db.selectFrom('link_index').select('link_index.slot').where('link_index.space_id', '=', scope.spaceId).where('link_index.commit_oid', '=', scope.commit);
}

function scoped(db: Kysely<Database>, scope: LinkScope, status?: StoredLinkStatus) {
  let query = db.selectFrom('links').where('links.space_id', '=', scope.spaceId).where('links.slot', '=', slotOf(db, scope));
  if (scope.pageId !== undefined) query = query.where('links.page_id', '=', scope.pageId);
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
    .innerJoin('link_pages', (join) =>
      join.onRef('link_pages.space_id', '=', 'links.space_id').onRef('link_pages.slot', '=', 'links.slot').onRef('link_pages.page_id', '=', 'links.page_id'),
    )
    .select(['links.target', 'links.relation', 'links.page_id'])
    .where('links.target', 'in', [...targets])
    .orderBy('link_pages.page_order')
    .orderBy('links.page_id')
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
    .innerJoin('link_pages', (join) =>
      join.onRef('link_pages.space_id', '=', 'links.space_id').onRef('link_pages.slot', '=', 'links.slot').onRef('link_pages.page_id', '=', 'links.page_id'),
    )
    .select(['links.page_id as page_id', 'link_pages.page_order as page_order'])
    .distinct()
    .where('links.space_id', '=', scope.spaceId)
    .where('links.slot', '=', slotOf(db, scope))
    .where('links.target', '=', target);
  const rows = await keysetQuery(db.selectFrom(pages.as('b')).selectAll(), BACKLINK_KEYS, after, limit).execute();
  return rows.map((row) => ({ page_id: row.page_id, page_order: Number(row.page_order) }));
}
