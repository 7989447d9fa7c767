import type { Kysely, Selectable } from 'kysely';
import type { Database, UsersTable } from './schema.js';

export type UserRow = Selectable<UsersTable>;

export async function insertUser(db: Kysely<Database>, user: UserRow): Promise<void> {
  await db.insertInto('users').values(user).execute();
}

export async function findUserById(db: Kysely<Database>, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findUserByEmail(db: Kysely<Database>, email: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('email', '=', email.toLowerCase()).executeTakeFirst();
}

export async function findUsersByIds(db: Kysely<Database>, ids: readonly string[]): Promise<UserRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('users').selectAll().where('id', 'in', [...ids]).execute();
}

export async function findUsersByEmails(db: Kysely<Database>, emails: readonly string[]): Promise<UserRow[]> {
  if (emails.length === 0) return [];
  return db
    .selectFrom('users')
    .selectAll()
    .where('email', 'in', emails.map((e) => e.toLowerCase()))
    .execute();
}

export async function insertApiToken(
  db: Kysely<Database>,
  token: { id: string; user_id: string; token_hash: string; created_at: string; label?: string },
): Promise<void> {
  await db.insertInto('api_tokens').values({ ...token, label: token.label ?? null, last_used_at: null }).execute();
}

/** The user's API tokens (never their hashes), newest first. */
export async function listApiTokens(db: Kysely<Database>, userId: string): Promise<Array<{ id: string; label: string | null; created_at: string }>> {
  return db.selectFrom('api_tokens').select(['id', 'label', 'created_at']).where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('id').execute();
}

/** Deletes one of the user's API tokens; whether there was one. */
export async function deleteApiToken(db: Kysely<Database>, userId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('api_tokens').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The user owning the token with this hash. */
export async function findUserByTokenHash(db: Kysely<Database>, tokenHash: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('api_tokens')
    .innerJoin('users', 'users.id', 'api_tokens.user_id')
    .selectAll('users')
    .where('api_tokens.token_hash', '=', tokenHash)
    .executeTakeFirst();
}
