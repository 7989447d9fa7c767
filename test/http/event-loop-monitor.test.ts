/**
 * The server's watch on its own event loop (src/event-loop.ts): work that runs on the loop is `held`, counted as a
 * stall past 100 ms; the time the loop's thread waits for a CPU on a busy machine is `coreWait`, and not held. The
 * second case makes a machine busy for real: a process pinned with `taskset` to one CPU beside five shells spinning
 * on that CPU, so that a callback doing 40 ms of work takes several times that long.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { EventLoopMonitor, STALL_MS } from '../../src/event-loop.js';
import { builtMain, runCommand } from '../helpers/cli.js';

/** Milliseconds this thread has run on a CPU (schedstat's first field). */
const threadCpuMs = () => Number(fs.readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[0]) / 1e6;

/** Holds the loop until this thread has run `ms` on a CPU (however long that takes on the wall clock). */
function work(ms: number): void {
  const start = threadCpuMs();
  while (threadCpuMs() - start < ms) {
    // Spinning: the work.
  }
}

const nextTick = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('the event loop monitor', () => {
  const spinners: ChildProcess[] = [];
  afterEach(() => {
    for (const spinner of spinners.splice(0)) spinner.kill('SIGKILL');
  });

  it('counts work on the loop as held, and a hold over 100 ms as a stall', async () => {
    const monitor = new EventLoopMonitor(pino({ level: 'silent' }));
    monitor.start();
    try {
      await nextTick();
      monitor.read();
      // The wait for a CPU is read per sample, not per callback: on a busy machine, a wait in the same sample as the
      // work, outside it, is taken from the work's hold too (8.4 ms read for 10 ms of work, once in CI). Not counting
      // work would read about nothing.
      work(10);
      await nextTick();
      const short = monitor.read();
      expect(short.held.maxMs).toBeGreaterThanOrEqual(5);
      expect(short.held.maxMs).toBeLessThan(STALL_MS);
      expect(short.stalls).toBe(0);

      work(STALL_MS + 50);
      await nextTick();
      const long = monitor.read();
      expect(long.held.maxMs).toBeGreaterThanOrEqual(STALL_MS + 10);
      expect(long.stalls).toBe(1);
    } finally {
      monitor.close();
    }
  });

  it('does not count as held the time a busy machine gave the loop no CPU', async () => {
    const pinned = (command: string, args: string[]) => ['-c', '0', command, ...args];
    for (let i = 0; i < 5; i++) spinners.push(spawn('taskset', pinned('sh', ['-c', 'while :; do :; done']), { stdio: 'ignore' }));
    const monitorModule = pathToFileURL(path.join(path.dirname(builtMain()), 'event-loop.js')).href;
    const script = `
      const { EventLoopMonitor } = await import(${JSON.stringify(monitorModule)});
      const fs = await import('node:fs');
      const cpuMs = () => Number(fs.readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[0]) / 1e6;
      const silent = { warn() {}, info() {}, error() {}, debug() {} };
      const monitor = new EventLoopMonitor(silent);
      monitor.start();
      const tick = () => new Promise((resolve) => setTimeout(resolve, 20));
      await tick();
      monitor.read();
      let longestWallMs = 0;
      for (let i = 0; i < 5; i++) {
        const wallStart = performance.now();
        const start = cpuMs();
        while (cpuMs() - start < 40) {}
        longestWallMs = Math.max(longestWallMs, performance.now() - wallStart);
        await tick();
      }
      console.log(JSON.stringify({ report: monitor.read(), longestWallMs }));
      monitor.close();
    `;
    const result = await runCommand('taskset', pinned(process.execPath, ['--input-type=module', '-e', script]), { env: {} });
    expect(result.code, result.stderr).toBe(0);
    const { report, longestWallMs } = JSON.parse(result.stdout) as { report: ReturnType<EventLoopMonitor['read']>; longestWallMs: number };
    const summary = JSON.stringify({ longestWallMs, held: report.held, coreWait: report.coreWait });
    // The machine was busy: 40 ms of work took far longer, the thread waiting for its CPU.
    expect(longestWallMs, summary).toBeGreaterThan(STALL_MS);
    expect(report.coreWait.maxMs, summary).toBeGreaterThan(STALL_MS / 2);
    // What was held is the work.
    expect(report.held.maxMs, summary).toBeGreaterThanOrEqual(30);
    expect(report.held.maxMs, summary).toBeLessThan(STALL_MS);
    expect(report.stalls, summary).toBe(0);
  });
});
