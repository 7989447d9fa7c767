/**
 * What `quire serve` and `quire worker` do with an error nothing caught (src/cli/process-errors.ts), in a real Node
 * process with the servers' logger: a rejection nobody observed is logged at error level and the process goes on; an
 * uncaught exception is logged at fatal level and the process exits with 1. Lines logged before the process ends
 * are in the log, access lines kept to be written together (src/log-destination.ts) included, in their order.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { root, runCommand, type CliResult } from '../helpers/cli.js';

describe('errors nothing caught in a server process', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-process-errors-'));
  });
  afterAll(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  /**
   * Runs `body` in a Node process after the servers' handlers are installed, with their JSON logger (`log`) and the
   * access lines' writer (`logAnswered`).
   */
  async function run(name: string, body: string): Promise<CliResult & { records: Array<{ level: number; msg: string; reqId?: string; err?: { message: string } }> }> {
    // .mts: an ES module, as the sources are (the thread writing access lines is found through import.meta).
    const file = path.join(dir, `${name}.mts`);
    await fs.writeFile(
      file,
      `import { createLogger } from ${JSON.stringify(path.join(root, 'src/log.ts'))};
import { logAnswered } from ${JSON.stringify(path.join(root, 'src/http/access-line.ts'))};
import { reportProcessErrors } from ${JSON.stringify(path.join(root, 'src/cli/process-errors.ts'))};
const log = createLogger({ logLevel: 'info', logFormat: 'json' });
reportProcessErrors(log);
${body}
`,
    );
    const result = await runCommand(process.execPath, ['--import', import.meta.resolve('tsx'), file], { env: {} });
    const records = result.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
    return { ...result, records };
  }

  it('logs a rejection nobody observed at error level, and goes on', async () => {
    const result = await run(
      'rejection',
      `void Promise.reject(new Error('nobody listens'));
setImmediate(() => setImmediate(() => console.log(JSON.stringify({ level: 30, msg: 'still running' }))));`,
    );
    expect(result.records.map((record) => [record.level, record.msg, record.err?.message])).toEqual([
      [50, 'unhandled rejection', 'nobody listens'],
      [30, 'still running', undefined],
    ]);
    expect(result.code).toBe(0);
  });

  it('logs an uncaught exception at fatal level, and exits with 1', async () => {
    const result = await run(
      'exception',
      `setImmediate(() => {
  throw new Error('thrown in a callback');
});
setImmediate(() => setImmediate(() => console.log(JSON.stringify({ level: 30, msg: 'still running' }))));`,
    );
    expect(result.records.map((record) => [record.level, record.msg, record.err?.message])).toEqual([[60, 'uncaught exception', 'thrown in a callback']]);
    expect(result.code).toBe(1);
  });

  it('writes every line logged before an uncaught exception ahead of its fatal line, the access lines kept included', async () => {
    const result = await run(
      'kept-then-exception',
      `log.info('before the requests');
logAnswered(log, { method: 'GET', url: '/answered', headers: {} }, 200, 1.5, 'req-1');
logAnswered(log, { method: 'GET', url: '/answered', headers: {} }, 404, 0.5, 'req-2');
setImmediate(() => {
  throw new Error('thrown in a callback');
});`,
    );
    expect(result.records.map((record) => [record.level, record.msg, record.reqId ?? record.err?.message])).toEqual([
      [30, 'before the requests', undefined],
      [30, 'request completed', 'req-1'],
      [30, 'request completed', 'req-2'],
      [60, 'uncaught exception', 'thrown in a callback'],
    ]);
    expect(result.code).toBe(1);
  });

  /**
   * Script lines: `answer(id)` logs an access line; `whenThreadWrites(then)` runs `then` once the thread writing access
   * lines runs (started by the first batch, which req-0 makes).
   */
  const THREADED = `import pinoModule from ${JSON.stringify(path.join(root, 'node_modules/pino/pino.js'))};
const answer = (id: string) => logAnswered(log, { method: 'GET', url: '/answered', headers: {} }, 200, 1.5, id);
const destination = (log as any)[pinoModule.symbols.streamSym];
const whenThreadWrites = (then: () => void) => {
  const started = Date.now();
  const poll = setInterval(() => {
    if (destination.thread?.ready) {
      clearInterval(poll);
      then();
    } else if (Date.now() - started > 30_000) {
      console.error('the access log thread did not start');
      process.exit(9);
    }
  }, 20);
};
answer('req-0');
`;

  /** The request ids and messages of a run's lines, in order. */
  const said = (records: Array<{ msg: string; reqId?: string }>) => records.map((record) => record.reqId ?? record.msg);
  const ids = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `req-${from + i}`);

  it('keeps the order of the log with access lines written by their thread, and waits for it on exit', async () => {
    const result = await run(
      'threaded-then-exit',
      `${THREADED}
whenThreadWrites(() => {
  // More than a batch: two go to the thread at once, the rest is kept.
  for (let i = 1; i <= 600; i++) answer(\`req-\${i}\`);
  log.info('after the requests');
  for (let i = 601; i <= 700; i++) answer(\`req-\${i}\`);
  process.exit(0);
});`,
    );
    expect(result.stderr).toBe('');
    expect(said(result.records)).toEqual([...ids(0, 600), 'after the requests', ...ids(601, 700)]);
    expect(result.code).toBe(0);
  });

  it('writes the access lines its thread holds ahead of an uncaught exception\'s line', async () => {
    const result = await run(
      'threaded-then-exception',
      `${THREADED}
whenThreadWrites(() => {
  for (let i = 1; i <= 600; i++) answer(\`req-\${i}\`);
  throw new Error('thrown in a callback');
});`,
    );
    expect(said(result.records)).toEqual([...ids(0, 600), 'uncaught exception']);
    expect(result.code).toBe(1);
  });

  it('writes the access lines kept when the process exits at once', async () => {
    const result = await run(
      'kept-then-exit',
      `logAnswered(log, { method: 'GET', url: '/answered', headers: {} }, 200, 1.5, 'req-1');
process.exit(3);`,
    );
    expect(result.records.map((record) => [record.msg, record.reqId])).toEqual([['request completed', 'req-1']]);
    expect(result.code).toBe(3);
  });
});
