/**
 * The limits on sign-in attempts, over attempts counted in this process with a clock the test moves: guesses sent at
 * once are counted before any is tried, a client address counts its failures only, a success starts its address
 * afresh, and a window ends.
 */
import { describe, expect, it } from 'vitest';
import { SignInLimits } from '../../src/domain/identity/sign-in-limits.js';
import { MemoryAttemptCounts } from '../../src/domain/identity/memory-attempt-counts.js';

const RULES = { perEmail: 5, perAddress: 8, windowMs: 60_000 };

function limits() {
  let now = 1_000_000;
  const counts = new MemoryAttemptCounts(() => now);
  return { limits: new SignInLimits(counts, 'sign-in', RULES), counts, pass: (ms: number) => (now += ms) };
}

describe('sign-in limits', () => {
  it('lets through no more guesses on one address than allowed, however many are sent at once', async () => {
    const { limits: l } = limits();
    const waits = await Promise.all(Array.from({ length: 20 }, (_, i) => l.attempt('ada@example.com', `10.0.0.${i}`)));
    expect(waits.filter((wait) => wait === 0)).toHaveLength(RULES.perEmail);
    expect(waits.filter((wait) => wait > 0).every((wait) => wait === 60)).toBe(true);
  });

  it("counts a client address's failures only, and a window's end forgets them", async () => {
    const { limits: l, pass } = limits();
    // Many people signing in from one office: successes never add up.
    for (let i = 0; i < 20; i++) {
      expect(await l.attempt(`person${i}@example.com`, '10.0.0.1')).toBe(0);
      await l.succeeded(`person${i}@example.com`);
    }
    for (let i = 0; i < RULES.perAddress; i++) {
      expect(await l.attempt(`guess${i}@example.com`, '10.0.0.1')).toBe(0);
      await l.failed('10.0.0.1');
    }
    pass(15_000);
    expect(await l.attempt('someone-else@example.com', '10.0.0.1')).toBe(45);
    expect(await l.attempt('someone-else@example.com', '10.0.0.2')).toBe(0);
    pass(45_000);
    expect(await l.attempt('someone-else@example.com', '10.0.0.1')).toBe(0);
  });

  it('starts an e-mail address afresh after a success, and keeps two scopes apart', async () => {
    const { limits: l, counts } = limits();
    for (let i = 0; i < RULES.perEmail; i++) expect(await l.attempt('ada@example.com', '10.0.0.1')).toBe(0);
    expect(await l.attempt('ada@example.com', '10.0.0.1')).toBeGreaterThan(0);
    const resets = new SignInLimits(counts, 'password-reset', RULES);
    expect(await resets.attempt('ada@example.com', '10.0.0.1')).toBe(0);
    await l.succeeded('ada@example.com');
    expect(await l.attempt('ada@example.com', '10.0.0.1')).toBe(0);
  });
});
