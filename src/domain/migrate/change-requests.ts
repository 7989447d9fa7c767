/**
 * `quire migrate`'s change-request step, run by the spaces step for each open or draft change request: its branch
 * (through git or the API) and its row, number kept when free. Apart from the spaces step: a change request's row,
 * authors and dates are their own rules.
 */
import { newId, nowIso } from '../ids.js';
import { branchOf, MAIN_REF } from '../content/refs.js';
import { fingerprintOf, type MigrationRun } from './migration-run.js';
import type { SourceChangeRequest } from './source-resources.js';
import { writeFromApi } from './space-content.js';
import { bringRefs } from '../../store/git/transfer.js';
import { findChangeRequest, insertChangeRequest, nextChangeRequestNumber, updateChangeRequestRow } from '../../store/sql/change-requests.js';
import { isUniqueViolation } from '../../store/sql/errors.js';

/** An open or draft change request: its row (number kept when free) and its branch. */
export async function copyChangeRequest(run: MigrationRun, spaceId: string, id: string, staging: string, cr: SourceChangeRequest, viaGit: boolean): Promise<void> {
  const fingerprint = fingerprintOf({ revision: cr.revision, status: cr.status, subject: cr.subject ?? '' });
  const existing = await run.mapped('change-request', cr.id);
  const row = existing ? await findChangeRequest(run.ctx.db, id, existing.target_id) : undefined;
  if (row && existing?.fingerprint === fingerprint) return;
  const number = row?.number ?? ((await findChangeRequest(run.ctx.db, id, String(cr.number))) ? await nextChangeRequestNumber(run.ctx.db, id) : cr.number);
  const main = (await run.ctx.reader.resolveRef(id, MAIN_REF))!;
  if (viaGit) {
    const fetched = await run.ctx.reader.resolveRef(staging, `refs/migrate/change-requests/${cr.number}`);
    if (!fetched) throw new Error(`the source's repository has no branch change-requests/${cr.number}`);
    await bringRefs(run.ctx.git, staging, id, [`+refs/migrate/change-requests/${cr.number}:${branchOf(number)}`]);
  } else {
    await writeFromApi(run, id, spaceId, cr.id, branchOf(number), (await run.ctx.reader.resolveRef(id, branchOf(number))) ?? main);
  }
  const createdBy = await run.authorId(cr.createdBy);
  const status = cr.status === 'draft' ? 'draft' : 'open';
  let rowId = row?.id;
  if (row) {
    await updateChangeRequestRow(run.ctx.db, row.id, { subject: (cr.subject ?? '').slice(0, 100), status, updated_at: nowIso() });
  } else {
    const now = nowIso();
    rowId = newId();
    const inserted = {
      id: rowId,
      space_id: id,
      number,
      subject: (cr.subject ?? '').slice(0, 100),
      status,
      created_by: createdBy,
      revision_initial: cr.revisionInitial && (await run.ctx.reader.readCommit(id, cr.revisionInitial).catch(() => undefined)) ? cr.revisionInitial : main,
      revision_merged_ancestor: null,
      revision_merged: null,
      created_at: cr.createdAt ?? now,
      updated_at: cr.updatedAt ?? now,
    };
    try {
      await insertChangeRequest(run.ctx.db, inserted);
    } catch (error) {
      if (isUniqueViolation(error)) throw new Error(`change request number ${number} was taken here while the migration ran; run it again`, { cause: error });
      throw error;
    }
  }
  await run.remember('change-request', cr.id, rowId!, fingerprint);
  run.count('changeRequests');
}
