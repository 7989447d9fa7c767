/**
 * The read cache through a push's indexing: a push moves main and records it (a write: every cached read starts
 * over), but the link and search indexing that follow write only derived tables and keep what callers read (their
 * token, their read of the space, the answers kept for replay). Over a real HTTP server and a real `git push`; the
 * cache's time to live is long here, so that only writes can clear it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawGet } from '../helpers/raw-http.js';
import { startTestApp, type TestApp, type TestUser } from '../helpers/app.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { peekContent } from '../../src/domain/content/revisions.js';
import { cachedTokenUser } from '../../src/domain/identity/users.js';
import { replayOf } from '../../src/http/answer-cache.js';

const isReplayed = (content: ReturnType<typeof peekContent>, url: string) => content !== undefined && replayOf(content, url) !== undefined;

describe('the read cache through a push and its indexing', () => {
  let t: TestApp;
  let server: string;
  let admin: TestUser;
  let spaceId: string;
  let checkout: Checkout;

  const get = (path: string) => rawGet(`${server}${path}`, { authorization: `Bearer ${admin.token}` });
  /** Whether the app holds the admin's token, read of the space and a replay of `url` (all current). */
  const cached = (url: string) => ({
    token: cachedTokenUser(t.container.ctx, admin.token)?.id === admin.user.id,
    replay: isReplayed(peekContent(t.container.ctx, { user: admin.user }, spaceId), url),
  });

  beforeAll(async () => {
    t = await startTestApp('sqlite', { cacheTtlMs: 600_000 });
    const org = await t.organization();
    admin = org.admin;
    server = await t.listen();
    spaceId = (await t.request('POST', `/v1/orgs/${org.id}/spaces`, { token: admin.token, body: { title: 'Handbook' } })).body.id;
    checkout = await Checkout.clone(spaceRemote(server, admin.token, spaceId));
    const summary = ['# Summary', ''];
    for (let i = 0; i < 10; i++) {
      await checkout.write(`page-${i}.md`, `# Page ${i}\n\nAbout [the next page](page-${(i + 1) % 10}.md).\n`);
      summary.push(`* [Page ${i}](page-${i}.md)`);
    }
    await checkout.write('SUMMARY.md', `${summary.join('\n')}\n`);
    await checkout.commitAndPush('10 pages');
    await t.container.ctx.jobs.idle();
  });
  afterAll(async () => {
    await checkout?.dispose();
    await t?.close();
  });

  it('keeps what callers read while the indexing writes, and forgets it on a write they read', async () => {
    const url = `/v1/spaces/${spaceId}/content/path/page-1`;
    await checkout.write('page-2.md', '# Page 2\n\nNow about quokkas.\n');
    await checkout.commitAndPush('page 2 on quokkas');
    // Read after the push was recorded, before its indexing has run.
    expect((await get(url)).status).toBe(200);
    expect(cached(url)).toEqual({ token: true, replay: true });

    await t.container.ctx.jobs.idle();
    // The indexing ran and wrote: the new word is found.
    const found = JSON.parse((await get(`/v1/spaces/${spaceId}/search?query=quokkas`)).body.toString()) as { items: Array<{ path: string }> };
    expect(found.items.map((item) => item.path)).toEqual(['page-2']);
    expect(cached(url)).toEqual({ token: true, replay: true });

    // A write of what a read rests on (the space's row) clears it.
    expect((await t.request('PATCH', `/v1/spaces/${spaceId}`, { token: admin.token, body: { title: 'Renamed' } })).status).toBe(200);
    expect(cached(url)).toEqual({ token: false, replay: false });
  });
});
