import { parseLsn, ReplicaFreshness } from './replica-freshness';

describe(ReplicaFreshness.name, () => {
  it('orders WAL positions across the high word', () => {
    expect(parseLsn('1/0')).toBeGreaterThan(parseLsn('0/FFFFFFFF'));
    expect(parseLsn('0/16B3748')).toBe(0x16b3748n);
  });

  it('is fresh as of the latest primary sample the replica has replayed past', () => {
    const freshness = new ReplicaFreshness();
    freshness.primaryAt(1_000, 100n);
    freshness.primaryAt(2_000, 200n);
    freshness.primaryAt(3_000, 300n);
    freshness.replayedUpTo(250n);
    expect(freshness.freshAsOf).toBe(2_000);
    expect(freshness.lagMs(2_500)).toBe(500);
    expect(freshness.holds(1_999)).toBe(true);
    expect(freshness.holds(2_000)).toBe(false);
  });

  it('ages while the replica replays nothing new', () => {
    const freshness = new ReplicaFreshness();
    expect(freshness.lagMs(5_000)).toBe(Infinity);
    freshness.primaryAt(1_000, 100n);
    freshness.replayedUpTo(100n);
    freshness.primaryAt(2_000, 150n);
    freshness.replayedUpTo(100n);
    expect(freshness.lagMs(4_000)).toBe(3_000);
    expect(freshness.holds(1_500)).toBe(false);
  });
});
