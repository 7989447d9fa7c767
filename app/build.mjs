/**
 * Bundles the app (app/src) into dist/app: one script and one stylesheet, named by their content's hash so that the
 * server can cache them for a year, each beside its brotli (`.br`) and gzip (`.gz`) compression, and manifest.json
 * naming them for the server's page shell. Run by `npm run build` (so by `npm install`, through `prepare`).
 * Compressed here, at the strongest levels, once: at every server's start they took a second of its event loop.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const out = path.join(root, 'dist', 'app');
fs.rmSync(out, { recursive: true, force: true });

const result = await esbuild.build({
  entryPoints: { app: path.join(root, 'app', 'src', 'main.tsx') },
  bundle: true,
  minify: true,
  format: 'esm',
  target: ['es2022'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  outdir: path.join(out, 'assets'),
  entryNames: '[name]-[hash]',
  assetNames: '[name]-[hash]',
  sourcemap: 'linked',
  metafile: true,
  legalComments: 'none',
  logLevel: 'warning',
});

const outputs = Object.keys(result.metafile.outputs).map((file) => path.basename(file));
const script = outputs.find((name) => name.startsWith('app-') && name.endsWith('.js'));
const style = outputs.find((name) => name.startsWith('app-') && name.endsWith('.css'));
if (!script || !style) throw new Error(`the app bundle lacks its script or stylesheet: ${outputs.join(', ')}`);
for (const name of outputs) {
  const file = path.join(out, 'assets', name);
  const body = fs.readFileSync(file);
  fs.writeFileSync(`${file}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  fs.writeFileSync(`${file}.gz`, gzipSync(body, { level: 9 }));
}
fs.writeFileSync(path.join(out, 'manifest.json'), `${JSON.stringify({ script, style, files: outputs }, null, 2)}\n`);
