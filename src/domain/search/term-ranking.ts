/**
 * Ranking a space's pages from its term lists is pure code, in src/content/term-ranking.ts (CPU threads rank with it,
 * and load no domain module); this path is kept for its importers.
 */
export { RankingBase, rankSpace, SpaceRanker, type TermRanked } from '../../content/term-ranking.js';
