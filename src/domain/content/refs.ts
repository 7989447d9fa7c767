/**
 * Names that modules on every side of the domain share, kept apart so that sharing them makes no import cycle
 * (change requests, pushes, indexing and the indexes all need them): the refs of a space's repository, and the
 * versions of the rules the link and search indexes were made with.
 */

/** The space's main branch: its published content. */
export const MAIN_REF = 'refs/heads/main';

/** The branch of change request `number`. */
export function branchOf(number: number): string {
  return `refs/heads/change-requests/${number}`;
}

/** The link index's extraction rules and row shape; rows made otherwise are indexed again when read. */
export const LINKS_VERSION = 3;

/**
 * The search index's rules; a space indexed with other rules is indexed again, whole. 4: a section's blocks are apart
 * in its text (a list's items, a table's cells were run together, `one` and `two` indexed as `onetwo`), and its text
 * is stored flat. 5: the term lists hold the lists of the tokens' first two and three characters
 * (src/store/sql/search-terms.ts PREFIX_LIST_LENGTHS); until its indexing, a space is ranked by the engine.
 */
export const SEARCH_VERSION = 5;
