/**
 * git's smart HTTP services on a space's repository: `git upload-pack` (clone, fetch) and `git receive-pack` (push)
 * in stateless-RPC mode, the client's request written to their stdin and their answer read from their stdout.
 *
 * A push is decided by whoever starts it (a PushGate: the domain's src/domain/content/push-decision.ts). Before
 * receive-pack starts, the repository's hooks are put in place and a channel is opened for its pre-receive hook
 * (./push-channel.ts); once the objects are in quarantine, the hook hands the ref updates to this process, the
 * gate decides on them, reading the quarantined objects (./incoming-push.ts), and its verdict goes back through the
 * channel: the hook lets git move the refs, or refuses. After receive-pack exits, the gate records what moved before
 * the client is answered, then lets go of what it held and the channel is closed.
 */
import type { Readable, Writable } from 'node:stream';
import { failedRefusal } from '../../content/push-messages.js';
import type { PushedObjects, RefUpdate } from '../../content/validate-push.js';
import { IncomingPush } from './incoming-push.js';
import type { GitChild } from './launcher.js';
import type { PushChannel, PushRequest } from './push-channel.js';
import type { GitService, GitStore } from './repositories.js';

/** A running git service: write the client's request to `stdin`, send `stdout` back. */
export interface GitServiceRun {
  stdin: Writable;
  stdout: Readable;
  /**
   * Settles when git has exited and, after a push, the gate has recorded it (PushGate.exited): answer the client
   * only then, so that a `git push` that returned is visible through the API. Rejects when git failed or recording
   * failed (refs may have moved all the same: the next push records them).
   */
  done: Promise<void>;
  /**
   * Settles once a push has let go of what it held (PushGate.finish, then its channel), which happens after `done`
   * so that the client's answer does not wait for it; rejects when that failed, for the caller to report.
   */
  released: Promise<void>;
  /**
   * The client went away before the answer was complete: a fetch stops at once; a push is left to finish (if its
   * request arrived whole, its refs move and are recorded as usual; if not, git refuses it on its own).
   */
  abandon(): void;
}

/** A push as its pre-receive hook hands it over: the ref updates, and the objects received in quarantine. */
export interface ReceivedPush {
  updates: RefUpdate[];
  /** Readable until the verdict is given. */
  objects: PushedObjects;
}

/** What the hook prints (each line as `remote: ...`), and whether git may move the refs. */
export interface PushVerdict {
  lines: string[];
  accepted: boolean;
}

/** How the starter of a receive-pack decides its push, from the client's request to the end of the push. */
export interface PushGate {
  /** The client's request has arrived whole: from now on the push is git's and the server's work alone. */
  requestReceived(): void;
  /** The verdict on the push the hook hands over; a rejection refuses it as one the server could not check. */
  decide(push: ReceivedPush): Promise<PushVerdict>;
  /** receive-pack has exited, whether or not refs moved: the client's answer waits for this. */
  exited(): Promise<void>;
  /** Last, once, whether receive-pack ran or not: let go of what the push holds. */
  finish(): Promise<void>;
}

export interface GitServiceOptions {
  /** Only the ref advertisement (`--advertise-refs`), no request. */
  advertiseRefs: boolean;
  /** The client's Git-Protocol header (`version=2`), passed to git as GIT_PROTOCOL when well formed. */
  protocol?: string;
  /** A push (receive-pack, not its advertisement): who decides it. */
  push?: PushGate;
}

const PROTOCOL = /^[A-Za-z0-9=:._-]{1,256}$/;
const MAX_STDERR = 64 * 1024;

/**
 * Starts `git upload-pack` or `git receive-pack` (stateless RPC) on the space's repository, for a caller already
 * authorized. With `push`, the repository's hooks are put in place first (repositories made before hooks existed
 * get them here) and the push is decided through its hook's channel (see above).
 */
export async function runGitService(git: GitStore, spaceId: string, service: GitService, options: GitServiceOptions): Promise<GitServiceRun> {
  const env: Record<string, string> = {};
  if (options.protocol && PROTOCOL.test(options.protocol)) env.GIT_PROTOCOL = options.protocol;
  const gate = options.push;
  let channel: PushChannel | undefined;
  const letGo = async () => {
    try {
      await gate?.finish();
    } finally {
      await channel?.close();
    }
  };
  let child: GitChild;
  try {
    if (gate) {
      await git.ensureHooks(spaceId);
      channel = await git.openPushChannel();
      const opened = channel;
      opened.onRequest((request) => answerHook(git, spaceId, gate, opened, request));
      Object.assign(env, opened.env);
    }
    child = git.spawnService(spaceId, service, { advertiseRefs: options.advertiseRefs, env });
  } catch (error) {
    await letGo();
    throw error;
  }
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    if (stderr.length < MAX_STDERR) stderr += chunk.toString('utf8');
  });
  if (gate) child.stdin.once('finish', () => gate.requestReceived());
  child.stdin.on('error', () => {
    // git may exit before reading the whole request; its exit code tells what happened.
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => resolve(code));
  });
  // Settles as letGo does, once it is started (resolving with a promise adopts its outcome).
  let release!: (letting: Promise<void>) => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const done = exited.then(
    async (code) => {
      // Refs may have moved even when receive-pack failed afterwards (or was stopped): the gate records whatever
      // moved. The client is answered once that is done; what the push held is let go right after, not before the
      // answer: that waits on file I/O, behind the indexing the push has just queued.
      try {
        await gate?.exited();
      } finally {
        release(letGo());
      }
      if (code !== 0) throw new Error(`git ${service} exited with ${code}: ${stderr.trim()}`);
    },
    async (error: unknown) => {
      const letting = letGo();
      release(letting);
      await letting.catch(() => undefined);
      throw error;
    },
  );
  const abandon = () => {
    if (service === 'upload-pack') child.kill();
    else child.stdout.resume();
  };
  return { stdin: child.stdin, stdout: child.stdout, done, released, abandon };
}

/**
 * The hook's request, decided: the gate reads the quarantined objects through one IncomingPush, closed once the
 * verdict is given. A request that breaks the channel's protocol, or a gate that fails, refuses the push.
 */
function answerHook(git: GitStore, spaceId: string, gate: PushGate, channel: PushChannel, request: PushRequest | Error): void {
  if (request instanceof Error) {
    channel.answer(failedRefusal(request.message), 1);
    return;
  }
  const objects = new IncomingPush(git.repositoryPath(spaceId), request.env, git.launcher);
  void gate
    .decide({ updates: request.updates, objects })
    .then(
      ({ lines, accepted }) => channel.answer(lines, accepted ? 0 : 1),
      (error: unknown) => channel.answer(failedRefusal(error instanceof Error ? error.message : String(error)), 1),
    )
    .finally(() => objects.close())
    // Answering a channel the server closed meanwhile (the client went away) throws: nobody is left to answer, and
    // the promise must not reject unobserved (that would end the process).
    .catch(() => undefined);
}
