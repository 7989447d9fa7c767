/**
 * lowlight and highlight.js's grammars, as the one module Quire's code imports them from. `npm run build` bundles this
 * file with them into one (esbuild, package.json `build`), and so does a thread started from the sources
 * (src/cpu/thread-entry.ts): lowlight's `all` is some 190 grammar modules, and resolving and loading them one by one
 * took about a quarter of a second of every process and CPU pool thread that renders pages; loaded as one file, a
 * tenth of a second.
 */
export { all, common, createLowlight } from 'lowlight';
