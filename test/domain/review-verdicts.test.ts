import { describe, expect, it } from 'vitest';
import { currentReviewVerdicts, type ReviewFact } from '../../src/domain/change-requests/review-verdicts.js';

const review = (id: string, reviewer: string | null, status: ReviewFact['status'], revision: string, createdAt: string): ReviewFact => ({
  id,
  reviewer,
  status,
  revision,
  createdAt: `2026-01-01T00:00:${createdAt}.000Z`,
});

const ids = (counted: Array<{ review: ReviewFact }>) => counted.map((c) => c.review.id);

describe('currentReviewVerdicts', () => {
  it('counts the latest review of each reviewer, newest first, whatever order the history comes in', () => {
    const history = [
      review('a1', 'ann', 'changes-requested', 'r1', '01'),
      review('b1', 'bob', 'approved', 'r1', '02'),
      review('a2', 'ann', 'approved', 'r2', '03'),
      review('c1', 'cat', 'approved', 'r2', '04'),
      review('b2', 'bob', 'changes-requested', 'r2', '05'),
    ];
    for (const reviews of [history, [...history].reverse()]) {
      const verdicts = currentReviewVerdicts(reviews, 'r2');
      expect(ids(verdicts.approvals)).toEqual(['c1', 'a2']);
      expect(ids(verdicts.changesRequested)).toEqual(['b2']);
    }
  });

  it('keeps an approval of an older revision, marked outdated', () => {
    const verdicts = currentReviewVerdicts([review('a1', 'ann', 'approved', 'r1', '01'), review('b1', 'bob', 'approved', 'r2', '02')], 'r2');
    expect(verdicts.approvals.map((c) => [c.review.id, c.outdated])).toEqual([
      ['b1', false],
      ['a1', true],
    ]);
  });

  it('breaks a tie in time by id, and counts no review whose reviewer is gone', () => {
    const verdicts = currentReviewVerdicts(
      [review('x2', 'ann', 'approved', 'r1', '01'), review('x1', 'ann', 'changes-requested', 'r1', '01'), review('g', null, 'changes-requested', 'r1', '09')],
      'r1',
    );
    expect(ids(verdicts.approvals)).toEqual(['x2']);
    expect(verdicts.changesRequested).toEqual([]);
  });

  it('says nothing without reviews', () => {
    expect(currentReviewVerdicts([], 'r1')).toEqual({ approvals: [], changesRequested: [] });
  });
});
