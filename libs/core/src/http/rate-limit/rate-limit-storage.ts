import type { ThrottlerStorage } from '@nestjs/throttler';

export type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * A fixed-window counter store: the first hit of a key opens a window of `ttl` ms, every hit in
 * the window counts, and the count starts over when the window ends. Both implementations (in
 * process, Redis) answer the same way, so headers and 429s do not depend on the deployment.
 */
export interface RateLimitStorage extends ThrottlerStorage {
  /** The hits of a key's open window and the ms left in it, without counting; undefined when none is open. */
  peek(key: string): Promise<{ hits: number; msLeft: number } | undefined>;
  /** Forgets every count (tests) and releases connections. */
  close(): Promise<void>;
}

/** The record the throttler guard reads, from the hits so far and the time left in the window. */
export function windowRecord(hits: number, msLeft: number, limit: number): ThrottlerStorageRecord {
  const seconds = Math.max(1, Math.ceil(msLeft / 1000));
  const isBlocked = hits > limit;
  return { totalHits: hits, timeToExpire: seconds, isBlocked, timeToBlockExpire: isBlocked ? seconds : 0 };
}
