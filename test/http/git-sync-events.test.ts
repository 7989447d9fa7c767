/**
 * What brings a Git Sync run about, against a real git host on loopback: webhook deliveries signed exactly as GitHub,
 * GitLab and Gitea/Forgejo sign them (a bad signature: 401 and nothing happens), the poll (one ref read per
 * repository; a run only when a side moved), and the host down for a while (the run fails, the poll tries again
 * with growing waits, and the commits reach the host once it is back). Every run writes one log line. On both
 * databases.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pollGitSync } from '../../src/domain/git-sync/poll.js';
import { findGitSyncConnection } from '../../src/store/sql/git-sync.js';
import { DATABASE_KINDS } from '../helpers/databases.js';
import { Checkout, spaceRemote } from '../helpers/git.js';
import { HOST_TOKEN, HOST_USER, startGitSyncScene, type GitSyncScene } from '../helpers/git-sync.js';
import { waitFor } from '../helpers/wait.js';

const SECRET = 'whsec-quire-test-4f1c2a';
const hmac = (secret: string, body: string) => crypto.createHmac('sha256', secret).update(body).digest('hex');

describe.each(DATABASE_KINDS)('Git Sync: webhooks, polling and retries (%s)', (kind) => {
  let scene: GitSyncScene;
  const logged: string[] = [];
  /** The server's log lines since `from`, as objects. */
  const linesSince = (from: number): Array<Record<string, any>> => logged.slice(from).map((line) => JSON.parse(line));
  /** The lines runs of `spaceId` wrote since `from`. */
  const runLinesSince = (from: number, spaceId: string) => linesSince(from).filter((line) => line.spaceId === spaceId && String(line.msg).startsWith('git sync of space'));
  beforeAll(async () => {
    scene = await startGitSyncScene(kind, { gitSyncPollMs: 50, logLevel: 'info' }, { logLines: logged });
  });
  afterAll(async () => scene?.close());

  const ctx = () => scene.t.container.ctx;
  const deliver = (spaceId: string, headers: Record<string, string>, body: string) =>
    scene.t.request('POST', `/v1/git-sync/webhooks/${spaceId}`, { headers: { 'content-type': 'application/json', ...headers }, rawBody: body, unchecked: true });
  /** A space imported from a new repository of the host, in step with it; the host user's clone. */
  async function connectedSpace(name: string, body: Record<string, unknown> = {}): Promise<{ spaceId: string; user: Checkout }> {
    const user = await scene.hostRepository(name, ['intro']);
    const spaceId = await scene.newSpace(name);
    expect((await scene.connect(spaceId, { url: `${scene.host.url}/${name}.git`, firstSync: 'import', ...body })).status).toBe(200);
    expect(await scene.run(spaceId)).toMatchObject({ status: 'synced' });
    // The run connecting queued has run too: what happens next is the test's own doing.
    await ctx().jobs.idle();
    return { spaceId, user };
  }
  async function hostEdit(user: Checkout, text: string): Promise<string> {
    await user.git('pull', '--quiet', '--ff-only', 'origin', 'main');
    await user.write('intro.md', `# intro\n\n${text}\n`);
    return user.commitAndPush(text);
  }
  const spaceHead = async (spaceId: string) => (await scene.spaceLog(spaceId))[0];

  it('takes pushes signed as GitHub, GitLab and Gitea sign them, answers a ping, and refuses every other delivery with 401 and nothing done', async () => {
    const { spaceId, user } = await connectedSpace('hooked', { webhookSecret: SECRET });
    expect((await scene.t.request('GET', `/v1/spaces/${spaceId}/git/sync`, { token: scene.admin() })).body).toMatchObject({ webhook: true });
    const ping = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
    const pinged = await deliver(spaceId, { 'x-github-event': 'ping', 'x-hub-signature-256': `sha256=${hmac(SECRET, ping)}` }, ping);
    expect(pinged.status).toBe(200);
    expect(pinged.body).toEqual({ event: 'ping', queued: false });

    // Refused: no signature, a signature under another secret, a signature of another body, GitLab's token wrong.
    const theirs = await hostEdit(user, 'Pushed on the host, announced by forged deliveries.');
    const body = JSON.stringify({ ref: 'refs/heads/main', after: theirs });
    const forged: Array<[Record<string, string>, string]> = [
      [{ 'x-github-event': 'push' }, 'x-hub-signature-256'],
      [{ 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${hmac('another-secret', body)}` }, 'x-hub-signature-256'],
      [{ 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${hmac(SECRET, `${body} `)}` }, 'x-hub-signature-256'],
      [{ 'x-gitea-event': 'push', 'x-gitea-signature': hmac('another-secret', body) }, 'x-gitea-signature'],
      [{ 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': 'not-the-secret' }, 'x-gitlab-token'],
    ];
    const before = await spaceHead(spaceId);
    for (const [headers, field] of forged) {
      const res = await deliver(spaceId, headers, body);
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(res.body.error.message, JSON.stringify(headers)).toMatch(new RegExp(`^${field}: `));
    }
    await ctx().jobs.idle();
    expect(await spaceHead(spaceId)).toBe(before);

    // Each host's way of signing brings the host's new commits in.
    const signed: Array<[string, (body: string) => Record<string, string>]> = [
      ['GitHub', (b) => ({ 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${hmac(SECRET, b)}` })],
      ['GitLab', () => ({ 'x-gitlab-event': 'Push Hook', 'x-gitlab-token': SECRET })],
      ['Gitea', (b) => ({ 'x-gitea-event': 'push', 'x-gitea-signature': hmac(SECRET, b), 'x-github-event': 'push' })],
      ['Forgejo', (b) => ({ 'x-forgejo-event': 'push', 'x-forgejo-signature': hmac(SECRET, b) })],
    ];
    for (const [host, sign] of signed) {
      const commit = host === 'GitHub' ? theirs : await hostEdit(user, `Pushed on the host, announced as ${host} does.`);
      const payload = JSON.stringify({ ref: 'refs/heads/main', after: commit, host });
      const res = await deliver(spaceId, sign(payload), payload);
      expect(res.status, host).toBe(202);
      expect(res.body).toEqual({ event: 'push', queued: true });
      await waitFor(async () => (await spaceHead(spaceId)) === commit, { what: `the ${host} delivery's run to bring ${commit} in`, timeoutMs: 30_000 });
      expect(await scene.spaceLog(spaceId)).toEqual(await scene.hostLog('hooked'));
    }

    // Another event, signed: nothing to do. A space without a connection: 404; a connection without a secret: 401.
    const issue = JSON.stringify({ action: 'opened' });
    expect((await deliver(spaceId, { 'x-github-event': 'issues', 'x-hub-signature-256': `sha256=${hmac(SECRET, issue)}` }, issue)).body).toEqual({ event: 'other', queued: false });
    const unconnected = await scene.newSpace('Not connected');
    expect((await deliver(unconnected, { 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${hmac(SECRET, body)}` }, body)).status).toBe(404);
    const { spaceId: secretless } = await connectedSpace('secretless');
    const refused = await deliver(secretless, { 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${hmac(SECRET, body)}` }, body);
    expect(refused.status).toBe(401);
    expect(refused.body.error.message).toMatch(/^webhookSecret: /);
    await user.dispose();
  }, 120_000);

  it('polls each repository once, runs only the connections with something to do, and logs one line per run', async () => {
    const { spaceId, user } = await connectedSpace('polled');
    // A second space on the same repository (a monorepo's other project directory would do the same): one read for both.
    const twin = await scene.newSpace('polled twin');
    expect((await scene.connect(twin, { url: `${scene.host.url}/polled.git`, firstSync: 'import' })).status).toBe(200);
    expect(await scene.run(twin)).toMatchObject({ status: 'synced' });
    await ctx().jobs.idle();

    const quiet = await pollGitSync(ctx());
    expect(quiet.queued.filter((id) => id === spaceId || id === twin)).toEqual([]);
    expect(quiet.repositories).toBeLessThan(quiet.connections);

    const theirs = await hostEdit(user, 'Pushed on the host, found by the poll.');
    const from = logged.length;
    const cycle = await pollGitSync(ctx());
    expect(cycle.queued).toEqual(expect.arrayContaining([spaceId, twin]));
    await ctx().jobs.idle();
    expect(await spaceHead(spaceId)).toBe(theirs);
    expect(await spaceHead(twin)).toBe(theirs);
    const runLines = runLinesSince(from, spaceId);
    expect(runLines).toEqual([expect.objectContaining({ level: 30, status: 'synced', direction: 'from host', commits: 1, ms: expect.any(Number) })]);

    // A push to Quire whose job a crash lost: main moved without a run; the poll finds it.
    const row = await findGitSyncConnection(ctx().db, spaceId);
    const writer = await Checkout.clone(spaceRemote(scene.api, scene.admin(), spaceId), scene.env);
    await writer.write('intro.md', '# intro\n\nPushed to Quire.\n');
    await writer.commitAndPush('Pushed to Quire');
    await ctx().jobs.idle();
    expect((await scene.hostLog('polled'))[0]).toBe(await spaceHead(spaceId));
    await ctx().db.updateTable('git_sync_connections').set({ local_commit: row!.local_commit }).where('space_id', '=', spaceId).execute();
    expect((await pollGitSync(ctx())).queued).toContain(spaceId);
    await ctx().jobs.idle();
    expect((await pollGitSync(ctx())).queued).not.toContain(spaceId);
    await writer.dispose();
    await user.dispose();
  }, 120_000);

  it('keeps a monorepo\'s three project directories in three spaces: one read of the repository, each space its folder, the same commits in all', async () => {
    const projects = ['guides', 'api', 'blog'];
    await scene.hostRepository('mono', []);
    const user = await Checkout.clone(`${scene.hostRoot}/mono.git`, scene.env);
    for (const project of projects) {
      await user.write(`${project}/README.md`, `# ${project}\n`);
      await user.write(`${project}/start.md`, `# Start with ${project}\n\nOnly in ${project}/.\n`);
      await user.write(`${project}/SUMMARY.md`, `# Summary\n\n* [${project}](README.md)\n* [Start with ${project}](start.md)\n`);
    }
    await user.commit('Three projects');
    await user.push('HEAD:refs/heads/main');
    const spaces: string[] = [];
    for (const project of projects) {
      const spaceId = await scene.newSpace(`Mono ${project}`);
      expect((await scene.connect(spaceId, { url: `${scene.host.url}/mono.git`, firstSync: 'import', projectDirectory: `${project}/` })).status).toBe(200);
      expect(await scene.run(spaceId)).toMatchObject({ status: 'synced', projectDirectory: `${project}/` });
      spaces.push(spaceId);
    }
    await ctx().jobs.idle();
    const titles = async (spaceId: string) => (await scene.t.request('GET', `/v1/spaces/${spaceId}/content/pages`, { token: scene.admin() })).body.pages.map((page: any) => page.title);
    for (const [i, project] of projects.entries()) expect(await titles(spaces[i])).toEqual([project, `Start with ${project}`]);

    // The host changes one project: one read of the repository for the three, and the same commit in each space.
    await user.write('api/start.md', '# Start with api\n\nChanged on the host.\n');
    const theirs = await user.commitAndPush('Change the API project');
    const cycle = await pollGitSync(ctx());
    expect(cycle.queued).toEqual(expect.arrayContaining(spaces));
    expect(cycle.repositories).toBeLessThanOrEqual(cycle.connections - 2);
    await ctx().jobs.idle();
    for (const spaceId of spaces) expect(await spaceHead(spaceId)).toBe(theirs);

    // A space changes its own folder: the host gets it, and the other two spaces follow on the next poll.
    const writer = await Checkout.clone(spaceRemote(scene.api, scene.admin(), spaces[0]), scene.env);
    await writer.write('guides/start.md', '# Start with guides\n\nChanged in Quire.\n');
    const ours = await writer.commitAndPush('Change the guides in Quire');
    await ctx().jobs.idle();
    expect((await scene.hostLog('mono'))[0]).toBe(ours);
    await pollGitSync(ctx());
    await ctx().jobs.idle();
    for (const spaceId of spaces) expect(await scene.spaceLog(spaceId)).toEqual(await scene.hostLog('mono'));
    const blog = await scene.t.request('GET', `/v1/spaces/${spaces[2]}/content/path/start`, { token: scene.admin(), query: { format: 'markdown' } });
    expect(JSON.stringify(blog.body)).toContain('Only in blog/.');
    await writer.dispose();
    await user.dispose();
  }, 120_000);

  it('keeps the host\'s token and the webhook secret out of every log line and every file of the data dir', async () => {
    // By now this scene's connections have fetched, pushed, failed and taken webhooks (the tests above).
    expect(logged.length).toBeGreaterThan(0);
    for (const secret of [HOST_TOKEN, SECRET, Buffer.from(`${HOST_USER}:${HOST_TOKEN}`).toString('base64')]) {
      expect(logged.filter((line) => line.includes(secret))).toEqual([]);
      const found: string[] = [];
      const walk = async (dir: string): Promise<void> => {
        for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
          const file = path.join(dir, entry.name);
          if (entry.isDirectory()) await walk(file);
          else if (entry.isFile() && (await fs.readFile(file)).includes(secret)) found.push(file);
        }
      };
      await walk(scene.t.config.dataDir);
      expect(found).toEqual([]);
    }
  });

  it('keeps trying while the host is down, waiting longer each time, and carries everything once it is back', async () => {
    const { spaceId, user } = await connectedSpace('flaky');
    const from = logged.length;
    const writer = await Checkout.clone(spaceRemote(scene.api, scene.admin(), spaceId), scene.env);
    await scene.hostDown();
    try {
      await writer.write('intro.md', '# intro\n\nWritten while the host was down.\n');
      const first = await writer.commitAndPush('While the host was down');
      await writer.write('later.md', '# later\n\nA second commit while it was down.\n');
      const second = await writer.commitAndPush('Still down');
      await ctx().jobs.idle();
      const failed = await findGitSyncConnection(ctx().db, spaceId);
      expect(failed).toMatchObject({ status: 'error' });
      expect(failed!.failures).toBeGreaterThanOrEqual(1);
      expect(runLinesSince(from, spaceId).some((line) => line.level === 40 && line.status === 'error')).toBe(true);
      // The poll tries again (after waits that double with each failure: test/domain/git-sync-poll-rule.test.ts).
      await waitFor(
        async () => {
          await pollGitSync(ctx());
          await ctx().jobs.idle();
          return ((await findGitSyncConnection(ctx().db, spaceId))?.failures ?? 0) >= 3;
        },
        { what: 'three failed runs in a row', timeoutMs: 30_000 },
      );
      expect((await scene.hostLog('flaky'))).not.toContain(first);
      expect(await scene.spaceLog(spaceId)).toContain(second);
    } finally {
      await scene.hostUp();
    }
    await waitFor(
      async () => {
        await pollGitSync(ctx());
        await ctx().jobs.idle();
        return (await findGitSyncConnection(ctx().db, spaceId))?.status === 'synced';
      },
      { what: 'the poll to catch up once the host is back', timeoutMs: 30_000 },
    );
    expect(await scene.hostLog('flaky')).toEqual(await scene.spaceLog(spaceId));
    expect((await findGitSyncConnection(ctx().db, spaceId))?.failures).toBe(0);
    await writer.dispose();
    await user.dispose();
  }, 120_000);
});

describe('Git Sync on BullMQ: the runs, the webhook\'s and the poll\'s, as jobs on Redis (sqlite)', () => {
  let scene: GitSyncScene;
  beforeAll(async () => {
    scene = await startGitSyncScene('sqlite', {}, { queue: 'bullmq' });
  });
  afterAll(async () => scene?.close());

  it('pushes Quire\'s commits to the host, and brings the host\'s in on a webhook and on a poll', async () => {
    const user = await scene.hostRepository('queued', ['intro']);
    const spaceId = await scene.newSpace('Queued');
    expect((await scene.connect(spaceId, { url: `${scene.host.url}/queued.git`, firstSync: 'import', webhookSecret: SECRET })).status).toBe(200);
    // The first run is the connection's own job.
    await waitFor(async () => (await findGitSyncConnection(scene.t.container.ctx.db, spaceId))?.status === 'synced', { what: 'the first run, queued on BullMQ', timeoutMs: 30_000 });
    expect(await scene.spaceLog(spaceId)).toEqual(await scene.hostLog('queued'));

    const writer = await Checkout.clone(spaceRemote(scene.api, scene.admin(), spaceId), scene.env);
    await writer.write('intro.md', '# intro\n\nPushed to Quire, carried by a BullMQ job.\n');
    const ours = await writer.commitAndPush('Pushed to Quire');
    await waitFor(async () => (await scene.hostLog('queued'))[0] === ours, { what: 'the push\'s job to reach the host', timeoutMs: 30_000 });

    await user.git('pull', '--quiet', '--ff-only', 'origin', 'main');
    await user.write('intro.md', '# intro\n\nPushed to the host, announced by a webhook.\n');
    const hooked = await user.commitAndPush('Announced');
    const body = JSON.stringify({ ref: 'refs/heads/main', after: hooked });
    const delivered = await scene.t.request('POST', `/v1/git-sync/webhooks/${spaceId}`, {
      headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-hub-signature-256': `sha256=${hmac(SECRET, body)}` },
      rawBody: body,
      unchecked: true,
    });
    expect(delivered.status).toBe(202);
    await waitFor(async () => (await scene.spaceLog(spaceId))[0] === hooked, { what: 'the webhook\'s job to bring the commit in', timeoutMs: 30_000 });

    await user.write('intro.md', '# intro\n\nPushed to the host, found by the poll.\n');
    const polled = await user.commitAndPush('Polled');
    await scene.t.container.ctx.jobs.enqueue({ name: 'poll-git-sync', payload: {} });
    await waitFor(async () => (await scene.spaceLog(spaceId))[0] === polled, { what: 'the poll\'s job, then the run it queued', timeoutMs: 30_000 });
    expect(await scene.spaceLog(spaceId)).toEqual(await scene.hostLog('queued'));
    await writer.dispose();
    await user.dispose();
  }, 120_000);
});
