/**
 * Turns for the writers of a busy space, in this process. A push's ref advertisement (`info/refs` for
 * receive-pack) is where a git client learns where main is; a client whose commits are behind it rejects its push
 * itself ("fetch first"), fetches, rebases and asks again. Under many writers of one space, letting them all ask
 * and race at once makes each landing waste a fetch, a rebase and often a pack upload of every other writer, and
 * their work slows the one push that lands. So:
 *
 * - while a push of the space is under way (its request has arrived whole, it has not landed or been refused),
 *   advertisements wait: answered then, they would show a main about to move;
 * - when it ends, the newest waiting advertisement is answered, alone: the others keep waiting until a push
 *   starts and ends again, or HOLD_MS pass without one; the newest is the writer most likely to push next (it just
 *   rebased), so a landing costs one other writer's retry instead of all of theirs;
 * - when no push is under way, an advertisement is answered at once;
 * - nobody waits longer than the caller's limit.
 *
 * Only an optimization: correctness stays with the ref lock and the stale check
 * (src/domain/content/push-decision.ts), pushes served by other processes are not seen, and no writer waits longer
 * than the limit.
 */
const HOLD_MS = 250;

interface Space {
  underWay: number;
  /** Advertisements waiting, oldest first. */
  waiting: Array<() => void>;
  hold?: NodeJS.Timeout;
}

export class PushesUnderWay {
  private readonly spaces = new Map<string, Space>();

  private space(spaceId: string): Space {
    let space = this.spaces.get(spaceId);
    if (!space) {
      space = { underWay: 0, waiting: [] };
      this.spaces.set(spaceId, space);
    }
    return space;
  }

  private forget(spaceId: string, space: Space): void {
    if (space.underWay === 0 && space.waiting.length === 0 && !space.hold) this.spaces.delete(spaceId);
  }

  /** Marks one push of `spaceId` under way; call the returned function once, when it has landed or been refused. */
  begin(spaceId: string): () => void {
    const space = this.space(spaceId);
    space.underWay += 1;
    clearTimeout(space.hold);
    space.hold = undefined;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      space.underWay -= 1;
      this.answerNewest(spaceId, space);
    };
  }

  /** Resolves when this push advertisement's turn has come (see above), after `maxWaitMs` at the latest. */
  turnToAdvertise(spaceId: string, maxWaitMs: number): Promise<void> {
    const space = this.space(spaceId);
    if (space.underWay === 0) {
      this.forget(spaceId, space);
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const answer = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        space.waiting.splice(space.waiting.indexOf(answer), 1);
        this.forget(spaceId, space);
        resolve();
      }, maxWaitMs);
      space.waiting.push(answer);
    });
  }

  private answerNewest(spaceId: string, space: Space): void {
    if (space.underWay > 0) return;
    clearTimeout(space.hold);
    space.hold = undefined;
    const newest = space.waiting.pop();
    if (newest) {
      newest();
      if (space.waiting.length > 0) {
        space.hold = setTimeout(() => {
          space.hold = undefined;
          this.answerNewest(spaceId, space);
        }, HOLD_MS);
      }
    }
    this.forget(spaceId, space);
  }
}
