/**
 * Facts about each path of a commit that come from history, not from the tree: a stable id (kept across edits,
 * renames and moves), when the path was created and when it last changed (docs/git-format.md "Ids, dates and history").
 *
 * They are a deterministic function of the commit graph: a path inherits from the same path in a parent, or from
 * the path git finds it was renamed from (against the first parent); a path seen for the first time gets an id
 * hashed from the space and the path (from the commit too, when that id is already held by another path). So
 * nothing is lost if the stored facts are dropped, and two processes computing the same commit agree. Pushed trees
 * are never rewritten to record ids. Those rules are ./path-facts.ts; this module finds, computes, keeps and stores
 * the facts.
 *
 * Cost: facts are stored for the commits that were asked for (ref tips) and for a checkpoint every few hundred
 * commits, so a new commit costs one diff against its parent. The commits between the wanted one and the nearest
 * stored ancestors are found by walking commit objects (any shape: merges, criss-cross, octopus) and diffed in ONE
 * `git diff-tree --stdin` process, oldest first. A read never walks a long history: past a few dozen unknown
 * commits it answers with provisional facts (the nearest stored ancestor's, advanced to the commit in one step, or
 * ids from the paths alone) while the full computation runs in the background, once per commit and process.
 *
 * A wanted commit's facts are stored as the change from the facts of the stored commit it was computed from (its first
 * parent, for a push), up to CHANGES_PER_WHOLE changes in a row: for a 10,000-page space a whole copy is ~1.6 MB of
 * JSON, so storing one per push grew the database by that much for each changed page and held the event loop to copy
 * and write it (bench/README.md). A read from storage starts at the nearest whole copy (or one in memory) and applies
 * the changes after it. They are stored a moment after they are known (write-behind, SAVE_DELAY_MS), not right when the
 * push's revision and indexes are being built. Until then this process has them in memory; another one computes them
 * again (the same facts), and a process that stops first writes them as it closes.
 */
import type { Kysely } from 'kysely';
import { WeightedLru } from '../lru.js';
import type { Database } from '../../store/sql/schema.js';
import type { GitStore } from '../../store/git/repositories.js';
import type { BlobEntry, CommitObject, GitReader } from '../../store/git/reader.js';
import { commitChanges, type CommitToDiff, type PathChange } from '../../store/git/changes.js';
import { Turns } from '../../content/turns.js';
import { findRevisionFacts, revisionFactCommits, saveRevisionFacts, type StoredFacts } from '../../store/sql/revisions.js';
import { advanceFacts, applyFactChanges, factChanges, type FactChanges, type FactMap, type Facts, type PathFact } from './path-facts.js';

/** Facts for a read: `final` when derived from the whole history, else provisional (see the top of this file). */
export interface ReadFacts {
  facts: Facts;
  final: boolean;
}

/** A commit's facts as kept in memory, with the number of stored changes that lead from a whole copy to them. */
interface KnownFacts {
  facts: Facts;
  depth: number;
}

/** A commit's facts to store as the change from a base commit's, `depth` changes from a whole copy. */
interface ChangeToStore {
  baseOid: string;
  changes: FactChanges;
  depth: number;
}

export interface HistoryFactsOptions {
  /** Most unknown commits a read computes before answering; past that it answers provisionally. */
  inlineCommits?: number;
  /** How long a read waits for a computation already running before it answers provisionally. */
  readWaitMs?: number;
  /** Store the facts of every Nth computed commit, so later computations start near. */
  checkpointEvery?: number;
  /** Most stored changes in a row before a commit's facts are stored whole again (CHANGES_PER_WHOLE). */
  changesPerWhole?: number;
  /** Bytes the facts kept in memory may hold (a share of QUIRE_CONTENT_CACHE_MB; ~250 bytes a path). */
  memoryBytes?: number;
  /** Where failures of background computations go. */
  log?: (message: string, fields: Record<string, unknown>) => void;
}

interface Plan {
  /** Commits to compute, parents before children. */
  order: CommitObject[];
  /** Commits with facts already (stored, in memory, or being computed) that the plan starts from. */
  boundary: string[];
  /** The walk stopped at its limit before reaching known commits everywhere. */
  truncated: boolean;
}

/**
 * What a commit's facts hold in the heap (parsed from their stored JSON: a property and an object of three strings a
 * path), measured with the content cache's weights (test/domain/revisions-weight.test.ts).
 */
const FACTS_HEAP = { commit: 1024, path: 200 } as const;

/**
 * Most stored changes in a row before a commit's facts are stored whole again: a read from storage in a process that
 * has none of them in memory reads at most this many rows and applies their changes (a few milliseconds).
 */
const CHANGES_PER_WHOLE = 32;

/** How long after a wanted commit's facts are known they are stored (see the top of this file). */
const SAVE_DELAY_MS = 1000;

/** A commit's facts known and not stored yet: whole, or as the change from a base. */
interface UnsavedFacts {
  spaceId: string;
  oid: string;
  facts: Facts;
  change?: ChangeToStore;
}

/**
 * History facts of the spaces' commits: owned by the container (its memory and its running computations), used by
 * every revision read.
 */
export class HistoryFacts {
  private readonly memory: WeightedLru<string, KnownFacts>;
  private readonly running = new Map<string, Promise<Facts>>();
  /** Facts known and not stored yet, by `space:commit` (write-behind; see the top of this file). */
  private readonly unsaved = new Map<string, UnsavedFacts>();
  private saveTimer: NodeJS.Timeout | undefined;
  /** The stores under way, one after another: a change is never stored before its base, which an earlier one holds. */
  private saving: Promise<void> = Promise.resolve();
  private readonly inlineCommits: number;
  private readonly checkpointEvery: number;
  private readonly changesPerWhole: number;
  private readonly readWaitMs: number;
  private readonly log: NonNullable<HistoryFactsOptions['log']>;
  private closed = false;

  constructor(
    private readonly deps: { db: Kysely<Database>; git: GitStore; reader: GitReader },
    options: HistoryFactsOptions = {},
  ) {
    this.memory = new WeightedLru(options.memoryBytes ?? 16 * 1024 * 1024);
    this.inlineCommits = options.inlineCommits ?? 64;
    this.checkpointEvery = options.checkpointEvery ?? 250;
    this.changesPerWhole = options.changesPerWhole ?? CHANGES_PER_WHOLE;
    this.readWaitMs = options.readWaitMs ?? 1500;
    this.log = options.log ?? (() => {});
  }

  /** The final facts of a commit, computing those of every ancestor not known yet. */
  async factsOf(spaceId: string, commitOid: string): Promise<Facts> {
    const known = await this.stored(spaceId, commitOid);
    if (known) return known;
    return this.compute(spaceId, commitOid);
  }

  /**
   * Facts for a read: final when known or cheap to compute (a few dozen new commits), else provisional while the
   * whole computation runs in the background. Never walks a long history before answering.
   */
  async forRead(spaceId: string, commitOid: string): Promise<ReadFacts> {
    const known = await this.stored(spaceId, commitOid);
    if (known) return { facts: known, final: true };
    const running = this.running.get(`${spaceId}:${commitOid}`);
    if (running) {
      // Usually a push's few commits, done in milliseconds: worth a short wait for the real facts.
      const facts = await settledWithin(running, this.readWaitMs);
      if (facts) return { facts, final: true };
      return { facts: await this.provisional(spaceId, commitOid, []), final: false };
    }
    const plan = await this.plan(spaceId, commitOid, this.inlineCommits);
    if (!plan.truncated) return { facts: await this.compute(spaceId, commitOid, plan), final: true };
    void this.prepare(spaceId, commitOid);
    return { facts: await this.provisional(spaceId, commitOid, plan.boundary), final: false };
  }

  /** Whether this process has the final facts of a commit in memory (a provisional read can be redone). */
  isFinal(spaceId: string, commitOid: string): boolean {
    return this.memory.get(`${spaceId}:${commitOid}`) !== undefined;
  }

  /**
   * Starts computing a commit's facts in the background (after a push, a merge or an import), unless they are
   * known or already being computed. Resolves when done; failures are logged, not thrown.
   */
  prepare(spaceId: string, commitOid: string): Promise<void> {
    if (this.closed || this.isFinal(spaceId, commitOid)) return Promise.resolve();
    return this.compute(spaceId, commitOid).then(
      () => undefined,
      (error: unknown) => {
        if (!this.closed) this.log('history facts not computed', { space: spaceId, commit: commitOid, err: (error as Error).message });
      },
    );
  }

  /** Stops background work: running computations end at their next commit; facts not stored yet are stored. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.running.values()]);
    await this.saveNow();
  }

  /**
   * Keeps the facts of a wanted commit in memory and stores them soon (see the top of this file): as the change from
   * `base` (a commit whose facts are stored, or will be before these), when it is in memory, few changes lead to it,
   * and the change is small; else whole.
   */
  private keepWanted(spaceId: string, oid: string, facts: Facts, baseOid: string | undefined): void {
    const base = baseOid === undefined ? undefined : this.memory.get(`${spaceId}:${baseOid}`);
    let change: ChangeToStore | undefined;
    if (baseOid !== undefined && base && base.depth < this.changesPerWhole) {
      const changes = factChanges(base.facts, facts);
      // A change of most paths reads and stores no less than the whole facts.
      if (changes.set.length + changes.gone.length <= facts.size / 4) change = { baseOid, changes, depth: base.depth + 1 };
    }
    this.remember(`${spaceId}:${oid}`, { facts, depth: change?.depth ?? 0 });
    this.unsaved.set(`${spaceId}:${oid}`, { spaceId, oid, facts, change });
    this.saveTimer ??= setTimeout(() => void this.saveNow(), SAVE_DELAY_MS);
  }

  /**
   * Stores every fact waiting to be, after the stores already under way (resolves when these are stored too); a
   * failure is logged (the facts can be computed again).
   */
  saveNow(): Promise<void> {
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    const waiting = [...this.unsaved.values()];
    this.unsaved.clear();
    // Never rejected: the timer's call is not awaited, and one failure must not stop the stores after it.
    this.saving = this.saving
      .then(() => this.store(waiting))
      .catch((error: unknown) => this.log('history facts not stored', { err: (error as Error).message }));
    return this.saving;
  }

  private async store(waiting: UnsavedFacts[]): Promise<void> {
    // In the order they were known: a change's base (when it was waiting too) is stored before it.
    for (const { spaceId, oid, facts, change } of waiting) {
      const save = (stored: StoredFacts) => saveRevisionFacts(this.deps.db, spaceId, oid, stored);
      // A change whose base could not be stored is refused (the row's foreign key): it is stored whole instead.
      const saving = change
        ? save({ facts: JSON.stringify(change.changes), baseOid: change.baseOid, depth: change.depth }).catch(async () => save(await wholeFacts(facts)))
        : wholeFacts(facts).then(save);
      await saving.catch((error: unknown) => this.log('history facts not stored', { space: spaceId, commit: oid, err: (error as Error).message }));
    }
  }

  private async stored(spaceId: string, oid: string): Promise<Facts | undefined> {
    const key = `${spaceId}:${oid}`;
    const cached = this.memory.get(key);
    if (cached) return cached.facts;
    // The rows from this commit's back to a whole one, or to a commit whose facts are in memory.
    const rows: StoredFacts[] = [];
    let start: Facts | undefined;
    for (let next: string | null = oid; next !== null; ) {
      const inMemory = next === oid ? undefined : this.memory.get(`${spaceId}:${next}`);
      if (inMemory) {
        start = inMemory.facts;
        break;
      }
      const row = await findRevisionFacts(this.deps.db, spaceId, next);
      // Gone meanwhile (rows go with their base, and with their space): computed again.
      if (!row) return undefined;
      rows.push(row);
      next = row.baseOid;
    }
    const own = rows[0];
    // Without a start in memory, the last row read is a whole one: the facts start from it; the changes follow, oldest first.
    const facts: FactMap = start ? new Map(start) : new Map(Object.entries(JSON.parse(rows.pop()!.facts) as Record<string, PathFact>));
    for (const row of rows.reverse()) applyFactChanges(facts, JSON.parse(row.facts) as FactChanges);
    this.remember(key, { facts, depth: own.depth });
    return facts;
  }

  private remember(key: string, known: KnownFacts): void {
    let bytes = FACTS_HEAP.commit;
    for (const path of known.facts.keys()) bytes += FACTS_HEAP.path + path.length;
    this.memory.set(key, known, bytes);
  }

  /** The bytes the facts kept in memory are estimated to hold. */
  get weight(): number {
    return this.memory.weight;
  }

  /** One computation per commit and process: concurrent callers share it. */
  private compute(spaceId: string, commitOid: string, plan?: Plan): Promise<Facts> {
    const key = `${spaceId}:${commitOid}`;
    const running = this.running.get(key);
    if (running) return running;
    const work = (async () => {
      const known = await this.stored(spaceId, commitOid);
      if (known) return known;
      return this.run(spaceId, commitOid, plan ?? (await this.plan(spaceId, commitOid)));
    })();
    this.running.set(key, work);
    void work.then(
      () => this.running.delete(key),
      () => this.running.delete(key),
    );
    return work;
  }

  /**
   * The commits between `target` and the commits whose facts are known, read as objects through cat-file, level by
   * level (pipelined). Stops after `limit` commits, if given.
   */
  private async plan(spaceId: string, target: string, limit = Infinity): Promise<Plan> {
    const storedOids = new Set(await revisionFactCommits(this.deps.db, spaceId));
    const isKnown = (oid: string) => oid !== target && (storedOids.has(oid) || this.isFinal(spaceId, oid) || this.running.has(`${spaceId}:${oid}`));
    const commits = new Map<string, CommitObject>();
    const boundary = new Set<string>();
    const seen = new Set<string>([target]);
    let level = [target];
    while (level.length > 0) {
      const read = await Promise.all(level.map((oid) => this.deps.reader.readCommit(spaceId, oid)));
      const next: string[] = [];
      for (const commit of read) {
        if (!commit) continue;
        commits.set(commit.oid, commit);
        for (const parent of commit.parents) {
          if (seen.has(parent)) continue;
          seen.add(parent);
          if (isKnown(parent)) boundary.add(parent);
          else next.push(parent);
        }
      }
      if (commits.size > limit) return { order: [], boundary: [...boundary], truncated: true };
      level = next;
    }
    if (!commits.has(target)) throw new Error(`commit ${target} not found in space ${spaceId}`);
    return { order: postorder(target, commits), boundary: [...boundary], truncated: false };
  }

  /** Computes the facts of the plan's commits, oldest first, storing the target's and checkpoints'. */
  private async run(spaceId: string, target: string, plan: Plan): Promise<Facts> {
    // How many commits still need each commit's facts: a map is handed on (not copied) to its last child.
    const waiting = new Map<string, number>();
    for (const commit of plan.order) for (const parent of commit.parents) waiting.set(parent, (waiting.get(parent) ?? 0) + 1);
    const live = new Map<string, FactMap>();
    const factsOfParent = async (oid: string): Promise<FactMap | undefined> => {
      const computed = live.get(oid);
      if (computed) return computed;
      const known = (await this.stored(spaceId, oid)) ?? (await this.running.get(`${spaceId}:${oid}`));
      if (!known) return undefined;
      // A copy: the map is advanced in place to its children's facts.
      const map: FactMap = new Map(known);
      live.set(oid, map);
      return map;
    };
    const inPlan = new Map(plan.order.map((c) => [c.oid, c]));
    const reachable = (oid: string | undefined) => oid !== undefined && (inPlan.has(oid) || plan.boundary.includes(oid));
    // A commit whose first parent is missing (a shallow history) is diffed against nothing, like a root commit.
    const toDiff: CommitToDiff[] = [];
    const orphans = new Set<string>();
    for (const commit of plan.order) {
      const parent = commit.parents[0];
      if (parent === undefined) toDiff.push({ oid: commit.oid });
      else if (reachable(parent)) toDiff.push({ oid: commit.oid, parent });
      else orphans.add(commit.oid);
    }
    let result: Facts | undefined;
    let count = 0;
    const step = async (commit: CommitObject, changes: PathChange[]) => {
      if (this.closed) throw new Error('closed');
      const parents = await Promise.all(commit.parents.map((p) => (reachable(p) ? factsOfParent(p) : undefined)));
      const first = parents[0];
      const firstParent = commit.parents[0];
      const lastUse = firstParent !== undefined && waiting.get(firstParent) === 1 && !commit.parents.slice(1).includes(firstParent);
      const into: FactMap = first && lastUse ? first : new Map(first ?? []);
      const facts = await advanceFacts(spaceId, commit, orphans.has(commit.oid) ? [] : parents, changes, into);
      for (const parent of commit.parents) {
        const left = (waiting.get(parent) ?? 1) - 1;
        waiting.set(parent, left);
        if (left <= 0) live.delete(parent);
      }
      live.set(commit.oid, facts);
      count++;
      if (commit.oid === target) {
        // The last commit of the plan: its map is handed on to no other.
        this.keepWanted(spaceId, target, facts, storedAncestor(target, inPlan, plan.boundary));
        result = facts;
      } else if (count % this.checkpointEvery === 0) {
        // A copy (the map may be handed on to a child); stored whole and at once: a long computation may be stopped.
        const checkpoint = new Map(facts);
        this.remember(`${spaceId}:${commit.oid}`, { facts: checkpoint, depth: 0 });
        await saveRevisionFacts(this.deps.db, spaceId, commit.oid, await wholeFacts(checkpoint));
      }
      if ((waiting.get(commit.oid) ?? 0) === 0 && commit.oid !== target) live.delete(commit.oid);
    };
    const diffs = commitChanges(this.deps.git, spaceId, toDiff);
    try {
      for (const commit of plan.order) {
        if (orphans.has(commit.oid)) {
          await step(commit, addedBlobs(await this.deps.reader.listBlobs(spaceId, commit.tree)));
          continue;
        }
        const next = await diffs.next();
        if (next.done || next.value.oid !== commit.oid) throw new Error(`git diff-tree answered out of order at ${commit.oid}`);
        await step(commit, next.value.changes);
      }
    } finally {
      // Ends the git process when a step failed half-way.
      await diffs.return(undefined);
    }
    if (!result) throw new Error(`commit ${target} was not computed`);
    return result;
  }

  /**
   * Facts good enough to answer a read while the real ones are computed: the nearest known ancestor's advanced to
   * the commit in one step (so pages that existed keep their ids), else ids from paths alone.
   */
  private async provisional(spaceId: string, commitOid: string, boundary: string[]): Promise<Facts> {
    const commit = await this.deps.reader.readCommit(spaceId, commitOid);
    if (!commit) throw new Error(`commit ${commitOid} not found in space ${spaceId}`);
    const baseOid = boundary.find((oid) => this.isFinal(spaceId, oid)) ?? boundary[0];
    const base = baseOid ? await this.stored(spaceId, baseOid) : undefined;
    if (base && baseOid) {
      for await (const diff of commitChanges(this.deps.git, spaceId, [{ oid: commitOid, parent: baseOid }])) {
        const map: FactMap = new Map(base);
        return await advanceFacts(spaceId, commit, [map], diff.changes, map);
      }
    }
    const changes = addedBlobs(await this.deps.reader.listBlobs(spaceId, commit.tree));
    return advanceFacts(spaceId, commit, [], changes, new Map());
  }
}

/**
 * Facts to store whole: the JSON object of `Object.fromEntries(facts)`, written a path at a time in turns (10,000
 * paths make 1.6 MB of JSON, tens of milliseconds in one call).
 */
async function wholeFacts(facts: Facts): Promise<StoredFacts> {
  const turns = new Turns();
  const members: string[] = [];
  for (const [path, fact] of facts) {
    if (turns.due()) await turns.take();
    members.push(`${JSON.stringify(path)}:${JSON.stringify(fact)}`);
  }
  return { facts: `{${members.join(',')}}`, baseOid: null, depth: 0 };
}

/**
 * The commit outside the plan that the target's first parents lead to (its facts are known: stored, or computed
 * before the plan's); undefined when they end in a root or a missing commit.
 */
function storedAncestor(target: string, inPlan: ReadonlyMap<string, CommitObject>, boundary: readonly string[]): string | undefined {
  let oid = inPlan.get(target)?.parents[0];
  while (oid !== undefined && inPlan.has(oid)) oid = inPlan.get(oid)!.parents[0];
  return oid !== undefined && boundary.includes(oid) ? oid : undefined;
}

/** A whole tree as changes: every blob added (a root commit, or one whose parent is missing). */
function addedBlobs(blobs: BlobEntry[]): PathChange[] {
  return blobs.map((b) => ({ status: 'A', path: b.path, oid: b.oid, mode: b.mode }));
}

/** The promise's value if it settles successfully within `ms`, else undefined. */
async function settledWithin<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise.catch(() => undefined), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Commits in `commits` reachable from `target`, every commit after its parents (iterative depth-first, first parent first). */
function postorder(target: string, commits: Map<string, CommitObject>): CommitObject[] {
  const order: CommitObject[] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: Array<{ commit: CommitObject; next: number }> = [{ commit: commits.get(target)!, next: 0 }];
  state.set(target, 'open');
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    const parent = top.commit.parents[top.next++];
    if (parent === undefined) {
      stack.pop();
      state.set(top.commit.oid, 'done');
      order.push(top.commit);
      continue;
    }
    const commit = commits.get(parent);
    if (!commit || state.has(parent)) continue;
    state.set(parent, 'open');
    stack.push({ commit, next: 0 });
  }
  return order;
}
