/**
 * `npx tsx scripts/migrate-check.ts REPO...`: `quire migrate` on real repositories. Each repository (as
 * the conformance harness opens it: a bare repository or a checkout; `--fill-missing` for a mirror without its
 * largest blobs) is pushed into a space of a source `quire serve`; then the whole organization is migrated into two
 * fresh targets, once with the content through git and once through the API only (a proxy answers 404 under /git/
 * and is the source's public URL, so file downloads lead through it). For every space, both targets must show the
 * source's pages (id, type, title, path, description, markdown) and files (id, name, bytes). Prints one line per
 * repository and target with the time of the migration; exits 1 on any difference.
 */
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { runQuire, startServer, type ServerProcess } from '../test/helpers/cli.js';
import { isolatedGitEnv, spaceRemote } from '../test/helpers/git.js';
import { NO_GIT, startFaultyProxy } from '../test/helpers/faulty-proxy.js';
import { git, openSource } from './conformance/source.js';

const args = process.argv.slice(2);
const fillMissing = args.includes('--fill-missing');
const repositories = args.filter((a) => !a.startsWith('--'));
if (repositories.length === 0) {
  process.stderr.write('usage: npx tsx scripts/migrate-check.ts [--fill-missing] REPO...\n');
  process.exit(2);
}

const work = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-migrate-check-'));
const gitEnv = await isolatedGitEnv();
const common = { DATABASE_URL: '', REDIS_URL: '', QUIRE_FETCH_ALLOW: '127.0.0.1', QUIRE_LOG_LEVEL: 'warn', QUIRE_CACHE_TTL_MS: '0' };

let sourceUrl = '';
const noGit = await startFaultyProxy(() => sourceUrl, NO_GIT);
const noGitUrl = noGit.url;

async function boot(name: string, publicUrl?: string): Promise<{ env: Record<string, string>; token: string; organizationId: string }> {
  const env = { ...common, QUIRE_DATA_DIR: path.join(work, name), ...(publicUrl ? { QUIRE_PUBLIC_URL: publicUrl } : {}) };
  const run = await runQuire(['admin', 'bootstrap', '--init', '--email', 'check@example.com', '--org', name], env);
  if (run.code !== 0) throw new Error(`bootstrap of ${name} failed: ${run.stderr}`);
  const { token, organization } = JSON.parse(run.stdout) as { token: string; organization: { id: string } };
  return { env, token, organizationId: organization.id };
}

function client(server: ServerProcess, token: string) {
  return async <T>(url: string): Promise<T> => {
    const response = await fetch(`${server.url}${url}`, { headers: { authorization: `Bearer ${token}` } });
    if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
}

interface Page {
  id: string;
  type: string;
  title: string;
  path?: string;
  description?: string;
  markdown?: string;
  pages?: Page[];
}
const flatten = (pages: Page[]): Page[] => pages.flatMap((p) => [p, ...flatten(p.pages ?? [])]);

/** What must be equal: every page's facts and every file's name and bytes, by id. */
async function contentOf(server: ServerProcess, token: string, spaceId: string): Promise<Map<string, string>> {
  const get = client(server, token);
  const out = new Map<string, string>();
  const { pages } = await get<{ pages: Page[] }>(`/v1/spaces/${spaceId}/content/pages`);
  for (const page of flatten(pages)) {
    out.set(`page ${page.id}`, JSON.stringify({ type: page.type, title: page.title, path: page.path, description: page.description, markdown: page.markdown }));
  }
  let cursor: string | undefined;
  do {
    const list = await get<{ items: Array<{ id: string; name: string; downloadURL: string }>; next?: { page: string } }>(
      `/v1/spaces/${spaceId}/content/files?limit=1000${cursor ? `&page=${encodeURIComponent(cursor)}` : ''}`,
    );
    for (const file of list.items) {
      const url = new URL(file.downloadURL);
      const response = await fetch(`${server.url}${url.pathname}`, { headers: { authorization: `Bearer ${token}` } });
      const bytes = Buffer.from(await response.arrayBuffer());
      out.set(`file ${file.id}`, `${file.name} ${response.status} ${crypto.createHash('sha256').update(bytes).digest('hex')}`);
    }
    cursor = list.next?.page;
  } while (cursor);
  return out;
}

/** Where two texts part: a little before the first differing character, in both. */
function describeDifference(expected: string, actual: string): string {
  let i = 0;
  while (i < expected.length && expected[i] === actual[i]) i++;
  const from = Math.max(0, i - 60);
  return `${JSON.stringify(actual.slice(from, i + 60))} instead of ${JSON.stringify(expected.slice(from, i + 60))}`;
}

function differences(expected: Map<string, string>, actual: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [key, value] of expected) {
    if (!actual.has(key)) out.push(`${key} missing (${value.slice(0, 200)})`);
    else if (actual.get(key) !== value) out.push(`${key} differs: ${describeDifference(value, actual.get(key)!)}`);
  }
  for (const key of actual.keys()) if (!expected.has(key)) out.push(`${key} not at the source`);
  return out;
}

const source = await boot('source', noGitUrl);
const sourceServer = await startServer(source.env, { startTimeoutMs: 120_000 });
sourceUrl = sourceServer.url;
const spaces: Array<{ name: string; id: string }> = [];
let failed = false;
try {
  for (const input of repositories) {
    const repo = await openSource(input, gitEnv, { fillMissing });
    const created = await fetch(`${sourceServer.url}/v1/orgs/${source.organizationId}/spaces`, {
      method: 'POST',
      headers: { authorization: `Bearer ${source.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: repo.name.slice(0, 50) }),
    });
    const space = (await created.json()) as { id: string };
    await git(gitEnv, ['--git-dir', repo.gitDir, 'push', '--quiet', spaceRemote(sourceServer.url, source.token, space.id), `+${repo.head}:refs/heads/main`]);
    spaces.push({ name: repo.name, id: space.id });
    await repo.dispose();
  }
  for (const [kind, from] of [
    ['git', sourceServer.url],
    ['api', noGitUrl],
  ] as const) {
    const target = await boot(`target-${kind}`);
    const started = performance.now();
    const run = await runQuire(['migrate', '--from', from, '--token', source.token], target.env);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (run.code !== 0) {
      failed = true;
      process.stdout.write(`FAIL  migrate through ${kind}: exit ${run.code}: ${run.stderr.trim()}\n`);
      continue;
    }
    const report = JSON.parse(run.stdout) as { copied: Record<string, number>; skipped: Array<{ kind: string; id: string; reason: string }> };
    for (const skipped of report.skipped) process.stdout.write(`      skipped ${skipped.kind} ${skipped.id}: ${skipped.reason}\n`);
    const targetServer = await startServer(target.env, { startTimeoutMs: 120_000 });
    try {
      const get = client(targetServer, target.token);
      const orgs = await get<{ items: Array<{ id: string; title: string }> }>('/v1/orgs');
      const migrated = orgs.items.find((o) => o.title === 'source')!;
      const here = (await get<{ items: Array<{ id: string; title: string }> }>(`/v1/orgs/${migrated.id}/spaces?limit=1000`)).items;
      for (const space of spaces) {
        const copy = here.find((s) => s.title === space.name.slice(0, 50));
        const problems = copy ? differences(await contentOf(sourceServer, source.token, space.id), await contentOf(targetServer, target.token, copy.id)) : ['the space was not copied'];
        if (problems.length > 0) failed = true;
        process.stdout.write(
          `${problems.length ? 'FAIL' : 'PASS'}  ${space.name} through ${kind} (migration of all ${spaces.length}: ${seconds} s)${problems.length ? `: ${problems.length} differences: ${problems.slice(0, 3).join('; ')}` : ''}\n`,
        );
      }
    } finally {
      await targetServer.stop();
    }
  }
} finally {
  await sourceServer.stop();
  await noGit.close();
  await fs.rm(work, { recursive: true, force: true });
  await fs.rm(gitEnv.HOME!, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
