/**
 * Keyset pagination: rows after a position given by the values of the sort keys (the last key must be unique).
 * Stable under concurrent inserts, unlike offsets.
 */
import type { SelectQueryBuilder } from 'kysely';

export type SortDirection = 'asc' | 'desc';

export interface KeysetKey {
  /** Column reference as the query knows it, e.g. `spaces.created_at`. */
  column: string;
  direction: SortDirection;
}

/**
 * Adds `ORDER BY` for the keys and, when `after` is given, the condition "comes after that position".
 * Returns at most `limit` rows.
 */
export function keysetQuery<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  keys: KeysetKey[],
  after: readonly unknown[] | undefined,
  limit: number,
): SelectQueryBuilder<DB, TB, O> {
  // Kysely cannot type a column named at run time; the names come from code, never from requests.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as said above.
  let q = query as SelectQueryBuilder<any, any, O>;
  if (after) {
    if (after.length !== keys.length) throw new Error('keyset position does not match the keys');
    q = q.where((eb) =>
      eb.or(
        keys.map((key, i) =>
          eb.and([
            ...keys.slice(0, i).map((prev, j) => eb(prev.column, '=', after[j])),
            eb(key.column, key.direction === 'asc' ? '>' : '<', after[i]),
          ]),
        ),
      ),
    );
  }
  for (const key of keys) q = q.orderBy(key.column, key.direction);
  return q.limit(limit) as SelectQueryBuilder<DB, TB, O>;
}
