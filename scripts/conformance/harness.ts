/**
 * The conformance harness: proves that repositories push into Quire and read as they are.
 *
 * One temporary `quire serve` (SQLite in a temp data dir, in-process jobs, a free port of 127.0.0.1) and, for each
 * repository, in order:
 *   space      a fresh space through the API
 *   push       HEAD to refs/heads/main over Quire's git HTTP (the token as Basic password), forced: a new space
 *              has a first commit of its own, which the repository's history replaces
 *   revision   the space's revision is the pushed commit
 *   firstRead  GET .../content, the first read after the push (its time is what a person waits)
 *   clone      clone back: the same commit ids (the whole `rev-list`)
 *   pages      every page read by id and by path (each answers the page itself)
 *   summary    the pages against SUMMARY.md, parsed here independently (./summary.ts): the distinct `.md` targets
 *              are the document pages, with SUMMARY's link text as titles; groups, URL items and computed blocks;
 *              without SUMMARY.md every `.md` outside dot-folders is a page
 *   links      GET .../content/page/{id}/links answers 200 for every document page
 *   search     a space search for the rarest word of a page title finds that page (waited for: indexing is a job);
 *              the organization search (ranked from term lists) too, among the space's best 10, when at most 10
 *              titles have a word starting with it (title matches rank first)
 *   files      the paged file list holds every blob under `.gitbook/assets/`
 *   site       the space published as a public site and crawled as a reader's browser would (./crawl.ts): every
 *              page, image and file it reaches answers 200, no link lands on a page's `.md` twin; links the site
 *              marks as broken (nothing at their target in the source either) are counted, not followed
 *   edit       clone, change one page body, push: the API shows the new revision and the new text
 * Any answer that is not 2xx is a failure named with its URL and status. Sources are never written to.
 *
 * It lives under scripts/, not src/: it is a client of Quire (a git client, a process that starts `quire serve`),
 * not a layer of it; src/ keeps git processes under src/store/git and is what the build ships.
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import PQueue from 'p-queue';
import { runQuire, startServer, type ServerProcess } from '../../test/helpers/cli.js';
import { isolatedGitEnv, spaceRemote } from '../../test/helpers/git.js';
import { Api, ServerErrors, encodePath, type ApiFile, type ApiPage, type ApiRevision } from './api.js';
import { git, openSource, type SourceRepository } from './source.js';
import { crawlSite } from './crawl.js';
import { layoutOf, pagesWithoutSummary, parseExpectedSummary, type ExpectedSummary } from './summary.js';

export const STEPS = ['space', 'push', 'revision', 'firstRead', 'clone', 'pages', 'summary', 'links', 'search', 'files', 'site', 'edit'] as const;
export type Step = (typeof STEPS)[number];

export interface RepositoryResult {
  name: string;
  source: string;
  status: 'PASS' | 'FAIL';
  spaceId?: string;
  /** The pushed commit. */
  commit?: string;
  commits?: number;
  merges?: number;
  /** Document pages Quire shows, and those SUMMARY.md (or the tree) gives. */
  pages?: number;
  expectedPages?: number;
  /** All pages Quire shows (groups, links and computed pages included). */
  allPages?: number;
  files?: number;
  /** What the crawl of the published site reached, and how much of it failed. */
  site?: { pages: number; images: number; files: number; markedBroken: number; failed: number };
  /** `remote: warning:` lines of the push. */
  warnings: string[];
  /** Facts worth knowing that are not failures (SUMMARY items pointing at missing files...). */
  notes: string[];
  /** Milliseconds per step. */
  timings: Partial<Record<Step, number>>;
  /** One line per failing step: its first problem, and how many more. */
  failures: string[];
  /** Every problem found, per step (at most 50 each). */
  problems: Partial<Record<Step, string[]>>;
}

export interface ConformanceOptions {
  /** How long the search step waits for the page to be found (default 60 s). */
  searchTimeoutMs?: number;
  /** Requests in flight during the pages and links steps (default 4). */
  concurrency?: number;
  /** Called when a repository is done (the CLI prints its line there). */
  onResult?: (result: RepositoryResult) => void;
  /** Called with a short text as steps start (the CLI's progress line). */
  onProgress?: (text: string) => void;
  /** Keep the temporary data dir (its path is given to onProgress at the end). */
  keepData?: boolean;
  /** Repositories checked at the same time (default 1: each one's timings are its own). */
  parallel?: number;
  /** Push a copy with placeholders of a repository that lacks objects (see openSource). */
  fillMissing?: boolean;
}

const PROBLEMS_KEPT = 50;

/** A running temporary server and what the harness needs of it. */
interface Harness {
  server: ServerProcess;
  api: Api;
  token: string;
  organizationId: string;
  gitEnv: NodeJS.ProcessEnv;
}

/** Starts the server, runs every repository, stops the server; the results in order. */
export async function runConformance(inputs: readonly string[], options: ConformanceOptions = {}): Promise<RepositoryResult[]> {
  const progress = options.onProgress ?? (() => undefined);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-conformance-'));
  const gitEnv = await isolatedGitEnv();
  try {
    return await withServer(dataDir, progress, (server, api, token, organizationId) =>
      checkAll({ server, api, token, organizationId, gitEnv }, inputs, options, progress),
    );
  } finally {
    await fs.rm(gitEnv.HOME!, { recursive: true, force: true });
    if (options.keepData) progress(`data kept in ${dataDir}`);
    else await fs.rm(dataDir, { recursive: true, force: true });
  }
}

/** Bootstraps a data dir, starts `quire serve` on it, runs `work`, stops the server. */
async function withServer<T>(
  dataDir: string,
  progress: (text: string) => void,
  work: (server: ServerProcess, api: Api, token: string, organizationId: string) => Promise<T>,
): Promise<T> {
  const env = { QUIRE_DATA_DIR: dataDir, DATABASE_URL: '', REDIS_URL: '' };
  progress('starting quire serve');
  const bootstrap = await runQuire(['admin', 'bootstrap', '--init', '--email', 'conformance@example.com', '--org', 'Conformance'], env);
  if (bootstrap.code !== 0) throw new Error(`quire admin bootstrap failed (${bootstrap.code}): ${bootstrap.stderr}`);
  const { token, organization } = JSON.parse(bootstrap.stdout) as { token: string; organization: { id: string } };
  // A loaded machine (tests of other work running) can take far longer than the tests' 20 s to start it.
  const server = await startServer(env, { startTimeoutMs: 120_000 });
  const serverErrors = new ServerErrors();
  let partial = '';
  server.child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop()!;
    for (const line of lines) {
      if (!line.startsWith('{')) continue;
      try {
        const entry = JSON.parse(line) as { level?: number; err?: string | { message?: string }; msg?: string };
        const cause = typeof entry.err === 'string' ? entry.err : entry.err?.message;
        if ((entry.level ?? 0) >= 50) serverErrors.record(cause ?? entry.msg ?? line);
      } catch {
        // not a log line
      }
    }
  });
  try {
    return await work(server, new Api(server.url, token, serverErrors), token, organization.id);
  } finally {
    await server.stop().catch(() => server.child.kill('SIGKILL'));
  }
}

async function checkAll(harness: Harness, inputs: readonly string[], options: ConformanceOptions, progress: (text: string) => void): Promise<RepositoryResult[]> {
  const results: RepositoryResult[] = [];
  const queue = new PQueue({ concurrency: options.parallel ?? 1 });
  await queue.addAll(
    inputs.map((input, index) => async () => {
      const result = await runRepository(harness, input, options, (text) => progress(`[${index + 1}/${inputs.length}] ${text}`));
      results[index] = result;
      options.onResult?.(result);
    }),
  );
  return results;
}

/** The pages of a revision's tree, depth first, in order. */
export function flattenPages(pages: readonly ApiPage[]): ApiPage[] {
  return pages.flatMap((page) => [page, ...flattenPages(page.pages ?? [])]);
}

class Run {
  readonly result: RepositoryResult;

  constructor(
    name: string,
    source: string,
    private readonly progress: (text: string) => void,
  ) {
    this.result = { name, source, status: 'PASS', warnings: [], notes: [], timings: {}, failures: [], problems: {} };
  }

  problem(step: Step, message: string): void {
    const list = (this.result.problems[step] ??= []);
    if (list.length < PROBLEMS_KEPT) list.push(message);
    else if (list.length === PROBLEMS_KEPT) list.push('...');
    this.counts.set(step, (this.counts.get(step) ?? 0) + 1);
  }

  private readonly counts = new Map<Step, number>();

  /** Runs one step, timed; a thrown error is the step's problem and gives undefined. */
  async step<T>(step: Step, work: () => Promise<T>): Promise<T | undefined> {
    this.progress(`${this.result.name}: ${step}`);
    const started = performance.now();
    try {
      return await work();
    } catch (error) {
      this.problem(step, (error as Error).message);
      return undefined;
    } finally {
      this.result.timings[step] = Math.round(performance.now() - started);
    }
  }

  finish(): RepositoryResult {
    for (const step of STEPS) {
      const list = this.result.problems[step];
      if (!list?.length) continue;
      const more = (this.counts.get(step) ?? 1) - 1;
      this.result.failures.push(`${step}: ${list[0]}${more > 0 ? ` (and ${more} more)` : ''}`);
    }
    this.result.status = this.result.failures.length ? 'FAIL' : 'PASS';
    return this.result;
  }
}

async function runRepository(harness: Harness, input: string, options: ConformanceOptions, progress: (text: string) => void): Promise<RepositoryResult> {
  const { api, gitEnv } = harness;
  let source: SourceRepository;
  try {
    source = await openSource(input, gitEnv, { fillMissing: options.fillMissing });
  } catch (error) {
    const run = new Run(input, input, progress);
    run.problem('space', `cannot read the repository: ${(error as Error).message}`);
    return run.finish();
  }
  const run = new Run(source.name, input, progress);
  const result = run.result;
  Object.assign(result, { commit: source.head, commits: source.commits, merges: source.merges });
  if (source.filledBlobs) result.notes.push(`${source.filledBlobs} missing blobs replaced by placeholders: the history pushed is a copy, with other commit ids`);
  const clone = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-conformance-clone-'));
  try {
    const space = await run.step('space', () => api.request<{ id: string }>('POST', `/v1/orgs/${harness.organizationId}/spaces`, { title: source.name }));
    if (!space) return run.finish();
    result.spaceId = space.id;
    const remote = spaceRemote(harness.server.url, harness.token, space.id);
    const base = `/v1/spaces/${space.id}`;

    const pushed = await run.step('push', async () => {
      try {
        const { stderr } = await git(gitEnv, ['--git-dir', source.gitDir, 'push', '--no-progress', remote, `+${source.head}:refs/heads/main`]);
        result.warnings = stderr.split('\n').filter((line) => /^remote: warning:/i.test(line));
        return true;
      } catch (error) {
        // Quire's reasons are the `remote:` lines; git's own wrapping says nothing more.
        const said = (error as Error).message.split(' / ').filter((part) => part.includes('remote:'));
        const reasons = said.map((part) => part.slice(part.indexOf('remote:') + 'remote:'.length).trim()).filter((reason) => reason !== '' && !reason.endsWith(':'));
        throw new Error(reasons.length ? `refused: ${reasons.join('; ')}` : (error as Error).message, { cause: error });
      }
    });
    if (!pushed) return run.finish();

    await run.step('revision', async () => {
      const row = await api.get<{ revision?: string }>(base);
      if (row.revision !== source.head) run.problem('revision', `the space's revision is ${row.revision}, the pushed commit ${source.head}`);
    });

    const content = await run.step('firstRead', async () => {
      const revision = await api.get<ApiRevision>(`${base}/content`);
      if (revision.id !== source.head) run.problem('firstRead', `GET ${base}/content answers revision ${revision.id}, the pushed commit is ${source.head}`);
      return revision;
    });

    await run.step('clone', async () => {
      await git(gitEnv, ['clone', '--quiet', remote, clone]);
      const [theirs, ours] = await Promise.all([
        git(gitEnv, ['--git-dir', source.gitDir, 'rev-list', source.head]),
        git(gitEnv, ['rev-list', 'HEAD'], clone),
      ]);
      if (theirs.stdout !== ours.stdout) {
        const a = theirs.stdout.split('\n');
        const b = ours.stdout.split('\n');
        run.problem('clone', `the clone's history differs: ${b.length - 1} commits from ${b[0]}, pushed ${a.length - 1} from ${a[0]}`);
      }
    });
    if (!content) return run.finish();

    const pages = flattenPages(content.pages);
    const documents = pages.filter((page) => page.type === 'document');
    result.allPages = pages.length;
    result.pages = documents.length;

    await run.step('pages', () => readEveryPage(api, base, pages, run, options.concurrency ?? 4));
    await run.step('summary', () => compareWithSummary(source, pages, run));
    await run.step('links', async () => {
      const queue = new PQueue({ concurrency: options.concurrency ?? 4 });
      await queue.addAll(
        documents.map((page) => async () => {
          await api.get(`${base}/content/page/${encodeURIComponent(page.id)}/links`).catch((error: Error) => run.problem('links', error.message));
        }),
      );
    });
    await run.step('search', () => searchFindsAPage(api, base, documents, run, options.searchTimeoutMs ?? 60_000, { organizationId: harness.organizationId, spaceId: space.id }));
    await run.step('files', async () => {
      const files = await api.all<ApiFile>(`${base}/content/files`);
      result.files = files.length;
      if (files.length !== content.files.length) run.problem('files', `the list has ${files.length} files, the revision ${content.files.length}`);
      const listed = new Set(files.map((file) => file.git?.path));
      const assets = layoutOf(await source.readText('.gitbook.yaml')).root + '.gitbook/assets/';
      for (const blob of source.blobs) {
        if (blob.path.startsWith(assets) && !listed.has(blob.path)) run.problem('files', `${blob.path} is not in the file list`);
      }
    });
    await run.step('site', async () => {
      const site = await api.request<{ urls: { published: string } }>('POST', `/v1/orgs/${harness.organizationId}/sites`, { title: source.name, visibility: 'public', spaces: [space.id] });
      const crawl = await crawlSite(`${harness.server.url}${new URL(site.urls.published).pathname}`, options.concurrency ?? 4);
      result.site = { pages: crawl.pages, images: crawl.images, files: crawl.files, markedBroken: crawl.markedBroken, failed: crawl.failures.length };
      for (const failure of crawl.failures) run.problem('site', `${failure.url}: ${failure.status} (on ${failure.from})`);
    });
    await run.step('edit', () => editRoundTrip(api, base, clone, gitEnv, documents, run));
    return run.finish();
  } finally {
    await fs.rm(clone, { recursive: true, force: true });
    await source.dispose();
  }
}

async function readEveryPage(api: Api, base: string, pages: readonly ApiPage[], run: Run, concurrency: number): Promise<void> {
  const queue = new PQueue({ concurrency });
  const reads: (() => Promise<void>)[] = [];
  for (const page of pages) {
    reads.push(async () => {
      const read = await api.get<ApiPage>(`${base}/content/page/${encodeURIComponent(page.id)}`).catch((error: Error) => void run.problem('pages', error.message));
      // A list read while the history was still being computed shows provisional ids; such an id keeps finding its
      // page, which answers with its final id: the same page (same path) is right, another page is not.
      if (read && read.id !== page.id && read.path !== page.path) {
        run.problem('pages', `GET ${base}/content/page/${page.id} answers page ${read.id} "${read.path}", not "${page.path}"`);
      }
    });
    if (page.path === undefined) continue;
    const byPath = `${base}/content/path/${encodePath(page.path)}`;
    reads.push(async () => {
      const read = await api.get<ApiPage>(byPath).catch((error: Error) => void run.problem('pages', error.message));
      // (An id read provisionally is the same page's with another id once the history is computed: its path tells.)
      if (read && read.id !== page.id && read.path !== page.path) run.problem('pages', `GET ${byPath} answers page ${read.id} "${read.path}", not ${page.id} "${page.path}"`);
    });
  }
  await queue.addAll(reads);
}

/** The document pages against SUMMARY.md (or, without one, against the tree's `.md` files). */
async function compareWithSummary(source: SourceRepository, pages: readonly ApiPage[], run: Run): Promise<void> {
    const layout = layoutOf(await source.readText('.gitbook.yaml'));
    const blobPaths = new Set(source.blobs.map((blob) => blob.path));
    const documents = pages.filter((page) => page.type === 'document');
    const shown = new Map<string, ApiPage[]>();
    for (const page of documents) {
      const key = page.git?.path ?? `(no git path: ${page.id})`;
      shown.set(key, [...(shown.get(key) ?? []), page]);
    }
    for (const [gitPath, same] of shown) {
      if (same.length > 1) run.problem('summary', `${gitPath} is shown as ${same.length} document pages`);
    }
    const summaryText = await source.readText(layout.summaryPath);
    const expectedTitles = new Map<string, string>();
    // Listed files that do not exist: the hosted platform keeps such items; shown as pages or not, both are accepted.
    const listedMissing = new Set<string>();
    let expected: ExpectedSummary | undefined;
    if (summaryText === undefined) {
      for (const gitPath of pagesWithoutSummary([...blobPaths], layout)) expectedTitles.set(gitPath, '');
    } else {
      expected = parseExpectedSummary(summaryText, layout);
      for (const listing of expected.listings) {
        if (expectedTitles.has(listing.gitPath)) continue;
        if (!blobPaths.has(listing.gitPath)) {
          if (listedMissing.has(listing.gitPath)) continue;
          listedMissing.add(listing.gitPath);
          run.result.notes.push(`${layout.summaryPath} line ${listing.line} lists ${listing.gitPath}, which does not exist`);
          continue;
        }
        expectedTitles.set(listing.gitPath, listing.title);
      }
      if (expected.otherTargets.length) run.result.notes.push(`${expected.otherTargets.length} SUMMARY items point at neither a .md file nor a URL: ${expected.otherTargets.slice(0, 3).join(', ')}`);
    }
    run.result.expectedPages = expectedTitles.size;
    const from = summaryText === undefined ? 'the tree' : layout.summaryPath;
    for (const [gitPath, title] of expectedTitles) {
      const page = shown.get(gitPath)?.[0];
      if (!page) run.problem('summary', `${from} has ${gitPath}, not shown as a page`);
      else if (title !== '' && page.title !== title) run.problem('summary', `${gitPath} is titled "${page.title}", ${from} says "${title}"`);
    }
    for (const gitPath of shown.keys()) {
      if (!expectedTitles.has(gitPath) && !listedMissing.has(gitPath)) run.problem('summary', `page ${gitPath} is not in ${from}`);
    }
    if (!expected) return;
    const groups = pages.filter((page) => page.type === 'group').map((page) => page.title);
    if (groups.join('\n') !== expected.groups.join('\n')) {
      const at = groups.findIndex((title, i) => title !== expected!.groups[i]);
      const index = at < 0 ? Math.min(groups.length, expected.groups.length) : at;
      run.problem(
        'summary',
        `${groups.length} groups shown, ${from} has ${expected.groups.length}; group ${index + 1} is ${JSON.stringify(groups[index] ?? null)}, expected ${JSON.stringify(expected.groups[index] ?? null)}`,
      );
    }
    const links = pages.filter((page) => page.type === 'link').length;
    if (links < expected.urlItems) run.problem('summary', `${links} link pages shown, ${from} has ${expected.urlItems} URL items`);
    const computed = pages.filter((page) => page.type === 'computed').length;
    if (computed !== expected.computedItems) run.problem('summary', `${computed} computed pages shown, ${from} has ${expected.computedItems} \`\`\`yaml blocks`);
}

/** Words of a title as search sees them: runs of letters (digits left out: versions and numbers are common). */
function titleWords(title: string): string[] {
  return [...new Set((title.toLowerCase().match(/\p{L}{3,}/gu) ?? []))];
}

async function searchFindsAPage(
  api: Api,
  base: string,
  documents: readonly ApiPage[],
  run: Run,
  timeoutMs: number,
  where: { organizationId: string; spaceId: string },
): Promise<void> {
  const frequency = new Map<string, number>();
  for (const page of documents) for (const word of titleWords(page.title)) frequency.set(word, (frequency.get(word) ?? 0) + 1);
  let best: { page: ApiPage; word: string; count: number } | undefined;
  for (const page of documents) {
    for (const word of titleWords(page.title)) {
      const count = frequency.get(word)!;
      if (!best || count < best.count || (count === best.count && word.length > best.word.length)) best = { page, word, count };
    }
  }
  if (!best) {
    if (documents.length) run.result.notes.push('search: no page title has a word of three letters or more; not checked');
    return;
  }
  const url = `${base}/search?query=${encodeURIComponent(best.word)}&limit=100`;
  const deadline = Date.now() + timeoutMs;
  let found: number;
  for (;;) {
    const list = await api.get<{ items: { id: string }[] }>(url);
    found = list.items.length;
    if (list.items.some((hit) => hit.id === best!.page.id)) break;
    if (Date.now() > deadline) {
      run.problem('search', `GET ${url} did not find page ${best.page.id} "${best.page.title}" within ${timeoutMs / 1000} s (${found} results)`);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  // The organization search: the page is among its space's best 10 when at most 10 titles match (they rank first).
  const titled = documents.filter((page) => titleWords(page.title).some((word) => word.startsWith(best!.word))).length;
  if (titled > 10) {
    run.result.notes.push(`search: ${titled} titles match "${best.word}"; the organization search not checked`);
    return;
  }
  const orgUrl = `/v1/orgs/${where.organizationId}/search?query=${encodeURIComponent(best.word)}`;
  const spaces = await api.get<{ items: { id: string; pages: { id: string }[] }[] }>(orgUrl);
  const pages = spaces.items.find((hit) => hit.id === where.spaceId)?.pages ?? [];
  if (!pages.some((hit) => hit.id === best!.page.id)) run.problem('search', `GET ${orgUrl} did not list page ${best.page.id} "${best.page.title}" among its space's ${pages.length} pages`);
}

async function editRoundTrip(api: Api, base: string, clone: string, gitEnv: NodeJS.ProcessEnv, documents: readonly ApiPage[], run: Run): Promise<void> {
  let page: ApiPage | undefined;
  for (const candidate of documents) {
    if (!candidate.git) continue;
    if (await fs.stat(path.join(clone, candidate.git.path)).then((s) => s.isFile(), () => false)) {
      page = candidate;
      break;
    }
  }
  if (!page) {
    if (documents.length) run.problem('edit', 'no document page has a file in the clone');
    return;
  }
  const marker = `Conformance edit ${Date.now().toString(36)}`;
  const file = path.join(clone, page.git!.path);
  await fs.appendFile(file, `\n${marker}\n`);
  await git(gitEnv, ['add', '--', page.git!.path], clone);
  await git(gitEnv, ['commit', '--quiet', '-m', 'Conformance: edit one page'], clone);
  const commit = (await git(gitEnv, ['rev-parse', 'HEAD'], clone)).stdout.trim();
  await git(gitEnv, ['push', '--quiet', 'origin', 'HEAD:refs/heads/main'], clone);
  const row = await api.get<{ revision?: string }>(base);
  if (row.revision !== commit) run.problem('edit', `after the edit's push the space's revision is ${row.revision}, the pushed commit ${commit}`);
  const read = await api.get<ApiPage>(`${base}/content/page/${encodeURIComponent(page.id)}`);
  if (!read.markdown?.includes(marker)) run.problem('edit', `GET ${base}/content/page/${page.id} (${page.git!.path}) does not show the pushed edit`);
}
