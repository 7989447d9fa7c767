import { describe, expect, it } from 'vitest';
import { currentReviewVerdicts, type ReviewFact } from '../../src/domain/change-requests/review-verdicts.js';
import { blockingMergeRules, DEFAULT_MERGE_RULES, type MergeRules } from '../../src/domain/change-requests/merge-rules.js';

const HEAD = 'head';
const review = (id: string, reviewer: string | null, status: ReviewFact['status'], revision = HEAD, second = '01'): ReviewFact => ({
  id,
  reviewer,
  status,
  revision,
  createdAt: `2026-01-01T00:00:${second}.000Z`,
});

const facts = (reviews: ReviewFact[], brokenLinksAdded: string[] = [], contentProblems: string[] = []) => ({
  verdicts: currentReviewVerdicts(reviews, HEAD),
  brokenLinksAdded,
  contentProblems,
});

const rules = (over: Partial<MergeRules>): MergeRules => ({ ...DEFAULT_MERGE_RULES, ...over });
const names = (blocking: Array<{ rule: string }>) => blocking.map((b) => b.rule);

describe('blockingMergeRules', () => {
  it('blocks nothing under the defaults, whatever the facts', () => {
    expect(blockingMergeRules(DEFAULT_MERGE_RULES, facts([review('a', 'ann', 'changes-requested')], ['reference x.md'], ['a.md: bad']))).toEqual([]);
  });

  it('asks for the missing approvals, counting an approval of an older revision and only the latest review of each reviewer', () => {
    const none = blockingMergeRules(rules({ requiredApprovals: 2 }), facts([]));
    expect(none).toEqual([
      { rule: 'requiredApprovals', message: '2 approvals are required, 0 given: ask 2 more reviewers to approve the change request.', data: { required: 2, given: 0 } },
    ]);
    const one = blockingMergeRules(rules({ requiredApprovals: 2 }), facts([review('a', 'ann', 'approved', 'older'), review('b', 'ann', 'approved', HEAD, '02')]));
    expect(one[0].message).toBe('2 approvals are required, 1 given: ask 1 more reviewer to approve the change request.');
    expect(blockingMergeRules(rules({ requiredApprovals: 2 }), facts([review('a', 'ann', 'approved', 'older'), review('b', 'bob', 'approved')]))).toEqual([]);
    expect(blockingMergeRules(rules({ requiredApprovals: 1 }), facts([review('a', 'ann', 'approved')]))[0]).toBeUndefined();
    expect(blockingMergeRules(rules({ requiredApprovals: 1 }), facts([]))[0].message).toMatch(/^1 approval is required, 0 given/);
    // A review whose reviewer is gone counts for no one.
    expect(names(blockingMergeRules(rules({ requiredApprovals: 1 }), facts([review('a', null, 'approved')])))).toEqual(['requiredApprovals']);
  });

  it('blocks on a current request for changes only when approvals are required', () => {
    const history = [review('a', 'ann', 'approved'), review('b', 'bob', 'changes-requested', 'older')];
    const blocking = blockingMergeRules(rules({ requiredApprovals: 1 }), facts(history));
    expect(blocking).toEqual([{ rule: 'changesRequested', message: '1 reviewer requested changes: make them and ask for a new review.', data: { reviewers: ['bob'] } }]);
    expect(blockingMergeRules(rules({ requiredApprovals: 0, noNewBrokenLinks: true }), facts(history))).toEqual([]);
    // A later approval of the same reviewer replaces the request.
    expect(blockingMergeRules(rules({ requiredApprovals: 1 }), facts([...history, review('c', 'bob', 'approved', HEAD, '09')]))).toEqual([]);
    // Both at once, in the order the rules are checked.
    expect(names(blockingMergeRules(rules({ requiredApprovals: 2 }), facts(history)))).toEqual(['requiredApprovals', 'changesRequested']);
  });

  it('blocks added broken links and content problems when their rules are on, showing the first few', () => {
    const links = Array.from({ length: 7 }, (_, i) => `reference missing-${i}.md`);
    const blocking = blockingMergeRules(rules({ noNewBrokenLinks: true, noContentProblems: true }), facts([], links, ['a.md:3: an unknown block']));
    expect(names(blocking)).toEqual(['noNewBrokenLinks', 'noContentProblems']);
    expect(blocking[0].message).toBe('the change request adds 7 broken links: fix or remove them before merging.');
    expect(blocking[0].data).toEqual({ count: 7, links: links.slice(0, 5) });
    expect(blocking[1]).toEqual({
      rule: 'noContentProblems',
      message: "the change request's content has 1 problem: fix it before merging.",
      data: { count: 1, problems: ['a.md:3: an unknown block'] },
    });
    expect(blockingMergeRules(rules({ noNewBrokenLinks: true, noContentProblems: true }), facts([]))).toEqual([]);
    expect(blockingMergeRules(rules({ noNewBrokenLinks: false, noContentProblems: false }), facts([], links, ['x']))).toEqual([]);
  });
});
