/**
 * A space's best pages for a query, ranked from its term lists (src/store/sql/search-terms.ts): what an
 * organization's (and a published site's) search asks of every space. Pure code: it runs on the event loop and on
 * CPU threads (./search-ranking.ts). The rules are the engines' (src/store/sql/search.ts rankPages): a page matches
 * when it holds a query token whole or one starting with a query prefix; pages with a match in their title first,
 * then in a heading, then in their text only; within a tier, bm25 as SQLite's FTS5 computes it (k1 1.2, b 0.75, each
 * whole token and each prefix a phrase with its own idf, fields weighted 10, 5, 1, an idf under zero counted as
 * 1e-6); then the lower page number.
 *
 * One difference: bm25's figures (how many pages, their average length, how many hold each phrase) are the space's
 * own, where FTS5 reads those of its whole table (every space of every organization). So a space's ranking depends
 * on its own pages only, and on one space alone it is FTS5's to the last bit (test/domain/term-ranking.test.ts).
 */
import type { EngineQuery } from '../store/sql/search.js';
import { hasPrefixList, isPrefixListTerm, postingTier, postingWeight, prefixListTerm, type Pairs } from './search-format.js';

const K1 = 1.2;
const B = 0.75;

/** A page of a space (its number there), its tier and its score. */
export interface TermRanked {
  n: number;
  tier: number;
  score: number;
}

/** The first index of `sorted` at or after `from` whose value is `target` or more (galloping: lists are sparse). */
function seek(sorted: Int32Array, target: number, from: number): number {
  if (from >= sorted.length || sorted[from] >= target) return from;
  let low = from;
  let step = 1;
  while (low + step < sorted.length && sorted[low + step] < target) {
    low += step;
    step *= 2;
  }
  let high = Math.min(low + step, sorted.length);
  while (high - low > 1) {
    const mid = (low + high) >>> 1;
    if (sorted[mid] < target) low = mid;
    else high = mid;
  }
  return high;
}

/** Whether (tier, score, n) `a` ranks before `b`. */
const before = (aTier: number, aScore: number, aN: number, b: TermRanked) =>
  aTier !== b.tier ? aTier > b.tier : aScore !== b.score ? aScore > b.score : aN < b.n;

/**
 * What every ranking of a space reads of its live pages, worked out once per indexing of the space (kept with its
 * rankings, src/domain/search/rankings.ts): their numbers; where each number is among them (a slot per number, while
 * the numbers are not spread much wider than the pages: they spread as pages are written again), and each page's
 * length part of bm25 (k1 (1 - b + b length / average length), computed as FTS5 computes it).
 */
export class RankingBase {
  readonly live: Int32Array;
  readonly norms: Float64Array;
  readonly slots: Int32Array | undefined;

  constructor(docs: Pairs) {
    const { docs: live, values: lengths } = docs;
    this.live = live;
    let total = 0;
    for (let i = 0; i < live.length; i++) total += lengths[i];
    const average = total / live.length;
    this.norms = new Float64Array(live.length);
    for (let i = 0; i < live.length; i++) this.norms[i] = K1 * (1 - B + (B * lengths[i]) / average);
    const span = live.length === 0 ? 0 : live[live.length - 1] - live[0] + 1;
    if (span <= 8 * live.length + 4096) {
      this.slots = new Int32Array(span);
      for (let i = 0; i < live.length; i++) this.slots[live[i] - live[0]] = i + 1;
    }
  }

  /** Its size in bytes. */
  get bytes(): number {
    return 100 + this.live.byteLength + this.norms.byteLength + (this.slots?.byteLength ?? 0);
  }
}

/**
 * Ranks spaces one after another, reusing its working arrays (sized for the largest space so far): allocating them
 * for each of an organization's spaces cost more than ranking a rare word.
 */
export class SpaceRanker {
  private tier = new Int8Array(0);
  private score = new Float64Array(0);
  private frequency = new Float64Array(0);
  /** The pages a phrase hit, and all the pages any phrase hit. */
  private hit = new Int32Array(0);
  private touched = new Int32Array(0);
  /** How many pages the phrase being read hit, and how many pages any phrase hit. */
  private hits = 0;
  private found = 0;

  private grow(count: number): void {
    if (this.tier.length >= count) return;
    this.tier = new Int8Array(count).fill(-1);
    this.score = new Float64Array(count);
    this.frequency = new Float64Array(count);
    this.hit = new Int32Array(count);
    this.touched = new Int32Array(count);
  }

  /**
   * Adds one term list's postings of live pages to the phrase being read (its own small loop: the hot part, which
   * V8 optimizes best apart).
   */
  private read(bytes: Uint8Array, base: RankingBase): void {
    const { live, slots } = base;
    const { tier, frequency, hit, touched } = this;
    const count = live.length;
    const first = live[0];
    const span = slots ? slots.length : 0;
    let hits = this.hits;
    let found = this.found;
    // The list's pairs (./search-format.ts encodePairs), decoded as they are read.
    let doc = 0;
    let cursor = 0;
    for (let p = 0; p < bytes.length; ) {
      let byte = bytes[p++];
      let delta = byte & 0x7f;
      for (let shift = 7; byte & 0x80; shift += 7) {
        byte = bytes[p++];
        delta |= (byte & 0x7f) << shift;
      }
      byte = bytes[p++];
      let code = byte & 0x7f;
      for (let shift = 7; byte & 0x80; shift += 7) {
        byte = bytes[p++];
        code |= (byte & 0x7f) << shift;
      }
      doc += delta;
      let at: number;
      if (slots !== undefined) {
        const offset = doc - first;
        at = offset >= 0 && offset < span ? slots[offset] - 1 : -1;
      } else {
        cursor = seek(live, doc, cursor);
        at = cursor < count && live[cursor] === doc ? cursor : -1;
      }
      // A page that went: its postings stay until the lists are compacted.
      if (at < 0) continue;
      if (frequency[at] === 0) hit[hits++] = at;
      if (tier[at] < 0) {
        touched[found++] = at;
        tier[at] = 0;
      }
      frequency[at] += postingWeight(code);
      const t = postingTier(code);
      if (t > tier[at]) tier[at] = t;
    }
    this.hits = hits;
    this.found = found;
  }

  /**
   * The best `k` live pages of a space (its base and the query's term lists, by token) for the query, best first;
   * `after`: only those that rank after that place (a later page of results).
   */
  rank(base: RankingBase, lists: ReadonlyMap<string, Uint8Array>, query: EngineQuery, k: number, after?: TermRanked): TermRanked[] {
    const { live, norms } = base;
    const count = live.length;
    if (count === 0 || k <= 0) return [];
    this.grow(count);
    const { tier, score, frequency, hit, touched } = this;
    // FTS5's phrases, in its order: each whole token, then each prefix (all the tokens it starts).
    const tokens = [...lists.keys()];
    const phrases = [
      ...query.whole.map((token) => [token]),
      // A short prefix has a list of its own (its tokens' postings added up), a longer one the lists of its tokens.
      ...query.prefixes.map((prefix) => (hasPrefixList(prefix) ? [prefixListTerm(prefix)] : tokens.filter((token) => token.startsWith(prefix) && !isPrefixListTerm(token)))),
    ];
    // A phrase with the same lists as one before it (`install` and `install*`, when no longer token starts so)
    // adds what that one added: the lists are read once.
    const keys = phrases.map((phrase) => phrase.filter((token) => lists.has(token)).join(' '));
    const repeated = new Set(keys.filter((key, i) => key !== '' && keys.indexOf(key) !== i));
    const added = new Map<string, { at: Int32Array; score: Float64Array }>();
    this.found = 0;
    for (const [index, phrase] of phrases.entries()) {
      const again = added.get(keys[index]);
      if (again) {
        for (let h = 0; h < again.at.length; h++) score[again.at[h]] += again.score[h];
        continue;
      }
      this.hits = 0;
      for (const token of phrase) {
        const bytes = lists.get(token);
        if (bytes) this.read(bytes, base);
      }
      const hits = this.hits;
      if (hits === 0) continue;
      let idf = Math.log((count - hits + 0.5) / (hits + 0.5));
      if (idf <= 0) idf = 1e-6;
      const kept = repeated.has(keys[index]) ? { at: hit.slice(0, hits), score: new Float64Array(hits) } : undefined;
      for (let h = 0; h < hits; h++) {
        const at = hit[h];
        const f = frequency[at];
        // The order of FTS5's operations, so that one space alone scores as FTS5 does, to the last bit.
        const add = idf * ((f * (K1 + 1.0)) / (f + norms[at]));
        score[at] += add;
        frequency[at] = 0;
        if (kept) kept.score[h] = add;
      }
      if (kept) added.set(keys[index], kept);
    }
    // The best k, kept in order (k is small: 10 or 20, a page of 50); the working arrays left as they were found.
    const best: TermRanked[] = [];
    for (let i = 0; i < this.found; i++) {
      const at = touched[i];
      const later = after === undefined || before(after.tier, after.score, after.n, { n: live[at], tier: tier[at], score: score[at] });
      if (later && (best.length < k || before(tier[at], score[at], live[at], best[k - 1]))) {
        let place = best.length === k ? k - 1 : best.length;
        while (place > 0 && before(tier[at], score[at], live[at], best[place - 1])) place--;
        if (best.length === k) best.pop();
        best.splice(place, 0, { n: live[at], tier: tier[at], score: score[at] });
      }
      tier[at] = -1;
      score[at] = 0;
    }
    return best;
  }
}

/** The best `k` live pages of one space for the query, best first. */
export function rankSpace(docs: Pairs, lists: ReadonlyMap<string, Uint8Array>, query: EngineQuery, k: number): TermRanked[] {
  return new SpaceRanker().rank(new RankingBase(docs), lists, query, k);
}
