/**
 * How many failed sign-ins are allowed before more are refused for a while: per e-mail address (guessing one
 * account's password) and per client address (trying many accounts), in a fixed window per key. The counts are kept where every process serving the same users sees them
 * (Redis when the installation has one: several `quire serve` behind one address must not multiply the allowance),
 * else in this process.
 */

export interface SignInLimitRules {
  /** Attempts allowed per e-mail address in a window (a success clears them). */
  perEmail: number;
  /** Failures allowed per client address in a window. */
  perAddress: number;
  windowMs: number;
}

export const SIGN_IN_LIMITS: SignInLimitRules = { perEmail: 5, perAddress: 30, windowMs: 15 * 60 * 1000 };

/** Where attempts are counted: fixed windows by key, opened by the first attempt. */
export interface AttemptCounts {
  /** The attempts counted under `key` in its open window, and the ms left in it; undefined when no window is open. */
  read(key: string): Promise<Window | undefined>;
  /** Counts one attempt under `key`, opening a window of `windowMs` when none is open; answers the window after it. */
  add(key: string, windowMs: number): Promise<Window>;
  /** Forgets the count under `key`. */
  clear(key: string): Promise<void>;
}

export interface Window {
  attempts: number;
  msLeft: number;
}

/**
 * The limits of one kind of attempt. An attempt on an e-mail address is counted before it is tried, in one atomic
 * step (many guesses sent at once cannot all pass a check made before any of them is counted), and a success clears
 * that count. A client address counts only its failures (an office behind one address signs many people in).
 */
export class SignInLimits {
  /**
   * `scope` keeps the counts of one limit apart from another's in the same store (signing in, asking for a
   * password link).
   */
  constructor(
    private readonly counts: AttemptCounts,
    private readonly scope: string,
    private readonly rules: SignInLimitRules = SIGN_IN_LIMITS,
  ) {}

  /** Counts an attempt on `email` from `address`: the seconds to wait before trying again, or 0 to go ahead. */
  async attempt(email: string, address: string): Promise<number> {
    const [byEmail, byAddress] = await Promise.all([this.counts.add(this.emailKey(email), this.rules.windowMs), this.counts.read(this.addressKey(address))]);
    const wait = (window: Window | undefined, over: boolean) => (window && over ? Math.max(1, Math.ceil(window.msLeft / 1000)) : 0);
    return Math.max(wait(byEmail, byEmail.attempts > this.rules.perEmail), wait(byAddress, (byAddress?.attempts ?? 0) >= this.rules.perAddress));
  }

  /** The attempt failed: counted against its client address. */
  async failed(address: string): Promise<void> {
    await this.counts.add(this.addressKey(address), this.rules.windowMs);
  }

  /** The attempt succeeded: its e-mail address starts afresh. */
  async succeeded(email: string): Promise<void> {
    await this.counts.clear(this.emailKey(email));
  }

  private emailKey(email: string): string {
    return `${this.scope}:email:${email}`;
  }

  private addressKey(address: string): string {
    return `${this.scope}:address:${address}`;
  }
}
