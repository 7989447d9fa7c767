/**
 * Browser sessions: what signing in (password, OpenID Connect, SAML) gives a browser, kept in an HttpOnly cookie by
 * the HTTP layer. The cookie holds a random secret; only its SHA-256 is stored, as for API tokens. Every write a
 * session makes also carries its CSRF token (an HMAC of the secret, so nothing more is stored), which a page of
 * another origin cannot read.
 */
import crypto from 'node:crypto';
import type { Caller, Context } from '../context.js';
import { InvalidArgument, NotFound, TooManyRequests, Unauthenticated } from '../errors.js';
import { hashToken, newId, nowIso } from '../ids.js';
import { findUserByEmail, findUserById, type UserRow } from '../../store/sql/users.js';
import {
  deleteSession,
  deleteSessionsOf,
  findLiveSession,
  findPasswordHash,
  insertPasswordReset,
  insertSession,
  listLiveSessions,
  savePasswordHash,
  takePasswordReset,
  touchSession,
  type SessionRow,
} from '../../store/sql/sessions.js';
import { checkNewPassword, hashPassword, passwordMatches } from './passwords.js';
import { isEmail } from './users.js';

/** A session lasts this long from its sign-in, whatever its use: signing in again is cheap, a stolen cookie is not. */
export const SESSION_MS = 30 * 24 * 60 * 60 * 1000;
/** A one-time password link works this long. */
export const PASSWORD_LINK_MS = 24 * 60 * 60 * 1000;
/** How stale a session's "last seen" may get: at most one write per session in this time. */
const TOUCH_MS = 10 * 60 * 1000;

export type SignInMethod = 'password' | 'oidc' | 'saml';

/** Who is signing in, as the sessions list shows it. */
export interface SessionClient {
  address: string;
  userAgent?: string;
}

export interface StartedSession {
  user: UserRow;
  session: SessionRow;
  /** The cookie's value: returned once, never stored. */
  secret: string;
  csrfToken: string;
}

/** The CSRF token of a session: derived from its secret, so that it needs no storage and dies with the session. */
export function csrfTokenOf(secret: string): string {
  return crypto.createHmac('sha256', secret).update('quire csrf').digest('base64url');
}

/** Whether `given` is the session's CSRF token (compared in constant time). */
export function csrfTokenMatches(secret: string, given: string | undefined): boolean {
  if (!given) return false;
  const expected = Buffer.from(csrfTokenOf(secret));
  const actual = Buffer.from(given);
  return actual.length === expected.length && crypto.timingSafeEqual(actual, expected);
}

/** Opens a session for a user whose identity was proven (a password, an identity provider). */
export async function startSession(ctx: Context, user: UserRow, method: SignInMethod, client: SessionClient): Promise<StartedSession> {
  const secret = `qs_${crypto.randomBytes(32).toString('base64url')}`;
  const now = new Date();
  const session: SessionRow = {
    id: newId(),
    user_id: user.id,
    secret_hash: hashToken(secret),
    method,
    user_agent: client.userAgent?.slice(0, 300) || null,
    ip: client.address.slice(0, 64) || null,
    created_at: now.toISOString(),
    last_seen_at: now.toISOString(),
    expires_at: new Date(now.getTime() + SESSION_MS).toISOString(),
  };
  await insertSession(ctx.db, session);
  return { user, session, secret, csrfToken: csrfTokenOf(secret) };
}

/**
 * Signs in with an e-mail address and a password. A wrong e-mail and a wrong password are one answer, after the same
 * work; too many failures for an address or from a client are refused for a while (TooManyRequests).
 */
export async function signInWithPassword(ctx: Context, input: { email: string; password: string }, client: SessionClient): Promise<StartedSession> {
  const email = input.email.trim().toLowerCase();
  if (!isEmail(email)) throw new InvalidArgument(`email: "${input.email}" is not an e-mail address`);
  const wait = await ctx.signInLimits.attempt(email, client.address);
  if (wait > 0) throw new TooManyRequests(`email: too many failed sign-ins; try again in ${wait} seconds`, { retryAfterSeconds: wait });
  const user = await findUserByEmail(ctx.db, email);
  const matches = await passwordMatches(user && (await findPasswordHash(ctx.db, user.id)), input.password);
  if (!user || !matches) {
    await ctx.signInLimits.failed(client.address);
    throw new Unauthenticated('email, password: no account has this e-mail address and password');
  }
  await ctx.signInLimits.succeeded(email);
  return startSession(ctx, user, 'password', client);
}

/** The user and session of a session cookie's secret; Unauthenticated when unknown or expired. */
export async function authenticateSession(ctx: Context, secret: string): Promise<{ user: UserRow; session: SessionRow }> {
  const hash = hashToken(secret);
  const now = nowIso();
  const found = await ctx.cache.get(`session:${hash}`, () => findLiveSession(ctx.db, hash, now));
  if (!found || found.session.expires_at <= now) throw new Unauthenticated('cookie: the session has ended; sign in again');
  if (Date.parse(now) - Date.parse(found.session.last_seen_at) > TOUCH_MS) {
    found.session.last_seen_at = now;
    await touchSession(ctx.db, found.session.id, now);
  }
  return found;
}

/** The caller's sessions that have not ended, newest first. */
export async function listSessions(ctx: Context, caller: Caller): Promise<SessionRow[]> {
  return listLiveSessions(ctx.db, caller.user.id, nowIso());
}

/** Ends one of the caller's sessions (signing out on another device). */
export async function revokeSession(ctx: Context, caller: Caller, sessionId: string): Promise<void> {
  if (!(await deleteSession(ctx.db, caller.user.id, sessionId))) throw new NotFound(`sessionId: no session "${sessionId}"`);
}

/** Signs out the caller's current session. */
export async function signOut(ctx: Context, caller: Caller): Promise<void> {
  if (!caller.sessionId) throw new InvalidArgument('cookie: this request carries no session to sign out (it came with an API token)');
  await deleteSession(ctx.db, caller.user.id, caller.sessionId);
}

/** Ends every session of the caller, the current one included: "sign out everywhere". How many ended. */
export async function signOutEverywhere(ctx: Context, caller: Caller): Promise<number> {
  return deleteSessionsOf(ctx.db, caller.user.id);
}

/**
 * A one-time link's token that lets the user set a password (the first one, or a forgotten one): what
 * `quire admin reset-password` prints and what the e-mail would carry. Only its hash is stored.
 */
export async function createPasswordLink(ctx: Context, userIdOrEmail: string): Promise<{ user: UserRow; token: string; expiresAt: string }> {
  const user = userIdOrEmail.includes('@') ? await findUserByEmail(ctx.db, userIdOrEmail) : await findUserById(ctx.db, userIdOrEmail);
  if (!user) throw new NotFound(`user: no user "${userIdOrEmail}"`);
  const token = `qp_${crypto.randomBytes(32).toString('base64url')}`;
  const now = new Date();
  const expiresAt = new Date(now.getTime() + PASSWORD_LINK_MS).toISOString();
  await insertPasswordReset(ctx.db, { token_hash: hashToken(token), user_id: user.id, created_at: now.toISOString(), expires_at: expiresAt });
  return { user, token, expiresAt };
}

/**
 * Sets a password with a one-time link's token, ends the user's other sessions (whoever knew the old password is
 * out) and signs in.
 */
export async function setPasswordWithLink(ctx: Context, input: { token: string; password: string }, client: SessionClient): Promise<StartedSession> {
  checkNewPassword(input.password);
  const userId = await takePasswordReset(ctx.db, hashToken(input.token), nowIso());
  const user = userId ? await findUserById(ctx.db, userId) : undefined;
  if (!user) throw new InvalidArgument('token: the link is not valid (used already, expired, or mistyped); ask for a new one');
  await savePasswordHash(ctx.db, user.id, await hashPassword(input.password), nowIso());
  await deleteSessionsOf(ctx.db, user.id);
  await ctx.signInLimits.succeeded(user.email);
  return startSession(ctx, user, 'password', client);
}

/** Changes the caller's password, given the current one; their other sessions end. */
export async function changePassword(ctx: Context, caller: Caller, input: { currentPassword: string; newPassword: string }): Promise<void> {
  checkNewPassword(input.newPassword, 'newPassword');
  if (!(await passwordMatches(await findPasswordHash(ctx.db, caller.user.id), input.currentPassword))) {
    throw new InvalidArgument('currentPassword: is not the account\'s password');
  }
  await savePasswordHash(ctx.db, caller.user.id, await hashPassword(input.newPassword), nowIso());
  await deleteSessionsOf(ctx.db, caller.user.id, caller.sessionId);
}
