/** A PostgreSQL WAL position (`16/B374D848`) as a number that orders like the position. */
export function parseLsn(text: string): bigint {
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/** Samples kept while the replica is behind; older ones are dropped (freshness then only ages). */
const MAX_SAMPLES = 1_000;

/**
 * How fresh a streaming replica is, from the primary's WAL position sampled over time.
 *
 * Each sample pairs the primary's position with the time its query was sent: every transaction
 * committed before that time ends at or before that position. Once the replica has replayed past
 * a sample's position, it holds every commit made before the sample's time: `freshAsOf`.
 */
export class ReplicaFreshness {
  private samples: { at: number; lsn: bigint }[] = [];
  /** Every commit made on the primary before this time (ms since the epoch) is on the replica. */
  freshAsOf: number | undefined;

  /** The primary was at `lsn` when its query was sent at `at`. */
  primaryAt(at: number, lsn: bigint): void {
    this.samples.push({ at, lsn });
    if (this.samples.length > MAX_SAMPLES) this.samples.shift();
  }

  /** The replica has replayed the WAL up to `lsn`. */
  replayedUpTo(lsn: bigint): void {
    let caughtUp = 0;
    while (caughtUp < this.samples.length && this.samples[caughtUp].lsn <= lsn) caughtUp++;
    if (caughtUp === 0) return;
    this.freshAsOf = Math.max(this.freshAsOf ?? 0, this.samples[caughtUp - 1].at);
    this.samples = this.samples.slice(caughtUp);
  }

  /** How far behind the primary the replica may be at `now`, in ms (Infinity before the first sample). */
  lagMs(now: number): number {
    return this.freshAsOf === undefined ? Infinity : Math.max(0, now - this.freshAsOf);
  }

  /** True when the replica holds every commit made before `at`. */
  holds(at: number): boolean {
    return this.freshAsOf !== undefined && at < this.freshAsOf;
  }
}
