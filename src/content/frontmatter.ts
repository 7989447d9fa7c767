/**
 * Front matter of markdown files (docs/git-format.md "A page file"): split and parsed with gray-matter using
 * js-yaml 4 with the CORE schema (so `2024-01-01` stays a string and `yes` stays a string: YAML 1.2 rules), written
 * back with js-yaml's `dump`, unknown keys kept in their order.
 *
 * Only a first line that is exactly `---` opens front matter, and the block must be closed by a line that is exactly
 * `---`. gray-matter's other languages (`---js` would be eval'ed by its JavaScript engine) are never reached: a
 * first line such as `---js` does not open front matter here, and the non-YAML engines are replaced by ones that
 * refuse.
 */
import matter from 'gray-matter';
import yaml from 'js-yaml';
import type { ContentProblem } from './model.js';

export interface FrontMatter {
  /** The parsed mapping ({} when the file has none). Keys in the order written. */
  data: Record<string, unknown>;
  /** True when the file opens with a `---` block. */
  present: boolean;
  /** The text after the closing `---` line (the whole text, BOM removed, when there is no front matter). */
  body: string;
  /** 1-based line of the first body line in the file. */
  bodyLine: number;
  /** The YAML text between the delimiters, as written. */
  yamlText: string;
}

export type FrontMatterResult = { ok: true; value: FrontMatter } | { ok: false; problem: ContentProblem };

class NotAMapping extends Error {
  constructor(readonly found: string) {
    super(`front matter must be a mapping of keys to values, found ${found}`);
  }
}

class TooLarge extends Error {
  constructor() {
    super(`front matter holds more than ${MAX_VALUES} values (YAML aliases can make a small text huge)`);
  }
}

/** Values a front matter may hold, aliases expanded: kept data is serialized whole later (API, writes). */
export const MAX_VALUES = 10_000;

function countValues(value: unknown, budget: { left: number }): void {
  if (--budget.left < 0) throw new TooLarge();
  if (typeof value === 'object' && value !== null) {
    for (const inner of Array.isArray(value) ? value : Object.values(value)) countValues(inner, budget);
  }
}

function loadYaml(text: string): unknown {
  const value = yaml.load(text, { schema: yaml.CORE_SCHEMA });
  if (value === null || value === undefined) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new NotAMapping(Array.isArray(value) ? 'a list' : `a ${typeof value}`);
  }
  countValues(value, { left: MAX_VALUES });
  return value;
}

/** YAML text for front matter: js-yaml 4 `dump`, keys in insertion order, no anchors, undefined values left out. */
export function dumpYaml(data: unknown): string {
  return yaml.dump(data, { noRefs: true, skipInvalid: true, lineWidth: 80 });
}

const refuse = {
  parse(): never {
    throw new Error('only YAML front matter is supported');
  },
  stringify(): never {
    throw new Error('only YAML front matter is supported');
  },
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- gray-matter's options name the type of what they parse: any YAML.
type Options = matter.GrayMatterOption<string, any>;

const GRAY_MATTER_OPTIONS: Options = {
  language: 'yaml',
  engines: {
    yaml: { parse: (text: string) => loadYaml(text) as object, stringify: (data: object) => dumpYaml(data) },
    javascript: refuse,
    coffee: refuse,
    json: refuse,
    toml: refuse,
  },
};

function firstLineIsDelimiter(text: string): boolean {
  const end = text.indexOf('\n');
  const first = end < 0 ? text : text.slice(0, end);
  return first.replace(/[ \t\r]+$/, '') === '---';
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/** Splits `text` (a markdown file) into front matter and body, and parses the front matter. */
export function parseFrontMatter(text: string, path: string): FrontMatterResult {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (!firstLineIsDelimiter(text)) {
    return { ok: true, value: { data: {}, present: false, body: text, bodyLine: 1, yamlText: '' } };
  }
  // gray-matter closes the block at the first "\n---": it must be a line holding only `---`.
  const close = text.indexOf('\n---', 3);
  if (close < 0) {
    return { ok: false, problem: { path, line: 1, message: 'front matter opened here is never closed by a `---` line' } };
  }
  const closeEnd = text.indexOf('\n', close + 1);
  const closeLine = text.slice(close + 1, closeEnd < 0 ? undefined : closeEnd).replace(/[ \t\r]+$/, '');
  if (closeLine !== '---') {
    return {
      ok: false,
      problem: { path, line: lineAt(text, close + 1), message: 'front matter must be closed by a line holding only `---`' },
    };
  }
  // gray-matter gets the front matter block only: it would otherwise copy and cache-key the whole file.
  const bodyStart = closeEnd < 0 ? text.length : closeEnd + 1;
  let file: matter.GrayMatterFile<string>;
  try {
    file = matter(text.slice(0, bodyStart), GRAY_MATTER_OPTIONS);
  } catch (error) {
    if (error instanceof yaml.YAMLException) {
      // gray-matter hands js-yaml the text after the opening `---` (its first line is the rest of line 1).
      const line = error.mark ? error.mark.line + 1 : undefined;
      return { ok: false, problem: { path, line, message: `front matter is not valid YAML: ${error.reason}` } };
    }
    if (error instanceof NotAMapping || error instanceof TooLarge) return { ok: false, problem: { path, line: 2, message: error.message } };
    return { ok: false, problem: { path, line: 1, message: `front matter: ${(error as Error).message}` } };
  }
  const body = text.slice(bodyStart);
  return {
    ok: true,
    value: {
      data: file.data as Record<string, unknown>,
      present: true,
      body,
      bodyLine: lineAt(text, bodyStart),
      yamlText: file.matter.replace(/^[^\n]*\n/, ''),
    },
  };
}

/**
 * The file line of top-level key `key` in the front matter (for problems); line 2 (the first YAML line) when the
 * key is not found as written.
 */
export function frontMatterKeyLine(frontMatter: FrontMatter, key: string): number {
  const lines = frontMatter.yamlText.split('\n');
  const pattern = new RegExp(`^(?:${escapeRegExp(key)}|"${escapeRegExp(key)}"|'${escapeRegExp(key)}')\\s*:`);
  const index = lines.findIndex((line) => pattern.test(line));
  return index < 0 ? 2 : index + 2;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * A markdown file from front matter and body: `---`, js-yaml `dump` of `data` (keys in their order), `---`, body.
 * No front matter block when `data` is empty. The result ends with a newline.
 */
export function stringifyFrontMatter(data: Record<string, unknown>, body: string): string {
  const file = { content: body, data: {}, language: 'yaml', excerpt: '' };
  return matter.stringify(file, data, GRAY_MATTER_OPTIONS);
}
