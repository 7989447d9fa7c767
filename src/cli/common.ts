/**
 * What the `quire` commands share, light enough for `src/main.ts` to load before it knows which command runs (the
 * commands themselves, and the container, are imported when they run).
 */
import { loadConfig, type Config } from '../../config/index.js';
import type { Container } from '../container.js';
import { describeStore, readServeRecord, storeExists } from '../store/instance-files.js';

/** A failure the command explains in one line (no stack, even with --verbose: there is nothing more to say). */
export class CommandError extends Error {}

export interface StoreOptions {
  /** Make a new empty store when none is where the settings point (`--init`). */
  init?: boolean;
  /** Settings of this command that the environment does not give. */
  config?: Partial<Config>;
}

/**
 * The settings of a command that works on the store `quire serve` uses: the URLs it prints are the server's (the
 * record the server left in the data dir) unless QUIRE_PUBLIC_URL, HOST or PORT is set here.
 */
function commandConfig(): Config {
  const config = loadConfig();
  const served = config.explicit.publicUrl ? undefined : readServeRecord(config.dataDir);
  // Only warnings by default: the command's own output says what it did.
  return { ...config, ...(served ? { publicUrl: served.publicUrl } : {}), logLevel: config.explicit.logLevel ? config.logLevel : 'warn' };
}

/**
 * Runs `run` on the store the settings point at, after saying which one on stderr. A store that does not exist is
 * refused unless `--init` asks for a new one: a command run from another folder would otherwise make an empty
 * `./data` there and print tokens the running server rejects.
 */
export async function withContainer<T>(command: string, options: StoreOptions, run: (container: Container) => Promise<T>): Promise<T> {
  const config = { ...commandConfig(), ...options.config };
  if (!storeExists(config) && !options.init) {
    const where = config.explicit.dataDir ? 'QUIRE_DATA_DIR' : 'QUIRE_DATA_DIR is not set: ./data of this folder';
    const init = command === 'admin bootstrap' || command === 'migrate' ? ', or pass --init to make a new, empty one there' : '';
    throw new CommandError(`no Quire data at ${config.dataDir} (${where}). Set QUIRE_DATA_DIR and DATABASE_URL to what \`quire serve\` uses${init}.`);
  }
  process.stderr.write(`quire ${command}: ${describeStore(config)}\n`);
  const { createContainer } = await import('../container.js');
  const container = await createContainer(config, { logTo: 'stderr' });
  try {
    return await run(container);
  } finally {
    await container.close();
  }
}

/**
 * Started through npm (`npm start`, `npx quire ...`), this process is the child of the shell npm runs it in, which
 * does not pass npm's SIGTERM on: when npm is gone (this process was handed to another parent), stop as on SIGTERM
 * instead of running on unseen. Not otherwise: a server started with `nohup quire serve &` must outlive its shell.
 */
export function stopWhenNpmExits(config: Config, stop: (signal: string) => void): void {
  if (!config.startedByNpm) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    stop('npm exited');
  }, 500);
  timer.unref();
}

export function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** One line of progress on stderr, rewritten in place, when stderr is a terminal (nothing otherwise). */
export function showProgress(line: string): void {
  if (process.stderr.isTTY !== true) return;
  process.stderr.write(`\r\x1b[K${line.slice(0, (process.stderr.columns ?? 80) - 1)}`);
}

/** Ends a progress line (so what follows starts on a line of its own). */
export function endProgress(): void {
  if (process.stderr.isTTY === true) process.stderr.write('\r\x1b[K');
}

