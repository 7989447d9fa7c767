/**
 * Attempts counted in this process (no Redis, or while Redis cannot be reached): fixed windows by key, the
 * number of keys bounded (past it, the least recently used windows are forgotten).
 */
import { WeightedLru } from '../lru.js';
import type { AttemptCounts, Window } from './sign-in-limits.js';

interface OpenWindow {
  startedAt: number;
  windowMs: number;
  attempts: number;
}

const MAX_KEYS = 50_000;

export class MemoryAttemptCounts implements AttemptCounts {
  private readonly windows = new WeightedLru<string, OpenWindow>(MAX_KEYS);

  constructor(private readonly now: () => number = Date.now) {}

  async read(key: string): Promise<Window | undefined> {
    const at = this.now();
    const window = this.open(key, at);
    return window && { attempts: window.attempts, msLeft: window.startedAt + window.windowMs - at };
  }

  async add(key: string, windowMs: number): Promise<Window> {
    const at = this.now();
    const window = this.open(key, at) ?? { startedAt: at, windowMs, attempts: 0 };
    window.attempts += 1;
    this.windows.set(key, window);
    return { attempts: window.attempts, msLeft: window.startedAt + window.windowMs - at };
  }

  async clear(key: string): Promise<void> {
    this.windows.delete(key);
  }

  private open(key: string, at: number): OpenWindow | undefined {
    const window = this.windows.get(key);
    return window && at - window.startedAt < window.windowMs ? window : undefined;
  }
}
