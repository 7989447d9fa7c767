/**
 * What a change of main makes of the space's row: its `revision` follows main's commit, and the new commits are
 * indexed. Called once a push, a merge, an import or a migration has moved main.
 */
import type { Context } from '../context.js';
import { nowIso } from '../ids.js';
import { enqueueIndexingAfterPush } from './indexing.js';
import { findSpace, lockSpaceRow, updateSpaceRow } from '../../store/sql/spaces.js';
import { MAIN_REF } from './refs.js';
import { markChangeRequestsMergedIntoMain } from '../change-requests/merged-into-main.js';

/**
 * After main may have moved (a push, a merge, an import, a migration, a Git Sync run): the space's `revision` becomes
 * main's oid and `updatedAt` moves, when main moved. Main is read under the space row's lock, so concurrent moves
 * record in the order main moved, whichever process makes them. Then, outside that lock, the change requests whose
 * branches main now contains are marked merged (recordChangeRequestsMergedIntoMain).
 */
export async function recordMainMoved(ctx: Context, spaceId: string): Promise<void> {
  const revision = await ctx.db.transaction().execute(async (trx) => {
    await lockSpaceRow(trx, spaceId);
    const main = await ctx.reader.resolveRef(spaceId, MAIN_REF);
    const space = await findSpace(trx, spaceId);
    if (!main || !space || space.revision === main) return undefined;
    await updateSpaceRow(trx, spaceId, { revision: main, updated_at: nowIso() });
    return main;
  });
  if (revision) {
    await enqueueIndexingAfterPush(ctx, { spaceId, revision });
    await recordChangeRequestsMergedIntoMain(ctx, spaceId);
  }
}

/**
 * Marks merged the change requests whose branches main contains (src/domain/change-requests/merged-into-main.ts).
 * Never fails what moved main: a failure is logged, and the next move of main or the catch-up at start marks them
 * (the rule reads only the state as it is).
 */
export async function recordChangeRequestsMergedIntoMain(ctx: Context, spaceId: string): Promise<void> {
  try {
    await markChangeRequestsMergedIntoMain(ctx, spaceId);
  } catch (error) {
    ctx.log.error({ err: error, space: spaceId }, 'marking the change requests main contains as merged failed: the next move of main or the catch-up at start does it');
  }
}
