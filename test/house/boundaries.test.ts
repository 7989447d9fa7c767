/**
 * The house's rules check themselves: the dependency rules of .dependency-cruiser.cjs (no import cycles, SQL and git
 * only in src/store, Fastify only in src/http, src/content without the domain, src/cpu without the domain at run
 * time, highlight.js's grammars through the module the build bundles) and ESLint (eslint.config.js) pass over the repository; and the dependency rules do fail on a breach, shown
 * on a small tree made for the purpose. They hold without exceptions: a breach is a refactor to do, not an entry to
 * list.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cruise, type ICruiseOptions, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { ESLint } from 'eslint';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** What the rules cover: the program's code (tests, benchmarks and scripts may reach anywhere). */
const CRUISED = ['src', 'config', 'workers'];

/** The repository's rules, read from its configuration. */
async function rules(): Promise<ICruiseOptions> {
  return extractDepcruiseOptions(path.join(ROOT, '.dependency-cruiser.cjs'));
}

/** Cruises `paths` under `baseDir` with the repository's rules. */
async function cruiseWith(baseDir: string, paths: string[]): Promise<ICruiseResult> {
  const tsConfig = path.join(baseDir, 'tsconfig.json');
  const options: ICruiseOptions = { ...(await rules()), baseDir, tsConfig: { fileName: tsConfig } };
  const result = await cruise(paths, options, {}, { tsConfig: extractTSConfig(tsConfig) });
  return result.output as ICruiseResult;
}

const describeViolation = (v: IViolation): string => `${v.rule.name}: ${v.from} -> ${v.to}${v.cycle ? ` (${v.cycle.map((step) => step.name).join(' -> ')})` : ''}`;
const errors = (result: ICruiseResult) => result.summary.violations.filter((v) => v.rule.severity === 'error');

/** The store's modules a CPU thread may load: its own connection, and the search index's reads it runs there. */
const THREAD_STORE = ['chunks', 'dialect', 'kysely', 'schema', 'search-terms', 'search', 'thread-reads'].map((name) => `src/store/sql/${name}.ts`);

/** The repository's modules `entry` loads at run time (type-only imports vanish), itself included. */
function loadedBy(result: ICruiseResult, entry: string): string[] {
  const modules = new Map(result.modules.map((m) => [m.source, m]));
  const seen = new Set<string>();
  const stack = [entry];
  while (stack.length > 0) {
    const source = stack.pop()!;
    if (seen.has(source)) continue;
    seen.add(source);
    for (const d of modules.get(source)?.dependencies ?? []) if (!d.dependencyTypes.includes('type-only') && !d.coreModule && !d.resolved.includes('node_modules/')) stack.push(d.resolved);
  }
  return [...seen].sort();
}

describe('dependency rules', () => {
  let repository: ICruiseResult;

  beforeAll(async () => {
    repository = await cruiseWith(ROOT, CRUISED);
  }, 120_000);

  it('hold over src, config and workers', () => {
    expect(repository.summary.violations.map(describeViolation), 'breaches of .dependency-cruiser.cjs').toEqual([]);
  });

  it('leave a CPU thread loading no domain module, and of the store only its search reads', () => {
    const loaded = loadedBy(repository, 'src/cpu/worker.ts');
    expect(loaded).toContain('src/cpu/tasks.ts');
    expect(loaded.filter((source) => source.startsWith('src/domain/'))).toEqual([]);
    expect(loaded.filter((source) => source.startsWith('src/store/') && !THREAD_STORE.includes(source))).toEqual([]);
  });

  it('leave an isolated thread (imports) loading no domain module', () => {
    const loaded = loadedBy(repository, 'src/cpu/isolated-worker.ts');
    expect(loaded).toContain('src/content/imports/conversion.ts');
    expect(loaded.filter((source) => source.startsWith('src/domain/'))).toEqual([]);
  });

  describe('on a tree made to break them', () => {
    let dir: string;

    beforeAll(() => {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-boundaries-'));
      // Packages resolve as in the repository (a rule names them by their path under node_modules).
      fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
      fs.writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true }, include: ['src'] }));
      const files: Record<string, string> = {
        // A cycle of types only: a.ts imports b.ts, b.ts names a type of a.ts.
        'src/domain/a.ts': "import { b } from './b.js';\nexport interface A { n: number }\nexport const a = b + 1;\n",
        'src/domain/b.ts': "import type { A } from './a.js';\nexport const b = 1;\nexport type B = A;\n",
        // The content layer reaching into the domain.
        'src/content/page.ts': "import { a } from '../domain/a.js';\nexport const page = a;\n",
        // SQL, git and Fastify outside their rooms.
        'src/domain/rows.ts': "import { sql } from 'kysely';\nexport const rows = sql`select 1`;\n",
        'src/domain/spawn.ts': "import { spawn } from 'node:child_process';\nexport const run = () => spawn('git', ['status']);\n",
        'src/domain/server.ts': "import Fastify from 'fastify';\nexport const server = () => Fastify();\n",
        // CPU tasks loading the domain at run time (a type alone is allowed).
        'src/cpu/tasks.ts': "import { a } from '../domain/a.js';\nimport type { B } from '../domain/b.js';\nexport const tasks = { a: (): B => ({ n: a }) };\n",
        // highlight.js's grammars loaded past the module the build bundles them into (a type alone is allowed).
        'src/content/highlight.ts': "import { common } from 'lowlight';\nimport type { HLJSApi } from 'highlight.js';\nexport const grammars = (api: HLJSApi) => [common, api];\n",
        'src/content/highlight-grammars.ts': "export { all, common, createLowlight } from 'lowlight';\n",
        // The same imports where they belong break nothing.
        'src/store/rows.ts': "import { sql } from 'kysely';\nimport { spawn } from 'node:child_process';\nexport const rows = [sql`select 1`, spawn];\n",
        'src/http/server.ts': "import Fastify from 'fastify';\nexport const server = () => Fastify();\n",
      };
      for (const [file, text] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        fs.writeFileSync(path.join(dir, file), text);
      }
    });

    afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

    it('reports each breach, and only those', { timeout: 60_000 }, async () => {
      const result = await cruiseWith(dir, ['src']);
      const [cycles, others] = [errors(result).filter((v) => v.rule.name === 'no-circular'), errors(result).filter((v) => v.rule.name !== 'no-circular')];
      // The cycle is reported (once, from the edge where dependency-cruiser met it), its type-only edge included.
      expect(cycles.map((v) => [v.from, v.to].sort())).toEqual([['src/domain/a.ts', 'src/domain/b.ts']]);
      expect(others.map((v) => `${v.rule.name}: ${v.from} -> ${v.to.replace(/.*node_modules\/([^/]+)\/.*/, '$1')}`).sort()).toEqual([
        'content-not-domain: src/content/page.ts -> src/domain/a.ts',
        'cpu-not-domain-at-runtime: src/cpu/tasks.ts -> src/domain/a.ts',
        'fastify-only-in-http: src/domain/server.ts -> fastify',
        'git-only-in-store: src/domain/spawn.ts -> child_process',
        'grammars-through-their-bundle: src/content/highlight.ts -> lowlight',
        'sql-only-in-store: src/domain/rows.ts -> kysely',
      ]);
    });
  });
});

describe('ESLint', () => {
  it('finds no error in the repository', { timeout: 300_000 }, async () => {
    // Cached by content (node_modules/.cache): a second run reads only the files that changed.
    const eslint = new ESLint({ cwd: ROOT, cache: true, cacheLocation: path.join(ROOT, 'node_modules/.cache/eslint/'), cacheStrategy: 'content' });
    const results = await eslint.lintFiles(['.']);
    const failing = results.filter((r) => r.errorCount > 0);
    const report = failing.length === 0 ? '' : await (await eslint.loadFormatter('stylish')).format(failing);
    expect(failing.length, report).toBe(0);
  });
});
