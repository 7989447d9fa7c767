import type { EffectiveMergeRules } from '../../../domain/change-requests/mergeability.js';
import type { Mergeability } from '../../../domain/change-requests/change-requests.js';

export function presentMergeRules(rules: EffectiveMergeRules) {
  return {
    object: 'merge-rules' as const,
    requiredApprovals: rules.requiredApprovals,
    noNewBrokenLinks: rules.noNewBrokenLinks,
    noContentProblems: rules.noContentProblems,
    source: rules.source,
  };
}

export function presentMergeability(view: Mergeability) {
  return {
    object: 'change-request-mergeability' as const,
    mergeable: view.mergeable,
    blocking: view.blocking.map((b) => ({ rule: b.rule, message: b.message, data: b.data })),
    rules: presentMergeRules(view.rules),
  };
}
