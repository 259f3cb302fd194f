import { RateLimitStorage, ThrottlerStorageRecord, windowRecord } from './rate-limit-storage';

interface Window {
  hits: number;
  resetAt: number;
}

const SWEEP_INTERVAL_MS = 60_000;

/** Counts in this process only: right for a single replica (the default without REDIS_URL). */
export class MemoryRateLimitStorage implements RateLimitStorage {
  private readonly windows = new Map<string, Window>();
  private sweeper?: NodeJS.Timeout;

  constructor(private readonly now: () => number = Date.now) {}

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      window = { hits: 0, resetAt: now + ttl };
      this.windows.set(key, window);
      this.startSweeping();
    }
    window.hits += 1;
    return windowRecord(window.hits, window.resetAt - now, limit);
  }

  async peek(key: string): Promise<{ hits: number; msLeft: number } | undefined> {
    const window = this.windows.get(key);
    const msLeft = window ? window.resetAt - this.now() : 0;
    return window && msLeft > 0 ? { hits: window.hits, msLeft } : undefined;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.sweeper = undefined;
    this.windows.clear();
  }

  /** Ended windows are dropped now and then, so idle callers do not pile up in memory. */
  private startSweeping(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => {
      const now = this.now();
      for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
    }, SWEEP_INTERVAL_MS);
    this.sweeper.unref();
  }
}
