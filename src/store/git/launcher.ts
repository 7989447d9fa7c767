/**
 * Where git processes start. Starting a process forks the one that starts it, and fork copies the page tables of
 * the whole address space: the bigger the process, the longer each start holds the event loop's thread. A server
 * that holds a 10,000-page space runs about ten git processes per push (receive-pack, its hook's FIFOs, cat-file of
 * the quarantine, rev-list, diff-tree, ls-tree, the history's diff-tree), so the forks alone held its thread for a
 * large part of a push (bench/README.md).
 *
 * And the thread that forks waits until the child has started git, which on a busy machine means waiting for the
 * child to get a CPU: one start held a small server's loop for over 100 ms on two loaded cores.
 *
 * A ProcessLauncher therefore starts processes itself only while this process is under `forkAboveBytes` of resident
 * memory (the server's default is 0: never); past it, it starts a small helper process once (the launcher: a Node
 * script of its own, a few MB) and has it start them. Each launched process's stdin, stdout and stderr are Unix-socket connections to the launcher,
 * which pipes them to the process's own; its exit comes back over the launcher's IPC channel. What callers get
 * behaves as a ChildProcess does for what src/store/git uses (GitChild): the streams, `exitCode`, `kill`, and
 * `error`, `exit` and `close` events (`close` once it has exited and its stdout and stderr have ended).
 *
 * When the launcher dies, the processes it started are reported failed (`error`) and the next start starts a new
 * launcher. When this process dies, the launcher sees its IPC channel close, stops what it started (each process
 * with the processes it started in turn) and exits.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import net from 'node:net';
import { PassThrough, type Readable, type Writable } from 'node:stream';

/** What src/store/git uses of a child process (a ChildProcess is one). */
export interface GitChild {
  readonly stdin: Writable;
  readonly stdout: Readable;
  readonly stderr: Readable;
  readonly exitCode: number | null;
  kill(signal?: NodeJS.Signals): boolean;
  on(event: 'close' | 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  on(event: 'error', listener: (error: Error) => void): this;
  once(event: 'close' | 'exit', listener: (code: number | null, signal: NodeJS.Signals | null) => void): this;
  once(event: 'error', listener: (error: Error) => void): this;
}

export interface LaunchOptions {
  cwd?: string;
  /** The whole environment of the process. */
  env: NodeJS.ProcessEnv;
  /** Which of stdin, stdout and stderr are pipes; the others are /dev/null. Default: all three pipes. */
  stdio?: readonly ['pipe' | 'ignore', 'pipe' | 'ignore', 'pipe' | 'ignore'];
}

const STREAMS = ['stdin', 'stdout', 'stderr'] as const;

/** Starts `command` directly (a ChildProcess). */
export function spawnDirect(command: string, args: readonly string[], options: LaunchOptions): GitChild {
  return spawn(command, args, { cwd: options.cwd, env: options.env, stdio: [...(options.stdio ?? ['pipe', 'pipe', 'pipe'])] }) as GitChild;
}

/** Starts processes by forking this one: for callers given no launcher (commands and tests). */
export const directLauncher: Pick<ProcessLauncher, 'spawn'> = { spawn: spawnDirect };

/** Messages of the launcher's IPC channel. */
type ToLauncher =
  | { t: 'spawn'; id: number; command: string; args: string[]; cwd?: string; env: NodeJS.ProcessEnv; stdio: string[] }
  | { t: 'kill'; id: number; signal: string };
type FromLauncher =
  | { t: 'ready'; socket: string }
  | { t: 'spawned'; id: number }
  | { t: 'error'; id: number; code?: string; message: string }
  | { t: 'exit'; id: number; code: number | null; signal: NodeJS.Signals | null };

/**
 * The launcher's program (plain CommonJS, run with `node -e`, so it needs no file of its own in the build). It
 * listens on a Unix socket in a private folder; each connection starts with a line `ID STREAM` naming the process
 * and stream it is for. A process starts once its `spawn` message and all its streams' connections have come, with
 * those connections as its stdin, stdout and stderr: the process and the server then talk through them directly,
 * and the launcher closes its own copies (it never relays a byte).
 */
const LAUNCHER_PROGRAM = String.raw`
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-launcher-'));
const socketPath = path.join(dir, 's');
const waiting = new Map();
const running = new Map();
// With a callback, a send to a server that is gone fails quietly (the disconnect handler below ends this process).
const send = (message) => { if (process.connected) process.send(message, () => {}); };
// Each process runs in a process group of its own (spawn's detached), and is stopped with everything it started: a
// receive-pack's pre-receive hook outlives a receive-pack stopped alone, and if the server died between the hook's
// check that it lives and its opening of the push channel's FIFOs, that open would wait forever.
function stop(child, signal) {
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}
function entryOf(id) {
  let entry = waiting.get(id);
  if (!entry) waiting.set(id, (entry = { sockets: {} }));
  return entry;
}
function start(id) {
  const entry = waiting.get(id);
  if (!entry.request || Object.keys(entry.sockets).length < entry.request.stdio.filter((s) => s === 'pipe').length) return;
  waiting.delete(id);
  const { request, sockets } = entry;
  const stdio = ['stdin', 'stdout', 'stderr'].map((name, i) => (request.stdio[i] === 'pipe' ? sockets[name] : 'ignore'));
  let child;
  try {
    child = spawn(request.command, request.args, { cwd: request.cwd, env: request.env, stdio, detached: true });
  } catch (error) {
    child = undefined;
    send({ t: 'error', id, code: error.code, message: error.message });
  }
  for (const socket of Object.values(sockets)) socket.destroy();
  if (!child) return;
  running.set(id, child);
  // Stopped before it could start (its streams were still connecting): stopped now.
  if (entry.killWith) stop(child, entry.killWith);
  let failed = false;
  child.on('error', (error) => {
    failed = true;
    running.delete(id);
    send({ t: 'error', id, code: error.code, message: error.message });
  });
  child.on('spawn', () => send({ t: 'spawned', id }));
  child.on('exit', (code, signal) => {
    running.delete(id);
    if (!failed) send({ t: 'exit', id, code, signal });
  });
}
const server = net.createServer((socket) => {
  let head = Buffer.alloc(0);
  socket.on('error', () => {});
  const onData = (chunk) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf(10);
    if (end < 0) return;
    // Nothing follows the line until the process has started (the server waits for 'spawned').
    socket.off('data', onData);
    socket.pause();
    const [id, stream] = head.subarray(0, end).toString().split(' ');
    entryOf(Number(id)).sockets[stream] = socket;
    start(Number(id));
  };
  socket.on('data', onData);
});
process.on('message', (message) => {
  if (message.t === 'spawn') {
    entryOf(message.id).request = message;
    start(message.id);
  } else if (message.t === 'kill') {
    const child = running.get(message.id);
    if (child) stop(child, message.signal);
    else if (waiting.has(message.id)) waiting.get(message.id).killWith = message.signal;
  }
});
// Ctrl-C in a terminal reaches the server's process group, this one included, but no longer the processes (each in
// a group of its own): the server stops, and its disconnect stops them.
process.on('SIGINT', () => {});
process.on('disconnect', () => {
  for (const child of running.values()) stop(child, 'SIGTERM');
  server.close();
  fs.rmSync(dir, { recursive: true, force: true });
  process.exit(0);
});
server.listen(socketPath, () => send({ t: 'ready', socket: socketPath }));
`;

/** A process started by the launcher (see the top of this file). */
class LaunchedProcess extends EventEmitter implements GitChild {
  /** What the caller writes: passed on to the process's stdin once it has started. */
  readonly stdin = new PassThrough();
  readonly stdout: Readable;
  readonly stderr: Readable;
  exitCode: number | null = null;
  private exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private openOutputs = 0;
  private finished = false;

  constructor(
    private readonly launcher: Launcher,
    readonly id: number,
    private readonly sockets: Partial<Record<(typeof STREAMS)[number], net.Socket>>,
  ) {
    super();
    // A stream that is not a pipe: an ended stream, as a ChildProcess would have none at all.
    const none = () => new PassThrough().end();
    this.stdout = sockets.stdout ?? none();
    this.stderr = sockets.stderr ?? none();
    if (!sockets.stdin) this.stdin.resume();
    for (const stream of ['stdout', 'stderr'] as const) {
      const socket = sockets[stream];
      if (!socket) continue;
      this.openOutputs++;
      socket.once('close', () => {
        this.openOutputs--;
        this.maybeClose();
      });
    }
    sockets.stdin?.on('error', (error) => this.stdin.destroy(error));
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    if (this.finished || this.exited) return false;
    return this.launcher.send({ t: 'kill', id: this.id, signal });
  }

  /** The launcher has started it: what was written for its stdin goes to it now. */
  onSpawned(): void {
    if (this.sockets.stdin) this.stdin.pipe(this.sockets.stdin);
  }

  /** The launcher says it exited. */
  onExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.finished) return;
    this.exited = { code, signal };
    this.exitCode = code;
    this.emit('exit', code, signal);
    this.maybeClose();
  }

  /** It could not start, or the launcher went away. */
  onError(error: Error): void {
    if (this.finished) return;
    this.finished = true;
    for (const socket of Object.values(this.sockets)) socket.destroy();
    this.emit('error', error);
  }

  private maybeClose(): void {
    if (this.finished || !this.exited || this.openOutputs > 0) return;
    this.finished = true;
    this.sockets.stdin?.destroy();
    this.emit('close', this.exited.code, this.exited.signal);
  }
}

/** One running launcher process and the processes it started. */
class Launcher {
  private readonly children = new Map<number, LaunchedProcess>();
  private nextId = 1;
  readonly ready: Promise<string>;
  /** The launcher's socket, once it listens. */
  socketPath: string | undefined;
  private gone = false;

  constructor(private readonly process: ChildProcess) {
    this.ready = new Promise((resolve, reject) => {
      process.once('error', reject);
      process.once('exit', () => reject(new Error('the git launcher exited before it was ready')));
      process.on('message', (message: FromLauncher) => {
        if (message.t === 'ready') {
          this.socketPath = message.socket;
          resolve(message.socket);
          return;
        }
        const child = this.children.get(message.id);
        if (message.t === 'spawned') {
          child?.onSpawned();
          return;
        }
        this.children.delete(message.id);
        this.holdWhileBusy();
        if (message.t === 'exit') child?.onExit(message.code, message.signal);
        else child?.onError(Object.assign(new Error(message.message), message.code ? { code: message.code } : {}));
      });
    });
    this.ready.catch(() => {});
    // The channel keeps this process alive only while something waits on it (the launcher's start, a process).
    void this.ready.then(() => this.holdWhileBusy(), () => {});
    process.once('exit', () => {
      // Stopped (stop()): it ended what it had started, as if with SIGTERM. Died: what it started is lost to us.
      const stopped = this.gone;
      this.gone = true;
      const error = new Error('the git launcher exited');
      for (const child of this.children.values()) {
        if (stopped) child.onExit(null, 'SIGTERM');
        else child.onError(error);
      }
      this.children.clear();
    });
    // The launcher itself never keeps this process alive; its channel does while it is busy (holdWhileBusy).
    process.unref();
  }

  /** Refs the IPC channel while the launcher starts or runs a process for us, unrefs it when idle. */
  holdWhileBusy(): void {
    const channel = this.process.channel as { ref?: () => void; unref?: () => void } | undefined;
    if (this.socketPath !== undefined && this.children.size === 0) channel?.unref?.();
    else channel?.ref?.();
  }

  get alive(): boolean {
    return !this.gone;
  }

  send(message: ToLauncher): boolean {
    if (this.gone || !this.process.connected) return false;
    this.process.send(message);
    return true;
  }

  /** Starts a process; the launcher must be ready (socketPath). */
  start(command: string, args: readonly string[], options: LaunchOptions): LaunchedProcess {
    const socketPath = this.socketPath!;
    const id = this.nextId++;
    const stdio = [...(options.stdio ?? ['pipe', 'pipe', 'pipe'])];
    const sockets: Partial<Record<(typeof STREAMS)[number], net.Socket>> = {};
    STREAMS.forEach((stream, i) => {
      if (stdio[i] !== 'pipe') return;
      const socket = net.createConnection({ path: socketPath });
      socket.write(`${id} ${stream}\n`);
      sockets[stream] = socket;
    });
    const child = new LaunchedProcess(this, id, sockets);
    this.children.set(id, child);
    this.holdWhileBusy();
    // stdin's errors are its own (the process may exit before reading it all), as with a ChildProcess.
    for (const socket of [sockets.stdout, sockets.stderr]) socket?.on('error', (error) => child.onError(error));
    if (!this.send({ t: 'spawn', id, command, args: [...args], cwd: options.cwd, env: options.env, stdio })) {
      child.onError(new Error('the git launcher exited'));
    }
    return child;
  }

  stop(): void {
    this.gone = true;
    if (this.process.connected) this.process.disconnect();
  }

  get pid(): number | undefined {
    return this.process.pid;
  }
}

/**
 * Starts git's processes for src/store/git: directly while this process's resident memory is under `forkAboveBytes`,
 * through the launcher afterwards (see the top of this file). Owned by the container; close it with it.
 */
export class ProcessLauncher {
  private launcher: Launcher | undefined;
  private closed = false;

  /** `forkAboveBytes`: 0 always uses the launcher; Infinity never does. */
  constructor(private readonly forkAboveBytes: number) {}

  /**
   * Starts `command`. Synchronous like spawn: a process started through the launcher gets its streams at once
   * (what is written to stdin waits in them until the process runs).
   */
  spawn(command: string, args: readonly string[], options: LaunchOptions): GitChild {
    if (this.closed || (this.launcher === undefined && process.memoryUsage.rss() < this.forkAboveBytes)) {
      return spawnDirect(command, args, options);
    }
    const launcher = this.launcherProcess();
    if (launcher.socketPath !== undefined) return launcher.start(command, args, options);
    return new PendingProcess(launcher.ready.then(() => launcher.start(command, args, options)));
  }

  /** Whether processes now start through the launcher (for tests and benchmarks). */
  get launching(): boolean {
    return this.launcher?.alive === true;
  }

  /** The launcher process's id, while there is one (for tests). */
  get launcherPid(): number | undefined {
    return this.launcher?.alive ? this.launcher.pid : undefined;
  }

  close(): void {
    this.closed = true;
    this.launcher?.stop();
    this.launcher = undefined;
  }

  private launcherProcess(): Launcher {
    if (!this.launcher?.alive) {
      const child = spawn(process.execPath, ['-e', LAUNCHER_PROGRAM], {
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        // A small heap of its own: it only pipes bytes.
        env: { ...process.env, NODE_OPTIONS: '--max-old-space-size=64' },
      });
      this.launcher = new Launcher(child);
      const launcher = this.launcher;
      launcher.ready.catch(() => {
        if (this.launcher === launcher) this.launcher = undefined;
      });
    }
    return this.launcher;
  }
}

/**
 * A process asked for while the launcher is still starting: the caller gets streams at once, joined to the real
 * ones once the launcher listens.
 */
class PendingProcess extends EventEmitter implements GitChild {
  readonly stdin = new PassThrough();
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  exitCode: number | null = null;
  private child: LaunchedProcess | undefined;
  private killWith: NodeJS.Signals | undefined;
  private done = false;

  constructor(started: Promise<LaunchedProcess>) {
    super();
    started.then(
      (child) => this.attach(child),
      (error: Error) => this.fail(error),
    );
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): boolean {
    if (this.done) return false;
    if (this.child) return this.child.kill(signal);
    this.killWith = signal;
    return true;
  }

  private attach(child: LaunchedProcess): void {
    this.child = child;
    this.stdin.pipe(child.stdin);
    child.stdin.on('error', (error) => this.stdin.destroy(error));
    child.stdout.pipe(this.stdout);
    child.stderr.pipe(this.stderr);
    child.on('exit', (code, signal) => {
      this.exitCode = code;
      this.emit('exit', code, signal);
    });
    child.on('close', (code, signal) => {
      this.done = true;
      this.emit('close', code, signal);
    });
    child.on('error', (error) => this.fail(error));
    if (this.killWith) child.kill(this.killWith);
  }

  private fail(error: Error): void {
    if (this.done) return;
    this.done = true;
    this.stdout.end();
    this.stderr.end();
    this.emit('error', error);
  }
}
