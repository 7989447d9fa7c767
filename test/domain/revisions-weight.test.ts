/**
 * The content cache is sized in bytes (QUIRE_CONTENT_CACHE_MB): what it records for a space it keeps must be close to
 * what that space really holds in the heap, else the setting means nothing (a server that keeps 100 spaces would go far
 * past its budget, or stay far below it). Measured with real git and a real database: the heap after a full collection,
 * before and after a space is read, against the weights the container's caches record.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Checkout } from '../helpers/git.js';
import { sleep } from '../helpers/wait.js';

v8.setFlagsFromString('--expose-gc');
const collect = vm.runInNewContext('gc') as () => void;

/**
 * The heap the process holds after a full collection: V8's objects and the buffers (answers kept as bytes). Dead
 * buffers' memory is released by a task after the collection: measured once it ran.
 */
async function heldBytes(): Promise<number> {
  for (let round = 0; round < 3; round++) {
    collect();
    // The release task has no event to wait for: a pause after each collection, then measured (no time asserted).
    await sleep(50);
  }
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

const WORDS = 'install configure deploy search index cluster replica token webhook schema migrate backup restore audit'.split(' ');
const latinPage = (i: number) => {
  let text = `# Page ${i}\n\nSee [the next page](page-${i + 1}.md) and [usage](#usage).\n\n`;
  for (let p = 0; text.length < 1400; p++) text += `${WORDS[(i + p) % WORDS.length]} and ${WORDS[(i * 7 + p) % WORDS.length]}: paragraph ${p} of page ${i}.\n\n`;
  return `${text}## Usage\n\nRun it.\n`;
};
/** Text V8 stores two bytes per character. */
const cjkPage = (i: number) => `# 第${i}页\n\n${'安装、配置并运行服务；选项见参考手册。'.repeat(40)}\n`;

describe('content cache weights', () => {
  let t: TestApp;
  let token: string;
  let organizationId: string;

  beforeAll(async () => {
    t = await startTestApp('sqlite');
    const org = await t.organization();
    organizationId = org.id;
    token = org.admin.token;
  });
  afterAll(async () => {
    await t?.close();
  });

  async function spaceOf(pages: number, body: (i: number) => string): Promise<string> {
    const spaceId = (await t.request('POST', `/v1/orgs/${organizationId}/spaces`, { token, body: { title: 'Weights' } })).body.id as string;
    const checkout = await Checkout.clone(t.container.git.repositoryPath(spaceId));
    const summary = ['# Table of contents', ''];
    for (let i = 0; i < pages; i++) {
      await checkout.write(`section-${Math.floor(i / 50)}/page-${i}.md`, body(i));
      summary.push(`* [Page ${i}](section-${Math.floor(i / 50)}/page-${i}.md)`);
    }
    await checkout.write('SUMMARY.md', `${summary.join('\n')}\n`);
    await checkout.commitAndPush('pages');
    await checkout.dispose();
    return spaceId;
  }

  /** Reads the space's content and one page as a client does; answers what the heap and the weights grew by. */
  async function read(spaceId: string): Promise<{ held: number; recorded: number }> {
    await t.container.ctx.jobs.idle();
    const recordedBefore = t.container.ctx.revisions.weight + t.container.ctx.history.weight;
    const before = await heldBytes();
    // Only statuses and an id are kept from the answers: their parsed bodies are not part of what the server holds.
    const get = async (url: string) => {
      const { status, body } = await t.request('GET', `/v1/spaces/${spaceId}/content${url}`, { token, unchecked: true, urlsUnchecked: true });
      expect(status).toBe(200);
      return body;
    };
    await get('');
    const firstPageId = ((await get('/pages')).pages[0].id as string).slice();
    await get(`/page/${firstPageId}`);
    await t.container.ctx.jobs.idle();
    return { held: (await heldBytes()) - before, recorded: t.container.ctx.revisions.weight + t.container.ctx.history.weight - recordedBefore };
  }

  it('records about what a space read holds in the heap, for Latin and for CJK text', async () => {
    // The first read loads the content code and warms the routes: not part of any space's weight.
    await read(await spaceOf(20, latinPage));
    const latin = await read(await spaceOf(2000, latinPage));
    const cjk = await read(await spaceOf(2000, cjkPage));
    // Measured 2026-11-25: Latin 10.4 MB held, 10.2 MB recorded; CJK 11.7 MB held, 12.1 MB recorded. The weights
    // before (a page's text counted by both stores, twice in one) recorded 1.4 times what was held: outside the bounds.
    console.log(`latin: held ${latin.held}, recorded ${latin.recorded}; cjk: held ${cjk.held}, recorded ${cjk.recorded}`);
    for (const { held, recorded } of [latin, cjk]) {
      expect(recorded).toBeGreaterThan(held * 0.75);
      expect(recorded).toBeLessThan(held * 1.33);
    }
  }, 120_000);
});
