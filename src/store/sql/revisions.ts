import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** A commit's stored history facts: whole, or (`baseOid`) as the change from another stored commit's. */
export interface StoredFacts {
  facts: string;
  baseOid: string | null;
  depth: number;
}

export async function findRevisionFacts(db: Kysely<Database>, spaceId: string, commitOid: string): Promise<StoredFacts | undefined> {
  const row = await db
    .selectFrom('revision_facts')
    .select(['facts', 'base_oid', 'depth'])
    .where('space_id', '=', spaceId)
    .where('commit_oid', '=', commitOid)
    .executeTakeFirst();
  return row && { facts: row.facts, baseOid: row.base_oid, depth: Number(row.depth) };
}

/**
 * Stores facts unless another process stored them first (they are equal: both were derived from history). A change
 * row whose base is not stored is refused by the database (its foreign key).
 */
export async function saveRevisionFacts(db: Kysely<Database>, spaceId: string, commitOid: string, stored: StoredFacts): Promise<void> {
  await db
    .insertInto('revision_facts')
    .values({ space_id: spaceId, commit_oid: commitOid, facts: stored.facts, base_oid: stored.baseOid, depth: stored.depth })
    .onConflict((oc) => oc.columns(['space_id', 'commit_oid']).doNothing())
    .execute();
}

/** The commits of a space whose facts are stored (where a computation of a newer commit can start). */
export async function revisionFactCommits(db: Kysely<Database>, spaceId: string): Promise<string[]> {
  const rows = await db.selectFrom('revision_facts').select('commit_oid').where('space_id', '=', spaceId).execute();
  return rows.map((row) => row.commit_oid);
}
