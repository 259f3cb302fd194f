/**
 * Sessions fall into SAMPLE_BUCKETS buckets by a hash of the second they started in, the same for a
 * session on every read and every server: a step funnel over more sessions than it reads whole reads
 * the sessions of its first buckets, a uniform sample of the seconds and so of the sessions, through
 * the step summaries' index on the bucket (idx_metric_session_steps_sample, whose expression this
 * must stay). By the second rather than by the session: the summaries of the sessions that started
 * together are written together, so a sample of whole seconds reads fewer of the table's pages (a
 * sample of 4 % of the sessions, hashed one by one, read two thirds of them).
 */
export const SAMPLE_BUCKETS = 1024;

/** The bucket of the session of step summary `alias` (started_ms in ms), as the index computes it. */
export const sampleBucketSql = (alias: string): string =>
  `(hashint8(${alias}.started_ms / 1000) & ${SAMPLE_BUCKETS - 1})`;

/** Buckets counted to estimate a period's sessions before choosing how many to read (1 in 128). */
export const ESTIMATE_BUCKETS = 8;

/** The buckets a step funnel reads: the first `count`, all of them for an exact answer. */
export const firstBuckets = (count: number): number[] => Array.from({ length: count }, (_, i) => i);

/**
 * How many buckets to read for about `wanted` sessions when the first ESTIMATE_BUCKETS hold
 * `counted`: all of them (exact) when the period's sessions are estimated at `wanted` or fewer.
 */
export function bucketsToRead(counted: number, wanted: number): number {
  const estimated = (counted * SAMPLE_BUCKETS) / ESTIMATE_BUCKETS;
  if (estimated <= wanted) return SAMPLE_BUCKETS;
  return Math.min(
    SAMPLE_BUCKETS,
    Math.max(ESTIMATE_BUCKETS, Math.ceil((SAMPLE_BUCKETS * wanted) / estimated)),
  );
}
