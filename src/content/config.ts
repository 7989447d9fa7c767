/**
 * `.gitbook.yaml` (root, structure.readme, structure.summary, redirects) and `.gitbook/vars.yaml` (revision
 * variables), docs/git-format.md "The tree".
 *
 * `.gitbook.yaml` is read as the hosted platform writes and tolerates it: an empty file is the defaults; invisible
 * characters around keys and values (U+200B, U+FEFF, seen in synced repositories as `\u200Bstructure:`) are not
 * part of them; `root` may be written with or without `./` and a trailing `/`. Only what Quire cannot read is an
 * error: YAML that does not parse, and a path that leaves the repository. A value of the wrong shape is a warning
 * (the default is used in its place).
 */
import yaml from 'js-yaml';
import type { ContentProblem } from './model.js';
import { normalizePath } from './paths.js';

export const CONFIG_PATH = '.gitbook.yaml';

export interface GitbookConfig {
  /** Content root: '' or a folder prefix ending with '/' (`./docs/` -> `docs/`). */
  root: string;
  /** The first page, relative to the root (default README.md). */
  readme: string;
  /** The table of contents, relative to the root (default SUMMARY.md). */
  summary: string;
  /** `redirects` as written (old path -> target file or URL), in order; resolved by the revision builder. */
  redirects: Record<string, string>;
  /** The line of each redirect (problems name it). */
  redirectLines: Record<string, number | undefined>;
}

export const DEFAULT_CONFIG: Readonly<GitbookConfig> = Object.freeze({
  root: '',
  readme: 'README.md',
  summary: 'SUMMARY.md',
  redirects: {},
  redirectLines: {},
});

/** Zero-width and byte-order-mark characters: invisible, never meant as part of a key or a value. */
const INVISIBLE = /[\u200B-\u200D\u2060\uFEFF]/g;

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function keyLine(text: string, key: string): number | undefined {
  const lines = text.split(/\r?\n/);
  const index = lines.findIndex((line) => new RegExp(`^\\s*["']?${key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}["']?\\s*:`).test(line));
  return index < 0 ? undefined : index + 1;
}

function loadYaml(text: string, path: string, schema: yaml.Schema, problems: ContentProblem[]): unknown {
  try {
    return yaml.load(text, { schema });
  } catch (error) {
    const e = error as yaml.YAMLException;
    problems.push({ path, line: e.mark ? e.mark.line + 1 : undefined, message: `not valid YAML: ${e.reason ?? e.message}` });
    return undefined;
  }
}

/**
 * Parses `.gitbook.yaml` (see the rules at the top of this file); the config holds the defaults wherever the file
 * gives nothing usable.
 */
export function parseGitbookConfig(text: string, path = CONFIG_PATH): { config: GitbookConfig; problems: ContentProblem[] } {
  const problems: ContentProblem[] = [];
  const warn = (line: number | undefined, message: string): void => void problems.push({ path, line, message, severity: 'warning' });
  const config: GitbookConfig = { ...DEFAULT_CONFIG, redirects: {}, redirectLines: {} };
  text = text.replace(INVISIBLE, '');
  const data = loadYaml(text, path, yaml.CORE_SCHEMA, problems);
  if (data === undefined || data === null) return { config, problems };
  if (!isMapping(data)) {
    warn(1, 'must be a mapping (root, structure, redirects): the defaults are used');
    return { config, problems };
  }
  const folder = (value: unknown, key: string): string | undefined => {
    if (typeof value !== 'string') {
      warn(keyLine(text, key), `\`${key}\` must be a path: the default is used`);
      return undefined;
    }
    const normalized = normalizePath(value.trim());
    if (normalized === undefined) {
      problems.push({ path, line: keyLine(text, key), message: `\`${key}\` ${value} points outside the repository` });
      return undefined;
    }
    return normalized;
  };
  if (data.root !== undefined && data.root !== null) {
    const root = folder(data.root, 'root');
    if (root !== undefined) config.root = root === '' ? '' : `${root}/`;
  }
  const structure = data.structure;
  if (structure !== undefined && structure !== null) {
    if (!isMapping(structure)) warn(keyLine(text, 'structure'), '`structure` must be a mapping (readme, summary): the defaults are used');
    else {
      for (const key of ['readme', 'summary'] as const) {
        if (structure[key] === undefined || structure[key] === null) continue;
        const file = folder(structure[key], key);
        if (file === '') warn(keyLine(text, key), `\`structure.${key}\` must name a file: the default is used`);
        else if (file !== undefined) config[key] = file;
      }
    }
  }
  const redirects = data.redirects;
  if (redirects !== undefined && redirects !== null) {
    if (!isMapping(redirects)) warn(keyLine(text, 'redirects'), '`redirects` must be a mapping of paths to targets: ignored');
    else {
      for (const [from, to] of Object.entries(redirects)) {
        const line = keyLine(text, from);
        if (typeof to === 'string' && to.trim() !== '') {
          config.redirects[from] = to.trim();
          config.redirectLines[from] = line;
        } else warn(line, `redirect ${from} must point at a page or a URL: ignored`);
      }
    }
  }
  return { config, problems };
}

/**
 * Parses `.gitbook/vars.yaml`: a mapping of names to strings. Read with YAML's failsafe schema, so every scalar
 * stays exactly as written (`3.10` is "3.10", `true` is "true"); an empty value is ''. Lists and mappings are
 * problems.
 */
export function parseVariables(text: string, path: string): { variables: Record<string, string>; problems: ContentProblem[] } {
  const problems: ContentProblem[] = [];
  const variables: Record<string, string> = {};
  const data = loadYaml(text, path, yaml.FAILSAFE_SCHEMA, problems);
  if (data === undefined || data === null) return { variables, problems };
  if (!isMapping(data)) {
    problems.push({ path, line: 1, message: 'must be a mapping of variable names to strings: ignored', severity: 'warning' });
    return { variables, problems };
  }
  for (const [name, value] of Object.entries(data)) {
    if (typeof value === 'string') variables[name] = value;
    else if (value === null) variables[name] = '';
    else {
      const found = Array.isArray(value) ? 'list' : 'mapping';
      problems.push({ path, line: keyLine(text, name), message: `variable ${name} must be a string, found a ${found}: ignored`, severity: 'warning' });
    }
  }
  return { variables, problems };
}

/** `.gitbook/vars.yaml` text for a variables map (keys in the order given). */
export function serializeVariables(variables: Record<string, string>): string {
  return Object.keys(variables).length === 0 ? '{}\n' : yaml.dump(variables, { lineWidth: 80 });
}
