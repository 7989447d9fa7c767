/**
 * The best pages of a space for a query, kept until that space is indexed again: the per-space part of an
 * organization's search (and of a published site's), as a search cluster keeps each shard's results until the shard
 * is refreshed. With an organization's search, from a query's second asking on, also the pages as results show
 * them (their matching sections and excerpts).
 *
 * Why: ranking 100 spaces of 1,000 pages from their term lists (src/content/term-ranking.ts) for a word on almost
 * every page still reads and scores 100,000 postings (5-10 ms), and showing the 500 pages of an organization's answer
 * reads their sections and finds the words in them (10-20 ms). Kept with them: each space's base for its rankings (its
 * live pages and their length parts of bm25), until the space is indexed again. A space's ranking
 * changes only when its rows do, and every row change comes with a new search state (an indexing writes its commit
 * and time with them, src/store/sql/search.ts applySearchChange), so what is kept under the state it was made from
 * is what the engine and the sections would give again: one key holds the space, its state (commit, time, rules,
 * language), the query's terms and how many pages were asked for. Searches read the states of their spaces each
 * time (one indexed read), so a process sees another's indexing at its next search, and only the spaces indexed
 * since are ranked again, in one query for all of them.
 *
 * A space's ranking from its term lists reads its own pages only: what is kept is exactly what would be ranked again.
 * (A space ranked by the engine, until its first indexing with term lists, reads FTS5's figures of the whole index,
 * which pushes to other spaces move a little.)
 *
 * Not kept: a space's later pages of results (`after`): a next page must rank after its cursor by the engine's own
 * scores, so one space's search asks the engine each time (its matches are one space's, at most a few thousand).
 */
import { WeightedLru } from '../lru.js';
import type { SearchTerms } from '../../content/search-text.js';
import type { PageHit } from '../../content/search-ranking.js';
import type { RankingBase } from '../../content/term-ranking.js';
import type { RankedPage, SearchState } from '../../store/sql/search.js';

export type { PageHit, SectionHit } from '../../content/search-ranking.js';

/** A space's best pages for a query, and (once shown by an organization's search) the same pages as results. */
export interface KeptRanking {
  pages: readonly RankedPage[];
  hits?: readonly PageHit[];
}

// What an entry holds, in bytes of heap, roughly: its key and the array (400), per page an object of three numbers
// and its space's id (80); per result and section an object (100) and its strings (2 bytes a character).
const ENTRY_BYTES = 400;
const PAGE_BYTES = 80;
const HIT_BYTES = 100;

function hitsWeight(hits: readonly PageHit[]): number {
  let chars = 0;
  let objects = 0;
  for (const hit of hits) {
    objects += 1 + hit.sections.length;
    chars += hit.id.length + hit.title.length + hit.path.length;
    for (const section of hit.sections) chars += section.id.length + section.title.length + section.path.length + section.body.length;
  }
  return objects * HIT_BYTES + 2 * chars;
}

/** Rankings kept, in at most `maxBytes` of heap (QUIRE_SEARCH_RANKINGS_MB; 0 keeps none). */
export class SpaceRankings {
  private readonly kept: WeightedLru<string, KeptRanking>;
  private readonly bases: WeightedLru<string, RankingBase>;

  // The bases are kept apart (an eighth of the bytes): many rankings, each asked once, must not push them out.
  constructor(readonly maxBytes: number) {
    this.kept = new WeightedLru(maxBytes - Math.floor(maxBytes / 8));
    this.bases = new WeightedLru(Math.floor(maxBytes / 8));
  }

  private static key(spaceId: string, state: SearchState, terms: SearchTerms, perSpace: number): string {
    return JSON.stringify([spaceId, state.commit_oid, state.indexed_at, state.version, state.language, terms, perSpace]);
  }

  /** The kept ranking of the space for the query's terms at this state (possibly no page at all), or undefined. */
  get(spaceId: string, state: SearchState, terms: SearchTerms, perSpace: number): KeptRanking | undefined {
    return this.kept.get(SpaceRankings.key(spaceId, state, terms, perSpace));
  }

  set(spaceId: string, state: SearchState, terms: SearchTerms, perSpace: number, pages: readonly RankedPage[]): void {
    this.kept.set(SpaceRankings.key(spaceId, state, terms, perSpace), { pages }, ENTRY_BYTES + PAGE_BYTES * pages.length);
  }

  /** Adds the results made of a kept ranking's pages (all of them, in its order), when the ranking is still kept. */
  setHits(spaceId: string, state: SearchState, terms: SearchTerms, perSpace: number, hits: readonly PageHit[]): void {
    const key = SpaceRankings.key(spaceId, state, terms, perSpace);
    const entry = this.kept.get(key);
    if (!entry || entry.hits) return;
    entry.hits = hits;
    this.kept.grow(key, hitsWeight(hits));
  }

  private static baseKey(spaceId: string, state: SearchState): string {
    return JSON.stringify(['base', spaceId, state.commit_oid, state.indexed_at, state.version]);
  }

  /** What the space's rankings read of its live pages at this state (src/content/term-ranking.ts), when kept. */
  base(spaceId: string, state: SearchState): RankingBase | undefined {
    return this.bases.get(SpaceRankings.baseKey(spaceId, state));
  }

  setBase(spaceId: string, state: SearchState, base: RankingBase): void {
    this.bases.set(SpaceRankings.baseKey(spaceId, state), base, base.bytes);
  }

  /** How many rankings are kept (tests). */
  get size(): number {
    return this.kept.size;
  }
}
