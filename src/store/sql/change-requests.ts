import type { Kysely, Selectable, Updateable } from 'kysely';
import type { ChangeRequestsTable, Database } from './schema.js';
import { keysetQuery } from './keyset.js';

export type ChangeRequestRow = Selectable<ChangeRequestsTable>;

export async function insertChangeRequest(db: Kysely<Database>, row: ChangeRequestRow): Promise<void> {
  await db.insertInto('change_requests').values(row).execute();
}

/** The next number of the space (1 for the first). Callers insert in the same transaction and retry on a clash. */
export async function nextChangeRequestNumber(db: Kysely<Database>, spaceId: string): Promise<number> {
  const row = await db
    .selectFrom('change_requests')
    .select((eb) => eb.fn.max<number>('number').as('n'))
    .where('space_id', '=', spaceId)
    .executeTakeFirst();
  return Number(row?.n ?? 0) + 1;
}

/** By id, or by number when `idOrNumber` is all digits. */
/** The largest change-request number the `integer` column holds (PostgreSQL refuses to compare it with a larger one). */
const MAX_CHANGE_REQUEST_NUMBER = 2_147_483_647;

export async function findChangeRequest(db: Kysely<Database>, spaceId: string, idOrNumber: string): Promise<ChangeRequestRow | undefined> {
  let query = db.selectFrom('change_requests').selectAll().where('space_id', '=', spaceId);
  if (/^\d+$/.test(idOrNumber)) {
    const number = Number(idOrNumber);
    if (number > MAX_CHANGE_REQUEST_NUMBER) return undefined;
    query = query.where('number', '=', number);
  } else {
    query = query.where('id', '=', idOrNumber);
  }
  return query.executeTakeFirst();
}

/** A change request by its id alone (a preview's address names no space). */
export async function findChangeRequestById(db: Kysely<Database>, id: string): Promise<ChangeRequestRow | undefined> {
  return db.selectFrom('change_requests').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The change request of the space whose merge made the commit `revision`, if one did. */
export async function findChangeRequestMergedAt(db: Kysely<Database>, spaceId: string, revision: string): Promise<ChangeRequestRow | undefined> {
  return db
    .selectFrom('change_requests')
    .selectAll()
    .where('space_id', '=', spaceId)
    .where('status', '=', 'merged')
    .where('revision_merged', '=', revision)
    .executeTakeFirst();
}

export async function updateChangeRequestRow(db: Kysely<Database>, id: string, changes: Updateable<ChangeRequestsTable>): Promise<void> {
  await db.updateTable('change_requests').set(changes).where('id', '=', id).execute();
}

/**
 * Marks a change request merged at `revision`, only while it is still draft or open (compare-and-swap on its
 * status): a merge or a close made meanwhile is kept, and of two processes marking it one writes. True when this
 * call wrote.
 */
export async function markChangeRequestMerged(db: Kysely<Database>, id: string, revision: string, updatedAt: string): Promise<boolean> {
  const result = await db
    .updateTable('change_requests')
    .set({ status: 'merged', revision_merged: revision, updated_at: updatedAt })
    .where('id', '=', id)
    .where('status', 'in', ['draft', 'open'])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export const CHANGE_REQUEST_LIST_KEYS = [{ column: 'change_requests.number', direction: 'desc' as const }];

/** Change requests of a space with a status, newest first; `contributor` keeps those the user created. */
export async function listChangeRequests(
  db: Kysely<Database>,
  spaceId: string,
  filter: { status: string; contributor?: string },
  after: unknown[] | undefined,
  limit: number,
): Promise<ChangeRequestRow[]> {
  let query = db
    .selectFrom('change_requests')
    .selectAll('change_requests')
    .where('change_requests.space_id', '=', spaceId)
    .where('change_requests.status', '=', filter.status);
  if (filter.contributor) query = query.where('change_requests.created_by', '=', filter.contributor);
  return keysetQuery(query, CHANGE_REQUEST_LIST_KEYS, after, limit).execute();
}

/** The highest change-request number of a space, and the numbers of those merged or archived. */
export async function changeRequestStates(db: Kysely<Database>, spaceId: string): Promise<{ last: number; closed: Record<string, string> }> {
  const rows = await db.selectFrom('change_requests').select(['number', 'status']).where('space_id', '=', spaceId).execute();
  const closed: Record<string, string> = {};
  let last = 0;
  for (const row of rows) {
    last = Math.max(last, Number(row.number));
    if (row.status === 'merged' || row.status === 'archived') closed[String(row.number)] = row.status;
  }
  return { last, closed };
}

/** Per space: total, open and draft change requests. */
export async function changeRequestCounts(
  db: Kysely<Database>,
  spaceIds: readonly string[],
): Promise<Map<string, { total: number; open: number; draft: number }>> {
  const counts = new Map(spaceIds.map((id) => [id, { total: 0, open: 0, draft: 0 }]));
  if (spaceIds.length === 0) return counts;
  const rows = await db
    .selectFrom('change_requests')
    .select(['space_id', 'status', (eb) => eb.fn.countAll<number>().as('n')])
    .where('space_id', 'in', [...spaceIds])
    .groupBy(['space_id', 'status'])
    .execute();
  for (const row of rows) {
    const count = counts.get(row.space_id)!;
    count.total += Number(row.n);
    if (row.status === 'open') count.open += Number(row.n);
    if (row.status === 'draft') count.draft += Number(row.n);
  }
  return counts;
}

/** The change requests of a space still in progress (draft or open). */
export async function liveChangeRequests(db: Kysely<Database>, spaceId: string): Promise<ChangeRequestRow[]> {
  return db.selectFrom('change_requests').selectAll().where('space_id', '=', spaceId).where('status', 'in', ['draft', 'open']).execute();
}

/** The merged change requests of a space whose `revision_merged` is one of `oids` (a page of its history). */
export async function changeRequestsMergedAt(db: Kysely<Database>, spaceId: string, oids: readonly string[]): Promise<ChangeRequestRow[]> {
  if (oids.length === 0) return [];
  return db
    .selectFrom('change_requests')
    .selectAll()
    .where('space_id', '=', spaceId)
    .where('status', '=', 'merged')
    .where('revision_merged', 'in', [...oids])
    .execute();
}
