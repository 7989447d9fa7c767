import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as Esbuild from 'esbuild';
import { projectRoot } from '../project-root.js';

/**
 * The module a thread runs: `name` beside the module at `beside` (this file by default). From the build, the file as
 * it is. From the TypeScript sources (tests, `tsx`), the entry and the repository's modules it imports bundled into
 * one file by esbuild (the compiler tsx itself runs), its packages imported as they are: a thread that registered tsx's
 * loader instead took about three times the CPU to start (a loader thread of its own, each module resolved and
 * compiled through it), and a test run starts hundreds of threads. The bundle is made once per process and entry,
 * and kept under node_modules/.cache by its content's hash, where the packages it imports resolve as for the sources.
 * The packages that `npm run build` bundles (BUILD_BUNDLED) are bundled here too, for the same reason as there.
 */
export function threadEntry(name: string, beside: string = import.meta.url): URL {
  const extension = path.extname(fileURLToPath(beside));
  const entry = new URL(`./${name}${extension}`, beside);
  if (extension !== '.ts') return entry;
  let bundle = bundles.get(entry.href);
  if (!bundle) bundles.set(entry.href, (bundle = bundleOf(fileURLToPath(entry), name)));
  return bundle;
}

const bundles = new Map<string, URL>();

/**
 * The packages `npm run build` bundles with the one module that imports them (package.json `build`:
 * src/store/sql/kysely.ts, src/content/highlight-grammars.ts), each of many files that are slow to load one by one.
 */
const BUILD_BUNDLED = new Set(['kysely', 'lowlight']);

/**
 * The packages a thread's bundle imports as they are: the project's own dependencies, but BUILD_BUNDLED. (What those
 * import is not a dependency of the project's, so esbuild bundles it with them.)
 */
function externalPackages(): string[] {
  const manifest = JSON.parse(fs.readFileSync(path.join(projectRoot(), 'package.json'), 'utf8')) as Record<string, Record<string, string> | undefined>;
  const names = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies, ...manifest.optionalDependencies }).filter((name) => !BUILD_BUNDLED.has(name));
  return names.flatMap((name) => [name, `${name}/*`]);
}

function bundleOf(file: string, name: string): URL {
  // esbuild is a development dependency: only a run from the sources, which has it, comes here.
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof Esbuild;
  const built = esbuild.buildSync({
    entryPoints: [file],
    bundle: true,
    external: externalPackages(),
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    logLevel: 'silent',
  });
  const text = built.outputFiles[0].text;
  const dir = path.join(projectRoot(), 'node_modules', '.cache', 'quire-threads');
  const target = path.join(dir, `${name}-${createHash('sha256').update(text).digest('hex').slice(0, 16)}.mjs`);
  if (!fs.existsSync(target)) {
    fs.mkdirSync(dir, { recursive: true });
    // Written whole, then renamed into place: a process starting the same bundle meanwhile never reads half of it.
    const partial = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}`;
    fs.writeFileSync(partial, text);
    fs.renameSync(partial, target);
  }
  return pathToFileURL(target);
}
