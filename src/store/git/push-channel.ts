/**
 * How the pre-receive hook of a `git receive-pack` hands the push to the Quire process that spawned it, so that no
 * program starts per push but a small sh script. For each receive-pack the server makes a private folder with two
 * FIFOs and names it in PUSH_CHANNEL_VARIABLE; the hook (PRE_RECEIVE_HOOK in repositories.ts) writes the request to
 * `request` and reads the answer from `answer`.
 *
 * The protocol is lines of text. Request: `env NAME=VALUE` for git's quarantine variables, `update OLD NEW REF` per
 * ref update, then `end`. Answer: `say TEXT` per line to print (the client shows them as `remote: TEXT`), then
 * `exit N`, the hook's exit code (0 lets the push through). The server opens both FIFOs read-write and non-blocking
 * (Linux), so neither side ever blocks opening them; when the server is gone, the hook reads end-of-file and refuses.
 * The server keeps one channel opened ahead (PushChannels), so that a push does not wait for mkfifo.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { directLauncher, type ProcessLauncher } from './launcher.js';

/** The variable that names the channel's folder, in the environment of receive-pack and so of its hook. */
export const PUSH_CHANNEL_VARIABLE = 'QUIRE_PUSH_CHANNEL';
/** The variable that carries the server's pid: the hook refuses at once when that process is gone. */
export const PUSH_SERVER_PID_VARIABLE = 'QUIRE_PUSH_SERVER_PID';

/** The git variables the hook passes: what makes the incoming (quarantined) objects readable. */
export const QUARANTINE_VARIABLES = ['GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES', 'GIT_QUARANTINE_PATH'] as const;

/** What the hook sent: git's quarantine environment and the ref updates (`oldOid` all zeros for a new ref). */
export interface PushRequest {
  env: Record<string, string>;
  updates: Array<{ ref: string; oldOid: string; newOid: string }>;
}

const openFd = promisify(fs.open);
const OID = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
const REF = /^refs\/\S+$/;

function mkfifo(paths: string[], launcher?: ProcessLauncher): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = (launcher ?? directLauncher).spawn('mkfifo', ['-m', '600', ...paths], { env: process.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`mkfifo failed (${code}): ${stderr.trim()}`))));
  });
}

/**
 * Opens a FIFO read-write and non-blocking (on Linux, an open that never waits for the other side) as a stream
 * used one way only: the process must never read what it writes for the hook, nor the reverse.
 */
async function openFifo(file: string, direction: 'read' | 'write'): Promise<net.Socket> {
  const fd = await openFd(file, fs.constants.O_RDWR | fs.constants.O_NONBLOCK);
  return new net.Socket({ fd, readable: direction === 'read', writable: direction === 'write' });
}

export class PushChannel {
  private buffered = '';
  private closed = false;

  private constructor(
    readonly dir: string,
    private readonly requests: net.Socket,
    private readonly answers: net.Socket,
  ) {}

  /**
   * A channel for one receive-pack, in a new private folder; close it when receive-pack has exited. `launcher`:
   * what starts mkfifo (the server's; none: started directly).
   */
  static async open(launcher?: ProcessLauncher): Promise<PushChannel> {
    const dir = await fsp.mkdtemp(path.join(os.tmpdir(), 'quire-push-'));
    try {
      await mkfifo([path.join(dir, 'request'), path.join(dir, 'answer')], launcher);
      const requests = await openFifo(path.join(dir, 'request'), 'read');
      const answers = await openFifo(path.join(dir, 'answer'), 'write').catch((error: unknown) => {
        requests.destroy();
        throw error;
      });
      return new PushChannel(dir, requests, answers);
    } catch (error) {
      await fsp.rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** The variables to set on the receive-pack. */
  get env(): Record<string, string> {
    return { [PUSH_CHANNEL_VARIABLE]: this.dir, [PUSH_SERVER_PID_VARIABLE]: String(process.pid) };
  }

  /**
   * Calls `onRequest` once, with the hook's request when it is complete (git runs the hook only for a push that
   * updates refs; a channel whose receive-pack exits first never calls it). A request that breaks the protocol is
   * passed as an Error.
   */
  onRequest(onRequest: (request: PushRequest | Error) => void): void {
    const onData = (chunk: Buffer) => {
      this.buffered += chunk.toString('utf8');
      if (!/(^|\n)end\n/.test(this.buffered)) return;
      this.requests.off('data', onData);
      onRequest(parseRequest(this.buffered));
    };
    this.requests.on('data', onData);
    this.requests.on('error', () => {
      // Closing the channel ends reads; nothing else can fail on an open FIFO.
    });
  }

  /** Sends the hook what to print and its exit code. */
  answer(lines: readonly string[], code: number): void {
    if (this.closed) return;
    const text = lines.flatMap((line) => line.split('\n')).map((line) => `say ${line}\n`).join('');
    this.answers.write(`${text}exit ${code}\n`);
  }

  /** Closes the FIFOs (a hook still waiting reads end-of-file and refuses) and removes the folder. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.requests.destroy();
    this.answers.end();
    this.answers.destroy();
    await fsp.rm(this.dir, { recursive: true, force: true });
  }
}

/**
 * Channels opened one ahead. Opening one starts mkfifo, a process: a push of one page into a 1,000-page space
 * waited 50-130 ms for its channel on a busy two-core machine (bench/push-ratio.ts), against under 1 ms for a
 * channel opened ahead. So a push takes the channel opened behind the previous one, and the next is opened behind
 * it, once the push has started its receive-pack. The first push of a process
 * opens its own. Every channel is used by one push only: a hook left over from an earlier push can never write
 * into a later one's.
 */
export class PushChannels {
  private spare: Promise<PushChannel> | undefined;
  private closed = false;

  /** `launcher`: what starts mkfifo (the server's; none: started directly). */
  constructor(private readonly launcher?: ProcessLauncher) {}

  /** A channel for one receive-pack (see PushChannel.open); close it when receive-pack has exited. */
  async open(): Promise<PushChannel> {
    const spare = this.spare;
    this.spare = undefined;
    // A spare that failed to open is no reason to fail this push: it opens its own.
    const channel = (await spare?.catch(() => undefined)) ?? (await PushChannel.open(this.launcher));
    // After the caller's next steps (starting receive-pack), not before them.
    setImmediate(() => this.openSpare());
    return channel;
  }

  private openSpare(): void {
    if (this.closed || this.spare) return;
    const spare = PushChannel.open(this.launcher);
    spare.catch(() => {
      if (this.spare === spare) this.spare = undefined;
    });
    this.spare = spare;
  }

  /** Closes the channel opened ahead; opens no more. */
  async close(): Promise<void> {
    this.closed = true;
    const spare = this.spare;
    this.spare = undefined;
    await (await spare?.catch(() => undefined))?.close();
  }
}

function parseRequest(text: string): PushRequest | Error {
  const request: PushRequest = { env: {}, updates: [] };
  for (const line of text.split('\n')) {
    if (line === 'end') return request;
    if (line.startsWith('env ')) {
      const [name, ...value] = line.slice(4).split('=');
      if (!(QUARANTINE_VARIABLES as readonly string[]).includes(name)) return new Error(`the hook sent an unexpected variable ${name}`);
      if (value.join('=') !== '') request.env[name] = value.join('=');
    } else if (line.startsWith('update ')) {
      const [oldOid, newOid, ref] = line.slice(7).split(' ');
      if (!OID.test(oldOid ?? '') || !OID.test(newOid ?? '') || !REF.test(ref ?? '')) return new Error(`the hook sent an unreadable update "${line}"`);
      request.updates.push({ ref, oldOid, newOid });
    } else if (line !== '') {
      return new Error(`the hook sent an unreadable line "${line}"`);
    }
  }
  return new Error('the hook request has no end');
}
