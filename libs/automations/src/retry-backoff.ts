export interface RetryPolicy {
  baseMs: number;
  maxMs: number;
  maxAttempts: number;
}

/** Delay before the next attempt after `attempts` failed ones: base, doubling, capped. */
export function retryDelayMs(attempts: number, policy: RetryPolicy): number {
  const exponent = Math.max(0, attempts - 1);
  // 2 ** 1024 is Infinity, which Math.min caps just the same.
  return Math.min(policy.maxMs, policy.baseMs * 2 ** exponent);
}
