/**
 * `quire worker` as a process: it needs REDIS_URL, starts BullMQ workers on the real Redis, and stops cleanly on
 * SIGTERM. (What the workers do end to end with `quire serve` is in test/cli/jobs-e2e.test.ts.)
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuire, spawnQuire } from '../helpers/cli.js';
import { REDIS_TEST_URL, assertRedisReachable, removeRedisPrefix, uniqueRedisPrefix } from '../helpers/queues.js';

describe('quire worker (bullmq)', () => {
  let dataDir: string;
  const prefix = uniqueRedisPrefix();

  beforeAll(async () => {
    await assertRedisReachable();
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-worker-'));
  });
  afterAll(async () => {
    await removeRedisPrefix(prefix);
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  it('refuses to start without REDIS_URL, saying why', async () => {
    const result = await runQuire(['worker'], { QUIRE_DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '' });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('REDIS_URL is not set');
  });

  it('runs until SIGTERM and then exits 0', async () => {
    const worker = spawnQuire(['worker'], { QUIRE_DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: REDIS_TEST_URL, QUIRE_REDIS_PREFIX: prefix });
    await worker.waitForOutput(/worker started/);
    worker.child.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(worker.output()).toContain('shutting down');
  });
});
