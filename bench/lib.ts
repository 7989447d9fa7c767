/**
 * Shared pieces of the benchmarks: a real app on a temp data dir, a space filled with N pages through a real git
 * checkout, and autocannon run as a separate process (so the load generator does not share the server's event loop).
 */
import { execFile, spawn } from 'node:child_process';
import net from 'node:net';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../config/index.js';
import { createContainer, type Container } from '../src/container.js';
import { buildApp } from '../src/http/app.js';
import { createApiToken, createUser } from '../src/domain/identity/users.js';
import { createOrganization } from '../src/domain/organizations/organizations.js';
import { createSpace } from '../src/domain/content/spaces.js';
import { recordMainMoved } from '../src/domain/content/main-moved.js';
import { Checkout } from '../test/helpers/git.js';
import { waitFor } from '../test/helpers/wait.js';

const exec = promisify(execFile);

export interface BenchServer {
  container: Container;
  app: FastifyInstance;
  url: string;
  token: string;
  organizationId: string;
  close(): Promise<void>;
}

/** The app on a temp data dir; `overrides` change its settings (e.g. `fetchAllow` for a site served locally). */
export async function startBenchServer(overrides: Partial<Config> = {}): Promise<BenchServer> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-bench-'));
  const container = await createContainer(loadConfig({}, { dataDir, logLevel: 'silent', publicUrl: 'http://bench.local', ...overrides }));
  const app = await buildApp(container, { logger: false });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  const user = await createUser(container.ctx, { email: 'bench@example.com', name: 'Bench' });
  const organization = await createOrganization(container.ctx, user.id, { title: 'Bench' });
  const token = await createApiToken(container.ctx, user.id);
  return {
    container,
    app,
    url: address,
    token,
    organizationId: organization.id,
    close: async () => {
      await app.close();
      await container.close();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A page body of about `bytes` bytes of ordinary markdown. */
export function pageBody(i: number, bytes = 1500): string {
  const paragraph = `Paragraph about topic ${i}: install, configure and run the service; see the reference for options. `;
  let body = `# Page ${i}\n\n`;
  while (body.length < bytes) body += `${paragraph}\n\n`;
  return body;
}

/** The file of page `i` of spaceWithPages: `section-<i / 50>/page-<i>.md`. */
export function pageFile(i: number): string {
  return `section-${Math.floor(i / 50)}/page-${i}.md`;
}

export interface SpaceOptions {
  /** The body of page `i` (default pageBody). */
  body?: (i: number) => string;
  /** More files of the first commit (assets...). */
  files?: Record<string, string | Buffer>;
  title?: string;
}

/**
 * Has the bench server take in what spaceWithPages pushed straight into the repository (as a restarted server's
 * catch-up would) and waits until its indexing is done, so that `quire serve` processes started on the same data
 * find the space indexed. Without it, each such process indexes the space itself on its CPU thread while it is
 * measured.
 */
export async function indexSpace(server: BenchServer, spaceId: string): Promise<void> {
  await recordMainMoved(server.container.ctx, spaceId);
  await server.container.ctx.jobs.idle();
}

/**
 * Until the indexes of `spaceId` (search and links) hold `commit`, whichever process made them (a `quire serve` on the
 * bench server's data dir indexes what is pushed to it in the background): a measurement that starts before waits
 * for a core behind that indexing.
 */
export async function indexesHold(server: BenchServer, spaceId: string, commit: string): Promise<void> {
  const { db } = server.container.ctx;
  await waitFor(
    async () => {
      const search = await db.selectFrom('search_spaces').select('commit_oid').where('space_id', '=', spaceId).executeTakeFirst();
      const links = await db.selectFrom('link_index').select('slot').where('space_id', '=', spaceId).where('commit_oid', '=', commit).executeTakeFirst();
      return search?.commit_oid === commit && links !== undefined;
    },
    { what: `the indexes of space ${spaceId} to hold ${commit}`, timeoutMs: 600_000, intervalMs: 100 },
  );
}

/** A space whose main branch holds `pages` pages in folders of 50, listed in SUMMARY.md. */
export async function spaceWithPages(server: BenchServer, pages: number, options: SpaceOptions = {}): Promise<{ spaceId: string; checkout: Checkout }> {
  const user = (await server.container.ctx.db.selectFrom('users').selectAll().executeTakeFirstOrThrow());
  const space = await createSpace(server.container.ctx, { user }, server.organizationId, { title: options.title ?? `Bench ${pages}` });
  const checkout = await Checkout.clone(server.container.git.repositoryPath(space.space.id));
  const summary = ['# Table of contents', '', '* [Home](README.md)'];
  const body = options.body ?? pageBody;
  for (let i = 0; i < pages; i++) {
    const file = pageFile(i);
    await checkout.write(file, body(i));
    summary.push(`* [Page ${i}](${file})`);
  }
  for (const [file, content] of Object.entries(options.files ?? {})) await checkout.write(file, content);
  await checkout.write('SUMMARY.md', `${summary.join('\n')}\n`);
  await checkout.commitAndPush(`${pages} pages`);
  return { spaceId: space.space.id, checkout };
}

export interface LoadResult {
  requests: number;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  bytesPerRequest: number;
  errors: number;
  non2xx: number;
}

/** Runs autocannon in its own process against one URL. */
export async function load(url: string, options: { connections?: number; seconds?: number; token?: string; headers?: Record<string, string> } = {}): Promise<LoadResult> {
  const bin = path.resolve('node_modules/.bin/autocannon');
  const args = ['-j', '-c', String(options.connections ?? 20), '-d', String(options.seconds ?? 8)];
  if (options.token) args.push('-H', `authorization=Bearer ${options.token}`);
  for (const [name, value] of Object.entries(options.headers ?? {})) args.push('-H', `${name}=${value}`);
  const { stdout } = await exec(bin, [...args, url], { maxBuffer: 16 * 1024 * 1024 });
  const r = JSON.parse(stdout);
  return {
    requestsPerSecond: r.requests.average,
    requests: r.requests.total,
    p50: r.latency.p50,
    p99: r.latency.p99,
    bytesPerRequest: r.requests.total ? r.throughput.total / r.requests.total : 0,
    errors: r.errors,
    non2xx: r.non2xx,
  };
}

/**
 * The CPU time a process has used so far (user and system, /proc/<pid>/stat), in milliseconds: a server's CPU per
 * request is much steadier on these shared machines than its requests per second.
 */
export async function cpuMs(pid: number): Promise<number> {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'utf8');
  // The fields after the command (in parentheses, which may hold spaces): utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** USER_HZ of Linux's /proc figures (100 on every common build). */
const CLOCK_TICKS = 100;

export function machine(): string {
  return `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`;
}

/**
 * A baseline server of bench/ (`script`) in its own process, which prints its URL on its first line of stdout. Its
 * arguments: the paths of `files` (written to a temp dir, removed when it closes), then `args`.
 */
export async function baselineServer(
  script: string,
  options: { files?: Record<string, string | Buffer>; args?: string[] } = {},
): Promise<{ url: string; pid: number; close(): Promise<void> }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-baseline-'));
  const paths: string[] = [];
  for (const [name, content] of Object.entries(options.files ?? {})) {
    paths.push(path.join(dir, name));
    await fs.writeFile(path.join(dir, name), content);
  }
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...paths, ...(options.args ?? [])], { stdio: ['ignore', 'pipe', 'inherit'] });
  const first = await createInterface({ input: child.stdout })[Symbol.asyncIterator]().next();
  if (first.done) throw new Error(`${script} did not start`);
  return {
    url: String(first.value),
    pid: child.pid!,
    close: async () => {
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

/** bench/bare-fastify.ts answering `body` at `${url}/page`, in its own process: the baseline of the read figures. */
export const bareFastify = (body: string | Buffer) => baselineServer('bench/bare-fastify.ts', { files: { body } });

/**
 * bench/bare-answers.ts answering `answers` (JSON texts) at `${url}/answers/<index>`, serialized and compressed per
 * request as Quire does, in its own process: the baseline of the search figures.
 */
export const bareAnswers = (answers: readonly string[]) => baselineServer('bench/bare-answers.ts', { files: { answers: `${answers.join('\n')}\n` } });

/**
 * The push baseline: a clone of a space through Quire whose second remote, `bare`, is a copy of the space's repository
 * behind `git http-backend` on node:http (no checks), so that both receive the same commits. `close` stops the bare
 * server and removes the copy and the clone.
 */
export async function checkoutWithBareRemote(server: BenchServer, spaceId: string): Promise<{ checkout: Checkout; close(): Promise<void> }> {
  const bareRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-bare-http-'));
  await exec('git', ['clone', '--quiet', '--bare', server.container.git.repositoryPath(spaceId), path.join(bareRoot, 'space.git')]);
  await exec('git', ['--git-dir', path.join(bareRoot, 'space.git'), 'config', 'http.receivepack', 'true']);
  const bare = await baselineServer('scripts/git-http-host.ts', { args: [bareRoot] });
  const checkout = await Checkout.clone(`${server.url.replace('://', `://bench:${server.token}@`)}/git/${spaceId}.git`);
  await checkout.git('remote', 'add', 'bare', `${bare.url}/space.git`);
  await checkout.git('fetch', '--quiet', 'bare');
  return {
    checkout,
    close: async () => {
      await bare.close();
      await checkout.dispose();
      await fs.rm(bareRoot, { recursive: true, force: true });
    },
  };
}

/** `quire serve` as a user runs it: the build (`dist/`, `npm run build` first) in its own process. */
export interface ServeProcess {
  url: string;
  pid: number;
  /** The process's resident set (VmRSS of /proc/<pid>/status), in bytes. */
  rss(): Promise<number>;
  /** The resident set of its git launcher (src/store/git/launcher.ts), 0 when it has none. */
  launcherRss(): Promise<number>;
  close(): Promise<void>;
}

/**
 * Starts the built `quire serve` on `dataDir` (a bench server's: the same database and repositories, which SQLite in
 * WAL mode lets two processes share) and waits until it answers. `build`: another build's dist directory (an
 * earlier commit's, for a figure before and after in one run); `nodeArgs` go to node before the program (for example
 * `--cpu-prof`, which NODE_OPTIONS does not take); `stdoutFile`: a file its stdout (its log) is written to, as a log
 * collector would take it. `SERVE_STDOUT=1` shows its stdout, and `SERVE_LOG_LEVEL` sets its log level (`warn`
 * otherwise; `info` writes an access line per request with its `responseTime`: the server's share of a figure
 * measured by the client).
 */
export async function startQuireServe(
  dataDir: string,
  env: Record<string, string> = {},
  options: { nodeArgs?: string[]; build?: string; stdoutFile?: string } = {},
): Promise<ServeProcess> {
  const main = path.resolve(options.build ?? 'dist', 'src/main.js');
  await fs.access(main).catch(() => {
    throw new Error('bench: dist/src/main.js is missing; run `npm run build` first');
  });
  const port = await new Promise<number>((resolve, reject) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(free));
    });
    probe.on('error', reject);
  });
  const stdoutFile = options.stdoutFile === undefined ? undefined : await fs.open(options.stdoutFile, 'a');
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), main, 'serve'], {
    env: { ...process.env, QUIRE_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', QUIRE_LOG_LEVEL: process.env.SERVE_LOG_LEVEL ?? 'warn', DATABASE_URL: '', REDIS_URL: '', ...env },
    stdio: ['ignore', stdoutFile?.fd ?? (process.env.SERVE_STDOUT ? 'inherit' : 'ignore'), 'inherit'],
  });
  // The child holds its own copy of the descriptor.
  await stdoutFile?.close();
  const url = `http://127.0.0.1:${port}`;
  for (let tries = 0; ; tries++) {
    if (child.exitCode !== null) throw new Error(`quire serve exited with ${child.exitCode}`);
    const up = await fetch(`${url}/v1/openapi.json`).then((res) => res.ok, () => false);
    if (up) break;
    if (tries > 600) throw new Error('quire serve did not start in 60 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const rssOf = async (pid: number) => {
    const status = await fs.readFile(`/proc/${pid}/status`, 'utf8');
    return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) * 1024;
  };
  return {
    url,
    pid: child.pid!,
    rss: () => rssOf(child.pid!),
    launcherRss: async () => {
      const children = (await fs.readFile(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8')).split(' ').filter(Boolean);
      for (const pid of children) {
        const command = await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
        if (command.startsWith(`${process.execPath}\0-e\0`)) return rssOf(Number(pid));
      }
      return 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** A CPU profile of this process, sampled every 200 µs from the start until `stop` writes it to `file` (for Chrome's DevTools). */
export interface CpuProfiler {
  stop(file: string): Promise<import('node:inspector').Profiler.Profile>;
}

export async function startCpuProfile(): Promise<CpuProfiler> {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  return {
    async stop(file) {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, JSON.stringify(profile));
      return profile;
    },
  };
}
