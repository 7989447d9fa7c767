/**
 * What a change of main makes of the space's row: its `revision` follows main's commit, and the new commits are
 * indexed. Called once a push, a merge, an import or a migration has moved main.
 */
import type { Context } from '../context.js';
import { nowIso } from '../ids.js';
import { enqueueIndexingAfterPush } from './indexing.js';
import { findSpace, lockSpaceRow, updateSpaceRow } from '../../store/sql/spaces.js';
import { MAIN_REF } from './refs.js';

/**
 * After main may have moved (a push, a merge, an import, a migration, a Git Sync run): the space's `revision` becomes
 * main's oid and `updatedAt` moves, when main moved. Main is read under the space row's lock, so concurrent moves
 * record in the order main moved, whichever process makes them.
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
  if (revision) await enqueueIndexingAfterPush(ctx, { spaceId, revision });
}
