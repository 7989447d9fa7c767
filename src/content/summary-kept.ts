/**
 * SUMMARY.md parses kept across builds, and made elsewhere (a worker thread) to be kept: a parse holds for another
 * tree when every path it asked about answers the same there. Apart from the grammar (./summary.ts): what a parse
 * depends on, not how SUMMARY.md reads.
 */
import { parseSummary, type ParsedSummary, type ParseSummaryOptions } from './summary.js';

/**
 * SUMMARY.md parses kept across builds (by a server: the container's cache), by summaryKey: a parse holds for
 * another tree when every path it asked `exists` about answers the same there (a one-page edit leaves them all
 * alone; a 10,000-line SUMMARY.md takes tens of milliseconds to parse).
 */
export interface ParsedSummaryStore {
  get(key: string): KeptSummary | undefined;
  set(key: string, kept: KeptSummary): void;
}

export interface KeptSummary {
  parsed: ParsedSummary;
  /** What `exists` answered, by path. */
  asked: ReadonlyMap<string, boolean>;
  /** The length of the text parsed (what the store weighs it by). */
  length: number;
}

/** The key of a SUMMARY.md parse in a ParsedSummaryStore: its blob and what the parse reads but `exists`. */
export function summaryKey(blobOid: string, options: Pick<ParseSummaryOptions, 'path' | 'root'>): string {
  return `${blobOid}\n${options.path}\n${options.root ?? ''}`;
}

/** A kept parse when it holds for `exists`, else undefined. */
export function keptSummary(store: ParsedSummaryStore | undefined, key: string, exists: (gitPath: string) => boolean): ParsedSummary | undefined {
  const kept = store?.get(key);
  if (!kept) return undefined;
  for (const [gitPath, answer] of kept.asked) if (exists(gitPath) !== answer) return undefined;
  return kept.parsed;
}

/** parseSummary, kept in `store` under `key` with what `exists` answered. */
export function parseAndKeepSummary(store: ParsedSummaryStore | undefined, key: string, text: string, options: ParseSummaryOptions): ParsedSummary {
  if (!store || !options.exists) return parseSummary(text, options);
  const { parsed, asked } = parseRecordingAsked(text, options, options.exists);
  keepSummary(store, key, text, { parsed, asked: [...asked] });
  return parsed;
}

/** A SUMMARY.md to parse somewhere else (a worker thread): `paths`, every markdown file's path, answer `exists`. */
export interface SummaryInput {
  text: string;
  path: string;
  root: string;
  paths: string[];
}

/** A parse made somewhere else, with what it asked `exists` (plain data, to be kept with keepSummary). */
export interface PlainSummaryParse {
  parsed: ParsedSummary;
  asked: Array<[string, boolean]>;
}

/** parseSummary of plain data (see SummaryInput), with what it asked. */
export function parseSummaryInput(input: SummaryInput): PlainSummaryParse {
  const paths = new Set(input.paths);
  const { parsed, asked } = parseRecordingAsked(input.text, { path: input.path, root: input.root }, (gitPath) => paths.has(gitPath));
  return { parsed, asked: [...asked] };
}

/** Keeps a parse of `text` in `store` under `key`. */
export function keepSummary(store: ParsedSummaryStore | undefined, key: string, text: string, parse: PlainSummaryParse): void {
  store?.set(key, { parsed: parse.parsed, asked: new Map(parse.asked), length: text.length });
}

function parseRecordingAsked(text: string, options: ParseSummaryOptions, exists: (gitPath: string) => boolean): { parsed: ParsedSummary; asked: Map<string, boolean> } {
  const asked = new Map<string, boolean>();
  const parsed = parseSummary(text, {
    ...options,
    exists: (gitPath) => {
      const answer = exists(gitPath);
      asked.set(gitPath, answer);
      return answer;
    },
  });
  return { parsed, asked };
}
