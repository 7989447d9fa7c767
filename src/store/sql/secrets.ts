import crypto from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from './schema.js';

/**
 * A secret shared by every process on this database, created by whichever process asks first.
 * Insert-if-absent then read, so two processes starting together agree on one value.
 */
export async function instanceSecret(db: Kysely<Database>, name: string): Promise<Buffer> {
  await db
    .insertInto('instance_secrets')
    .values({ name, value: crypto.randomBytes(32).toString('base64') })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('instance_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return Buffer.from(row.value, 'base64');
}
