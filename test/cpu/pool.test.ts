import { afterEach, describe, expect, it } from 'vitest';
import { CpuPool, CpuTaskError } from '../../src/cpu/pool.js';
import { cpuTasks } from '../../src/cpu/tasks.js';

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
});
