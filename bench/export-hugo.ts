/**
 * Static export of a real repository against Hugo (run by hand: `npm run build && npx tsx bench/export-hugo.ts`; the
 * performance line "static export of a real 800-page repository within 3x Hugo building the same markdown pages as a
 * plain site").
 *
 * Quire: a public GitBook Git Sync repository (REPO, a bare mirror or a clone, missing blobs filled as the conformance
 * harness does; by default the one of /work/.mirror/* with the most markdown files, as bench/site-crawl.ts picks it)
 * pushed over HTTP into a new space of a Quire served in this process, published as a public site (createSite), the
 * push's jobs (indexing) left to finish, then exported into an empty folder, timed three ways:
 * - the command: `quire site export` of the build, a process of its own timed from its start to its exit, as users run
 *   it and as Hugo is timed (its start, opening its container and starting its threads included). The ratio to Hugo
 *   that the line sets is this one's.
 * - export: `exportSite` (what the command runs) from the sources, in this process, in a container of its own opened
 *   on the same data dir: nothing of the space in memory (revision, page parses, renders), but this process's code
 *   already compiled. Opening it and starting its CPU threads are not timed (printed apart).
 * - in the server: in the serving process's own container, where the push's jobs have read and parsed the revision
 *   (warm); no page of the site is rendered yet (cold), as in bench/site-export.ts.
 * Each round pushes a new space, so nothing is ever rendered before.
 *
 * Baseline, in the same run, alternating with the exports: Debian's `hugo` (`apt-get install hugo`) building the same
 * markdown pages as a plain site, `hugo --quiet --destination <empty dir>` (its own parallel writes, as users run it).
 * Its project, made once before the rounds: `hugo.toml` (baseURL; taxonomies, RSS, sitemap and robots.txt off, none of
 * which the export writes; goldmark's `unsafe` on so raw HTML passes as in Quire), `content/` = the markdown files of
 * the site's pages (each document page of Quire's tree, at its path in the repository; `README.md` -> `_index.md`, a
 * folder's section page; SUMMARY.md is no page), `static/` = the space's files (images, assets) at their paths, and a
 * minimal layout (baseof/single/list: a title, the section's pages as a sidebar, `.Content`). Front matter is GitBook's
 * YAML, which Hugo reads; GitBook's Liquid tags (`{% hint %}`, tabs...) stay literal text in Hugo's pages, and its
 * pages are far smaller (no site navigation, outline, search index, `.md` twins): a floor, not the same work.
 *
 * Printed per round: the exports' seconds (all three) and Hugo's; then medians, the ratios (target <= 3), the pages
 * and files each wrote, the machine. ROUNDS (default 3), REPO; `PROFILE=<dir>`: CPU profiles of this process over
 * each round's two exports in it (`export-N` and `server-N.cpuprofile`, main thread only) written there, with their
 * top self-time functions printed (the profiler slows the exports: their figures are not the bench's).
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { machine, startBenchServer, startCpuProfile } from './lib.js';
import { median } from './stats.js';
import { git, openSource } from '../scripts/conformance/source.js';
import { loadConfig } from '../config/index.js';
import { createContainer } from '../src/container.js';
import { createSpace } from '../src/domain/content/spaces.js';
import { createSite } from '../src/domain/sites/sites.js';
import { documentPages, publishedSpaces, readPublishedSite } from '../src/domain/sites/published.js';
import { exportSite, type ExportResult } from '../src/http/routes/published/export.js';
import type { Context } from '../src/domain/context.js';

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const TARGET = 3;
const MAIN = path.resolve('dist/src/main.js');

async function defaultRepository(): Promise<string> {
  const root = '/work/.mirror';
  const candidates = (await fs.readdir(root).catch(() => [])).map((name) => path.join(root, name, 'repo'));
  let best: { dir: string; files: number } | undefined;
  for (const dir of candidates) {
    const files = await git(process.env, ['--git-dir', dir, 'ls-tree', '-r', '--name-only', 'HEAD']).then(
      ({ stdout }) => stdout.split('\n').filter((name) => /\.md"?$/i.test(name)).length,
      () => -1,
    );
    if (files > (best?.files ?? -1)) best = { dir, files };
  }
  if (!best) throw new Error('bench: no REPO given and no repository under /work/.mirror');
  return best.dir;
}

/** Runs a program to its end; rejects with its stderr when it fails. */
function run(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')}: exit ${code}: ${stderr.trim()}`))));
  });
}

/** What a folder holds: files, `.html` files among them, bytes. */
async function written(dir: string): Promise<{ files: number; html: number; bytes: number }> {
  const out = { files: 0, html: 0, bytes: 0 };
  const walk = async (at: string) => {
    for (const entry of await fs.readdir(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) await walk(full);
      else {
        out.files++;
        if (entry.name.endsWith('.html')) out.html++;
        out.bytes += (await fs.stat(full)).size;
      }
    }
  };
  await walk(dir);
  return out;
}

/** Where a page's markdown goes in Hugo's `content/`: a folder's README.md is its section page (`_index.md`). */
function contentPath(gitPath: string): string {
  return /^readme\.md$/i.test(path.posix.basename(gitPath)) ? path.posix.join(path.posix.dirname(gitPath), '_index.md') : gitPath;
}

const LAYOUTS: Record<string, string> = {
  'partials/title.html': '{{- with .Title }}{{ . }}{{ else }}{{ with .File }}{{ .ContentBaseName }}{{ end }}{{ end -}}\n',
  '_default/baseof.html': `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ partial "title.html" . }} - {{ .Site.Title }}</title>
</head>
<body>
<header><a href="{{ .Site.Home.RelPermalink }}">{{ .Site.Title }}</a></header>
<nav><ul>
{{- range .CurrentSection.Pages }}
<li><a href="{{ .RelPermalink }}"{{ if eq .RelPermalink $.RelPermalink }} aria-current="page"{{ end }}>{{ partial "title.html" . }}</a></li>
{{- end }}
</ul></nav>
<main>
<h1>{{ partial "title.html" . }}</h1>
{{ block "main" . }}{{ end }}
</main>
</body>
</html>
`,
  '_default/single.html': '{{ define "main" }}{{ .Content }}{{ end }}\n',
  '_default/list.html': '{{ define "main" }}{{ .Content }}{{ end }}\n',
};

/**
 * The Hugo project of the same pages: the repository's tree at `head` (git archive), its pages' markdown under
 * `content/` and the space's files under `static/`, at their paths.
 */
async function hugoProject(dir: string, gitDir: string, head: string, title: string, pages: string[], files: string[]): Promise<{ pages: number; files: number }> {
  const tree = path.join(dir, 'tree');
  await fs.mkdir(tree, { recursive: true });
  await run('sh', ['-c', 'git -c safe.directory=* --git-dir "$1" archive --format=tar "$2" | tar -x -C "$3"', 'sh', gitDir, head, tree]);
  const project = path.join(dir, 'project');
  const copy = async (from: string, to: string) => {
    await fs.mkdir(path.dirname(to), { recursive: true });
    await fs.copyFile(path.join(tree, from), to);
  };
  const targets = new Set<string>();
  for (const page of pages) {
    const target = contentPath(page);
    if (targets.has(target)) continue;
    targets.add(target);
    await copy(page, path.join(project, 'content', target));
  }
  const statics = [...new Set(files)];
  for (const file of statics) await copy(file, path.join(project, 'static', file));
  for (const [name, text] of Object.entries(LAYOUTS)) {
    await fs.mkdir(path.dirname(path.join(project, 'layouts', name)), { recursive: true });
    await fs.writeFile(path.join(project, 'layouts', name), text);
  }
  await fs.writeFile(
    path.join(project, 'hugo.toml'),
    `baseURL = "http://bench.local/"\ntitle = ${JSON.stringify(title)}\ndisableKinds = ["taxonomy", "term", "RSS", "sitemap", "robotsTXT"]\n\n[markup.goldmark.renderer]\nunsafe = true\n`,
  );
  await fs.rm(tree, { recursive: true, force: true });
  return { pages: targets.size, files: statics.length };
}

interface Profiler {
  stop(file: string): Promise<void>;
}

/** The inspector's CPU profiler on this process (PROFILE): the profile written to `file`, its top self times printed. */
async function startProfiler(): Promise<Profiler | undefined> {
  if (!process.env.PROFILE) return undefined;
  const profiler = await startCpuProfile();
  return {
    async stop(file) {
      const profile = await profiler.stop(file);
      // Self time per function (name, file and line), from the samples' intervals.
      const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
      const self = new Map<string, number>();
      let total = 0;
      profile.samples?.forEach((id, i) => {
        const frame = nodes.get(id)!.callFrame;
        const where = frame.url ? `${frame.url.replace(/^file:\/\//, '').replace(`${process.cwd()}/`, '')}:${frame.lineNumber + 1}` : '';
        const key = `${frame.functionName || '(anonymous)'} ${where}`.trim();
        const ms = (profile.timeDeltas?.[i] ?? 0) / 1000;
        self.set(key, (self.get(key) ?? 0) + ms);
        total += ms;
      });
      console.log(`  profile ${file}: ${total.toFixed(0)} ms sampled; top self time:`);
      for (const [key, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 20)) console.log(`    ${ms.toFixed(0).padStart(6)} ms ${((ms / total) * 100).toFixed(1).padStart(5)}%  ${key}`);
    },
  };
}

const repository = process.env.REPO ?? (await defaultRepository());
// A mirror may lack its largest blobs: small placeholders stand in for them (as in the conformance harness).
const source = await openSource(repository, process.env, { fillMissing: true });
const server = await startBenchServer();
const ctx = server.container.ctx;
const work = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-bench-export-hugo-'));
const user = await ctx.db.selectFrom('users').selectAll().executeTakeFirstOrThrow();

/** A new space holding the repository's HEAD, pushed over HTTP, published as a public site, its jobs done: the site. */
async function publishedSite(title: string): Promise<string> {
  const space = await createSpace(ctx, { user }, server.organizationId, { title });
  const remote = `${server.url.replace('://', `://bench:${server.token}@`)}/git/${space.space.id}.git`;
  await git(process.env, ['--git-dir', source.gitDir, 'push', '--quiet', remote, `+${source.head}:refs/heads/main`]);
  const site = await createSite(ctx, { user }, server.organizationId, { title, visibility: 'public', spaces: [space.space.id] });
  await ctx.jobs.idle();
  return site.site.id;
}

/** exportSite as `quire site export` runs it: a container of its own on the data dir, nothing in memory. */
async function freshExport(siteId: string, dir: string, profileFile?: string): Promise<{ ms: number; openMs: number; result: ExportResult }> {
  const opened = performance.now();
  const container = await createContainer(loadConfig({}, { dataDir: server.container.config.dataDir, logLevel: 'silent', publicUrl: 'http://bench.local' }));
  try {
    // Its one CPU thread (on 2 cores) started, and its tasks' modules loaded, before the clock.
    await container.ctx.cpu.run('extractLinks', []);
    const openMs = performance.now() - opened;
    const profiler = profileFile ? await startProfiler() : undefined;
    const started = performance.now();
    const result = await exportSite(container.ctx, siteId, dir);
    const ms = performance.now() - started;
    await profiler?.stop(profileFile!);
    return { ms, openMs, result };
  } finally {
    await container.close();
  }
}

/** `quire site export` of the build in a process of its own (logging at warn, as a script would run it). */
async function commandExport(siteId: string, dir: string): Promise<number> {
  const started = performance.now();
  await run(process.execPath, [MAIN, 'site', 'export', siteId, dir], {
    env: { ...process.env, QUIRE_DATA_DIR: server.container.config.dataDir, QUIRE_LOG_LEVEL: 'warn', DATABASE_URL: '', REDIS_URL: '' },
  });
  return performance.now() - started;
}

async function serverExport(context: Context, siteId: string, dir: string, profileFile?: string): Promise<{ ms: number; result: ExportResult }> {
  const profiler = profileFile ? await startProfiler() : undefined;
  const started = performance.now();
  const result = await exportSite(context, siteId, dir);
  const ms = performance.now() - started;
  await profiler?.stop(profileFile!);
  return { ms, result };
}

async function hugo(project: string, dir: string): Promise<number> {
  const started = performance.now();
  await run('hugo', ['--quiet', '--source', project, '--destination', dir]);
  return performance.now() - started;
}

try {
  await fs.access(MAIN).catch(() => {
    throw new Error('bench: dist/src/main.js is missing; run `npm run build` first');
  });
  const hugoVersion = await promisify(execFile)('hugo', ['version']).then(
    ({ stdout }) => stdout.trim().split(' ')[1] ?? stdout.trim(),
    () => {
      throw new Error('bench: no `hugo` on the PATH (DEBIAN_FRONTEND=noninteractive apt-get install -y hugo)');
    },
  );
  // The pages and files of the site, as Quire's tree has them, from a space of their own (never exported).
  const setupSite = await publishedSite('Export setup');
  const tree = await readPublishedSite(ctx, {}, server.organizationId, setupSite);
  const spaces = await publishedSpaces(ctx, tree);
  const pagePaths = spaces.flatMap((space) => documentPages(space.content.revision.pages).map((page) => page.gitPath));
  const filePaths = spaces.flatMap((space) => space.content.files.map((file) => file.gitPath));
  const project = await hugoProject(path.join(work, 'hugo'), source.gitDir, source.head, source.name, pagePaths, filePaths);
  const projectDir = path.join(work, 'hugo', 'project');
  const loadBefore = os.loadavg()[0];

  const commands: number[] = [];
  const exports: number[] = [];
  const inServer: number[] = [];
  const hugos: number[] = [];
  let quireResult: ExportResult | undefined;
  let quireWrote = { files: 0, html: 0, bytes: 0 };
  let hugoWrote = { files: 0, html: 0, bytes: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    const siteId = await publishedSite(`Export ${round}`);
    const exportDir = path.join(work, `export-${round}`);
    const serverDir = path.join(work, `server-${round}`);
    const commandDir = path.join(work, `command-${round}`);
    const hugoDir = path.join(work, `hugo-${round}`);
    const profileFile = (name: string) => (process.env.PROFILE ? path.resolve(process.env.PROFILE, `${name}-${round + 1}.cpuprofile`) : undefined);
    let openMs = 0;
    const quire = async () => {
      commands.push(await commandExport(siteId, commandDir));
      const fresh = await freshExport(siteId, exportDir, profileFile('export'));
      exports.push(fresh.ms);
      openMs = fresh.openMs;
      quireResult = fresh.result;
      inServer.push((await serverExport(ctx, siteId, serverDir, profileFile('server'))).ms);
    };
    const baseline = async () => {
      hugos.push(await hugo(projectDir, hugoDir));
    };
    // Alternating: Quire first in even rounds, Hugo first in odd ones.
    for (const step of round % 2 === 0 ? [quire, baseline] : [baseline, quire]) await step();
    quireWrote = await written(exportDir);
    hugoWrote = await written(hugoDir);
    process.stdout.write(
      `round ${round + 1}: command ${(commands[round] / 1000).toFixed(2)} s, export ${(exports[round] / 1000).toFixed(2)} s (container opened in ${(openMs / 1000).toFixed(2)} s, not counted), in the server ${(inServer[round] / 1000).toFixed(2)} s, hugo ${(hugos[round] / 1000).toFixed(2)} s\n`,
    );
    for (const dir of [commandDir, exportDir, serverDir, hugoDir]) await fs.rm(dir, { recursive: true, force: true });
  }
  const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
  console.log(`machine: ${machine()}; load average ${loadBefore.toFixed(1)} before the rounds, ${os.loadavg()[0].toFixed(1)} after; hugo ${hugoVersion}`);
  console.log(`repository: ${source.name} (${source.blobs.length} files${source.filledBlobs ? `, ${source.filledBlobs} missing blobs filled` : ''}); medians of ${ROUNDS} rounds`);
  console.log(`quire wrote: ${quireResult?.pages} pages, ${quireResult?.files} files of the space; ${quireWrote.files} files in all (${quireWrote.html} .html), ${mb(quireWrote.bytes)}`);
  console.log(`hugo wrote:  from ${project.pages} pages' markdown and ${project.files} static files; ${hugoWrote.files} files in all (${hugoWrote.html} .html), ${mb(hugoWrote.bytes)}`);
  console.log(`quire site export (the build, own process):      ${(median(commands) / 1000).toFixed(2)} s`);
  console.log(`export (own container in this process):          ${(median(exports) / 1000).toFixed(2)} s`);
  console.log(`export in the serving process (revision warm):   ${(median(inServer) / 1000).toFixed(2)} s`);
  console.log(`hugo --quiet --destination <dir>:                ${(median(hugos) / 1000).toFixed(2)} s`);
  const ratio = (times: number[]) => (median(times) / median(hugos)).toFixed(2);
  console.log(`ratio quire site export / hugo: ${ratio(commands)} (target <= ${TARGET}); own container: ${ratio(exports)}; in the server: ${ratio(inServer)}`);
} finally {
  await server.close();
  await source.dispose();
  await fs.rm(work, { recursive: true, force: true });
}
