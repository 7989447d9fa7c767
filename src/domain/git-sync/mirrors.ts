/**
 * What reads a host alike, as keys: the poll reads a repository once per reader (`readerKey`), runs fetch through a
 * local mirror per reader and branch (`mirrorKey`), and a mirror no connection reads through any more is removed
 * (`removeMirrorIfUnused`).
 */
import type { Context } from '../context.js';
import { allGitSyncConnections, type GitSyncConnectionRow } from '../../store/sql/git-sync.js';
import { secretOf } from './credentials.js';

/** The URL as a key: an https URL's trailing slashes dropped (the connection keeps it as URL.href gives it, host in lower case). */
function normalizedUrl(url: string): string {
  return url.startsWith('ssh://') ? url : url.replace(/\/+$/, '');
}

/**
 * What reads the host alike for connections: the same normalized URL read with the same credentials. The poll reads a
 * repository's branches once per reader; runs share a mirror per reader and branch (`mirrorKey`).
 *
 * Why the credentials are in it: a mirror holds what its fetch's credentials could read, and a space must never read
 * through another's credentials (a token revoked or limited on the host while another still reads; a deploy key the
 * host no longer has). Connections share only when they present the host the very same credentials (kind, user name,
 * token or deploy key) and, over SSH, trust the same host key: what one could fetch, each could have fetched itself.
 * The credentials enter the key as a fingerprint (HMAC under the credentials key, ctx.secrets.fingerprint), so the
 * key, and the mirror's path made from it, tells nothing of them, not even to a guess of a weak token.
 */
export function readerKey(ctx: Context, row: GitSyncConnectionRow): string {
  const credentials = [row.auth_kind, row.auth_username ?? '', secretOf(ctx, row) ?? '', row.host_key ?? ''].join('\0');
  return `${normalizedUrl(row.url)}\n${ctx.secrets.fingerprint(credentials, 'git-sync-reader')}`;
}

/**
 * The mirror a connection's runs fetch through (a reader's branch: `readerKey` and the ref); undefined over SSH before
 * the first run has trusted a host key: that run fetches on its own as it always did, so the key it learns is its own.
 */
export function mirrorKey(ctx: Context, row: GitSyncConnectionRow): string | undefined {
  if (row.auth_kind === 'ssh-key' && row.host_key === null) return undefined;
  return `${readerKey(ctx, row)}\n${row.ref}`;
}

/** Longest wait for a fetch through the mirror to finish before it is removed. */
const REMOVAL_WAIT_MS = 60_000;

/**
 * Removes the mirror `former` (a connection as it was before it was removed or replaced) fetched through, once no
 * connection reads through it any more: a disconnected repository leaves nothing of it on disk.
 */
export async function removeMirrorIfUnused(ctx: Context, former: GitSyncConnectionRow): Promise<void> {
  const key = mirrorKey(ctx, former);
  if (key === undefined) return;
  const connections = await allGitSyncConnections(ctx.db);
  if (connections.some((row) => mirrorKey(ctx, row) === key)) return;
  await ctx.git.removeMirror(key, REMOVAL_WAIT_MS);
}
