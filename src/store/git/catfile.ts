/**
 * One long-lived `git cat-file --batch-command` process per repository: object reads over a pipe instead of a process
 * per read, which reads many times fewer objects a second. Requests are answered in order, so a FIFO of pending reads
 * is matched against the output stream.
 */
import { directLauncher, type GitChild, type ProcessLauncher } from './launcher.js';

export interface GitObject {
  oid: string;
  type: 'blob' | 'tree' | 'commit' | 'tag';
  size: number;
  data: Buffer;
}

/** An object's content as the chunks it arrived in, never joined: see readParts. */
export interface GitObjectParts {
  oid: string;
  type: GitObject['type'];
  size: number;
  parts: Buffer[];
}

export interface GitObjectInfo {
  oid: string;
  type: GitObject['type'];
  size: number;
}

/** What a read answers: the header only, the content joined, or its content as it arrived. */
type Answer = 'info' | 'content' | 'parts';

interface Pending {
  answer: Answer;
  resolve(value: GitObject | GitObjectParts | GitObjectInfo | undefined): void;
  reject(error: Error): void;
}

export class CatFileProcess {
  private readonly child: GitChild;
  /**
   * Reads asked and not yet answered, oldest at `head`: a revision's build asks for 10,000 objects at once, and
   * `Array.shift` on an array that long may copy what is left each time (a read of 20,000 objects took well over
   * twice as long as one of 10,000).
   */
  private pending: Pending[] = [];
  private head = 0;
  private buffer: Buffer = Buffer.alloc(0);
  /**
   * The object whose content is still arriving: its chunks are copied straight into a buffer of its size as they
   * come, once each (joining them per chunk is quadratic, and joining them at the end then cutting the content out
   * copies every byte of a big image twice), or kept as they are for a read of its parts.
   */
  private arriving?: { pending: Pending; oid: string; type: GitObject['type']; size: number; data?: Buffer; parts: Buffer[]; filled: number };
  /** Bytes still to drop before the next answer: the newline that ends an object's content. */
  private skip = 0;
  private closed = false;
  lastUsed = Date.now();

  /**
   * `env`: more variables for git (a push's quarantine, which makes its incoming objects readable). `launcher`: what
   * starts the process (none: started directly).
   */
  constructor(gitDir: string, env: Record<string, string> = {}, launcher?: ProcessLauncher) {
    this.child = (launcher ?? directLauncher).spawn('git', ['cat-file', '--batch-command'], {
      env: { ...process.env, ...env, GIT_DIR: gitDir, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0' },
    });
    this.child.stdout.on('data', (chunk: Buffer) => this.onData(chunk));
    this.child.stderr.resume();
    this.child.on('error', (error) => this.fail(error));
    this.child.on('close', () => this.fail(new Error('git cat-file exited')));
    this.child.stdin.on('error', (error) => this.fail(error));
  }

  get alive(): boolean {
    return !this.closed;
  }

  /** Reads asked and not answered yet: closing now would fail them. */
  get busy(): boolean {
    return this.head < this.pending.length;
  }

  /** The object's type, size and content; undefined when the repository does not have it. */
  read(name: string): Promise<GitObject | undefined> {
    return this.request(`contents ${name}\n`, 'content') as Promise<GitObject | undefined>;
  }

  /**
   * read(), the content as the chunks it came through the pipe in, never copied into one buffer: for content that
   * is only passed on (a file written elsewhere) or only its beginning read (an image's header). Copying a big
   * object into a buffer of its own costs more than reading it from git.
   */
  readParts(name: string): Promise<GitObjectParts | undefined> {
    return this.request(`contents ${name}\n`, 'parts') as Promise<GitObjectParts | undefined>;
  }

  /** The object's type and size without its content; undefined when missing. */
  info(name: string): Promise<GitObjectInfo | undefined> {
    return this.request(`info ${name}\n`, 'info') as Promise<GitObjectInfo | undefined>;
  }

  /** read() of many objects, asked in one write (the answers stream back in order). */
  readMany(names: readonly string[]): Promise<Array<GitObject | undefined>> {
    return this.requestMany(names, 'content') as Promise<Array<GitObject | undefined>>;
  }

  /** info() of many objects, asked in one write. */
  infoMany(names: readonly string[]): Promise<Array<GitObjectInfo | undefined>> {
    return this.requestMany(names, 'info') as Promise<Array<GitObjectInfo | undefined>>;
  }

  /** Ends the process; reads still waiting fail (whether or not the process had answered them yet). */
  close(): void {
    if (this.closed) return;
    this.fail(new Error('git cat-file is closed'));
    this.child.stdin.end();
    this.child.kill();
  }

  private request(line: string, answer: Answer): Promise<GitObject | GitObjectParts | GitObjectInfo | undefined> {
    if (this.closed) return Promise.reject(new Error('git cat-file is closed'));
    if (/[\n\0]/.test(line.slice(0, -1))) return Promise.resolve(undefined);
    this.lastUsed = Date.now();
    return new Promise((resolve, reject) => {
      this.pending.push({ answer, resolve, reject });
      this.child.stdin.write(line);
    });
  }

  private requestMany(names: readonly string[], answer: Answer): Promise<Array<GitObject | GitObjectInfo | undefined>> {
    if (this.closed) return Promise.reject(new Error('git cat-file is closed'));
    const command = answer === 'info' ? 'info' : 'contents';
    const answers = names.map((name) =>
      /[\n\0]/.test(name)
        ? Promise.resolve(undefined)
        : new Promise<GitObject | GitObjectInfo | undefined>((resolve, reject) => this.pending.push({ answer, resolve, reject })),
    );
    const lines = names.filter((name) => !/[\n\0]/.test(name)).map((name) => `${command} ${name}\n`);
    this.lastUsed = Date.now();
    if (lines.length > 0) this.child.stdin.write(lines.join(''));
    return Promise.all(answers);
  }

  /** Takes the oldest pending read off the queue (dropping the answered ones once they are half of it). */
  private shift(): void {
    this.head += 1;
    if (this.head === this.pending.length) {
      this.pending = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.pending.length) {
      this.pending = this.pending.slice(this.head);
      this.head = 0;
    }
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    let rest = chunk;
    if (this.arriving) {
      const arriving = this.arriving;
      const taken = Math.min(rest.length, arriving.size - arriving.filled);
      if (arriving.data) rest.copy(arriving.data, arriving.filled, 0, taken);
      else arriving.parts.push(taken === rest.length ? rest : rest.subarray(0, taken));
      arriving.filled += taken;
      rest = rest.subarray(taken);
      if (arriving.filled < arriving.size) return;
      this.arrived();
    }
    if (this.skip > 0) {
      const skipped = Math.min(this.skip, rest.length);
      rest = rest.subarray(skipped);
      this.skip -= skipped;
    }
    if (rest.length === 0) return;
    this.buffer = this.buffer.length === 0 ? rest : Buffer.concat([this.buffer, rest]);
    for (;;) {
      const next = this.pending[this.head];
      if (!next) return;
      const newline = this.buffer.indexOf(10);
      if (newline < 0) return;
      const header = this.buffer.subarray(0, newline).toString('utf8');
      if (header.endsWith(' missing') || header.endsWith(' ambiguous')) {
        this.buffer = this.buffer.subarray(newline + 1);
        this.shift();
        next.resolve(undefined);
        continue;
      }
      const [oid, type, sizeText] = header.split(' ');
      const size = Number(sizeText);
      if (next.answer === 'info') {
        this.buffer = this.buffer.subarray(newline + 1);
        this.shift();
        next.resolve({ oid, type: type as GitObject['type'], size });
        continue;
      }
      // Header, content, then one newline.
      const end = newline + 1 + size + 1;
      if (this.buffer.length < end) {
        // Not whole yet: what came of its content is taken (copied into its own buffer, or as a part), and the
        // rest will follow.
        const came = this.buffer.subarray(newline + 1, Math.min(this.buffer.length, newline + 1 + size));
        const data = next.answer === 'content' ? Buffer.allocUnsafe(size) : undefined;
        if (data) came.copy(data);
        this.buffer = Buffer.alloc(0);
        this.arriving = { pending: next, oid, type: type as GitObject['type'], size, data, parts: data || came.length === 0 ? [] : [came], filled: came.length };
        // Only its newline may be missing.
        if (came.length === size) this.arrived();
        return;
      }
      const data = Buffer.from(this.buffer.subarray(newline + 1, newline + 1 + size));
      this.buffer = this.buffer.subarray(end);
      this.shift();
      next.resolve(next.answer === 'parts' ? { oid, type: type as GitObject['type'], size, parts: [data] } : { oid, type: type as GitObject['type'], size, data });
    }
  }

  /** The object arriving is whole: answered, and its newline dropped from what comes next. */
  private arrived(): void {
    const { pending, oid, type, size, data, parts } = this.arriving!;
    this.arriving = undefined;
    this.skip = 1;
    this.shift();
    pending.resolve(data ? { oid, type, size, data } : { oid, type, size, parts });
  }

  private fail(error: Error): void {
    this.closed = true;
    const pending = this.pending.slice(this.head);
    this.pending = [];
    this.head = 0;
    for (const read of pending) read.reject(error);
  }
}
