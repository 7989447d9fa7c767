/**
 * How a static export writes its files: several at once, since a write waits on the disk and not on the event loop
 * (one after another, the thread that renders the pages sits idle through each), each folder made once (hundreds of
 * pages share a few folders). Writes go through lanes of bounded width: at most `atOnce` under way and as many
 * waiting, so that what a queued write holds (a page's HTML, a file's bytes read from git) is held only briefly, and
 * the caller queueing faster than the disk writes waits. The first failure is thrown by the next task queued on any
 * lane and by `done`.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import PQueue from 'p-queue';

export interface WriteLane {
  /** Queues `task` (waiting first while the lane is full); resolves once it is queued, not done. */
  queue(task: () => Promise<void>): Promise<void>;
}

export class ExportWriter {
  private readonly folders = new Map<string, Promise<unknown>>();
  private readonly lanes: PQueue[] = [];
  private failure: { error: unknown } | undefined;

  lane(atOnce: number): WriteLane {
    const lane = new PQueue({ concurrency: atOnce });
    this.lanes.push(lane);
    return {
      queue: async (task) => {
        this.check();
        await lane.onSizeLessThan(atOnce);
        this.check();
        lane.add(task).catch((error: unknown) => {
          this.failure ??= { error };
        });
      },
    };
  }

  /** Writes `content` (or its parts, one after the other) to `file`, its folder made first (once). */
  async write(file: string, content: string | Buffer | Buffer[]): Promise<void> {
    const folder = path.dirname(file);
    let made = this.folders.get(folder);
    if (!made) {
      made = fs.mkdir(folder, { recursive: true });
      this.folders.set(folder, made);
    }
    await made;
    if (!Array.isArray(content)) return fs.writeFile(file, content);
    // In one call (libuv writes them all, in as many system calls as it takes).
    const handle = await fs.open(file, 'w');
    try {
      await handle.writev(content);
    } finally {
      await handle.close();
    }
  }

  /** Resolves when every task queued is done; rejects with the first failure. */
  async done(): Promise<void> {
    await Promise.all(this.lanes.map((lane) => lane.onIdle()));
    this.check();
  }

  private check(): void {
    if (this.failure) throw this.failure.error;
  }
}
