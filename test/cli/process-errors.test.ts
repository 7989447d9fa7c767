/**
 * What `quire serve` and `quire worker` do with an error nothing caught (src/cli/process-errors.ts), in a real Node
 * process with the servers' logger: a rejection nobody observed is logged at error level and the process goes on; an
 * uncaught exception is logged at fatal level and the process exits with 1.
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

  /** Runs `body` in a Node process after the servers' handlers are installed, with their JSON logger. */
  async function run(name: string, body: string): Promise<CliResult & { records: Array<{ level: number; msg: string; err?: { message: string } }> }> {
    const file = path.join(dir, `${name}.ts`);
    await fs.writeFile(
      file,
      `import { createLogger } from ${JSON.stringify(path.join(root, 'src/log.ts'))};
import { reportProcessErrors } from ${JSON.stringify(path.join(root, 'src/cli/process-errors.ts'))};
reportProcessErrors(createLogger({ logLevel: 'info', logFormat: 'json' }));
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
});
