/**
 * Which variant of an adaptive page a reader gets, and how many variants of a page are kept. A published page is the
 * same for every reader but for the outcomes of its `{% if %}` / `{% elif %}` conditions (and the sections and site
 * spaces the site's conditions show, part of the page's key already): claims matter only through those outcomes.
 * A reader whose claims decide every condition as for a reader without claims (a claim no condition reads, say
 * `?visitor.anything=1`) gets the page everyone gets, from the cache; readers whose outcomes agree share one
 * rendering, made on the CPU pool. Any reader can send unsigned claims, so the variants of one page kept beside its
 * revision are bounded (KEPT_VARIANTS); beyond them a variant is rendered for its reader and not kept.
 */
import { createHash } from 'node:crypto';
import type { IndexedRevision } from '../../../domain/content/revisions.js';
import type { Context } from '../../../domain/context.js';
import type { PublishedPage } from '../../../domain/sites/published.js';
import { evaluateCondition, type ConditionOutcomes, type VisitorClaims } from '../../../domain/sites/conditions.js';
import { mayHaveConditions } from '../../../content/adaptive-markdown.js';
import { cachedJson } from '../../present.js';
import { keptAnswer } from '../../answer-cache.js';

/** A reader's variant of a page: the outcomes their claims give its conditions, where they differ from no claims. */
export interface PageVariant {
  /** A short name of the outcomes: part of the keys the page is kept under. */
  key: string;
  outcomes: ConditionOutcomes;
}

/** Variants of one page (per place on the site) kept with its revision: the most claims can add to its memory. */
export const KEPT_VARIANTS = 16;

const INCLUDE = /\{%-?\s*include\s/;

/**
 * The conditions of the page and of the reusable contents it may include, each with its outcome for a reader without
 * claims: found once per revision (parsed on the CPU pool, kept with the revision); none without an `{% if %}`
 * anywhere (nothing is parsed then).
 */
async function pageConditions(ctx: Context, published: PublishedPage): Promise<Array<[string, boolean]>> {
  const { page, content } = published;
  const bodies = [page.markdown, ...(INCLUDE.test(page.markdown) ? content.revision.reusableContents.map((reusable) => reusable.markdown) : [])];
  if (!bodies.some(mayHaveConditions)) return [];
  const key = `published-conditions:${page.id}`;
  const kept = keptAnswer(content, key);
  if (typeof kept === 'string') return JSON.parse(kept) as Array<[string, boolean]>;
  const found = await ctx.cpu.run('pageConditions', bodies);
  return JSON.parse(cachedJson(content, key, () => found.map((condition) => [condition, evaluateCondition(condition, {})]))) as Array<[string, boolean]>;
}

/** The names of the claims a reader brings, signed and unsigned. */
function claimNames(claims: VisitorClaims): string[] {
  const unsigned = typeof claims.unsigned === 'object' && claims.unsigned !== null ? Object.keys(claims.unsigned) : [];
  return [...Object.keys(claims).filter((name) => name !== 'unsigned'), ...unsigned];
}

/**
 * The reader's variant of the page: undefined when they bring no claims, or when their claims decide each of its
 * conditions as no claims do (they get the page everyone gets).
 */
export async function pageVariant(ctx: Context, published: PublishedPage): Promise<PageVariant | undefined> {
  const claims = published.tree.claims;
  if (!claims) return undefined;
  const names = claimNames(claims);
  const outcomes = new Map<string, boolean>();
  for (const [condition, withoutClaims] of await pageConditions(ctx, published)) {
    // A condition naming a claim the reader lacks is false, as without claims: only one naming theirs may differ.
    if (!names.some((name) => condition.includes(name))) continue;
    const holds = evaluateCondition(condition, claims);
    if (holds !== withoutClaims) outcomes.set(condition, holds);
  }
  if (outcomes.size === 0) return undefined;
  const named = JSON.stringify([...outcomes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  return { key: createHash('sha256').update(named).digest('base64url').slice(0, 22), outcomes };
}

/** The keys of the answers made for readers with claims, per page, kept with each revision. */
const keptForClaims = new WeakMap<IndexedRevision, Map<string, Set<string>>>();

/**
 * Whether an answer made for a reader with claims may be kept under `key` (one of the page's, `page`): when it is
 * already, or when fewer than KEPT_VARIANTS such answers of the page are kept (it then counts as one).
 */
export function mayKeepVariant(content: IndexedRevision, page: string, key: string): boolean {
  if (keptAnswer(content, key) !== undefined) return true;
  let pages = keptForClaims.get(content);
  if (!pages) keptForClaims.set(content, (pages = new Map()));
  let keys = pages.get(page);
  if (!keys) pages.set(page, (keys = new Set()));
  if (keys.has(key)) return true;
  if (keys.size >= KEPT_VARIANTS) return false;
  keys.add(key);
  return true;
}
