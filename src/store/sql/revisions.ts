import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

export async function findRevisionFacts(db: Kysely<Database>, spaceId: string, commitOid: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('revision_facts')
    .select('facts')
    .where('space_id', '=', spaceId)
    .where('commit_oid', '=', commitOid)
    .executeTakeFirst();
  return row?.facts;
}

/** Stores facts unless another process stored them first (they are equal: both were derived from history). */
export async function saveRevisionFacts(db: Kysely<Database>, spaceId: string, commitOid: string, facts: string): Promise<void> {
  await db
    .insertInto('revision_facts')
    .values({ space_id: spaceId, commit_oid: commitOid, facts })
    .onConflict((oc) => oc.columns(['space_id', 'commit_oid']).doNothing())
    .execute();
}

/** The commits of a space whose facts are stored (where a computation of a newer commit can start). */
export async function revisionFactCommits(db: Kysely<Database>, spaceId: string): Promise<string[]> {
  const rows = await db.selectFrom('revision_facts').select('commit_oid').where('space_id', '=', spaceId).execute();
  return rows.map((row) => row.commit_oid);
}
