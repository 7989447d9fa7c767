import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The module a thread runs: `name` beside the module at `beside` (this file by default), from the TypeScript sources
 * through tsx's loader, from the build as it is.
 */
export function threadEntry(name: string, beside: string = import.meta.url): URL {
  const extension = path.extname(fileURLToPath(beside));
  const entry = new URL(`./${name}${extension}`, beside);
  if (extension !== '.ts') return entry;
  // From sources: register tsx's hooks in the thread, then import the entry (a loader given by `execArgv` does not
  // apply to a thread's entry module).
  const tsx = import.meta.resolve('tsx/esm/api');
  const code = `const { register } = await import(${JSON.stringify(tsx)}); register(); await import(${JSON.stringify(entry.href)});`;
  return new URL(`data:text/javascript,${encodeURIComponent(code)}`);
}
