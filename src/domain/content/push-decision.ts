/**
 * Whether a push lands. Its pre-receive hook hands over the ref updates (src/store/git/git-services.ts); a push
 * whose refs moved since the client fetched them is refused at once (fetch first); the content checks run
 * (src/content/validate-push.ts), outside any lock; then the space's ref lock is taken (src/store/git/ref-lock.ts,
 * shared by every process), the refs are checked again under it, and the verdict lets git move them. The lock is
 * kept until receive-pack has exited and the push is recorded (src/domain/content/main-moved.ts), so no other
 * writer ever finds a ref locked by git (`cannot lock ref`).
 */
import type { Context } from '../context.js';
import { projectDirectoryOf } from './spaces.js';
import { recordMainMoved } from './main-moved.js';
import { changeRequestStates, findChangeRequest } from '../../store/sql/change-requests.js';
import type { PushGate, PushVerdict, ReceivedPush } from '../../store/git/git-services.js';
import { RefLockTimeout, type RefLock } from '../../store/git/ref-lock.js';
import { isError } from '../../content/problems.js';
import { formatPushProblem, validatePush, type PushSettings, type RefUpdate } from '../../content/validate-push.js';
import { busyRefusal, invalidRefusal, staleRefusal } from '../../content/push-messages.js';
import { queueGitSyncOfChangeRequest } from '../git-sync/change-request-moved.js';

/** Warnings printed by one push, at most (the same ones come back with every push until they are fixed). */
const MAX_WARNINGS = 50;
const ZERO_OID = /^0+$/;
/** A change request's branch (../content/refs.ts branchOf), with its number. */
const CHANGE_REQUEST_BRANCH = /^refs\/heads\/change-requests\/(\d+)$/;

/** The decision on one receive-pack's push, from the client's request to the release of the lock. */
export class PushDecision implements PushGate {
  private lock: RefLock | undefined;
  private finished = false;
  private endUnderWay: (() => void) | undefined;
  /** The ref updates of the push once it was accepted (their change requests hear of it when it has landed). */
  private accepted: readonly RefUpdate[] = [];

  private constructor(
    private readonly ctx: Context,
    private readonly spaceId: string,
    private readonly settings: PushSettings,
  ) {}

  /** The decision of a push to the space about to start, with what its checks need to know of the space. */
  static async prepare(ctx: Context, spaceId: string): Promise<PushDecision> {
    const [changeRequests, projectDirectory] = await Promise.all([changeRequestStates(ctx.db, spaceId), projectDirectoryOf(ctx, spaceId)]);
    return new PushDecision(ctx, spaceId, { maxFileBytes: ctx.gitMaxFileBytes, changeRequests, projectDirectory });
  }

  /** The push's request has arrived whole: ref advertisements of the space wait for its decision (PushesUnderWay). */
  requestReceived(): void {
    if (!this.finished && !this.endUnderWay) this.endUnderWay = this.ctx.git.pushesUnderWay.begin(this.spaceId);
  }

  async decide(push: ReceivedPush): Promise<PushVerdict> {
    // Cheap, before the checks: a push that cannot land is told so at once.
    const moved = await this.movedRefs(push.updates);
    if (moved.length > 0) return { lines: staleRefusal(moved), accepted: false };

    // Warm: pages parsed before (by reads, by earlier pushes) are not parsed again, the others are parsed on the
    // CPU pool (a push of many new pages does not hold the event loop); a push that only edits pages is checked
    // from the check of the branch's previous commit.
    const problems = await validatePush(
      { repository: this.spaceId, updates: push.updates, settings: this.settings, objects: push.objects },
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
    const movedMeanwhile = await this.movedRefs(push.updates);
    if (movedMeanwhile.length > 0) {
      await this.release();
      return { lines: staleRefusal(movedMeanwhile), accepted: false };
    }
    this.accepted = push.updates;
    return { lines: shown, accepted: true };
  }

  /**
   * receive-pack has exited: refs may have moved even when it failed afterwards (or was stopped), so whatever main
   * is now is recorded, still holding the lock, and the space's revision follows main in the order main moved.
   */
  async exited(): Promise<void> {
    await recordMainMoved(this.ctx, this.spaceId);
    await this.publishPushedChangeRequests();
  }

  /** Tells the readers of each change request whose branch the push moved. */
  private async publishPushedChangeRequests(): Promise<void> {
    for (const update of this.accepted) {
      const number = CHANGE_REQUEST_BRANCH.exec(update.ref)?.[1];
      if (number === undefined || (await this.ctx.reader.resolveRef(this.spaceId, update.ref)) !== update.newOid) continue;
      const changeRequest = await findChangeRequest(this.ctx.db, this.spaceId, number);
      if (!changeRequest) continue;
      this.ctx.events.publish({ spaceId: this.spaceId, changeRequestId: changeRequest.id, kind: 'change-request', action: 'pushed' });
      await queueGitSyncOfChangeRequest(this.ctx, this.spaceId, changeRequest.id, update.newOid);
    }
  }

  /** The refs of the request that no longer point where the client saw them. */
  private async movedRefs(updates: readonly RefUpdate[]): Promise<string[]> {
    const moved: string[] = [];
    for (const update of updates) {
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

  /** After receive-pack exited and the push was recorded (or when it could not start): the lock is released. */
  async finish(): Promise<void> {
    this.finished = true;
    this.endUnderWay?.();
    await this.release();
  }
}
