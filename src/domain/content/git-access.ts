/**
 * Git over HTTP, the rules: who may clone, fetch and push a space's repository, starting git's services on it,
 * deciding whether a push lands, and what an accepted push changes in the space's row.
 *
 * A push, in order: receive-pack receives the objects into quarantine and runs the pre-receive hook, which hands
 * the ref updates to this process (src/store/git/push-channel.ts). A push whose refs moved since the client
 * fetched them is refused at once (fetch first); the content checks run (src/content/validate-push.ts), outside
 * any lock; then the space's ref lock is taken (src/store/git/ref-lock.ts, shared by every process), the refs are
 * checked again under it, and the hook lets receive-pack move them. The lock is kept until receive-pack has exited
 * and the push is recorded, so no other writer ever finds a ref locked by git (`cannot lock ref`).
 *
 * Before a push, its client asks for the ref advertisement; under many writers of one space these take turns
 * (src/store/git/pushes-under-way.ts), so that a landing costs one other writer's retry rather than all of theirs.
 */
import type { Readable, Writable } from 'node:stream';
import type { Caller, Context } from '../context.js';
import { PermissionDenied } from '../errors.js';
import { nowIso } from '../ids.js';
import { requireSpacePermission } from '../permissions.js';
import { loadSpace, projectDirectoryOf } from './spaces.js';
import { enqueueIndexingAfterPush, queueMissedIndexing } from './indexing.js';
import { changeRequestStates } from '../../store/sql/change-requests.js';
import type { GitService } from '../../store/git/repositories.js';
import { FLUSH, pktLine } from '../../store/git/advertisement.js';
import type { PushChannel, PushRequest } from '../../store/git/push-channel.js';
import { RefLockTimeout, type RefLock } from '../../store/git/ref-lock.js';
import { isError } from '../../content/problems.js';
import { PROJECT_DIRECTORY_VARIABLE } from '../../content/project-directory.js';
import { CHANGE_REQUESTS_VARIABLE, formatPushProblem, MAX_FILE_BYTES_VARIABLE, validatePush } from '../../content/validate-push.js';
import { busyRefusal, failedRefusal, invalidRefusal, staleRefusal } from '../../content/push-messages.js';
import { findSpace, liveSpaces, lockSpaceRow, updateSpaceRow, type SpaceRow } from '../../store/sql/spaces.js';
import { MAIN_REF } from './refs.js';

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

/** What smart HTTP puts before git's advertisement: `# service=...`, except in protocol v2 (upload-pack only). */
export function advertisementPrefix(service: GitService, version: number): Buffer {
  return service === 'upload-pack' && version >= 2 ? Buffer.alloc(0) : Buffer.concat([pktLine(`# service=git-${service}\n`), FLUSH]);
}

/** Longest a receive-pack advertisement waits for its turn (see PushesUnderWay). */
const ADVERTISEMENT_WAIT_MS = 2_000;
const PROTOCOL = /^[A-Za-z0-9=:._-]{1,256}$/;
const MAX_STDERR = 64 * 1024;

/**
 * Starts `git upload-pack` or `git receive-pack` (stateless RPC) on the space's repository, after the caller was
 * authorized. `protocol` is the client's Git-Protocol header (`version=2`), passed to git as GIT_PROTOCOL. Before
 * receive-pack, the repository's hooks are put in place (repositories made before hooks existed get them here) and
 * a channel is opened for its pre-receive hook, through which this process decides the push (decidePush).
 */
export async function startGitService(
  ctx: Context,
  spaceId: string,
  service: GitService,
  options: { advertiseRefs: boolean; protocol?: string },
): Promise<GitServiceRun> {
  const env: Record<string, string> = {};
  if (options.protocol && PROTOCOL.test(options.protocol)) env.GIT_PROTOCOL = options.protocol;
  const pushing = service === 'receive-pack' && !options.advertiseRefs;
  let push: PushDecision | undefined;
  if (pushing) {
    const channel = await ctx.git.openPushChannel();
    let settings: Record<string, string>;
    try {
      [settings] = await Promise.all([pushSettings(ctx, spaceId), ctx.git.ensureHooks(spaceId)]);
    } catch (error) {
      await channel.close();
      throw error;
    }
    push = new PushDecision(ctx, spaceId, channel, settings);
    Object.assign(env, channel.env);
  }
  let child;
  try {
    child = ctx.git.spawnService(spaceId, service, { advertiseRefs: options.advertiseRefs, env });
  } catch (error) {
    await push?.finish();
    throw error;
  }
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < MAX_STDERR) stderr += chunk.toString('utf8');
  });
  // The request has arrived whole: from now on the push is git's and the server's work alone, not the network's.
  if (push) child.stdin.once('finish', () => push.underWay());
  child.stdin.on('error', () => {
    // git may exit before reading the whole request; its exit code tells what happened.
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  });
  const done = exited.then(
    async (code) => {
      // Refs may have moved even when receive-pack failed afterwards (or was stopped): record whatever main is now,
      // still holding the lock, so the space's revision follows main in the order main moved.
      if (push) {
        // The client is answered once the push is recorded; the lock and the channel are let go right after, not
        // before the answer: that waits on file I/O, behind the indexing the push has just queued.
        const decision = push;
        try {
          await recordPush(ctx, spaceId);
        } finally {
          decision.finish().catch((error: unknown) => ctx.log.error({ err: error, space: spaceId }, 'push: letting go of the ref lock failed'));
        }
      }
      if (code !== 0) throw new Error(`git ${service} exited with ${code}: ${stderr.trim()}`);
    },
    async (error: unknown) => {
      await push?.finish();
      throw error;
    },
  );
  const abandon = () => {
    if (service === 'upload-pack') child.kill();
    else child.stdout.resume();
  };
  return { stdin: child.stdin, stdout: child.stdout, done, abandon };
}

/** What the content checks need to know of the space, as validatePush reads it (plain, serializable values). */
async function pushSettings(ctx: Context, spaceId: string): Promise<Record<string, string>> {
  const changeRequests = await changeRequestStates(ctx.db, spaceId);
  const projectDirectory = await projectDirectoryOf(ctx, spaceId);
  return {
    [MAX_FILE_BYTES_VARIABLE]: String(ctx.gitMaxFileBytes),
    ...(changeRequests ? { [CHANGE_REQUESTS_VARIABLE]: JSON.stringify(changeRequests) } : {}),
    ...(projectDirectory ? { [PROJECT_DIRECTORY_VARIABLE]: projectDirectory } : {}),
  };
}

/** Warnings printed by one push, at most (the same ones come back with every push until they are fixed). */
const MAX_WARNINGS = 50;
const ZERO_OID = /^0+$/;

/** The decision on one receive-pack's push, from its hook's request to the release of the lock. */
class PushDecision {
  private lock: RefLock | undefined;
  private finished = false;
  private endUnderWay: (() => void) | undefined;

  constructor(
    private readonly ctx: Context,
    private readonly spaceId: string,
    private readonly channel: PushChannel,
    private readonly settings: Record<string, string>,
  ) {
    channel.onRequest((request) => {
      void this.decide(request).then(
        ({ lines, accepted }) => this.channel.answer(lines, accepted ? 0 : 1),
        (error: unknown) => this.channel.answer(failedRefusal(error instanceof Error ? error.message : String(error)), 1),
      );
    });
  }

  /** The push's request has arrived whole: ref advertisements of the space wait for its decision (PushesUnderWay). */
  underWay(): void {
    if (!this.finished && !this.endUnderWay) this.endUnderWay = this.ctx.git.pushesUnderWay.begin(this.spaceId);
  }

  private async decide(request: PushRequest | Error): Promise<{ lines: string[]; accepted: boolean }> {
    if (request instanceof Error) return { lines: failedRefusal(request.message), accepted: false };
    // Cheap, before the checks: a push that cannot land is told so at once.
    const moved = await this.movedRefs(request);
    if (moved.length > 0) return { lines: staleRefusal(moved), accepted: false };

    // Warm: pages parsed before (by reads, by earlier pushes) are not parsed again, the others are parsed on the
    // CPU pool (a push of many new pages does not hold the event loop); a push that only edits pages is checked
    // from the check of the branch's previous commit.
    const problems = await validatePush(
      {
        gitDir: this.ctx.git.repositoryPath(this.spaceId),
        updates: request.updates,
        env: { ...request.env, ...this.settings },
        launcher: this.ctx.git.launcher,
      },
      {
        parsePages: (input) => this.ctx.cpu.run('parsePages', input),
        parseSummary: (input) => this.ctx.cpu.run('parseSummary', input),
        parsedPages: this.ctx.revisions.parsedPages,
        parsedSummaries: this.ctx.revisions.parsedSummaries,
        checks: this.ctx.revisions.contentChecks,
      },
    );
    const errors = problems.filter(isError);
    const warnings = problems.filter((problem) => !isError(problem));
    const shown = warnings.slice(0, MAX_WARNINGS).map((problem) => `warning: ${formatPushProblem(problem)}`);
    if (warnings.length > MAX_WARNINGS) shown.push(`warning: ... and ${warnings.length - MAX_WARNINGS} more`);
    if (errors.length > 0) return { lines: [...invalidRefusal(errors.map(formatPushProblem)), ...shown], accepted: false };

    try {
      this.lock = await this.ctx.git.lockRefs(this.spaceId);
    } catch (error) {
      if (error instanceof RefLockTimeout) return { lines: busyRefusal(error.waitedMs), accepted: false };
      throw error;
    }
    if (this.finished) {
      // receive-pack exited while this push waited (the client went away): nothing will move, let go at once.
      await this.release();
      return { lines: [], accepted: false };
    }
    const movedMeanwhile = await this.movedRefs(request);
    if (movedMeanwhile.length > 0) {
      await this.release();
      return { lines: staleRefusal(movedMeanwhile), accepted: false };
    }
    return { lines: shown, accepted: true };
  }

  /** The refs of the request that no longer point where the client saw them. */
  private async movedRefs(request: PushRequest): Promise<string[]> {
    const moved: string[] = [];
    for (const update of request.updates) {
      const current = await this.ctx.reader.resolveRef(this.spaceId, update.ref);
      const expected = ZERO_OID.test(update.oldOid) ? undefined : update.oldOid;
      if (current !== expected) moved.push(update.ref);
    }
    return moved;
  }

  private async release(): Promise<void> {
    const lock = this.lock;
    this.lock = undefined;
    await lock?.release();
  }

  /** After receive-pack exited (and the push was recorded): the lock is released and the channel closed. */
  async finish(): Promise<void> {
    this.finished = true;
    this.endUnderWay?.();
    try {
      await this.release();
    } finally {
      await this.channel.close();
    }
  }
}

/**
 * After a push: the space's `revision` becomes main's oid and `updatedAt` moves, when main moved. Main is read
 * under the space row's lock, so concurrent pushes record in the order main moved, whichever process serves them.
 */
export async function recordPush(ctx: Context, spaceId: string): Promise<void> {
  const revision = await ctx.db.transaction().execute(async (trx) => {
    await lockSpaceRow(trx, spaceId);
    const main = await ctx.reader.resolveRef(spaceId, MAIN_REF);
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
export async function catchUpWithRepositories(ctx: Context, progress?: (checked: number, total: number) => void): Promise<{ recorded: string[]; indexed: string[] }> {
  const recorded: string[] = [];
  const spaces = await liveSpaces(ctx.db);
  for (const [index, space] of spaces.entries()) {
    const main = await ctx.reader.resolveRef(space.id, MAIN_REF);
    if (main && main !== space.revision) {
      await recordPush(ctx, space.id);
      recorded.push(space.id);
    }
    progress?.(index + 1, spaces.length);
  }
  return { recorded, indexed: await queueMissedIndexing(ctx) };
}
