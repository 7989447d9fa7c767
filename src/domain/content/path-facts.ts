/**
 * The history facts of each path of a commit (a stable id, created and updated dates, the blob) derived from its
 * parents' facts and its changes against the first parent (advanceFacts), and how one commit's facts differ from
 * another's. The rules of ./history.ts, pure: apart from the machinery there that finds, computes, keeps and stores
 * them.
 */
import crypto from 'node:crypto';
import type { PathChange } from '../../store/git/changes.js';
import { Turns } from '../../content/turns.js';

export interface PathFact {
  /** id */
  i: string;
  /** createdAt */
  c: string;
  /** updatedAt */
  u: string;
  /** blob oid */
  o: string;
}

/** A commit's facts by path. Shared by every reader of the commit: never changed once known. */
export type Facts = ReadonlyMap<string, PathFact>;


export type FactMap = Map<string, PathFact>;

/** How a commit's facts differ from another commit's: the paths whose facts are new or other, and the paths gone. */
export interface FactChanges {
  set: Array<[string, PathFact]>;
  gone: string[];
}


const sameFact = (a: PathFact, b: PathFact) => a.i === b.i && a.c === b.c && a.u === b.u && a.o === b.o;

/** The changes that make `base` into `facts`. */
export function factChanges(base: Facts, facts: Facts): FactChanges {
  const set: Array<[string, PathFact]> = [];
  for (const [path, fact] of facts) {
    const before = base.get(path);
    // Facts carried over from a parent are the same objects: most paths are told apart without reading them.
    if (before !== fact && !(before && sameFact(before, fact))) set.push([path, fact]);
  }
  const gone: string[] = [];
  for (const path of base.keys()) if (!facts.has(path)) gone.push(path);
  return { set, gone };
}

/** Applies changes to a map of facts (in place). */
export function applyFactChanges(facts: FactMap, changes: FactChanges): FactMap {
  for (const path of changes.gone) facts.delete(path);
  for (const [path, fact] of changes.set) facts.set(path, fact);
  return facts;
}

function hashId(input: string): string {
  // One call, no Hash object: a first push of 10,000 pages hashes 10,000 paths.
  return crypto.hash('sha256', input, 'base64url').slice(0, 16);
}

/** The id of a path seen for the first time: from the space and the path, so it is known before history is read. */
export function pathId(spaceId: string, path: string): string {
  return hashId(`${spaceId}\0${path}`);
}

/** An id tied to one commit: for a new path whose path id is already held (a page was moved away and another took its place). */
export function derivedId(spaceId: string, commitOid: string, path: string): string {
  return hashId(`${spaceId}\0${commitOid}\0${path}`);
}

/**
 * The facts of a commit from its parents' facts and its changes against the first parent. `into` is the map to
 * fill: a copy of the first parent's facts, or that map itself when no other commit needs it any more.
 */
export async function advanceFacts(
  spaceId: string,
  commit: { oid: string; committedAt: string },
  parents: Array<FactMap | undefined>,
  changes: PathChange[],
  into: FactMap,
): Promise<FactMap> {
  // A first push of 10,000 pages makes 10,000 facts here: the loops let other requests run between turns.
  const turns = new Turns();
  const [first, ...rest] = parents;
  const others = rest.filter((p): p is FactMap => p !== undefined);
  const at = commit.committedAt;
  // Paths that left the tree: deleted, or the source of a rename. A path can leave and be added again in one commit.
  const gone = new Set<string>();
  for (const change of changes) {
    if (change.status === 'D') gone.add(change.path);
    else if (change.status === 'R' && change.from !== undefined) gone.add(change.from);
  }
  // Read before deleting: `into` may be the first parent's map itself.
  const leaving = new Map<string, PathFact>();
  for (const path of gone) {
    const fact = first?.get(path);
    if (fact) leaving.set(path, fact);
    into.delete(path);
  }
  const before = (path: string) => (gone.has(path) ? undefined : first?.get(path));
  const renamedFrom = new Set<string>();
  const fresh: PathChange[] = [];
  for (const change of changes) {
    if (turns.due()) await turns.take();
    if (change.status === 'D') continue;
    const own = before(change.path);
    const inOthers = others.map((p) => p.get(change.path));
    let base = own ?? inOthers.find((f) => f !== undefined);
    if (!base && change.status === 'R' && change.from !== undefined && !renamedFrom.has(change.from)) {
      base = leaving.get(change.from);
      if (base) renamedFrom.add(change.from);
    }
    if (!base) {
      fresh.push(change);
      continue;
    }
    // Unchanged from some parent (a merge taking one side): that parent's updatedAt; changed: this commit's date.
    const same = [own, ...inOthers].find((f) => f?.o === change.oid);
    into.set(change.path, { i: base.i, c: base.c, u: same ? same.u : at, o: change.oid });
  }
  if (fresh.length > 0) {
    const held = new Set<string>();
    for (const fact of into.values()) held.add(fact.i);
    for (const change of fresh) {
      if (turns.due()) await turns.take();
      let id = pathId(spaceId, change.path);
      if (held.has(id)) id = derivedId(spaceId, commit.oid, change.path);
      held.add(id);
      into.set(change.path, { i: id, c: at, u: at, o: change.oid });
    }
  }
  return into;
}
