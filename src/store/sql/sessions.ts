/** Browser sign-in: passwords, sessions and one-time password links. */
import type { Kysely, Selectable } from 'kysely';
import type { Database, SessionsTable } from './schema.js';
import type { UserRow } from './users.js';

export type SessionRow = Selectable<SessionsTable>;

export async function findPasswordHash(db: Kysely<Database>, userId: string): Promise<string | undefined> {
  return (await db.selectFrom('user_passwords').select('hash').where('user_id', '=', userId).executeTakeFirst())?.hash;
}

export async function savePasswordHash(db: Kysely<Database>, userId: string, hash: string, at: string): Promise<void> {
  await db
    .insertInto('user_passwords')
    .values({ user_id: userId, hash, updated_at: at })
    .onConflict((c) => c.column('user_id').doUpdateSet({ hash, updated_at: at }))
    .execute();
}

export async function insertSession(db: Kysely<Database>, session: SessionRow): Promise<void> {
  await db.insertInto('sessions').values(session).execute();
}

/** The session with this secret's hash and its user, when it has not expired at `now`. */
export async function findLiveSession(db: Kysely<Database>, secretHash: string, now: string): Promise<{ session: SessionRow; user: UserRow } | undefined> {
  const row = await db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select([
      'sessions.id as session_id',
      'sessions.method',
      'sessions.user_agent',
      'sessions.ip',
      'sessions.created_at as session_created_at',
      'sessions.last_seen_at',
      'sessions.expires_at',
      'users.id',
      'users.email',
      'users.display_name',
      'users.photo_url',
      'users.created_at',
    ])
    .where('sessions.secret_hash', '=', secretHash)
    .where('sessions.expires_at', '>', now)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    session: {
      id: row.session_id,
      user_id: row.id,
      secret_hash: secretHash,
      method: row.method,
      user_agent: row.user_agent,
      ip: row.ip,
      created_at: row.session_created_at,
      last_seen_at: row.last_seen_at,
      expires_at: row.expires_at,
    },
    user: { id: row.id, email: row.email, display_name: row.display_name, photo_url: row.photo_url, created_at: row.created_at },
  };
}

/** The user's sessions that have not expired, newest first. */
export async function listLiveSessions(db: Kysely<Database>, userId: string, now: string): Promise<SessionRow[]> {
  return db.selectFrom('sessions').selectAll().where('user_id', '=', userId).where('expires_at', '>', now).orderBy('created_at', 'desc').orderBy('id').execute();
}

export async function touchSession(db: Kysely<Database>, id: string, at: string): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: at }).where('id', '=', id).execute();
}

/** Deletes one of the user's sessions; whether there was one. */
export async function deleteSession(db: Kysely<Database>, userId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('sessions').where('id', '=', id).where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Deletes every session of the user (but `keep`, when given); how many went. */
export async function deleteSessionsOf(db: Kysely<Database>, userId: string, keep?: string): Promise<number> {
  let query = db.deleteFrom('sessions').where('user_id', '=', userId);
  if (keep) query = query.where('id', '!=', keep);
  return Number((await query.executeTakeFirst()).numDeletedRows);
}

export async function deleteExpiredSessions(db: Kysely<Database>, now: string): Promise<void> {
  await db.deleteFrom('sessions').where('expires_at', '<=', now).execute();
  await db.deleteFrom('password_resets').where('expires_at', '<=', now).execute();
}

export async function insertPasswordReset(db: Kysely<Database>, reset: { token_hash: string; user_id: string; created_at: string; expires_at: string }): Promise<void> {
  await db.insertInto('password_resets').values(reset).execute();
}

/** Takes a password link: deletes it and answers its user when it was there and had not expired (used once at most). */
export async function takePasswordReset(db: Kysely<Database>, tokenHash: string, now: string): Promise<string | undefined> {
  const row = await db.deleteFrom('password_resets').where('token_hash', '=', tokenHash).returning(['user_id', 'expires_at']).executeTakeFirst();
  return row && row.expires_at > now ? row.user_id : undefined;
}
