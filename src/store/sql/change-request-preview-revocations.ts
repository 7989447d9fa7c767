import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Records that the change request's preview links made until `revokedAt` are void. */
export async function revokeChangeRequestPreviewLinks(db: Kysely<Database>, changeRequestId: string, revokedAt: string): Promise<void> {
  await db
    .insertInto('change_request_preview_revocations')
    .values({ change_request_id: changeRequestId, revoked_at: revokedAt })
    .onConflict((oc) => oc.column('change_request_id').doUpdateSet({ revoked_at: revokedAt }))
    .execute();
}

/** When the change request's preview links were last revoked, if ever. */
export async function changeRequestPreviewLinksRevokedAt(db: Kysely<Database>, changeRequestId: string): Promise<string | undefined> {
  const row = await db.selectFrom('change_request_preview_revocations').select('revoked_at').where('change_request_id', '=', changeRequestId).executeTakeFirst();
  return row?.revoked_at;
}
