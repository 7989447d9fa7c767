/**
 * How late this process's event loop ran while something happened (perf_hooks.monitorEventLoopDelay): the bound
 * every hostile input is held to is that nothing it does makes the loop late by 100 ms.
 *
 * On a machine shared with other work, any process's loop is now and then late by tens of milliseconds, more than a
 * hundred on a busy one, through no doing of its own (it waits for a core). So the measure comes with a control: an
 * idle process measuring its own loop over the same time. What this process's loop is late by beyond the control's is
 * what the measured work made it.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface EventLoopDelay {
  p99Ms: number;
  maxMs: number;
  /** The same, of an idle process over the same time (the machine's own lateness). */
  control: { p99Ms: number; maxMs: number };
}

const CONTROL = `
const { monitorEventLoopDelay } = require('node:perf_hooks');
const histogram = monitorEventLoopDelay({ resolution: 10 });
histogram.enable();
process.stdout.write('ready\\n');
process.stdin.resume();
process.stdin.on('end', () => {
  histogram.disable();
  process.stdout.write(JSON.stringify({ p99Ms: histogram.percentile(99) / 1e6, maxMs: histogram.max / 1e6 }) + '\\n');
});
`;

/** Starts measuring (once the control runs); `stop()` ends it with the 99th percentile and the largest delay, in ms. */
export async function watchEventLoopDelay(): Promise<{ stop(): Promise<EventLoopDelay> }> {
  const control = spawn(process.execPath, ['-e', CONTROL], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  control.stdout.on('data', (data: Buffer) => (output += data.toString()));
  while (!output.includes('ready\n')) await once(control.stdout, 'data');
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  return {
    async stop() {
      histogram.disable();
      const closed = once(control, 'close');
      control.stdin.end();
      await closed;
      const measured = JSON.parse(output.slice(output.indexOf('ready\n') + 6)) as EventLoopDelay['control'];
      return { p99Ms: histogram.percentile(99) / 1e6, maxMs: histogram.max / 1e6, control: measured };
    },
  };
}
