/**
 * Merge rules (a Quire extension): what a change request must satisfy before it may be merged, as pure arithmetic
 * over the rules and the facts about the change request. The facts are gathered by ./mergeability.ts; the rules are
 * set per organization (its default) and per space (./merge-rule-settings.ts).
 */
import type { ReviewFact, ReviewVerdicts } from './review-verdicts.js';

export const MAX_REQUIRED_APPROVALS = 10;

export interface MergeRules {
  /** How many reviewers' current approvals a merge needs (0..10); above 0, a current request for changes blocks. */
  requiredApprovals: number;
  /** The change request may not add broken links (compared with the revision it branched from). */
  noNewBrokenLinks: boolean;
  /** The change request's head may have no content problems (those the push checks report). */
  noContentProblems: boolean;
}

export const DEFAULT_MERGE_RULES: Readonly<MergeRules> = Object.freeze({ requiredApprovals: 0, noNewBrokenLinks: false, noContentProblems: false });

export const MERGE_RULE_NAMES = ['requiredApprovals', 'changesRequested', 'noNewBrokenLinks', 'noContentProblems'] as const;
export type MergeRuleName = (typeof MERGE_RULE_NAMES)[number];

/** What the rules are checked against. */
export interface MergeFacts<R extends ReviewFact = ReviewFact> {
  /** The current verdicts of the reviews (currentReviewVerdicts). */
  verdicts: ReviewVerdicts<R>;
  /** The broken links (as `relation target` keys) of the head that the merge base does not have broken. */
  brokenLinksAdded: readonly string[];
  /** The head's content problems, formatted (`path:line: message`). */
  contentProblems: readonly string[];
}

export interface BlockingRule {
  rule: MergeRuleName;
  /** A sentence saying what to do. */
  message: string;
  data: Record<string, unknown>;
}

/** How many of a list are shown in a rule's data. */
const SHOWN = 5;

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The rules that block the merge, in the order of MERGE_RULE_NAMES; [] when the change request may be merged. */
export function blockingMergeRules<R extends ReviewFact>(rules: MergeRules, facts: MergeFacts<R>): BlockingRule[] {
  const blocking: BlockingRule[] = [];
  if (rules.requiredApprovals > 0) {
    const given = facts.verdicts.approvals.length;
    if (given < rules.requiredApprovals) {
      blocking.push({
        rule: 'requiredApprovals',
        message: `${plural(rules.requiredApprovals, 'approval is', 'approvals are')} required, ${given} given: ask ${plural(rules.requiredApprovals - given, 'more reviewer')} to approve the change request.`,
        data: { required: rules.requiredApprovals, given },
      });
    }
    const requested = facts.verdicts.changesRequested;
    if (requested.length > 0) {
      blocking.push({
        rule: 'changesRequested',
        message: `${plural(requested.length, 'reviewer')} requested changes: make them and ask for a new review.`,
        data: { reviewers: requested.map((c) => c.review.reviewer) },
      });
    }
  }
  if (rules.noNewBrokenLinks && facts.brokenLinksAdded.length > 0) {
    const n = facts.brokenLinksAdded.length;
    blocking.push({
      rule: 'noNewBrokenLinks',
      message: `the change request adds ${plural(n, 'broken link')}: fix or remove ${n === 1 ? 'it' : 'them'} before merging.`,
      data: { count: n, links: facts.brokenLinksAdded.slice(0, SHOWN) },
    });
  }
  if (rules.noContentProblems && facts.contentProblems.length > 0) {
    const n = facts.contentProblems.length;
    blocking.push({
      rule: 'noContentProblems',
      message: `the change request's content has ${plural(n, 'problem')}: fix ${n === 1 ? 'it' : 'them'} before merging.`,
      data: { count: n, problems: facts.contentProblems.slice(0, SHOWN) },
    });
  }
  return blocking;
}
