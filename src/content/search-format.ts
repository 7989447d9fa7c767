/**
 * The search index's formats, as pure code: what the store writes and reads (src/store/sql/search.ts,
 * src/store/sql/search-terms.ts), and what ranking and results read on the event loop or a CPU thread
 * (./search-ranking.ts, ./term-ranking.ts) without loading the store.
 * - Pages are numbered per space: a page's doc is its space's key times DOCS_PER_SPACE plus its number there.
 * - A page's sections after the first heading are packed in one text (packSections).
 * - A space's term lists: per token, the pages that hold it, as (number, code) pairs in varints (encodePairs); the
 *   code holds the page's weighted count of the token and its tier; beside the tokens' lists, the lists of their
 *   first characters (PREFIX_LIST_LENGTHS).
 */

/** Pages (docs) one space may number: 2^24, far more than a space holds. */
export const DOCS_PER_SPACE = 2 ** 24;

// ---- a page's sections

/** A section of a page as results show it: its place in the page (1 for the first heading's), anchor, title, text. */
export interface StoredSection {
  position: number;
  anchor: string;
  title: string;
  body: string;
}

const FIELD = '\u001f';
const SECTION = '\u001e';
const SEPARATORS = /[\u001e\u001f]/g;

/**
 * A page's sections (position 1 on, in order) as one text: each section's anchor, title and text joined by U+001F,
 * sections by U+001E; those two control characters, if a text has them, become spaces. One row per page: an
 * organization's answer shows 500 pages, and a row per section (2,500 rows) was the largest part of making it.
 */
export function packSections(sections: ReadonlyArray<Pick<StoredSection, 'anchor' | 'title' | 'body'>>): string {
  return sections.map((s) => `${s.anchor.replace(SEPARATORS, ' ')}${FIELD}${s.title.replace(SEPARATORS, ' ')}${FIELD}${s.body.replace(SEPARATORS, ' ')}`).join(SECTION);
}

/**
 * Where a section is in a packed text (packSections): its position; the offsets its anchor (`start`), title and text
 * start at; the offset its text ends at.
 */
export interface PackedSection {
  position: number;
  start: number;
  title: number;
  body: number;
  end: number;
}

/** The sections of a packed text, as offsets in it (nothing is copied). */
export function packedSections(packed: string): PackedSection[] {
  const out: PackedSection[] = [];
  if (packed === '') return out;
  for (let start = 0, position = 1; ; position++) {
    const next = packed.indexOf(SECTION, start);
    const end = next < 0 ? packed.length : next;
    const title = packed.indexOf(FIELD, start) + 1;
    const body = packed.indexOf(FIELD, title) + 1;
    out.push({ position, start, title, body, end });
    if (next < 0) return out;
    start = next + 1;
  }
}

/** A section of a packed text. */
export function sectionOf(packed: string, at: PackedSection): StoredSection {
  return { position: at.position, anchor: packed.slice(at.start, at.title - 1), title: packed.slice(at.title, at.body - 1), body: packed.slice(at.body, at.end) };
}

export function unpackSections(packed: string): StoredSection[] {
  return packedSections(packed).map((at) => sectionOf(packed, at));
}

// ---- the term lists' encoding

/** Pairs of a page number and a value, in ascending page number. */
export interface Pairs {
  docs: Int32Array;
  values: Int32Array;
}

/** `docs` (ascending, all above `after`) and their values as varints: each number's difference to the one before. */
export function encodePairs(docs: ArrayLike<number>, values: ArrayLike<number>, after = 0): Buffer {
  const out = Buffer.allocUnsafe(docs.length * 10);
  let at = 0;
  const varint = (value: number) => {
    while (value >= 0x80) {
      out[at++] = (value & 0x7f) | 0x80;
      value >>>= 7;
    }
    out[at++] = value;
  };
  let previous = after;
  for (let i = 0; i < docs.length; i++) {
    varint(docs[i] - previous);
    varint(values[i]);
    previous = docs[i];
  }
  return Buffer.from(out.subarray(0, at));
}

export function decodePairs(bytes: Uint8Array): Pairs {
  // Each pair takes two bytes at least.
  const docs = new Int32Array(bytes.length >> 1);
  const values = new Int32Array(bytes.length >> 1);
  let count = 0;
  let doc = 0;
  for (let at = 0; at < bytes.length; ) {
    let byte = bytes[at++];
    let delta = byte & 0x7f;
    for (let shift = 7; byte & 0x80; shift += 7) {
      byte = bytes[at++];
      delta |= (byte & 0x7f) << shift;
    }
    byte = bytes[at++];
    let value = byte & 0x7f;
    for (let shift = 7; byte & 0x80; shift += 7) {
      byte = bytes[at++];
      value |= (byte & 0x7f) << shift;
    }
    doc += delta;
    docs[count] = doc;
    values[count++] = value;
  }
  return { docs: docs.subarray(0, count), values: values.subarray(0, count) };
}

/** The weights of a page's fields (title, headings, text), as the engines' rankings weigh them. */
export const FIELD_WEIGHTS = [10, 5, 1] as const;

/** A posting's code: the page's weighted count of the token, and its tier (2: in the title, 1: in a heading, 0). */
export const postingCode = (weighted: number, tier: number): number => weighted * 4 + tier;
export const postingWeight = (code: number): number => code >>> 2;
export const postingTier = (code: number): number => code & 3;

/**
 * The lengths (in characters) of the starts of tokens that have lists of their own, as FTS5's `prefix` option keeps
 * prefix indexes. A query's last word is matched as the start of tokens too, and a short start is the start of
 * hundreds of tokens (`con`): read token by token, a three-letter start meant ~10,000 lists for 100 spaces, 30-40
 * ms to read on PostgreSQL and as much again to rank. A start's list holds, per page, the sum of the weighted
 * counts of its tokens and the best of their tiers: what ranking adds up from its tokens' lists. Longer starts are
 * read as the range of their tokens (few).
 */
export const PREFIX_LIST_LENGTHS: readonly number[] = [2, 3];

/** The term of the list of the tokens that start with `prefix`: the prefix and `*`, which no token holds. */
export const prefixListTerm = (prefix: string): string => `${prefix}*`;
export const isPrefixListTerm = (term: string): boolean => term.endsWith('*');

/** The first `count` characters (code points) of `text`, or undefined when it has fewer. */
export function firstCharacters(text: string, count: number): string | undefined {
  let end = 0;
  for (let n = 0; n < count; n++) {
    if (end >= text.length) return undefined;
    end += text.codePointAt(end)! > 0xffff ? 2 : 1;
  }
  return text.slice(0, end);
}

/** Whether a query's prefix is read from its own list (else from the lists of the tokens it starts). */
export const hasPrefixList = (prefix: string): boolean => PREFIX_LIST_LENGTHS.some((length) => firstCharacters(prefix, length) === prefix);

/** A page's tokens counted: its length (all its tokens) and each token's posting code (and each prefix list's). */
export interface PageTerms {
  length: number;
  codes: Map<string, number>;
}

/** The tokens of a page's fields (src/content/search-text.ts indexTokens: separated by spaces, a stem after `/`). */
export function pageTerms(tokens: { title: string; headings: string; body: string }): PageTerms {
  const weighted = new Map<string, number>();
  const tiers = new Map<string, number>();
  let length = 0;
  const fields = [tokens.title, tokens.headings, tokens.body];
  for (let field = 0; field < 3; field++) {
    for (const token of fields[field].split(/[ /]/)) {
      if (!token) continue;
      length++;
      weighted.set(token, (weighted.get(token) ?? 0) + FIELD_WEIGHTS[field]);
      if (field < 2 && !tiers.has(token)) tiers.set(token, 2 - field);
    }
  }
  const codes = new Map<string, number>();
  const starts = new Map<string, { weight: number; tier: number }>();
  for (const [token, weight] of weighted) {
    const tier = tiers.get(token) ?? 0;
    codes.set(token, postingCode(weight, tier));
    for (const count of PREFIX_LIST_LENGTHS) {
      const start = firstCharacters(token, count);
      if (start === undefined) continue;
      const sum = starts.get(start);
      if (sum) {
        sum.weight += weight;
        sum.tier = Math.max(sum.tier, tier);
      } else starts.set(start, { weight, tier });
    }
  }
  for (const [start, { weight, tier }] of starts) codes.set(prefixListTerm(start), postingCode(weight, tier));
  return { length, codes };
}
