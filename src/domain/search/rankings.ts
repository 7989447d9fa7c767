/**
 * The best pages of a space for a query, kept until that space is indexed again: the per-space part of an
 * organization's search (and of a published site's), as a search cluster keeps each shard's results until the shard
 * is refreshed.
 *
 * Why: the engines score every match of a query (bm25 and ts_rank have no early termination), and a word on almost
 * every page of 100 spaces of 1,000 pages is 100,000 matches, 150-250 ms of one query on SQLite. A space's ranking
 * changes only when its rows do, and every row change comes with a new search state (an indexing writes its commit
 * and time, src/store/sql/search.ts applySearchChange), so a ranking kept under the state it was made from is the
 * ranking the engine would make again: one key holds the space, its state (commit, time, rules, language), the
 * engine query and how many pages were asked for. Searches read the states of their spaces each time (one indexed
 * read), so a process sees another's indexing at its next search, and only the spaces indexed since are ranked
 * again, in one query for all of them.
 *
 * What may differ from a fresh ranking: bm25 reads two figures of the whole index (how many pages there are and how
 * long they are on average, with how many pages hold each word), which pushes to other spaces move a little. The
 * order inside a space may shift by such a move only where two pages score within that change of each other;
 * ts_rank (PostgreSQL) reads no such figure.
 *
 * Not kept: a space's later pages of results (`after`): a next page must rank after its cursor by the same scores
 * as the engine's, so one space's search asks the engine each time (its matches are one space's, at most a few
 * thousand rows).
 */
import { WeightedLru } from '../lru.js';
import type { EngineQuery, RankedPage, SearchState } from '../../store/sql/search.js';

// What an entry holds, in bytes of heap, roughly: its key and the array (400), and per page an object with four
// strings (ids, title, path) read from the database (250).
const ENTRY_BYTES = 400;
const PAGE_BYTES = 250;

/** Rankings kept, in at most `maxBytes` of heap (QUIRE_SEARCH_RANKINGS_MB; 0 keeps none). */
export class SpaceRankings {
  private readonly kept: WeightedLru<string, readonly RankedPage[]>;

  constructor(readonly maxBytes: number) {
    this.kept = new WeightedLru(maxBytes);
  }

  private static key(spaceId: string, state: SearchState, query: EngineQuery, perSpace: number): string {
    return JSON.stringify([spaceId, state.commit_oid, state.indexed_at, state.version, state.language, query.whole, query.prefixes, perSpace]);
  }

  /** The kept ranking of the space for the query at this state (possibly no page at all), or undefined. */
  get(spaceId: string, state: SearchState, query: EngineQuery, perSpace: number): readonly RankedPage[] | undefined {
    return this.kept.get(SpaceRankings.key(spaceId, state, query, perSpace));
  }

  set(spaceId: string, state: SearchState, query: EngineQuery, perSpace: number, pages: readonly RankedPage[]): void {
    this.kept.set(SpaceRankings.key(spaceId, state, query, perSpace), pages, ENTRY_BYTES + PAGE_BYTES * pages.length);
  }

  /** How many rankings are kept (tests). */
  get size(): number {
    return this.kept.size;
  }
}
