import type { Caller, Context } from '../context.js';
import { sharesOrganization } from '../../store/sql/members.js';
import { Conflict, InvalidArgument, NotFound, Unauthenticated } from '../errors.js';
import { hashToken, newId, newToken, nowIso } from '../ids.js';
import { findUserByEmail, findUserById, findUserByTokenHash, insertApiToken, insertUser, type UserRow } from '../../store/sql/users.js';
import { isUniqueViolation } from '../../store/sql/errors.js';

/**
 * `local@domain.tld`: one `@` with text before it, no white space, a `.` inside the domain. Checked without the
 * regular expression it stands for (`/^[^\s@]+@[^\s@]+\.[^\s@]+$/`), which backtracks quadratically over a domain of
 * many dots.
 */
export function isEmail(value: string): boolean {
  const at = value.indexOf('@');
  if (at < 1 || value.indexOf('@', at + 1) >= 0 || /\s/.test(value)) return false;
  const dot = value.indexOf('.', at + 2);
  return dot >= 0 && dot < value.length - 1;
}

/** Creates a user. The display name defaults to the e-mail's local part. */
export async function createUser(ctx: Context, input: { email: string; name?: string }): Promise<UserRow> {
  const email = input.email.trim().toLowerCase();
  if (!isEmail(email)) throw new InvalidArgument(`email: "${input.email}" is not an e-mail address`);
  const user: UserRow = {
    id: newId(),
    email,
    display_name: input.name?.trim() || email.split('@')[0],
    photo_url: null,
    created_at: nowIso(),
  };
  try {
    await insertUser(ctx.db, user);
  } catch (error) {
    if (isUniqueViolation(error)) throw new Conflict(`email: a user with e-mail "${email}" already exists`);
    throw error;
  }
  return user;
}

/** Issues a new API token for the user. The token is returned once; only its SHA-256 is stored. */
export async function createApiToken(ctx: Context, userId: string): Promise<string> {
  const user = await findUserById(ctx.db, userId);
  if (!user) throw new NotFound(`user: no user "${userId}"`);
  const token = newToken();
  await insertApiToken(ctx.db, { id: newId(), user_id: userId, token_hash: hashToken(token), created_at: nowIso() });
  return token;
}

/** The user behind an API token; Unauthenticated when the token is unknown. */
export async function authenticateToken(ctx: Context, token: string): Promise<UserRow> {
  const hash = hashToken(token);
  const user = await ctx.cache.get(tokenKey(hash), () => findUserByTokenHash(ctx.db, hash));
  if (!user) throw new Unauthenticated('authorization: the token is not valid');
  return user;
}

/**
 * The user behind an API token when the read cache holds it already (what authenticateToken would answer, without a
 * query or a wait); undefined otherwise, and then authenticateToken decides.
 */
export function cachedTokenUser(ctx: Context, token: string): UserRow | undefined {
  return ctx.cache.peek<UserRow | undefined>(tokenKey(hashToken(token)));
}

const tokenKey = (hash: string) => `token:${hash}`;

export async function findUserByIdOrEmail(ctx: Context, idOrEmail: string): Promise<UserRow | undefined> {
  return idOrEmail.includes('@') ? findUserByEmail(ctx.db, idOrEmail) : findUserById(ctx.db, idOrEmail);
}

/**
 * A user as `caller` may see them: themselves, or someone who shares an organization with them (as a member list
 * would show them); 404 otherwise, so that user ids reveal nothing to strangers.
 */
export async function getUser(ctx: Context, caller: Caller, userId: string): Promise<UserRow> {
  const user = userId === caller.user.id ? caller.user : await findUserById(ctx.db, userId);
  if (!user || (user.id !== caller.user.id && !(await sharesOrganization(ctx.db, caller.user.id, user.id)))) throw new NotFound(`userId: no user "${userId}"`);
  return user;
}
