/**
 * Git Sync performance lines, against a real git host on loopback (test/helpers/git-http-server.ts: `git http-backend`
 * behind node:http with HTTP Basic auth) and the app in this process (bench/lib.ts startBenchServer, in-process jobs):
 *
 * 1. `CASE=propagation`: a space imported from a host repository of PAGES pages (default 200), connected with a token
 *    and a webhook secret. ROUNDS (default 7) rounds each of:
 *    (a) a one-page commit pushed to Quire over git-HTTP, timed from the start of the push until the host's
 *        refs/heads/main is that commit (`git rev-parse` every 20 ms); baseline: the same user's plain `git push` of a
 *        one-page commit to another repository of the host of the same size (alternating order). Target < 2 s.
 *    (b) a commit pushed to the host, then a GitHub-signed push webhook delivered to POST /v1/git-sync/webhooks/{id},
 *        timed from the start of the push until the space's main is that commit (ctx.reader.resolveRef every 20 ms);
 *        baseline: that push to the host alone. Target < 2 s.
 *    (c) the same without a webhook, with the poll scheduled as `quire serve` schedules it: ctx.jobs.every of the
 *        `poll-git-sync` job every POLL_MS (default 2000; the in-process queue's setInterval). Target POLL_MS + 2 s.
 * 2. `CASE=poll`: SPACES (default 200) spaces, each imported from its own host repository of 3 pages (copies of one
 *    bare repository; the host answering each smart-protocol call with one git process, as Gitea does), connected through the API and brought in step by their first runs. Then POLL_ROUNDS (default 3:
 *    a cycle of 200 reads takes tens of seconds on a loaded 2-core machine, the host's git on the same cores) rounds of one
 *    `pollGitSync(ctx)` with nothing changed (0 runs must be queued), alternating with the baseline: a plain
 *    `git ls-remote --heads` of each of the same repositories, 8 at a time as the poll reads them (READS_AT_ONCE of
 *    src/domain/git-sync/poll.ts). The host's requests are counted per repository for both. Target: a cycle < 5 s and
 *    no fetch for an unchanged remote.
 * 3. `CASE=export`: a space holding a COMMITS-commit (default 4,000) history of HISTORY_PAGES (default 250) pages with
 *    merges (test/helpers/histories.ts, pushed over git-HTTP), connected with firstSync "export" to a new empty host
 *    repository and run (PUT .../git/sync, then POST .../git/sync/run), timed until the run answers (the host's branch
 *    is checked to be the tip); baseline: a plain `git push` of the same history from a local bare clone to another
 *    empty repository of the same host. EXPORT_ROUNDS (default 3) rounds, fresh empty repositories each, alternating.
 *    Target < 30 s.
 *
 * 4. `CASE=monorepo`: SPACES (default 200) spaces connected to ONE host repository, each with a project directory of
 *    its own (3 pages each), brought in step by their first runs (which share one fetch of the host through the local
 *    mirror). Then POLL_ROUNDS rounds of one `pollGitSync(ctx)` with nothing changed (0 runs queued, one ref read of
 *    the repository per cycle, no upload-pack), alternating with the baseline: one plain `git ls-remote --heads` of the
 *    repository. Then one page changed on the host: a cycle and the SPACES runs it queues, with the host's requests
 *    counted (one fetch for all). Target: a cycle < 5 s and no fetch for an unchanged remote.
 *
 * Run: `npx tsx bench/git-sync.ts` (all four); `CASE=propagation|poll|export|monorepo`, and PAGES, SPACES, COMMITS,
 * HISTORY_PAGES, ROUNDS, POLL_ROUNDS, EXPORT_ROUNDS, POLL_MS change the sizes. No build needed. The host runs in a process
 * of its own (scripts/git-http-host.ts); the app, its jobs and the poll run in this one.
 */
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import PQueue from 'p-queue';
import { baselineServer, machine, pageBody, pageFile, startBenchServer, type BenchServer } from './lib.js';
import { median } from './stats.js';
import { Checkout, isolatedGitEnv, spaceRemote } from '../test/helpers/git.js';
import { fastImport, longHistoryStream } from '../test/helpers/histories.js';
import { pollGitSync } from '../src/domain/git-sync/poll.js';
import { basicAuthorization } from '../src/store/git/remote-branch.js';
import { MAIN_REF } from '../src/domain/content/refs.js';

const exec = promisify(execFile);
const CASE = process.env.CASE ?? 'all';
const PAGES = Number(process.env.PAGES ?? 200);
const SPACES = Number(process.env.SPACES ?? 200);
const COMMITS = Number(process.env.COMMITS ?? 4000);
const HISTORY_PAGES = Number(process.env.HISTORY_PAGES ?? 250);
const ROUNDS = Number(process.env.ROUNDS ?? 7);
const EXPORT_ROUNDS = Number(process.env.EXPORT_ROUNDS ?? 3);
const POLL_ROUNDS = Number(process.env.POLL_ROUNDS ?? 3);
const POLL_MS = Number(process.env.POLL_MS ?? 2000);
/** The poll's reads at once (src/domain/git-sync/poll.ts READS_AT_ONCE), for the ls-remote baseline. */
const READS_AT_ONCE = 8;

const HOST_USER = 'docs-bot';
const HOST_TOKEN = 'glpat-git-sync-bench-0123456789';
const WEBHOOK_SECRET = 'whsec-quire-bench-5e2d';
/** What a plain git client of the host sends: the same header Quire sends (no 401 round trip for either). */
const HOST_HEADER = `http.extraHeader=Authorization: ${basicAuthorization(HOST_USER, HOST_TOKEN)}`;

const env = await isolatedGitEnv();
const git = async (args: string[], cwd?: string) => (await exec('git', args, { cwd, env, maxBuffer: 256 * 1024 * 1024 })).stdout;
const hostGit = (args: string[], cwd?: string) => git(['-c', HOST_HEADER, ...args], cwd);
const ms = (value: number) => `${value.toFixed(0)} ms`;
const sleep = (time: number) => new Promise((resolve) => setTimeout(resolve, time));

/** Resolves when `check` is true, asked every 20 ms; the time it became so (performance.now()). */
async function until(check: () => Promise<boolean>, what: string, timeoutMs = 120_000): Promise<number> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await check()) return performance.now();
    if (performance.now() > deadline) throw new Error(`bench: timed out waiting for ${what}`);
    await sleep(20);
  }
}

interface Host {
  root: string;
  /** `http://127.0.0.1:PORT` */
  base: string;
  url(name: string): string;
  head(name: string): Promise<string | undefined>;
  /** The requests the host has seen so far ("GET /name.git/info/refs"...), in order. */
  requests(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * The git host: scripts/git-http-host.ts (test/helpers/git-http-server.ts with HTTP Basic auth) in a process of its own,
 * as a real host is: in this process each `git http-backend` it starts would be forked from the app's heap. `direct`:
 * the host answers the smart protocol with one git process per request, as Gitea does (the poll of hundreds of
 * repositories, where http-backend's two processes per read on the same cores would be most of what is measured).
 */
async function startHost(options: { direct?: boolean } = {}): Promise<Host> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-bench-sync-host-'));
  const log = path.join(root, 'requests.log');
  await fs.writeFile(log, '');
  const server = await baselineServer('scripts/git-http-host.ts', { args: [...(options.direct ? ['--direct'] : []), root, `${HOST_USER}:${HOST_TOKEN}`, log] });
  return {
    root,
    base: server.url,
    url: (name) => `${server.url}/${name}.git`,
    head: (name) => git(['--git-dir', path.join(root, `${name}.git`), 'rev-parse', '--verify', '--quiet', 'refs/heads/main']).then((out) => out.trim(), () => undefined),
    requests: async () => (await fs.readFile(log, 'utf8')).split('\n').filter(Boolean),
    close: async () => {
      await server.close();
      await fs.rm(root, { recursive: true, force: true });
    },
  };
}

async function api(server: BenchServer, method: string, url: string, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${server.url}${url}`, {
    method,
    headers: { authorization: `Bearer ${server.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}: ${text}`);
  return text ? JSON.parse(text) : {};
}

const newSpace = async (server: BenchServer, title: string): Promise<string> => String((await api(server, 'POST', `/v1/orgs/${server.organizationId}/spaces`, { title })).id);

const connect = (server: BenchServer, spaceId: string, url: string, firstSync: 'import' | 'export', webhookSecret?: string) =>
  api(server, 'PUT', `/v1/spaces/${spaceId}/git/sync`, { url, firstSync, auth: { username: HOST_USER, token: HOST_TOKEN }, ...(webhookSecret ? { webhookSecret } : {}) });

/** A bare repository `name` on the host with `files` in one commit (pushed straight into it); its commit. */
async function hostRepository(host: Host, name: string, files: Record<string, string>): Promise<string> {
  const dir = path.join(host.root, `${name}.git`);
  await git(['init', '--bare', '--quiet', '--initial-branch=main', dir]);
  const user = await Checkout.clone(dir, env);
  for (const [file, content] of Object.entries(files)) await user.write(file, content);
  const commit = await user.commit(`${Object.keys(files).length} files`);
  await user.git('push', '--quiet', 'origin', 'HEAD:refs/heads/main');
  await user.dispose();
  return commit;
}

/** A host user's clone of `name`, talking to the host over HTTP as a plain git client. */
async function hostClone(host: Host, name: string): Promise<Checkout> {
  const user = await Checkout.clone(path.join(host.root, `${name}.git`), env);
  await user.git('remote', 'set-url', 'origin', host.url(name));
  await user.git('config', 'http.extraHeader', `Authorization: ${basicAuthorization(HOST_USER, HOST_TOKEN)}`);
  return user;
}

function pagesFiles(pages: number): Record<string, string> {
  const files: Record<string, string> = { 'README.md': '# Handbook\n' };
  const summary = ['# Table of contents', '', '* [Home](README.md)'];
  for (let i = 0; i < pages; i++) {
    files[pageFile(i)] = pageBody(i);
    summary.push(`* [Page ${i}](${pageFile(i)})`);
  }
  files['SUMMARY.md'] = `${summary.join('\n')}\n`;
  return files;
}

const stamp = () => `${process.pid}-${performance.now().toFixed(3)}`;

/** Edits one page of `user`'s clone and commits; the commit. */
async function edit(user: Checkout, round: number, who: string): Promise<string> {
  await user.write(pageFile(round % PAGES), `# Page ${round % PAGES}\n\nEdited by ${who} in round ${round} (${stamp()}).\n`);
  return user.commit(`${who}: round ${round}`);
}

async function timedPush(user: Checkout, remote = 'origin'): Promise<number> {
  const started = performance.now();
  await user.git('push', '--quiet', remote, 'HEAD:refs/heads/main');
  return performance.now() - started;
}

const line = (label: string, value: number, baseline: number, baselineLabel: string, target: string) =>
  console.log(`  ${label}: p50 ${ms(value)}; baseline (${baselineLabel}) p50 ${ms(baseline)}; ratio ${(value / baseline).toFixed(2)}; target ${target}`);

async function propagation(): Promise<void> {
  const server = await startBenchServer({ fetchAllow: ['127.0.0.1'], gitSyncPollMs: POLL_MS });
  const host = await startHost();
  const users: Checkout[] = [];
  try {
    const ctx = server.container.ctx;
    const files = pagesFiles(PAGES);
    await hostRepository(host, 'docs', files);
    await hostRepository(host, 'plain', files);
    const spaceId = await newSpace(server, 'Synced');
    await connect(server, spaceId, host.url('docs'), 'import', WEBHOOK_SECRET);
    const first = await api(server, 'POST', `/v1/spaces/${spaceId}/git/sync/run`);
    if (first.status !== 'synced') throw new Error(`first run: ${JSON.stringify(first)}`);
    await ctx.jobs.idle();
    const spaceMain = () => ctx.reader.resolveRef(spaceId, MAIN_REF);
    if ((await spaceMain()) !== (await host.head('docs'))) throw new Error('bench: the space is not in step with the host after the first run');

    const writer = await Checkout.clone(spaceRemote(server.url, server.token, spaceId), env);
    const hostUser = await hostClone(host, 'docs');
    const plainUser = await hostClone(host, 'plain');
    users.push(writer, hostUser, plainUser);
    const pull = (user: Checkout) => user.git('pull', '--quiet', '--ff-only', 'origin', 'main');

    const rows = { toHost: [] as number[], toHostAfter: [] as number[], quirePush: [] as number[], plainPush: [] as number[], webhook: [] as number[], webhookAfter: [] as number[], webhookPush: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      // (a) to the host, alternating with the plain push.
      const toHost = async () => {
        await pull(writer);
        const commit = await edit(writer, round, 'writer');
        const started = performance.now();
        await writer.git('push', '--quiet', 'origin', 'HEAD:refs/heads/main');
        const returned = performance.now();
        const there = await until(async () => (await host.head('docs')) === commit, `commit ${commit} on the host`);
        rows.toHost.push(there - started);
        rows.toHostAfter.push(there - returned);
        rows.quirePush.push(returned - started);
        await ctx.jobs.idle();
      };
      const plain = async () => {
        await edit(plainUser, round, 'plain');
        rows.plainPush.push(await timedPush(plainUser));
      };
      if (round % 2 === 0) {
        await toHost();
        await plain();
      } else {
        await plain();
        await toHost();
      }
      // (b) from the host, announced by a webhook.
      await pull(hostUser);
      const commit = await edit(hostUser, round, 'host user');
      const started = performance.now();
      await hostUser.git('push', '--quiet', 'origin', 'HEAD:refs/heads/main');
      const returned = performance.now();
      const body = JSON.stringify({ ref: 'refs/heads/main', before: '0'.repeat(40), after: commit, repository: { full_name: 'bench/docs' } });
      const signature = crypto.createHmac('sha256', WEBHOOK_SECRET).update(body).digest('hex');
      const delivered = await fetch(`${server.url}/v1/git-sync/webhooks/${spaceId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-github-delivery': crypto.randomUUID(), 'x-hub-signature-256': `sha256=${signature}` },
        body,
      });
      if (delivered.status !== 202) throw new Error(`webhook answered ${delivered.status}: ${await delivered.text()}`);
      const there = await until(async () => (await spaceMain()) === commit, `commit ${commit} in the space`);
      rows.webhook.push(there - started);
      rows.webhookAfter.push(there - returned);
      rows.webhookPush.push(returned - started);
      await ctx.jobs.idle();
    }

    // (c) from the host, found by the poll: scheduled as `quire serve` schedules it (src/cli/serve.ts), in this process.
    await ctx.jobs.every({ name: 'poll-git-sync', payload: {} }, POLL_MS);
    const polled: number[] = [];
    const polledPush: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await pull(hostUser);
      const commit = await edit(hostUser, ROUNDS + round, 'host user');
      // Pushes land at different points of the poll's period.
      await sleep(Math.floor(Math.random() * POLL_MS));
      const started = performance.now();
      await hostUser.git('push', '--quiet', 'origin', 'HEAD:refs/heads/main');
      polledPush.push(performance.now() - started);
      const there = await until(async () => (await spaceMain()) === commit, `commit ${commit} in the space by the poll`);
      polled.push(there - started);
    }
    await ctx.jobs.idle();
    const inStep = (await spaceMain()) === (await host.head('docs'));

    console.log(`propagation: one space of ${PAGES} pages, ${ROUNDS} rounds, p50 (medians); ${machine()}`);
    line('(a) push to Quire -> on the host (from the push\'s start)', median(rows.toHost), median(rows.plainPush), 'plain git push of a one-page commit to a host repository of the same size, alternating', '< 2000 ms');
    console.log(`      of which the push to Quire p50 ${ms(median(rows.quirePush))}, then on the host p50 ${ms(median(rows.toHostAfter))} later (rounds: ${rows.toHost.map(ms).join(', ')})`);
    line('(b) push to the host + GitHub webhook -> in Quire (from the push\'s start)', median(rows.webhook), median(rows.webhookPush), 'that push to the host alone', '< 2000 ms');
    console.log(`      in Quire p50 ${ms(median(rows.webhookAfter))} after the push returned (rounds: ${rows.webhook.map(ms).join(', ')})`);
    line(`(c) push to the host, poll every ${POLL_MS} ms (ctx.jobs.every, in process) -> in Quire`, median(polled), median(polledPush), 'that push to the host alone', `< ${POLL_MS + 2000} ms (POLL_MS + 2 s)`);
    console.log(`      rounds: ${polled.map(ms).join(', ')}; target met: ${median(polled) < POLL_MS + 2000}; space and host in step at the end: ${inStep}`);
  } finally {
    for (const user of users) await user.dispose();
    await server.close();
    await host.close();
  }
}

async function pollAtScale(): Promise<void> {
  const server = await startBenchServer({ fetchAllow: ['127.0.0.1'], gitSyncPollMs: 60_000 });
  const host = await startHost({ direct: true });
  try {
    const ctx = server.container.ctx;
    const setupStarted = performance.now();
    const files: Record<string, string> = { 'README.md': '# Handbook\n', 'intro.md': pageBody(1, 800), 'guide.md': pageBody(2, 800) };
    files['SUMMARY.md'] = '# Summary\n\n* [Handbook](README.md)\n* [Intro](intro.md)\n* [Guide](guide.md)\n';
    await hostRepository(host, 'repo-0', files);
    const names = Array.from({ length: SPACES }, (_, i) => `repo-${i}`);
    // Copies of one bare repository: 200 repositories of the same 3 pages in well under a second.
    for (const name of names.slice(1)) await fs.cp(path.join(host.root, 'repo-0.git'), path.join(host.root, `${name}.git`), { recursive: true });
    const spaces: string[] = [];
    for (const name of names) {
      const spaceId = await newSpace(server, name);
      await connect(server, spaceId, host.url(name), 'import');
      spaces.push(spaceId);
    }
    // Each connection's first run was queued when it connected; they run on the in-process queue.
    await ctx.jobs.idle();
    const states = await Promise.all(spaces.map((spaceId) => api(server, 'GET', `/v1/spaces/${spaceId}/git/sync`)));
    const notSynced = states.filter((state) => state.status !== 'synced');
    if (notSynced.length > 0) throw new Error(`bench: ${notSynced.length} connections not synced after their first runs: ${JSON.stringify(notSynced[0])}`);
    const setupMs = performance.now() - setupStarted;

    type Shape = Awaited<ReturnType<typeof shapes>>;
    /** The host's requests since `from`, per repository: "GET info/refs, POST git-upload-pack"-like shapes and their counts. */
    const shapes = async (from: number) => {
      const requests = await host.requests();
      const byRepo = new Map<string, string[]>();
      for (const request of requests.slice(from)) {
        const [method, pathname] = request.split(' ');
        const repo = pathname.split('/')[1];
        const what = `${method} ${pathname.split('/').slice(2).join('/')}`;
        byRepo.set(repo, [...(byRepo.get(repo) ?? []), what]);
      }
      const counts = new Map<string, number>();
      for (const list of byRepo.values()) counts.set(list.join(' + '), (counts.get(list.join(' + ')) ?? 0) + 1);
      return { repositories: byRepo.size, requests: requests.length - from, counts };
    };
    const show = (shape: Shape) => `${shape.requests} requests to ${shape.repositories} repositories: ${[...shape.counts].map(([what, n]) => `${n} x [${what}]`).join('; ')}`;

    const cycles: number[] = [];
    /** This process's CPU time during each cycle: Quire's own share (the host answers in a process of its own). */
    const cycleCpu: number[] = [];
    const baseline: number[] = [];
    const queued: number[] = [];
    let cycleShape: Shape | undefined;
    let baselineShape: Shape | undefined;
    const lsRemote = async () => {
      const reads = new PQueue({ concurrency: READS_AT_ONCE });
      const started = performance.now();
      await Promise.all(names.map((name) => reads.add(() => hostGit(['ls-remote', '--heads', '--', host.url(name)]))));
      return performance.now() - started;
    };
    for (let round = 0; round < POLL_ROUNDS; round++) {
      const cycle = async () => {
        const from = (await host.requests()).length;
        const started = performance.now();
        const cpu = process.cpuUsage();
        const result = await pollGitSync(ctx);
        cycles.push(performance.now() - started);
        const used = process.cpuUsage(cpu);
        cycleCpu.push((used.user + used.system) / 1000);
        queued.push(result.queued.length);
        if (result.connections !== SPACES || result.repositories !== SPACES) throw new Error(`bench: the cycle saw ${result.connections} connections, ${result.repositories} repositories`);
        cycleShape = await shapes(from);
      };
      const plain = async () => {
        const from = (await host.requests()).length;
        baseline.push(await lsRemote());
        baselineShape = await shapes(from);
      };
      if (round % 2 === 0) {
        await cycle();
        await plain();
      } else {
        await plain();
        await cycle();
      }
      await ctx.jobs.idle();
    }
    // What a fetch adds, for comparison: one space's run after its host repository moved.
    const moved = await hostClone(host, 'repo-0');
    await moved.write('intro.md', '# Intro\n\nMoved on the host.\n');
    await moved.commit('moved');
    await moved.git('push', '--quiet', 'origin', 'HEAD:refs/heads/main');
    await moved.dispose();
    const from = (await host.requests()).length;
    const movedCycle = await pollGitSync(ctx);
    await ctx.jobs.idle();
    const movedShape = await shapes(from);

    console.log(`poll cycle: ${SPACES} spaces, each connected to its own host repository of 3 pages, nothing changed; ${POLL_ROUNDS} rounds alternating, p50; ${machine()}`);
    console.log(`  setup (repositories, spaces, connections, first runs): ${ms(setupMs)}`);
    line(`pollGitSync(ctx), ${SPACES} connections`, median(cycles), median(baseline), `${SPACES} plain \`git ls-remote --heads\`, ${READS_AT_ONCE} at a time as the poll reads`, '< 5000 ms');
    console.log(`      rounds: ${cycles.map(ms).join(', ')}; baseline rounds: ${baseline.map(ms).join(', ')}`);
    console.log(`      Quire's own CPU time per cycle (this process; the host is another): ${cycleCpu.map(ms).join(', ')}, p50 ${ms(median(cycleCpu))}`);
    console.log(`      runs queued per cycle: ${queued.join(', ')} (must be 0)`);
    console.log(`      host requests of a cycle: ${cycleShape && show(cycleShape)}`);
    console.log(`      host requests of the ls-remote baseline: ${baselineShape && show(baselineShape)}`);
    console.log(`      for comparison, a cycle after repo-0 moved (queued ${movedCycle.queued.length} run) and its run: ${show(movedShape)}`);
  } finally {
    await server.close();
    await host.close();
  }
}

async function monorepoPoll(): Promise<void> {
  const server = await startBenchServer({ fetchAllow: ['127.0.0.1'], gitSyncPollMs: 60_000 });
  const host = await startHost();
  try {
    const ctx = server.container.ctx;
    const setupStarted = performance.now();
    const projects = Array.from({ length: SPACES }, (_, i) => `project-${i}`);
    const files: Record<string, string> = {};
    for (const project of projects) {
      files[`${project}/README.md`] = `# ${project}\n`;
      files[`${project}/intro.md`] = pageBody(1, 800);
      files[`${project}/guide.md`] = pageBody(2, 800);
      files[`${project}/SUMMARY.md`] = '# Summary\n\n* [Handbook](README.md)\n* [Intro](intro.md)\n* [Guide](guide.md)\n';
    }
    await hostRepository(host, 'mono', files);
    const spaces: string[] = [];
    for (const project of projects) {
      const spaceId = await newSpace(server, project);
      await api(server, 'PUT', `/v1/spaces/${spaceId}/git/sync`, { url: host.url('mono'), firstSync: 'import', projectDirectory: `${project}/`, auth: { username: HOST_USER, token: HOST_TOKEN } });
      spaces.push(spaceId);
    }
    await ctx.jobs.idle();
    const states = await Promise.all(spaces.map((spaceId) => api(server, 'GET', `/v1/spaces/${spaceId}/git/sync`)));
    const notSynced = states.filter((state) => state.status !== 'synced');
    if (notSynced.length > 0) throw new Error(`bench: ${notSynced.length} connections not synced after their first runs: ${JSON.stringify(notSynced[0])}`);
    const setupMs = performance.now() - setupStarted;
    const setupRequests = await host.requests();

    /** The host's requests since `from`, counted by kind. */
    const counted = async (from: number) => {
      const counts = new Map<string, number>();
      for (const request of (await host.requests()).slice(from)) counts.set(request, (counts.get(request) ?? 0) + 1);
      return [...counts].map(([what, n]) => `${n} x ${what}`).join(', ') || 'none';
    };
    const cycles: number[] = [];
    /** This process's CPU time during each cycle: Quire's own share (the host answers in a process of its own). */
    const cycleCpu: number[] = [];
    const baseline: number[] = [];
    const queued: number[] = [];
    let cycleRequests = '';
    for (let round = 0; round < POLL_ROUNDS; round++) {
      const cycle = async () => {
        const from = (await host.requests()).length;
        const started = performance.now();
        const cpu = process.cpuUsage();
        const result = await pollGitSync(ctx);
        cycles.push(performance.now() - started);
        const used = process.cpuUsage(cpu);
        cycleCpu.push((used.user + used.system) / 1000);
        queued.push(result.queued.length);
        if (result.connections !== SPACES || result.repositories !== 1) throw new Error(`bench: the cycle saw ${result.connections} connections, ${result.repositories} repositories`);
        cycleRequests = await counted(from);
      };
      const plain = async () => {
        const started = performance.now();
        await hostGit(['ls-remote', '--heads', '--', host.url('mono')]);
        baseline.push(performance.now() - started);
      };
      if (round % 2 === 0) {
        await cycle();
        await plain();
      } else {
        await plain();
        await cycle();
      }
      await ctx.jobs.idle();
    }
    const moved = await hostClone(host, 'mono');
    await moved.write('project-0/intro.md', '# Intro\n\nMoved on the host.\n');
    await moved.commit('moved');
    await moved.git('push', '--quiet', 'origin', 'HEAD:refs/heads/main');
    const movedHead = (await moved.git('rev-parse', 'HEAD')).trim();
    await moved.dispose();
    const from = (await host.requests()).length;
    const movedStarted = performance.now();
    const movedCycle = await pollGitSync(ctx);
    await ctx.jobs.idle();
    const movedMs = performance.now() - movedStarted;
    const behind = (await Promise.all(spaces.map((spaceId) => ctx.reader.resolveRef(spaceId, MAIN_REF)))).filter((head) => head !== movedHead);
    if (behind.length > 0) throw new Error(`bench: ${behind.length} spaces did not take the host's commit`);

    console.log(`monorepo poll cycle: ${SPACES} spaces connected to one host repository, a project directory each, nothing changed; ${POLL_ROUNDS} rounds alternating, p50; ${machine()}`);
    console.log(`  setup (repository, spaces, connections, first runs): ${ms(setupMs)}; host requests: ${setupRequests.filter((r) => r.startsWith('POST')).length} POST git-upload-pack of ${setupRequests.length}`);
    line(`pollGitSync(ctx), ${SPACES} connections to one repository`, median(cycles), median(baseline), 'one plain `git ls-remote --heads` of the repository', '< 5000 ms');
    console.log(`      rounds: ${cycles.map(ms).join(', ')}; baseline rounds: ${baseline.map(ms).join(', ')}`);
    console.log(`      Quire's own CPU time per cycle (this process; the host is another): ${cycleCpu.map(ms).join(', ')}, p50 ${ms(median(cycleCpu))}`);
    console.log(`      runs queued per cycle: ${queued.join(', ')} (must be 0)`);
    console.log(`      host requests of a cycle: ${cycleRequests}`);
    console.log(`      the host moved: a cycle queued ${movedCycle.queued.length} runs; cycle and runs ${ms(movedMs)}; host requests: ${await counted(from)}`);
  } finally {
    await server.close();
    await host.close();
  }
}

async function firstExport(): Promise<void> {
  const server = await startBenchServer({ fetchAllow: ['127.0.0.1'], gitSyncPollMs: 60_000 });
  const host = await startHost();
  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-bench-sync-history-'));
  try {
    const ctx = server.container.ctx;
    const source = path.join(work, 'source.git');
    await git(['init', '--quiet', '--bare', source]);
    await fastImport(source, longHistoryStream({ commits: COMMITS, pages: HISTORY_PAGES, mergeEvery: 10 }));
    await git(['--git-dir', source, 'update-ref', '-d', 'refs/heads/fixture-side-branch']).catch(() => undefined);
    const tip = (await git(['--git-dir', source, 'rev-parse', 'refs/heads/main'])).trim();
    const count = (await git(['--git-dir', source, 'rev-list', '--count', tip])).trim();
    const spaceId = await newSpace(server, 'Long history');
    await git(['--git-dir', source, 'push', '--quiet', '--force', spaceRemote(server.url, server.token, spaceId), `${tip}:refs/heads/main`]);
    await ctx.jobs.idle();

    const quire: number[] = [];
    const baseline: number[] = [];
    for (let round = 0; round < EXPORT_ROUNDS; round++) {
      const viaQuire = async () => {
        const name = `export-${round}`;
        await git(['init', '--bare', '--quiet', '--initial-branch=main', path.join(host.root, `${name}.git`)]);
        const started = performance.now();
        await connect(server, spaceId, host.url(name), 'export');
        const state = await api(server, 'POST', `/v1/spaces/${spaceId}/git/sync/run`);
        quire.push(performance.now() - started);
        if (state.status !== 'synced' || (await host.head(name)) !== tip) throw new Error(`bench: the export did not land: ${JSON.stringify(state)}`);
        await ctx.jobs.idle();
      };
      const plain = async () => {
        const name = `plain-${round}`;
        await git(['init', '--bare', '--quiet', '--initial-branch=main', path.join(host.root, `${name}.git`)]);
        const started = performance.now();
        await hostGit(['--git-dir', source, 'push', '--quiet', host.url(name), `${tip}:refs/heads/main`]);
        baseline.push(performance.now() - started);
        if ((await host.head(name)) !== tip) throw new Error('bench: the plain push did not land');
      };
      if (round % 2 === 0) {
        await viaQuire();
        await plain();
      } else {
        await plain();
        await viaQuire();
      }
    }
    console.log(`first export: ${count} commits, ${HISTORY_PAGES} pages, to an empty host repository; ${EXPORT_ROUNDS} rounds alternating, p50; ${machine()}`);
    line('connect (firstSync export) + POST .../git/sync/run', median(quire), median(baseline), 'plain git push of the same history from a local bare clone to an empty repository of the same host', '< 30000 ms');
    console.log(`      rounds: ${quire.map(ms).join(', ')}; baseline rounds: ${baseline.map(ms).join(', ')}`);
  } finally {
    await server.close();
    await host.close();
    await fs.rm(work, { recursive: true, force: true });
  }
}

console.log(`load average at start: ${(await fs.readFile('/proc/loadavg', 'utf8')).trim()}`);
if (CASE === 'all' || CASE === 'propagation') await propagation();
if (CASE === 'all' || CASE === 'poll') await pollAtScale();
if (CASE === 'all' || CASE === 'export') await firstExport();
if (CASE === 'all' || CASE === 'monorepo') await monorepoPoll();
console.log(`load average at end: ${(await fs.readFile('/proc/loadavg', 'utf8')).trim()}`);
await fs.rm(env.HOME!, { recursive: true, force: true });
