/**
 * `.quire/manifest.yaml` (docs/git-format.md "The tree", "Ids, dates and history"): ids of things that carry no front matter, in commits Quire
 * makes itself. Lives at the repository root; keys are paths from the repository root.
 *
 *   pages:
 *     README.md: pg_7Hq2LmX9
 *     SUMMARY.md#reference: pg_group1   <- groups and link pages: SUMMARY.md's path, `#`, the page's path
 *   files:
 *     .gitbook/assets/hero.png: fl_3kd9
 */
import yaml from 'js-yaml';
import { dumpYaml } from './frontmatter.js';
import type { ContentProblem } from './model.js';

export const MANIFEST_PATH = '.quire/manifest.yaml';

export interface Manifest {
  /** Page (and reusable content) ids by path. */
  pages: Record<string, string>;
  /** File ids by path. */
  files: Record<string, string>;
}

export interface ParsedManifest {
  manifest: Manifest;
  problems: ContentProblem[];
}

const ID_PATTERN = /^[a-zA-Z0-9_-]+$/;

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Parses the manifest; an empty file is an empty manifest. */
export function parseManifest(text: string, path = MANIFEST_PATH): ParsedManifest {
  const manifest: Manifest = { pages: {}, files: {} };
  const problems: ContentProblem[] = [];
  let data: unknown;
  try {
    data = yaml.load(text, { schema: yaml.CORE_SCHEMA });
  } catch (error) {
    const e = error as yaml.YAMLException;
    problems.push({ path, line: e.mark ? e.mark.line + 1 : undefined, message: `not valid YAML: ${e.reason ?? e.message}` });
    return { manifest, problems };
  }
  if (data === null || data === undefined) return { manifest, problems };
  if (!isMapping(data)) {
    problems.push({ path, line: 1, message: 'the manifest must be a mapping with `pages` and `files`' });
    return { manifest, problems };
  }
  for (const section of ['pages', 'files'] as const) {
    const entries = data[section];
    if (entries === undefined || entries === null) continue;
    if (!isMapping(entries)) {
      problems.push({ path, message: `\`${section}\` must be a mapping of paths to ids` });
      continue;
    }
    for (const [key, id] of Object.entries(entries)) {
      if (typeof id === 'string' && ID_PATTERN.test(id)) manifest[section][key] = id;
      else problems.push({ path, message: `\`${section}\` entry ${key}: the id must be letters, digits, \`_\` or \`-\`` });
    }
  }
  return { manifest, problems };
}

/** The manifest's text: `pages` then `files`, each sorted by path. */
export function serializeManifest(manifest: Manifest): string {
  const sorted = (entries: Record<string, string>): Record<string, string> =>
    Object.fromEntries(Object.entries(entries).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return dumpYaml({ pages: sorted(manifest.pages), files: sorted(manifest.files) });
}
