import { retryDelayMs } from './retry-backoff';

describe(retryDelayMs.name, () => {
  const policy = { baseMs: 5_000, maxMs: 600_000, maxAttempts: 8 };

  it('waits the base delay after the first failure and doubles after each further one', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((attempts) => retryDelayMs(attempts, policy))).toEqual([
      5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 320_000,
    ]);
  });

  it('caps the delay', () => {
    expect(retryDelayMs(8, policy)).toBe(600_000);
    expect(retryDelayMs(5_000, policy)).toBe(600_000);
  });
});
