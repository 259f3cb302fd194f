/**
 * Sessions fall into SAMPLE_BUCKETS buckets by a hash of their id, the same for a session on every
 * read and every server: a step funnel over more sessions than it reads whole reads the sessions of
 * its first buckets, a uniform sample, through the step summaries' index on the bucket
 * (idx_metric_session_steps_sample, whose expression this must stay).
 */
export const SAMPLE_BUCKETS = 1024;

/** The bucket of the session of step summary `alias`, as the index computes it. */
export const sampleBucketSql = (alias: string): string =>
  `(hashtext(${alias}.session_id) & ${SAMPLE_BUCKETS - 1})`;

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
