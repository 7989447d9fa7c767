/**
 * The HTTP answer cache: what the routes answer from one revision of a space (JSON texts, the bytes of rendered pages,
 * their compressed forms), by route and options, and the URLs replayed from them (src/http/replay-lane.ts,
 * present.ts replayCachedAnswer). A revision never changes, so an answer made from it stays right as long as the revision
 * lives: the answers are attached to the domain's revision object (a WeakMap, keyed by the space's revision at one
 * commit), go when the revision cache lets it go, and are counted in its weight (`weigh`), so that one budget bounds
 * both. The domain keeps no bytes of answers: it only hears how much is held with each revision.
 */
import type { IndexedRevision } from '../domain/content/revisions.js';

/** A kept answer as a URL replays it: its key among the revision's answers, its bytes and its content type. */
export interface KeptReplay {
  key: string;
  bytes: Buffer;
  type: string;
}

/** A kept answer: a text, its bytes, or (compressed forms) bytes still being made. */
export type KeptAnswer = string | Buffer | Promise<Buffer>;

interface RevisionAnswers {
  answers: Map<string, KeptAnswer>;
  replays: Map<string, KeptReplay>;
}

const byRevision = new WeakMap<IndexedRevision, RevisionAnswers>();

function answersOf(content: IndexedRevision): RevisionAnswers {
  let kept = byRevision.get(content);
  if (!kept) byRevision.set(content, (kept = { answers: new Map(), replays: new Map() }));
  return kept;
}

/** The answer kept under `key` for the revision, if any. */
export function keptAnswer(content: IndexedRevision, key: string): KeptAnswer | undefined {
  return byRevision.get(content)?.answers.get(key);
}

/** Keeps `answer` under `key`; `bytes`: what it holds, added to the revision's weight (0 for a promise replaced later). */
export function keepAnswer(content: IndexedRevision, key: string, answer: KeptAnswer, bytes: number): void {
  answersOf(content).answers.set(key, answer);
  if (bytes > 0) content.weigh?.(bytes);
}

/** Forgets the answer kept under `key` (a compression that failed). */
export function dropAnswer(content: IndexedRevision, key: string): void {
  byRevision.get(content)?.answers.delete(key);
}

/** Forgets every answer kept for the revision (tests that make one anew). */
export function dropAnswers(content: IndexedRevision): void {
  byRevision.delete(content);
}

/** The kept answer `url` is replayed with, if it was answered from this revision before. */
export function replayOf(content: IndexedRevision, url: string): KeptReplay | undefined {
  return byRevision.get(content)?.replays.get(url);
}

/** Remembers that `url` is answered by `answer`; false when it was already. */
export function keepReplay(content: IndexedRevision, url: string, answer: KeptReplay): boolean {
  const { replays } = answersOf(content);
  if (replays.has(url)) return false;
  replays.set(url, answer);
  return true;
}

/** The keys of what is kept for the revision (tests look at what a request kept). */
export function keptAnswerKeys(content: IndexedRevision): string[] {
  return [...(byRevision.get(content)?.answers.keys() ?? [])];
}
