/**
 * Git over HTTP, the rules: who may clone, fetch and push a space's repository, starting git's services on it, and
 * what an accepted push changes in the space's row. The checks of the pushed content itself run in the
 * repository's pre-receive hook (src/content/validate-push.ts), before any ref moves.
 */
import type { Readable, Writable } from 'node:stream';
import type { Caller, Context } from '../context.js';
import { PermissionDenied } from '../errors.js';
import { nowIso } from '../ids.js';
import { requireSpacePermission } from '../permissions.js';
import { loadSpace, projectDirectoryOf } from './spaces.js';
import { enqueueIndexingAfterPush, queueMissedIndexing } from './indexing.js';
import { hookEnvironment } from '../../git-hooks/launch.js';
import { changeRequestStates } from '../../store/sql/change-requests.js';
import type { GitService } from '../../store/git/repositories.js';
import { findSpace, liveSpaces, lockSpaceRow, updateSpaceRow, type SpaceRow } from '../../store/sql/content.js';

export type { GitService };

/** Clone and fetch: the space's `view` permission (404 when the caller cannot see it). */
export async function authorizeGitRead(ctx: Context, caller: Caller, spaceId: string): Promise<SpaceRow> {
  const { space } = await loadSpace(ctx, caller, spaceId);
  return space;
}

/** Push: the space's `edit` permission, and a space whose edit mode is not `locked`. */
export async function authorizeGitPush(ctx: Context, caller: Caller, spaceId: string): Promise<SpaceRow> {
  const { space, role } = await loadSpace(ctx, caller, spaceId);
  requireSpacePermission(role, spaceId, 'edit', 'push to it');
  if (space.edit_mode === 'locked') {
    throw new PermissionDenied(`space "${spaceId}" is locked: it refuses pushes until an admin sets its edit mode back to "live"`);
  }
  return space;
}

/** The check for a service: upload-pack (clone, fetch) reads, receive-pack (push) writes. */
export function authorizeGitService(ctx: Context, caller: Caller, spaceId: string, service: GitService): Promise<SpaceRow> {
  return service === 'receive-pack' ? authorizeGitPush(ctx, caller, spaceId) : authorizeGitRead(ctx, caller, spaceId);
}

/** A running git service: write the client's request to `stdin`, send `stdout` back. */
export interface GitServiceRun {
  stdin: Writable;
  stdout: Readable;
  /**
   * Settles when git has exited and, after a receive-pack request, the push is recorded (recordPush): answer the
   * client only then, so that a `git push` that returned is visible through the API. Rejects when git failed or
   * recording failed (refs may have moved all the same: the next push records them).
   */
  done: Promise<void>;
  /**
   * The client went away before the answer was complete: a fetch stops at once; a push is left to finish (if its
   * request arrived whole, its refs move and are recorded as usual; if not, git refuses it on its own).
   */
  abandon(): void;
}

const PROTOCOL = /^[A-Za-z0-9=:._-]{1,256}$/;
const MAX_STDERR = 64 * 1024;

/**
 * Starts `git upload-pack` or `git receive-pack` (stateless RPC) on the space's repository, after the caller was
 * authorized. `protocol` is the client's Git-Protocol header (`version=2`), passed to git as GIT_PROTOCOL. Before
 * receive-pack, the repository's hooks are put in place (repositories made before hooks existed get them here)
 * and the hook learns how to run Quire's checks from the environment.
 */
export async function startGitService(
  ctx: Context,
  spaceId: string,
  service: GitService,
  options: { advertiseRefs: boolean; protocol?: string },
): Promise<GitServiceRun> {
  const env: Record<string, string> = {};
  if (options.protocol && PROTOCOL.test(options.protocol)) env.GIT_PROTOCOL = options.protocol;
  if (service === 'receive-pack' && !options.advertiseRefs) {
    await ctx.git.ensureHooks(spaceId);
    const changeRequests = await changeRequestStates(ctx.db, spaceId);
    const projectDirectory = await projectDirectoryOf(ctx, spaceId);
    Object.assign(env, hookEnvironment({ maxFileBytes: ctx.gitMaxFileBytes, changeRequests, projectDirectory }));
  }
  const child = ctx.git.spawnService(spaceId, service, { advertiseRefs: options.advertiseRefs, env });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < MAX_STDERR) stderr += chunk.toString('utf8');
  });
  child.stdin.on('error', () => {
    // git may exit before reading the whole request; its exit code tells what happened.
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  });
  const done = exited.then(async (code) => {
    // Refs may have moved even when receive-pack failed afterwards (or was stopped): record whatever main is now.
    if (service === 'receive-pack' && !options.advertiseRefs) await recordPush(ctx, spaceId);
    if (code !== 0) throw new Error(`git ${service} exited with ${code}: ${stderr.trim()}`);
  });
  const abandon = () => {
    if (service === 'upload-pack') child.kill();
    else child.stdout.resume();
  };
  return { stdin: child.stdin, stdout: child.stdout, done, abandon };
}

/**
 * After a push: the space's `revision` becomes main's oid and `updatedAt` moves, when main moved. Main is read
 * under the space row's lock, so concurrent pushes record in the order main moved, whichever process serves them.
 */
export async function recordPush(ctx: Context, spaceId: string): Promise<void> {
  const revision = await ctx.db.transaction().execute(async (trx) => {
    await lockSpaceRow(trx, spaceId);
    const main = await ctx.reader.resolveRef(spaceId, 'refs/heads/main');
    const space = await findSpace(trx, spaceId);
    if (!main || !space || space.revision === main) return undefined;
    await updateSpaceRow(trx, spaceId, { revision: main, updated_at: nowIso() });
    return main;
  });
  if (revision) await enqueueIndexingAfterPush(ctx, { spaceId, revision });
}

/**
 * At start: records main's commit in the row of every live space whose row is behind its repository (a process
 * killed between moving main and recording it), which queues their indexing, then queues the indexing that the
 * indexes missed (queueMissedIndexing). Returns the ids of the spaces whose rows were behind and of those queued.
 */
export async function catchUpWithRepositories(ctx: Context): Promise<{ recorded: string[]; indexed: string[] }> {
  const recorded: string[] = [];
  for (const space of await liveSpaces(ctx.db)) {
    const main = await ctx.reader.resolveRef(space.id, 'refs/heads/main');
    if (main && main !== space.revision) {
      await recordPush(ctx, space.id);
      recorded.push(space.id);
    }
  }
  return { recorded, indexed: await queueMissedIndexing(ctx) };
}
