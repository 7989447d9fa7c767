/**
 * How a revision's pages and files get their ids (the decisions at the top of ./revision.ts): a claimed id (front
 * matter, then `.quire/manifest.yaml`) when no earlier page took it, else the history's. Apart because analyzeTree
 * hands them out and reviseTree (./revise-tree.ts) asks again whether they moved, by the same rules.
 */
import type { HistoryFacts } from './model.js';

/**
 * The ids of `.quire/manifest.yaml` by path, as maps: a page's lookup is a map's (a plain object's is slow for paths
 * it does not hold, the usual case, and would answer for `constructor`).
 */
export interface ManifestIds {
  pages: ReadonlyMap<string, string>;
  files: ReadonlyMap<string, string>;
}

/**
 * Page (and reusable content) ids as analyzeTree hands them out, in page order: the first claimed id not taken yet
 * (front matter, then the manifest), else the history's id for the key. `claimable`, when known: every id that will
 * be claimed; only those need remembering (no other id is ever asked about), which spares a set of every page's id.
 */
export function pageIdClaims(facts: HistoryFacts, claimable?: ReadonlySet<string>): (key: string, ...claimed: (string | undefined)[]) => string {
  const used = new Set<string>();
  const take = (id: string): string => {
    if (!claimable || claimable.has(id)) used.add(id);
    return id;
  };
  return (key, ...claimed) => {
    for (const id of claimed) {
      if (id !== undefined && !used.has(id)) return take(id);
    }
    return take(facts.idOf('page', key));
  };
}

/** File ids as analyzeTree hands them out, in path order: the manifest's when not taken yet, else the history's. */
export function fileIdClaims(manifestIds: ManifestIds, facts: HistoryFacts): (path: string) => string {
  const used = new Set<string>();
  return (path) => {
    const fromManifest = manifestIds.files.get(path);
    const id = fromManifest !== undefined && !used.has(fromManifest) ? fromManifest : facts.idOf('file', path);
    used.add(id);
    return id;
  };
}
