import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { CpuPool, CpuTaskError } from '../../src/cpu/pool.js';
import { cpuTasks } from '../../src/cpu/tasks.js';
import { sleep, waitFor } from '../helpers/wait.js';

describe('CpuPool', () => {
  let pool: CpuPool | undefined;
  afterEach(async () => pool?.close());

  it('runs tasks on worker threads and answers what the task returns inline', { timeout: 60_000 }, async () => {
    pool = new CpuPool(2);
    const bodies = ['See [the guide](guide.md), <https://example.com> and [the guide again](guide.md).', 'No links here.'];
    const [links, again] = await Promise.all([pool.run('extractLinks', bodies), pool.run('extractLinks', bodies.slice(0, 1))]);
    expect(links).toEqual(cpuTasks.extractLinks(bodies));
    // Each link once.
    expect(links[0].map((link) => link.href)).toEqual(['guide.md', 'https://example.com']);
    expect(again).toEqual(links.slice(0, 1));
    const page = { id: 'p1', title: 'Install', path: 'install', blobOid: 'b', markdown: 'Run the installer.\n\n## Configure\n\nSet it.' };
    expect(await pool.run('searchRows', [page])).toEqual(cpuTasks.searchRows([page]));
  });

  it('runs its threads below the event loop\'s priority (Linux nice values), the loop\'s thread left as it was', { timeout: 60_000 }, async () => {
    /** The nice value of each thread of this process, by thread id (/proc/self/task/<tid>/stat, field 19). */
    const niceValues = async (): Promise<Map<number, number>> => {
      const values = new Map<number, number>();
      for (const tid of await fs.readdir('/proc/self/task')) {
        const stat = await fs.readFile(`/proc/self/task/${tid}/stat`, 'utf8').catch(() => undefined);
        // Fields after the command's closing parenthesis start at field 3 (state).
        if (stat !== undefined) values.set(Number(tid), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19 - 3]));
      }
      return values;
    };
    const before = await niceValues();
    pool = new CpuPool(2);
    await Promise.all([pool.run('extractLinks', ['[a](b.md)']), pool.run('extractLinks', ['[c](d.md)'])]);
    const after = await niceValues();
    const started = [...after].filter(([tid]) => !before.has(tid));
    expect(started.filter(([, nice]) => nice === 10).length, `threads started: ${JSON.stringify(started)}`).toBeGreaterThanOrEqual(2);
    expect(after.get(process.pid)).toBe(before.get(process.pid));
    expect(after.get(process.pid)).toBe(os.getPriority());
  });

  it('rejects with the task error, keeps working, and refuses tasks once closed', { timeout: 60_000 }, async () => {
    pool = new CpuPool(1);
    // Not an array: the task throws in its thread.
    const failed = pool.run('extractLinks', null as unknown as string[]);
    await expect(failed).rejects.toBeInstanceOf(CpuTaskError);
    await expect(failed).rejects.toThrow(/^extractLinks: /);
    expect(await pool.run('extractLinks', ['[a](b.md)'])).toEqual([[{ href: 'b.md', relation: 'reference' }]]);
    await pool.close();
    await expect(pool.run('extractLinks', [])).rejects.toThrow(/closed/);
  });

  it('is ready now only with a started thread free and nothing waiting', { timeout: 60_000 }, async () => {
    pool = new CpuPool(1);
    // No thread yet: not ready (a task would wait for it to load) until one is started and loaded.
    expect(pool.readyNow()).toBe(false);
    // Nor a moment later: the pool starts no thread by itself (nothing marks "did not start one": a short window).
    await sleep(50);
    expect(pool.readyNow()).toBe(false);
    pool.startThread();
    await waitFor(() => pool!.readyNow(), { what: 'the thread to be ready', timeoutMs: 30_000, intervalMs: 10 });
    // Busy, and with a task waiting: not ready; free again: ready.
    const first = pool.run('extractLinks', ['[a](b.md)']);
    expect(pool.readyNow()).toBe(false);
    const second = pool.run('extractLinks', ['[c](d.md)']);
    expect(pool.readyNow()).toBe(false);
    await first;
    expect(pool.readyNow()).toBe(false);
    await second;
    expect(pool.readyNow()).toBe(true);
    await pool.close();
    expect(pool.readyNow()).toBe(false);
  });

  it('reads a SQLite file on its own read-only connection, which sees each new commit and writes nothing', { timeout: 60_000 }, async () => {
    pool = new CpuPool(1);
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-thread-read-'));
    const file = path.join(dir, 'test.sqlite');
    const writer = new SQLite(file);
    try {
      writer.pragma('journal_mode = WAL');
      writer.exec("create table words (word text); insert into words values ('otter')");
      const read = (sql: string, parameters: unknown[] = []) => pool!.run('readDatabase', { file, sql, parameters });
      expect(await read('select word from words where word like ?', ['ot%'])).toEqual([{ word: 'otter' }]);
      // The connection stays open between reads, and each read sees what was committed before it began.
      writer.prepare('insert into words values (?)').run('beaver');
      expect(await read('select word from words order by word')).toEqual([{ word: 'beaver' }, { word: 'otter' }]);
      await expect(read("insert into words values ('mink')")).rejects.toThrow(/must be a query that returns rows/);
      await expect(read("delete from words returning word")).rejects.toThrow(/readonly/);
      expect(writer.prepare('select count(*) as n from words').get()).toEqual({ n: 2 });
      await expect(pool.run('readDatabase', { file: path.join(dir, 'missing.sqlite'), sql: 'select 1', parameters: [] })).rejects.toThrow(/readDatabase: /);
    } finally {
      await pool.close();
      writer.close();
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});
