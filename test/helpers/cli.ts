/**
 * Runs the real `quire` command (the build, dist/src/main.js, checked to be the build of the current source) as a child
 * process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UNCAUGHT_EXCEPTION, UNHANDLED_REJECTION } from '../../src/cli/process-errors.js';
import { waitFor } from './wait.js';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The newest modification time of the TypeScript files under `dir`. */
function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile() && entry.name.endsWith('.ts')) newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

let checkedMain: string | undefined;

/**
 * The build's `quire` (dist/src/main.js), as `npm start` and an installed `quire` run it: the build `npm install`
 * makes (its `prepare` script), which must be the build of this source (a source file newer than the build fails the
 * suite with what to do). The suites run the command users run, and it starts in a third of the time the sources
 * take through tsx.
 */
export function builtMain(): string {
  if (checkedMain) return checkedMain;
  const main = path.join(root, 'dist/src/main.js');
  const built = fs.statSync(main, { throwIfNoEntry: false });
  const source = Math.max(...['src', 'config', 'workers'].map((dir) => newestSource(path.join(root, dir))));
  if (!built || built.mtimeMs < source) throw new Error('dist/ is missing or older than the source: run `npm run build` (npm install does it)');
  checkedMain = main;
  return main;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function quireArgs(args: string[]): string[] {
  return [builtMain(), ...args];
}

/** This environment with `env` added; a variable given as undefined is removed. */
function childEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [name, value] of Object.entries(merged)) if (value === undefined) delete merged[name];
  return merged;
}

/**
 * Runs `quire ARGS` to completion with the given environment (added to a copy of this one; undefined removes a
 * variable), in the checkout or in `cwd`.
 */
export function runQuire(args: string[], env: Record<string, string | undefined>, { cwd = root } = {}): Promise<CliResult> {
  return runCommand(process.execPath, quireArgs(args), { env, cwd });
}

/** Runs any command to completion, its output collected; the environment as for runQuire. */
export function runCommand(command: string, args: string[], { env, cwd = root }: { env: Record<string, string | undefined>; cwd?: string }): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: childEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A TCP port that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr interleaved. */
  output(): string;
  /**
   * Stops the server; fails when it logged an unhandled rejection or an uncaught exception meanwhile (a bug that
   * would kill or silently break a real server), or when it does not exit.
   */
  stop(): Promise<void>;
}

/** The lines of a server's JSON log that report an error nothing caught (src/cli/process-errors.ts). */
function uncaughtErrors(output: string): string[] {
  return output.split('\n').filter((line) => {
    if (!line.startsWith('{')) return false;
    try {
      const { msg } = JSON.parse(line) as { msg?: unknown };
      return msg === UNHANDLED_REJECTION || msg === UNCAUGHT_EXCEPTION;
    } catch {
      return false;
    }
  });
}

/**
 * Starts `quire serve` (logging JSON, which stop() reads) and waits until it answers HTTP (at most `startTimeoutMs`:
 * a ceiling, not an expectation; on two cores shared with browser suites a start has taken over 20 s).
 */
export async function startServer(env: Record<string, string | undefined>, { startTimeoutMs = 60_000 } = {}): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, quireArgs(['serve']), {
    cwd: root,
    // One CPU thread unless the test gives QUIRE_CPU_THREADS (as startTestApp: thread starts are much of a suite's CPU).
    env: childEnv({ QUIRE_CPU_THREADS: '1', ...env, PORT: String(port), HOST: env.HOST ?? '127.0.0.1', QUIRE_LOG_LEVEL: env.QUIRE_LOG_LEVEL ?? 'warn', QUIRE_LOG_FORMAT: 'json' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`quire serve exited with ${child.exitCode}: ${output}`);
        // Not listening yet: false.
        return fetch(`${url}/v1/openapi.json`).then((res) => res.ok, () => false);
      },
      { what: 'quire serve to answer HTTP', timeoutMs: startTimeoutMs, intervalMs: 100 },
    );
  } catch (error) {
    if (child.exitCode === null) child.kill('SIGKILL');
    throw child.exitCode === null ? new Error(`quire serve did not start: ${(error as Error).message}\n${output}`) : error;
  }
  return {
    url,
    child,
    output: () => output,
    /** SIGTERM, as a service manager would; a process still running after 10 s fails the test. */
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => {
            child.kill('SIGKILL');
            reject(new Error(`quire serve did not exit after SIGTERM: ${output.slice(-2000)}`));
          }, 10_000);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill('SIGTERM');
        });
      }
      const uncaught = uncaughtErrors(output);
      if (uncaught.length > 0) throw new Error(`quire serve logged errors nothing caught:\n${uncaught.join('\n')}`);
    },
  };
}

export interface QuireProcess {
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr interleaved. */
  output(): string;
  /** Waits until the output matches `pattern` (fails after `timeoutMs`, or when the process exits first). */
  waitForOutput(pattern: RegExp, timeoutMs?: number): Promise<void>;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

/** Starts a long-running `quire ARGS` (such as `quire sync`) with the given environment added to this one. */
export function spawnQuire(args: string[], env: Record<string, string | undefined>): QuireProcess {
  return spawnWatched(process.execPath, quireArgs(args), { env });
}

/**
 * Starts any long-running command (`npm start`, an installed `quire`) with its output watched. `detached`: in a
 * process group of its own, whose id is the child's pid (to see whether anything it started is left).
 */
export function spawnWatched(command: string, args: string[], options: { env: Record<string, string | undefined>; cwd?: string; detached?: boolean }): QuireProcess {
  const child = spawn(command, args, { cwd: options.cwd ?? root, env: childEnv(options.env), stdio: ['ignore', 'pipe', 'pipe'], detached: options.detached });
  let output = '';
  const listeners = new Set<() => void>();
  const onData = (d: Buffer) => {
    output += d.toString();
    for (const listener of listeners) listener();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      for (const listener of listeners) listener();
      resolve(code);
    });
  });
  return {
    child,
    output: () => output,
    exited,
    waitForOutput(pattern, timeoutMs = 20_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (pattern.test(output)) done(resolve);
          else if (child.exitCode !== null || child.signalCode !== null) done(() => reject(new Error(`quire exited (${child.exitCode ?? child.signalCode}) before printing ${pattern}:\n${output}`)));
        };
        const timer = setTimeout(() => done(() => reject(new Error(`no ${pattern} after ${timeoutMs} ms:\n${output}`))), timeoutMs);
        const done = (finish: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          finish();
        };
        listeners.add(check);
        check();
      });
    },
  };
}
