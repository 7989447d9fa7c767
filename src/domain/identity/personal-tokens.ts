/** A user's own API tokens, made and revoked by themselves (in the app, or with any API client). */
import type { Caller, Context } from '../context.js';
import { InvalidArgument, NotFound } from '../errors.js';
import { hashToken, newId, newToken, nowIso } from '../ids.js';
import { deleteApiToken, insertApiToken, listApiTokens } from '../../store/sql/users.js';

export interface PersonalToken {
  id: string;
  label: string | null;
  created_at: string;
}

/** A bound on the tokens of one user: each is a way in to keep track of. */
export const MAX_TOKENS_PER_USER = 100;

export async function listPersonalTokens(ctx: Context, caller: Caller): Promise<PersonalToken[]> {
  return listApiTokens(ctx.db, caller.user.id);
}

/** Makes a token for the caller; the token itself is in the answer once and never again. */
export async function createPersonalToken(ctx: Context, caller: Caller, input: { label: string }): Promise<PersonalToken & { token: string }> {
  const label = input.label.trim();
  if (label === '') throw new InvalidArgument('label: must not be empty');
  if ((await listApiTokens(ctx.db, caller.user.id)).length >= MAX_TOKENS_PER_USER) {
    throw new InvalidArgument(`label: a user has at most ${MAX_TOKENS_PER_USER} tokens; revoke one first`);
  }
  const token = newToken();
  const row = { id: newId(), user_id: caller.user.id, token_hash: hashToken(token), created_at: nowIso(), label };
  await insertApiToken(ctx.db, row);
  return { id: row.id, label, created_at: row.created_at, token };
}

export async function revokePersonalToken(ctx: Context, caller: Caller, tokenId: string): Promise<void> {
  if (!(await deleteApiToken(ctx.db, caller.user.id, tokenId))) throw new NotFound(`tokenId: no token "${tokenId}"`);
}
