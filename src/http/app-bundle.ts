/**
 * The app's bundle (app/, built into dist/app by `npm run build`, app/build.mjs): its files and their compressions
 * read once when the server starts, and the page shell that loads them. Nothing of a request reaches the file
 * system: assets are answered from this map.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { projectRoot } from '../project-root.js';

export interface AppAsset {
  body: Buffer;
  type: string;
  /** The same bytes compressed by the build, for browsers that take them (every one does). */
  br: Buffer;
  gzip: Buffer;
}

export interface AppBundle {
  script: string;
  style: string;
  assets: ReadonlyMap<string, AppAsset>;
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

/** The built app, or undefined when it was not built (a checkout where `npm run build` has not run). */
export async function loadAppBundle(): Promise<AppBundle | undefined> {
  const dir = path.join(projectRoot(), 'dist', 'app');
  let manifest: { script: string; style: string; files: string[] };
  try {
    manifest = JSON.parse(await fs.readFile(path.join(dir, 'manifest.json'), 'utf8')) as typeof manifest;
  } catch {
    return undefined;
  }
  const assets = new Map<string, AppAsset>();
  for (const name of manifest.files) {
    const type = TYPES[path.extname(name)];
    if (!type) continue;
    const file = path.join(dir, 'assets', name);
    const [body, br, gzip] = await Promise.all([fs.readFile(file), fs.readFile(`${file}.br`), fs.readFile(`${file}.gz`)]).catch((error: unknown) => {
      throw new Error(`dist/app lacks a file of the app's build (${(error as Error).message}): run npm run build`);
    });
    assets.set(name, { body, type, br, gzip });
  }
  return { script: manifest.script, style: manifest.style, assets };
}

const escapeAttribute = (value: string) => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

/**
 * The one HTML page of the app, whatever its path: the app reads the path and asks the API for the rest. `basePath`:
 * where Quire is served below its origin (QUIRE_PUBLIC_URL's path), for the app's links and API calls.
 */
export function appShell(bundle: AppBundle, basePath: string): string {
  const assets = `${basePath}/app/assets`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>Quire</title>
<link rel="icon" href="${escapeAttribute(basePath)}/favicon.ico">
<link rel="stylesheet" href="${escapeAttribute(`${assets}/${bundle.style}`)}">
<script type="module" src="${escapeAttribute(`${assets}/${bundle.script}`)}"></script>
</head>
<body>
<div id="app" data-base="${escapeAttribute(basePath)}"><p class="boot">Loading Quire…</p></div>
<noscript><p>Quire's app needs JavaScript. Published sites and the API work without it.</p></noscript>
</body>
</html>
`;
}
