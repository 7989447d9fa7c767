/**
 * Git over HTTP, the rules: who may clone, fetch and push a space's repository, and starting git's services on it
 * (src/store/git/git-services.ts) once they may; whether a push lands is a PushDecision's (./push-decision.ts).
 *
 * Before a push, its client asks for the ref advertisement; under many writers of one space these take turns
 * (src/store/git/pushes-under-way.ts), so that a landing costs one other writer's retry rather than all of theirs.
 */
import type { Caller, Context } from '../context.js';
import { PermissionDenied } from '../errors.js';
import { requireSpacePermission } from '../permissions.js';
import { loadSpace } from './spaces.js';
import { queueMissedIndexing } from './indexing.js';
import { PushDecision } from './push-decision.js';
import { recordChangeRequestsMergedIntoMain, recordMainMoved } from './main-moved.js';
import type { GitService } from '../../store/git/repositories.js';
import { runGitService, type GitServiceRun } from '../../store/git/git-services.js';
import { liveSpaces, type SpaceRow } from '../../store/sql/spaces.js';
import { changeRequestCounts } from '../../store/sql/change-requests.js';
import { MAIN_REF } from './refs.js';

export type { GitService, GitServiceRun };
/** The bytes smart HTTP puts before an advertisement (the protocol's, kept with git's other formats). */
export { advertisementPrefix } from '../../store/git/advertisement.js';

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

/**
 * The ref advertisement (`info/refs`) of `service` for a client speaking protocol `version`, made without starting
 * git where Quire knows it (GitReader.advertisement); undefined where git must answer (startGitService). A push's
 * advertisement first waits for its turn among the space's writers (PushesUnderWay, at most
 * ADVERTISEMENT_WAIT_MS): the client then sees where main went, and many writers of one space take turns instead
 * of all racing for each landing.
 */
export async function advertiseRefs(ctx: Context, spaceId: string, service: GitService, version: number): Promise<Buffer | undefined> {
  if (service === 'receive-pack') await ctx.git.pushesUnderWay.turnToAdvertise(spaceId, ADVERTISEMENT_WAIT_MS);
  return ctx.reader.advertisement(spaceId, service, version);
}

/** Longest a receive-pack advertisement waits for its turn (see PushesUnderWay). */
const ADVERTISEMENT_WAIT_MS = 2_000;

/**
 * Starts `git upload-pack` or `git receive-pack` on the space's repository (src/store/git/git-services.ts), after
 * the caller was authorized. `protocol` is the client's Git-Protocol header (`version=2`). A push is decided by a
 * PushDecision (./push-decision.ts), prepared with what its checks need to know of the space.
 */
export async function startGitService(
  ctx: Context,
  spaceId: string,
  service: GitService,
  options: { advertiseRefs: boolean; protocol?: string },
): Promise<GitServiceRun> {
  const pushing = service === 'receive-pack' && !options.advertiseRefs;
  const push = pushing ? await PushDecision.prepare(ctx, spaceId) : undefined;
  const run = await runGitService(ctx.git, spaceId, service, { ...options, push });
  run.released.catch((error: unknown) => ctx.log.error({ err: error, space: spaceId }, 'push: letting go of the ref lock failed'));
  return run;
}

/**
 * At start: records main's commit in the row of every live space whose row is behind its repository (a process
 * killed between moving main and recording it), which queues their indexing and marks the change requests main
 * contains as merged; in a space whose row was current, those change requests are marked too (a process killed
 * between recording main and marking them). Then queues the indexing that the indexes missed (queueMissedIndexing).
 * Returns the ids of the spaces whose rows were behind and of those queued.
 */
export async function catchUpWithRepositories(ctx: Context, progress?: (checked: number, total: number) => void): Promise<{ recorded: string[]; indexed: string[] }> {
  const recorded: string[] = [];
  const spaces = await liveSpaces(ctx.db);
  const changeRequests = await changeRequestCounts(ctx.db, spaces.map((space) => space.id));
  for (const [index, space] of spaces.entries()) {
    const main = await ctx.reader.resolveRef(space.id, MAIN_REF);
    if (main && main !== space.revision) {
      await recordMainMoved(ctx, space.id);
      recorded.push(space.id);
    } else {
      const counts = changeRequests.get(space.id);
      if (counts && counts.open + counts.draft > 0) await recordChangeRequestsMergedIntoMain(ctx, space.id);
    }
    progress?.(index + 1, spaces.length);
  }
  return { recorded, indexed: await queueMissedIndexing(ctx) };
}
