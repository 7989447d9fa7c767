/**
 * The README runs as written: the shell blocks of README.md, then those of the files of docs/ in the order of DOCS
 * below, as one bash script against a fresh `npm start` of this checkout, the way a new user pastes them into one
 * terminal. One script, one shell: a docs file's blocks may use what the README's tour and the files before it in
 * DOCS defined (TOKEN, ORG, SPACE, SITE, the `handbook` checkout...). The only changes: the server's port for 8080,
 * `quire` on the PATH as `npm link` puts it there, and strictness a person does not need (a failing command, an
 * unset variable or a curl answered with 4xx or 5xx stops the script). A block preceded by
 * `<!-- readme-test: skip (why) -->` is not run; `<!-- readme-test: background (why) -->` (one command) runs in
 * the background until the end, then gets one SIGTERM and must exit 0. Every file of docs/ is in DOCS (a test says
 * so): a new one gets its place in the order there.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtMain, freePort, root, runCommand, spawnWatched, type QuireProcess } from '../helpers/cli.js';

/**
 * The files of docs/ whose blocks run after the README's, in this order: the commands first (`quire sync` starts in
 * the background, `quire migrate` copies the organization the README made before the tour adds to it), then the git
 * format (a second checkout), the longer tour, and the rest.
 */
const DOCS = [
  'docs/cli.md',
  'docs/git-format.md',
  'docs/tour.md',
  'docs/operations.md',
  'docs/api.md',
  'docs/permissions.md',
  'docs/sites.md',
  'docs/configuration.md',
  'docs/architecture.md',
  'docs/testing.md',
];

interface Block {
  /** The file it is in, from the checkout's root (README.md, docs/...). */
  file: string;
  line: number;
  mode: 'run' | 'skip' | 'background';
  code: string;
}

/** A file's ```sh blocks in order, with the mode their marker comment gives (`run` without one). */
export function shellBlocks(readme: string, file = 'README.md'): Block[] {
  const blocks: Block[] = [];
  const pattern = /(?:<!-- readme-test: (skip|background)\b[^>]*-->\n)?( *)```sh\n([\s\S]*?)\n\2```/g;
  for (const match of readme.matchAll(pattern)) {
    const indent = match[2];
    const code = match[3]
      .split('\n')
      .map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line))
      .join('\n');
    blocks.push({ file, line: readme.slice(0, match.index).split('\n').length, mode: (match[1] as Block['mode']) ?? 'run', code });
  }
  return blocks;
}

/** One bash script of the blocks, for a server on `port`. */
function script(blocks: Block[], port: number): string {
  const lines = [
    'set -euo pipefail',
    // A person reads curl's answers; the script stops at the first one that is an error.
    'curl() { command curl --fail-with-body "$@"; }',
    'background=()',
    // A step that fails stops the script: what runs in the background stops with it.
    'trap \'for job in "${background[@]}"; do kill -TERM "$job" 2>/dev/null || true; done\' EXIT',
  ];
  for (const [index, block] of blocks.entries()) {
    if (block.mode === 'skip') continue;
    const code = block.code.replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`);
    lines.push(`echo "### ${block.file} line ${block.line}" >&2`);
    if (block.mode === 'background') {
      lines.push(`( ${code}\n) > "background-${index}.log" 2>&1 &`, 'background+=($!)', 'sleep 3');
    } else {
      lines.push(code);
    }
  }
  // Each background block's command gets one SIGTERM and must exit 0. A background block is one command, which
  // bash runs as the background job itself (a subshell of one command execs it): the job's pid is the command's.
  lines.push(
    'for job in "${background[@]}"; do',
    '  kill -TERM "$job"',
    '  if ! wait "$job"; then echo "a background block did not exit 0 after SIGTERM" >&2; cat background-*.log >&2; exit 1; fi',
    'done',
    'echo "### README ran to its end" >&2',
  );
  return `${lines.join('\n')}\n`;
}

describe('README.md', () => {
  let dir: string;
  let server: QuireProcess;
  let port: number;
  let env: Record<string, string | undefined>;
  let blocks: Block[];

  beforeAll(async () => {
    const main = builtMain();
    const files = ['README.md', ...DOCS];
    const texts = await Promise.all(files.map((file) => fs.readFile(path.join(root, file), 'utf8')));
    blocks = files.flatMap((file, i) => shellBlocks(texts[i], file));
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-readme-'));
    await fs.mkdir(path.join(dir, 'bin'));
    await fs.symlink(main, path.join(dir, 'bin', 'quire'));
    port = await freePort();
    env = {
      QUIRE_DATA_DIR: path.join(dir, 'data'),
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: undefined,
      REDIS_URL: undefined,
      QUIRE_PUBLIC_URL: undefined,
      QUIRE_TOKEN: undefined,
      QUIRE_LOG_FORMAT: 'json',
      PATH: `${path.join(dir, 'bin')}:${process.env.PATH}`,
      // A person's git knows who they are.
      GIT_AUTHOR_NAME: 'Readme Reader',
      GIT_AUTHOR_EMAIL: 'reader@example.com',
      GIT_COMMITTER_NAME: 'Readme Reader',
      GIT_COMMITTER_EMAIL: 'reader@example.com',
      GIT_TERMINAL_PROMPT: '0',
    };
    server = spawnWatched('npm', ['start'], { env: { ...env, QUIRE_FETCH_ALLOW: '127.0.0.1' }, detached: true });
    await server.waitForOutput(/jobs in this process/, 60_000);
  }, 90_000);

  afterAll(async () => {
    if (server?.child.pid) {
      try {
        process.kill(-server.child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      await server.exited;
    }
    if (dir) await fs.rm(dir, { recursive: true, force: true });
  });

  const runScript = (text: string, cwd: string) => runCommand('bash', ['-c', text], { env, cwd });

  it('has blocks to run, each marked or run', () => {
    expect(blocks.filter((b) => b.file === 'README.md' && b.mode === 'run').length).toBeGreaterThanOrEqual(5);
    expect(blocks.filter((b) => b.file !== 'README.md' && b.mode === 'run').length).toBeGreaterThanOrEqual(5);
    expect(blocks.some((b) => b.mode === 'background')).toBe(true);
  });

  it('runs every file of docs/, each in its place in DOCS', async () => {
    const found = (await fs.readdir(path.join(root, 'docs'))).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`);
    expect([...DOCS].sort()).toEqual(found.sort());
  });

  it('runs as written, top to bottom, against a fresh server', async () => {
    const cwd = path.join(dir, 'reader');
    await fs.mkdir(cwd);
    const text = script(blocks, port);
    const run = await runScript(text, cwd);
    if (run.code !== 0) await fs.writeFile(path.join(os.tmpdir(), 'quire-readme-failed.sh'), text);
    expect(run.code, `${run.stderr.slice(-4000)}\n--- stdout:\n${run.stdout.slice(-2000)}`).toBe(0);
    expect(run.stderr).toContain('### README ran to its end');
    // What it did is there: the pushed page, the synced folder, the migrated organization.
    expect(run.stdout).toContain('"title":"Install"');
    // Git Sync: the mirror in step after its first run, and after the host's push (`quire git-sync status`'s line).
    expect(run.stdout).toMatch(/(^|})synced$/m);
    expect(run.stdout).toMatch(/^\S+ {2}synced {2}http:\/\/127\.0\.0\.1:\d+\/git\/\S+\.git main {2}last in step /m);
    expect(await fs.readFile(path.join(cwd, 'handbook-sync', 'guides', 'install.md'), 'utf8')).toContain('# Install');
    const migrated = JSON.parse(await fs.readFile(path.join(cwd, 'migrated.json'), 'utf8'));
    expect(migrated.copied.spaces).toBeGreaterThanOrEqual(1);
    expect(migrated.skipped).toEqual([]);
  }, 240_000);

  it('runs quire from the checkout without npx (whose first run installs and rebuilds the project)', async () => {
    const text = await fs.readFile(path.join(root, 'README.md'), 'utf8');
    expect(text).toContain('./quire ...');
    expect(blocks.map((b) => b.code).join('\n')).not.toMatch(/\bnpx\s+quire\b/);
    const help = await runCommand(path.join(root, 'quire'), ['--help'], { env, cwd: dir });
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toContain('Usage: quire');
  });

  it('fails when a step that later steps need is left out', async () => {
    const cwd = path.join(dir, 'reader-without-bob');
    await fs.mkdir(cwd);
    // Without creating Bob, adding him to a team is refused (and so the script stops there).
    const withoutBob = blocks.map((b) => ({ ...b, code: b.code.split('\n').filter((line) => !line.includes('create-user --email bob@')).join('\n') }));
    expect(withoutBob.map((b) => b.code).join('\n')).not.toBe(blocks.map((b) => b.code).join('\n'));
    const run = await runScript(script(withoutBob, port), cwd);
    expect(run.code).not.toBe(0);
    expect(run.stderr).not.toContain('### README ran to its end');
  }, 240_000);
});
