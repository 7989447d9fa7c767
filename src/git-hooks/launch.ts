/**
 * How git starts Quire's hook programs. The hook files in a repository are tiny shell scripts
 * (src/store/git/repositories.ts) that exec `"$QUIRE_HOOK_NODE" [--import "$QUIRE_HOOK_IMPORT"] "$QUIRE_HOOK_DIR/<hook>"`;
 * the server sets those variables on the `git receive-pack` it spawns and git hands its environment to hooks.
 *
 * Which program runs is decided here, from this module's own URL: running from the TypeScript sources (tests,
 * `tsx`), the hooks are the `.ts` files next to this one, run by this node with tsx's loader; running from the built
 * output (`dist/src/git-hooks/launch.js`), they are the compiled `.js` files next to it, run by plain node.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { CHANGE_REQUESTS_VARIABLE, MAX_FILE_BYTES_VARIABLE, type ChangeRequestStates } from '../content/validate-push.js';
import { PROJECT_DIRECTORY_VARIABLE } from '../content/project-directory.js';

/** Environment variables the hook scripts and programs read. */
export const HOOK_ENV = {
  node: 'QUIRE_HOOK_NODE',
  import: 'QUIRE_HOOK_IMPORT',
  dir: 'QUIRE_HOOK_DIR',
  extension: 'QUIRE_HOOK_EXT',
  maxFileBytes: MAX_FILE_BYTES_VARIABLE,
} as const;

export interface HookSettings {
  /** Largest file a push may add, in bytes. */
  maxFileBytes: number;
  /** The space's change requests: which branch numbers exist and which are closed. */
  changeRequests?: ChangeRequestStates;
  /** The space's project directory ('' or absent: the repository's root): the content checks look only there. */
  projectDirectory?: string;
}

interface Launch {
  node: string;
  /** A module node preloads (`--import`): tsx's loader from sources; empty from the build. */
  preload: string;
  dir: string;
  extension: string;
}

let launch: Launch | undefined;

function detectLaunch(): Launch {
  const self = fileURLToPath(import.meta.url);
  const extension = path.extname(self);
  const fromSources = extension === '.ts';
  return {
    node: process.execPath,
    // Resolved here, not by name in the hook: the hook runs with the repository as its working directory.
    preload: fromSources ? pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href : '',
    dir: path.dirname(self),
    extension,
  };
}

/** The variables to set on a `git receive-pack` so that its hooks run Quire's programs with these settings. */
export function hookEnvironment(settings: HookSettings): Record<string, string> {
  launch ??= detectLaunch();
  return {
    [HOOK_ENV.node]: launch.node,
    [HOOK_ENV.import]: launch.preload,
    [HOOK_ENV.dir]: launch.dir,
    [HOOK_ENV.extension]: launch.extension,
    [HOOK_ENV.maxFileBytes]: String(settings.maxFileBytes),
    ...(settings.changeRequests ? { [CHANGE_REQUESTS_VARIABLE]: JSON.stringify(settings.changeRequests) } : {}),
    ...(settings.projectDirectory ? { [PROJECT_DIRECTORY_VARIABLE]: settings.projectDirectory } : {}),
  };
}
