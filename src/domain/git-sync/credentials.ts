/**
 * A Git Sync connection's secrets (its token or deploy key, its webhook secret): sealed with the data dir's
 * credentials key before they are stored (ctx.secrets), each bound to its space and use, opened only where used.
 */
import type { Context } from '../context.js';
import type { GitSyncConnectionRow } from '../../store/sql/git-sync.js';

/** The sealed secrets of a space's connection are bound to it: a sealed text copied to another row does not open. */
export const sealContext = (spaceId: string, what: 'auth' | 'webhook') => `git-sync:${spaceId}:${what}`;

/** The connection's secret (token or deploy key), opened; undefined when it has none. */
export function secretOf(ctx: Context, row: GitSyncConnectionRow): string | undefined {
  return row.auth_secret === null ? undefined : ctx.secrets.open(row.auth_secret, sealContext(row.space_id, 'auth'));
}
