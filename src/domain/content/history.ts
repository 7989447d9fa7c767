/**
 * Facts about each path of a commit that come from history, not from the tree: a stable id (kept across edits,
 * renames and moves), when the path was created and when it last changed (git-format.md "Ids").
 *
 * They are a deterministic function of the commit graph: a path inherits from the same path in a parent, or from
 * the path it was renamed from (same blob, else git's similarity detection); a new path gets an id hashed from
 * the space, the commit and the path. So nothing is lost if the cache (memory, then the revision_facts table) is
 * dropped, and two processes computing the same commit agree. Pushed trees are never rewritten to record ids.
 */
import crypto from 'node:crypto';
import type { Context } from '../context.js';
import { detectRenames, type BlobEntry, type CommitObject } from '../../store/git/reader.js';
import { findRevisionFacts, saveRevisionFacts } from '../../store/sql/revisions.js';
import { WeightedLru } from '../lru.js';

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

export type Facts = Record<string, PathFact>;

// Facts of recently read commits, by `space:commit`. Process-local is safe: facts never change for a commit.
const memory = new WeightedLru<string, Facts>(256);

function remember(key: string, facts: Facts): void {
  memory.set(key, facts);
}

/** A new id for a path first seen in `commitOid`. */
export function derivedId(spaceId: string, commitOid: string, path: string): string {
  return crypto.createHash('sha256').update(`${spaceId}\0${commitOid}\0${path}`).digest('base64url').slice(0, 16);
}

async function stored(ctx: Context, spaceId: string, oid: string): Promise<Facts | undefined> {
  const key = `${spaceId}:${oid}`;
  const cached = memory.get(key);
  if (cached) return cached;
  const row = await findRevisionFacts(ctx.db, spaceId, oid);
  if (!row) return undefined;
  const facts = JSON.parse(row) as Facts;
  remember(key, facts);
  return facts;
}

/** Facts of one commit from its parents' facts. */
async function derive(ctx: Context, spaceId: string, commit: CommitObject, blobs: BlobEntry[], parents: Facts[]): Promise<Facts> {
  const at = commit.committedAt;
  const facts: Facts = {};
  const [first, ...others] = parents;
  const unexplained: BlobEntry[] = [];
  const present = new Set(blobs.map((b) => b.path));
  for (const blob of blobs) {
    const inFirst = first?.[blob.path];
    const inOther = others.map((p) => p[blob.path]).find((f) => f !== undefined);
    const base = inFirst ?? inOther;
    if (!base) {
      unexplained.push(blob);
      continue;
    }
    // Unchanged from some parent: that parent's updatedAt; changed: this commit's date.
    const same = [inFirst, ...others.map((p) => p[blob.path])].find((f) => f?.o === blob.oid);
    facts[blob.path] = { i: base.i, c: base.c, u: same ? same.u : at, o: blob.oid };
  }
  if (unexplained.length > 0 && first) {
    // Renames: a path that left the first parent, with the same blob (exact), else git's similarity detection.
    const gone = Object.entries(first).filter(([path]) => !present.has(path));
    const byOid = new Map<string, [string, PathFact]>();
    for (const entry of gone) if (!byOid.has(entry[1].o)) byOid.set(entry[1].o, entry);
    const taken = new Set<string>();
    const rest: BlobEntry[] = [];
    for (const blob of unexplained) {
      const match = byOid.get(blob.oid);
      if (match && !taken.has(match[0])) {
        taken.add(match[0]);
        facts[blob.path] = { i: match[1].i, c: match[1].c, u: at, o: blob.oid };
      } else rest.push(blob);
    }
    if (rest.length > 0 && gone.some(([path]) => !taken.has(path))) {
      const renames = await detectRenames(ctx.git, spaceId, commit.parents[0], commit.oid);
      const source = new Map(renames.map((r) => [r.to, r.from]));
      for (const blob of rest.splice(0)) {
        const from = source.get(blob.path);
        const origin = from && !taken.has(from) ? first[from] : undefined;
        if (origin) {
          taken.add(from!);
          facts[blob.path] = { i: origin.i, c: origin.c, u: at, o: blob.oid };
        } else rest.push(blob);
      }
    }
    unexplained.splice(0, unexplained.length, ...rest);
  }
  for (const blob of unexplained) facts[blob.path] = { i: derivedId(spaceId, commit.oid, blob.path), c: at, u: at, o: blob.oid };
  return facts;
}

/**
 * The facts of a commit, computing (and caching) those of any ancestor not known yet, oldest first. Iterative,
 * so a long history does not nest promises or stack frames.
 */
export async function factsOf(ctx: Context, spaceId: string, commitOid: string): Promise<Facts> {
  const known = await stored(ctx, spaceId, commitOid);
  if (known) return known;
  const reader = ctx.reader;
  const pending: string[] = [commitOid];
  const commits = new Map<string, CommitObject>();
  const computed = new Map<string, Facts>();
  const factsFor = async (oid: string) => computed.get(oid) ?? (await stored(ctx, spaceId, oid));
  while (pending.length > 0) {
    const oid = pending[pending.length - 1];
    if (computed.has(oid)) {
      pending.pop();
      continue;
    }
    let commit = commits.get(oid);
    if (!commit) {
      commit = await reader.readCommit(spaceId, oid);
      if (!commit) throw new Error(`commit ${oid} not found in space ${spaceId}`);
      commits.set(oid, commit);
    }
    const missing: string[] = [];
    const parents: Facts[] = [];
    for (const parent of commit.parents) {
      const facts = await factsFor(parent);
      if (facts) parents.push(facts);
      else if (pending.includes(parent)) throw new Error(`commit graph cycle at ${parent}`);
      else missing.push(parent);
    }
    if (missing.length > 0) {
      pending.push(...missing);
      continue;
    }
    const blobs = await reader.listBlobs(spaceId, commit.tree);
    const facts = await derive(ctx, spaceId, commit, blobs, parents);
    computed.set(oid, facts);
    remember(`${spaceId}:${oid}`, facts);
    pending.pop();
  }
  const result = computed.get(commitOid)!;
  // Only the requested commit is stored: ancestors are recomputed from it cheaply if ever asked for again.
  await saveRevisionFacts(ctx.db, spaceId, commitOid, JSON.stringify(result));
  return result;
}
