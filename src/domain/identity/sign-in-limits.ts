/**
 * How many failed sign-ins are allowed before more are refused for a while: per e-mail address (guessing one
 * account's password) and per client address (trying many accounts). A fixed window per key, counted in this
 * process; only failures count, and a success clears its e-mail's count.
 */
import { WeightedLru } from '../lru.js';

export interface SignInLimitRules {
  /** Failures allowed per e-mail address in a window. */
  perEmail: number;
  /** Failures allowed per client address in a window. */
  perAddress: number;
  windowMs: number;
}

export const SIGN_IN_LIMITS: SignInLimitRules = { perEmail: 5, perAddress: 30, windowMs: 15 * 60 * 1000 };

interface Window {
  startedAt: number;
  failures: number;
}

/** Keys are bounded: past this many, the least recently used windows are forgotten. */
const MAX_KEYS = 50_000;

export class SignInLimits {
  private readonly windows = new WeightedLru<string, Window>(MAX_KEYS);

  constructor(private readonly rules: SignInLimitRules = SIGN_IN_LIMITS, private readonly now: () => number = Date.now) {}

  /** Seconds to wait before `email` may be tried from `address` again; 0 when it may be tried now. */
  waitSeconds(email: string, address: string): number {
    const at = this.now();
    const wait = (key: string, allowed: number) => {
      const window = this.current(key, at);
      return window && window.failures >= allowed ? Math.ceil((window.startedAt + this.rules.windowMs - at) / 1000) : 0;
    };
    return Math.max(wait(`email:${email}`, this.rules.perEmail), wait(`address:${address}`, this.rules.perAddress));
  }

  failed(email: string, address: string): void {
    const at = this.now();
    for (const key of [`email:${email}`, `address:${address}`]) {
      const window = this.current(key, at) ?? { startedAt: at, failures: 0 };
      window.failures += 1;
      this.windows.set(key, window);
    }
  }

  succeeded(email: string): void {
    this.windows.set(`email:${email}`, { startedAt: this.now(), failures: 0 });
  }

  private current(key: string, at: number): Window | undefined {
    const window = this.windows.get(key);
    return window && at - window.startedAt < this.rules.windowMs ? window : undefined;
  }
}
