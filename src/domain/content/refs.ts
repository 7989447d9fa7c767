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
export const LINKS_VERSION = 2;

/** The search index's rules; a space indexed with other rules is indexed again, whole. */
export const SEARCH_VERSION = 3;
