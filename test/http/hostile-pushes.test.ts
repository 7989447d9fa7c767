/**
 * Hostile pushes: what an attacker or a broken tool pushes with a real git client to `quire serve`
 * running in its own process, as the README starts it. Each push is either refused, naming what is wrong, or
 * accepted and served; while it is received, checked and indexed (until both indexes hold the push), `GET /v1/orgs`
 * is sampled over real HTTP and must answer every time, and the server's event loop (read from its `GET /metrics`)
 * must never be held long; afterwards the API's revision equals the main ref and `git fsck` finds nothing. How fast
 * the API answers meanwhile is a figure for a quiet machine: bench/big-push.ts and bench/big-page.ts measure it.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuire, startServer, type ServerProcess } from '../helpers/cli.js';
import { Checkout, isolatedGitEnv, spaceRemote } from '../helpers/git.js';
import { EVENT_LOOP_RETRIES, expectEventLoopFree, serverEventLoop, type EventLoopProbe } from '../helpers/event-loop.js';
import type { EventLoopReport } from '../../src/event-loop.js';
import { sqliteFile } from '../../src/store/instance-files.js';
import { sleep, waitFor } from '../helpers/wait.js';

const exec = promisify(execFile);
const MAX_FILE_BYTES = 4 * 1024 * 1024;
const METRICS_TOKEN = 'hostile-pushes-metrics';

describe('hostile pushes, with the API answering throughout', () => {
  let dataDir: string;
  let server: ServerProcess;
  let token: string;
  let organizationId: string;
  let gitEnv: NodeJS.ProcessEnv;
  let eventLoop: EventLoopProbe;
  const checkouts: Checkout[] = [];

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-hostile-'));
    const env = { QUIRE_DATA_DIR: dataDir, QUIRE_GIT_MAX_FILE_BYTES: String(MAX_FILE_BYTES), QUIRE_METRICS_TOKEN: METRICS_TOKEN };
    const bootstrap = await runQuire(['admin', 'bootstrap', '--init', '--email', 'admin@example.com', '--org', 'Hostile'], env);
    expect(bootstrap.code, bootstrap.stderr).toBe(0);
    const printed = JSON.parse(bootstrap.stdout) as { token: string; organization: { id: string } };
    token = printed.token;
    organizationId = printed.organization.id;
    server = await startServer(env);
    eventLoop = serverEventLoop(server.url, METRICS_TOKEN);
    gitEnv = await isolatedGitEnv();
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await Promise.all(checkouts.map((checkout) => checkout.dispose()));
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  async function api(method: string, url: string, body?: unknown): Promise<{ status: number; body: any }> {
    const res = await fetch(`${server.url}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }

  async function newSpace(): Promise<{ spaceId: string; checkout: Checkout }> {
    const created = await api('POST', `/v1/orgs/${organizationId}/spaces`, { title: 'Target' });
    expect(created.status).toBe(201);
    const checkout = await Checkout.clone(spaceRemote(server.url, token, created.body.id), gitEnv);
    checkouts.push(checkout);
    return { spaceId: created.body.id, checkout };
  }

  /**
   * Runs `work`, then `after` (waiting for the jobs it queued), while `GET /v1/orgs` is sampled every ~50 ms; `samples`:
   * the statuses it answered; `delay`: the server's event loop meanwhile.
   */
  async function sampled<T>(work: () => Promise<T>, after: (result: T) => Promise<void> = async () => undefined): Promise<{ result: T; samples: number[]; delay: EventLoopReport }> {
    const samples: number[] = [];
    let sampling = true;
    const probe = (async () => {
      while (sampling) {
        const status = await fetch(`${server.url}/v1/orgs`, { headers: { authorization: `Bearer ${token}` } }).then(
          async (res) => (await res.arrayBuffer(), res.status),
          () => 0,
        );
        samples.push(status);
        // Pacing: one probe every ~50 ms beside the work.
        await sleep(50);
      }
    })();
    try {
      const { result, report: delay } = await eventLoop.measure(async () => {
        const result = await work();
        await after(result);
        return result;
      });
      return { result, samples, delay };
    } finally {
      sampling = false;
      await probe;
    }
  }

  /** A push of `checkout`, measured until the jobs it queued are done (when it was accepted). */
  const sampledPush = (spaceId: string, checkout: Checkout, refspec?: string, timeoutMs?: number) =>
    sampled(
      () => push(checkout, refspec),
      async (result) => {
        if (result.code === 0) await indexesHoldMain(spaceId, timeoutMs);
      },
    );

  function expectResponsive(samples: number[], delay: EventLoopReport): void {
    expectEventLoopFree(delay, expect.getState().currentTestName ?? 'push');
    expectAnswered(samples);
  }

  /** The API was asked while the work ran, and answered 200 every time. */
  function expectAnswered(samples: number[]): void {
    expect(samples.length).toBeGreaterThan(0);
    expect(samples.filter((status) => status !== 200)).toEqual([]);
  }

  /**
   * Until the search index and the link index of the space hold its main revision: the jobs its last push queued
   * are done (read in the server's SQLite file, not through the API, which would index on its own).
   */
  async function indexesHoldMain(spaceId: string, timeoutMs = 60_000): Promise<void> {
    const main = (await api('GET', `/v1/spaces/${spaceId}`)).body.revision as string;
    const db = new SQLite(sqliteFile(dataDir), { readonly: true, fileMustExist: true });
    try {
      const search = db.prepare('select commit_oid from search_spaces where space_id = ?');
      const links = db.prepare('select count(*) as n from link_index where space_id = ? and commit_oid = ?');
      await waitFor(
        () => {
          const indexed = (search.get(spaceId) as { commit_oid: string } | undefined)?.commit_oid;
          const linked = (links.get(spaceId, main) as { n: number }).n > 0;
          return { searchIndexed: indexed === main, linksIndexed: linked };
        },
        { until: (state) => state.searchIndexed && state.linksIndexed, what: `the indexes of space ${spaceId} to hold main ${main}`, timeoutMs, intervalMs: 100 },
      );
    } finally {
      db.close();
    }
  }

  /** A push through the server: its exit code and what git printed. */
  function push(checkout: Checkout, refspec = 'HEAD:refs/heads/main'): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn('git', ['push', 'origin', refspec], { cwd: checkout.dir, env: gitEnv });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stderr }));
    });
  }

  /** The API shows what main says; the repository is whole; its pages list answers. */
  async function expectConsistent(spaceId: string, tolerated: string[] = []): Promise<void> {
    const gitDir = path.join(dataDir, 'repositories', spaceId.slice(0, 2), `${spaceId}.git`);
    const main = (await exec('git', ['--git-dir', gitDir, 'rev-parse', 'refs/heads/main'], { env: gitEnv })).stdout.trim();
    const space = await api('GET', `/v1/spaces/${spaceId}`);
    expect(space.body.revision).toBe(main);
    const severities = tolerated.flatMap((id) => ['-c', `fsck.${id}=warn`]);
    await exec('git', [...severities, '--git-dir', gitDir, 'fsck', '--no-dangling', '--no-progress'], { env: gitEnv });
    expect((await api('GET', `/v1/spaces/${spaceId}/content/pages`)).status).toBe(200);
  }

  /** A commit whose tree is `entries` (mktree lines), on top of the checkout's HEAD, made with plumbing. */
  async function craftedCommit(checkout: Checkout, entries: string[]): Promise<string> {
    const tree = await mktree(checkout, entries);
    return (await checkout.git('commit-tree', tree, '-p', 'HEAD', '-m', 'Crafted')).trim();
  }

  /** Runs git in the checkout with `input` on its standard input; its output, trimmed. */
  function gitWithInput(checkout: Checkout, args: string[], input: string | Buffer): Promise<string> {
    return new Promise((resolve, reject) => {
      const child = spawn('git', args, { cwd: checkout.dir, env: gitEnv });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(stdout.trim()) : reject(new Error(`git ${args.join(' ')}: ${stderr}`))));
      child.stdin.end(input);
    });
  }

  const mktree = (checkout: Checkout, entries: string[]) => gitWithInput(checkout, ['mktree', '--missing'], `${entries.join('\n')}\n`);

  async function blob(checkout: Checkout, content: string | Buffer): Promise<string> {
    const file = path.join(checkout.dir, '.crafted-blob');
    await fs.writeFile(file, content);
    const oid = (await checkout.git('hash-object', '-w', file)).trim();
    await fs.rm(file);
    return oid;
  }

  async function expectRefused(spaceId: string, checkout: Checkout, refspec: string, reason: string | RegExp): Promise<void> {
    const before = await api('GET', `/v1/spaces/${spaceId}`);
    // Refused: it queues no job; measured while it is received and checked.
    const { result, samples, delay } = await sampled(() => push(checkout, refspec));
    expect(result.code, result.stderr).not.toBe(0);
    if (typeof reason === 'string') expect(result.stderr).toContain(reason);
    else expect(result.stderr).toMatch(reason);
    expect(result.stderr).not.toMatch(/cannot lock ref|internal error/);
    expectResponsive(samples, delay);
    expect((await api('GET', `/v1/spaces/${spaceId}`)).body.revision).toBe(before.body.revision);
    await expectConsistent(spaceId);
  }

  it('refuses trees that climb out with "..", reach into ".git" in any case, or hold a "/" in a name', { timeout: 120_000, retry: EVENT_LOOP_RETRIES }, async () => {
    const { spaceId, checkout } = await newSpace();
    const text = await blob(checkout, 'crafted\n');
    const cases: Array<[string[], string | RegExp]> = [
      [[`100644 blob ${text}\t..`], /\.\.|hasDotdot/],
      [[`040000 tree ${await mktree(checkout, [`100644 blob ${text}\tconfig`])}\t.git`], /\.git|hasDotgit/],
      [[`040000 tree ${await mktree(checkout, [`100755 blob ${text}\tpost-checkout`])}\t.GiT`], /\.GiT|hasDotgit/],
      [[`040000 tree ${await mktree(checkout, [`100644 blob ${text}\t.git`])}\tdocs`], /\.git|hasDotgit/],
    ];
    // A name with a "/" cannot be made with mktree; written as a raw tree object.
    const raw = Buffer.concat([Buffer.from('100644 a/b.md\0'), Buffer.from(text, 'hex')]);
    const slashTree = await gitWithInput(checkout, ['hash-object', '-t', 'tree', '--literally', '-w', '--stdin'], raw);
    const slashCommit = (await checkout.git('commit-tree', slashTree, '-p', 'HEAD', '-m', 'Slash')).trim();
    await expectRefused(spaceId, checkout, `${slashCommit}:refs/heads/main`, 'fullPathname');
    for (const [entries, reason] of cases) await expectRefused(spaceId, checkout, `${await craftedCommit(checkout, entries)}:refs/heads/main`, reason);
  });

  it('accepts commits with the header quirks old tools wrote (a bad time zone, an e-mail without a name)', { timeout: 60_000, retry: EVENT_LOOP_RETRIES }, async () => {
    const { spaceId, checkout } = await newSpace();
    await checkout.write('page.md', '# Old\n\nFrom an old tool.\n');
    await checkout.git('add', 'page.md');
    const tree = (await checkout.git('write-tree')).trim();
    const parent = (await checkout.git('rev-parse', 'HEAD')).trim();
    const text = `tree ${tree}\nparent ${parent}\nauthor <old@example.com> 1234567890 +051800\ncommitter Old Tool <old@example.com> 1234567890 +051800\n\nFrom 2009\n`;
    const commit = await gitWithInput(checkout, ['hash-object', '-t', 'commit', '--literally', '-w', '--stdin'], text);
    const { result, samples, delay } = await sampledPush(spaceId, checkout, `${commit}:refs/heads/main`);
    expect(result.code, result.stderr).toBe(0);
    expectResponsive(samples, delay);
    await expectConsistent(spaceId, ['badTimezone', 'missingNameBeforeEmail']);
    expect(JSON.stringify((await api('GET', `/v1/spaces/${spaceId}/content/pages`)).body)).toContain('Old');
  });

  it('refuses symlinks out of the tree and through ".."', { timeout: 60_000, retry: EVENT_LOOP_RETRIES }, async () => {
    const { spaceId, checkout } = await newSpace();
    for (const target of ['/etc/passwd', '../../../../etc/shadow', 'docs/../../x']) {
      const entries = [`120000 blob ${await blob(checkout, target)}\tlink.md`];
      await expectRefused(spaceId, checkout, `${await craftedCommit(checkout, entries)}:refs/heads/main`, 'link.md: is a symlink to');
    }
  });

  it('accepts a submodule with a warning, and serves the pages beside it', { timeout: 60_000, retry: EVENT_LOOP_RETRIES }, async () => {
    const { spaceId, checkout } = await newSpace();
    await checkout.write('guide.md', '# Guide\n\nNext to a submodule.\n');
    await checkout.git('add', 'guide.md');
    await checkout.git('update-index', '--add', '--cacheinfo', `160000,${'ab'.repeat(20)},vendor/theme`);
    await checkout.git('commit', '--quiet', '-m', 'A submodule');
    const { result, samples, delay } = await sampledPush(spaceId, checkout);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('vendor/theme: a submodule');
    expectResponsive(samples, delay);
    await expectConsistent(spaceId);
    const pages = await api('GET', `/v1/spaces/${spaceId}/content/pages`);
    expect(JSON.stringify(pages.body)).toContain('Guide');
    expect(JSON.stringify(pages.body)).not.toContain('vendor/theme');
  });

  it('survives YAML alias bombs in front matter, .gitbook.yaml and vars.yaml without expanding them', { timeout: 120_000, retry: EVENT_LOOP_RETRIES }, async () => {
    const { spaceId, checkout } = await newSpace();
    // Nine levels of nine: 387,420,489 strings once expanded, a few hundred bytes as written.
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++) {
      const name = String.fromCharCode(97 + i);
      const previous = String.fromCharCode(96 + i);
      levels.push(`${name}: &${name} [${Array(9).fill(`*${previous}`).join(',')}]`);
    }
    const bomb = levels.join('\n');
    await checkout.write('bomb.md', `---\ndescription: boom\n${bomb}\n---\n# Bomb\n\nText.\n`);
    await checkout.write('.gitbook/vars.yaml', `${bomb}\n`);
    await checkout.write('.gitbook.yaml', `root: ./\n${bomb}\n`);
    await checkout.commit('Alias bombs');
    const { result, samples, delay } = await sampledPush(spaceId, checkout);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('bomb.md:2: front matter holds more than 10000 values');
    expectResponsive(samples, delay);
    await expectConsistent(spaceId);

    // In the files whose unknown keys are ignored, the bombs go through untouched (with warnings) and stay inert.
    await checkout.remove('bomb.md');
    await checkout.write('page.md', '# Page\n\nText.\n');
    await checkout.commit('Without the page');
    const accepted = await sampledPush(spaceId, checkout);
    expect(accepted.result.code, accepted.result.stderr).toBe(0);
    expect(accepted.result.stderr).toContain('warning: .gitbook/vars.yaml:1: variable a must be a string');
    expectResponsive(accepted.samples, accepted.delay);
    await expectConsistent(spaceId);
    const page = await api('GET', `/v1/spaces/${spaceId}/content/path/page`);
    expect(page.status).toBe(200);
    expect(JSON.stringify(page.body).length).toBeLessThan(100_000);
  });

  it('refuses a file over the size limit naming it, and serves a 3 MB one-line page while the API answers', { timeout: 120_000, retry: EVENT_LOOP_RETRIES }, async () => {
    const { spaceId, checkout } = await newSpace();
    await checkout.write('.gitbook/assets/huge.bin', Buffer.alloc(MAX_FILE_BYTES + 1, 7));
    await checkout.commit('Too big');
    await expectRefused(spaceId, checkout, 'HEAD:refs/heads/main', '.gitbook/assets/huge.bin: is 4 MiB');

    await checkout.git('reset', '--quiet', '--hard', 'HEAD~1');
    await checkout.write('line.md', `# Line\n\n${'word '.repeat(600_000)}\n`);
    await checkout.commit('One long line');
    const { result, samples, delay } = await sampledPush(spaceId, checkout);
    expect(result.code, result.stderr).toBe(0);
    expectResponsive(samples, delay);
    await expectConsistent(spaceId);
  });

  it('accepts 10,000 files in one push and serves them, the API answering while they are checked and indexed', { timeout: 300_000, retry: EVENT_LOOP_RETRIES }, async () => {
    const { spaceId, checkout } = await newSpace();
    for (let folder = 0; folder < 100; folder++) {
      await fs.mkdir(path.join(checkout.dir, `part-${folder}`), { recursive: true });
      await Promise.all(
        Array.from({ length: 100 }, (_, i) => fs.writeFile(path.join(checkout.dir, `part-${folder}`, `page-${i}.md`), `# Page ${folder}-${i}\n\nWord${folder}x${i}.\n`)),
      );
    }
    await checkout.commit('Ten thousand pages');
    // Until both indexes hold the push: indexing 10,000 pages must not hold the API either.
    const { result, samples, delay } = await sampledPush(spaceId, checkout, undefined, 120_000);
    expect(result.code, result.stderr).toBe(0);
    expectResponsive(samples, delay);
    await expectConsistent(spaceId);
    const found = await api('GET', `/v1/spaces/${spaceId}/search?query=Word99x99`);
    expect(JSON.stringify(found.body)).toContain('Page 99-99');
  });

  it('accepts one first push of 100 folders x 100 pages, each linking to the readme and listed in SUMMARY.md, the API answering', { timeout: 600_000, retry: EVENT_LOOP_RETRIES }, async () => {
    const { spaceId, checkout } = await newSpace();
    const summary = ['# Summary', '', '* [Home](README.md)'];
    for (let folder = 0; folder < 100; folder++) {
      await fs.mkdir(path.join(checkout.dir, `part-${folder}`), { recursive: true });
      summary.push('', `## Part ${folder}`, '');
      const writes: Promise<void>[] = [];
      for (let i = 0; i < 100; i++) {
        const file = `part-${folder}/page-${i}.md`;
        writes.push(fs.writeFile(path.join(checkout.dir, file), `# Page ${folder}-${i}\n\nLinked${folder}x${i}. Back to [the readme](../README.md).\n`));
        summary.push(`* [Page ${folder}-${i}](${file})`);
      }
      await Promise.all(writes);
    }
    await checkout.write('SUMMARY.md', `${summary.join('\n')}\n`);
    await checkout.commit('Ten thousand listed pages');
    // Until both indexes hold the push: its revision, links and search index are built meanwhile.
    const { result, samples, delay } = await sampledPush(spaceId, checkout, undefined, 300_000);
    expect(result.code, result.stderr).toBe(0);
    expectResponsive(samples, delay);
    await expectConsistent(spaceId);
    const pages = (await api('GET', `/v1/spaces/${spaceId}/content/pages`)).body.pages as Array<{ title: string; pages: unknown[] }>;
    // The readme, then a group per folder of its 100 pages.
    expect(pages.length).toBe(101);
    expect(pages.slice(1).reduce((count, group) => count + group.pages.length, 0)).toBe(10_000);
    const found = await api('GET', `/v1/spaces/${spaceId}/search?query=Linked99x99`);
    expect(JSON.stringify(found.body)).toContain('Page 99-99');
  });

  it('serves odd file names: bytes that are not UTF-8, 255-byte names, deep folders, look-alike and case-only twins', { timeout: 120_000, retry: EVENT_LOOP_RETRIES }, async () => {
    const { spaceId, checkout } = await newSpace();
    const page = (title: string) => blob(checkout, `# ${title}\n\nText.\n`);
    let tree = await mktree(checkout, [`100644 blob ${await page('Deep')}\tdeep.md`]);
    for (let depth = 0; depth < 60; depth++) tree = await mktree(checkout, [`040000 tree ${tree}\tlevel-${depth}`]);
    const entries = [
      `100644 blob ${await page('Latin one')}\tcaf\xe9.md`,
      `100644 blob ${await page('Composed')}\tcaf\u00e9-nfc.md`,
      `100644 blob ${await page('Decomposed')}\tcafe\u0301-nfc.md`,
      `100644 blob ${await page('Upper')}\tPage.md`,
      `100644 blob ${await page('Lower')}\tpage.md`,
      `100644 blob ${await page('Long')}\t${'n'.repeat(252)}.md`,
      `100644 blob ${await page('Spaces and quotes')}\ta "quoted" page's name.md`,
      `040000 tree ${tree}\tnested`,
    ];
    // mktree reads paths as bytes: write the Latin-1 one as its single byte.
    const input = Buffer.concat(entries.map((entry) => Buffer.from(`${entry}\n`, entry.includes('caf\xe9.md') ? 'latin1' : 'utf8')));
    const treeOid = await gitWithInput(checkout, ['mktree'], input);
    const commit = (await checkout.git('commit-tree', treeOid, '-p', 'HEAD', '-m', 'Odd names')).trim();
    const { result, samples, delay } = await sampledPush(spaceId, checkout, `${commit}:refs/heads/main`);
    expect(result.stderr).not.toMatch(/internal error|cannot lock ref/);
    expect(result.code, result.stderr).toBe(0);
    expectResponsive(samples, delay);
    await expectConsistent(spaceId);
    const pages = JSON.stringify((await api('GET', `/v1/spaces/${spaceId}/content/pages`)).body);
    for (const title of ['Upper', 'Lower', 'Long', 'Deep', 'Composed', 'Decomposed', 'Spaces and quotes', 'Latin one']) expect(pages).toContain(title);

    // A table of contents that lists one file twice (real repositories do): the second is a link to the first.
    await checkout.git('reset', '--quiet', '--hard', commit);
    await checkout.write('SUMMARY.md', '# Summary\n\n* [Upper](Page.md)\n* [Upper again](Page.md)\n* [Lower](page.md)\n');
    await checkout.commit('Listed twice');
    const listed = await sampledPush(spaceId, checkout);
    expect(listed.result.code, listed.result.stderr).toBe(0);
    expectResponsive(listed.samples, listed.delay);
    await expectConsistent(spaceId);
    const toc = (await api('GET', `/v1/spaces/${spaceId}/content/pages`)).body.pages as Array<{ title: string; type: string }>;
    expect(toc.map((entry) => [entry.title, entry.type])).toEqual([
      ['Upper', 'document'],
      ['Upper again', 'link'],
      ['Lower', 'document'],
    ]);
  });
});
