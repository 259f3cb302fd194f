import type { EntityManager } from 'typeorm';
import { FOLDED_COARSE_DIMENSIONS } from '../events/session-definitions';
import { SESSION_GRAINS } from '../time/buckets';
import type { Range } from '../time/time-cover';

// Ingestion writes the session rollups' `segment` rows at the minute only (coarseAtIngestion):
// the fold sums their quarter hours, hours and days, each from the next finer grain, for the
// whole buckets that hold the minutes it folds. Readers take those coarser rows only where every
// minute under them is folded and unchanged since (SegmentPlanner.planTotals).

const DIMENSIONS = [...FOLDED_COARSE_DIMENSIONS];

/** [grain, the finer grain its rows are summed from], finest first: (900, 60), (3600, 900), (86400, 3600). */
const FINEST_FIRST = [...SESSION_GRAINS].reverse();
const LEVELS = FINEST_FIRST.slice(1).map((grain, i): [number, number] => [grain, FINEST_FIRST[i]]);

/**
 * Makes the rows of each given bucket of the coarser session grains (`buckets`: per grain, whole
 * buckets) the sums of the finer rows inside it, finest grain first so that each level sums the
 * one just written. One statement per grain: it deletes the rows of keys no longer there and
 * rewrites a row only where its sums changed, so folding a bucket again writes nothing new.
 */
export async function foldSegmentTotals(
  manager: EntityManager,
  funnelId: string,
  buckets: ReadonlyMap<number, Range[]>,
): Promise<void> {
  for (const [grain, finer] of LEVELS) {
    const starts = (buckets.get(grain) ?? []).map((b) => new Date(b.from).toISOString());
    if (!starts.length) continue;
    await manager.query(
      `WITH sums AS (
         SELECT r.dimension, w.lo AS bucket, r.key, sum(r.sessions)::int AS sessions,
                sum(r.conversions)::int AS conversions, sum(r.completions)::int AS completions,
                sum(r.completion_ms)::bigint AS completion_ms
         FROM unnest($2::text[]) AS d(dimension)
         CROSS JOIN unnest($4::timestamptz[]) AS w(lo)
         CROSS JOIN LATERAL (
           SELECT * FROM metric_session_rollups r
           WHERE r.funnel_id = $1 AND r.dimension = d.dimension AND r.grain = $5
             AND r.bucket >= w.lo AND r.bucket < w.lo + $3 * interval '1 second' OFFSET 0
         ) AS r
         GROUP BY r.dimension, w.lo, r.key
         HAVING sum(r.sessions) <> 0 OR sum(r.conversions) <> 0 OR sum(r.completions) <> 0
             OR sum(r.completion_ms) <> 0
       ), gone AS (
         DELETE FROM metric_session_rollups r
         WHERE r.funnel_id = $1 AND r.dimension = ANY($2::text[]) AND r.grain = $3 AND r.bucket = ANY($4::timestamptz[])
           AND NOT EXISTS (SELECT 1 FROM sums s WHERE s.dimension = r.dimension AND s.bucket = r.bucket AND s.key = r.key)
       )
       INSERT INTO metric_session_rollups AS r (funnel_id, dimension, grain, bucket, key, sessions, conversions,
                                                completions, completion_ms)
       SELECT $1, s.dimension, $3, s.bucket, s.key, s.sessions, s.conversions, s.completions, s.completion_ms
       FROM sums s
       ON CONFLICT (funnel_id, dimension, grain, bucket, key) DO UPDATE SET
         sessions = EXCLUDED.sessions, conversions = EXCLUDED.conversions, completions = EXCLUDED.completions,
         completion_ms = EXCLUDED.completion_ms
       WHERE (r.sessions, r.conversions, r.completions, r.completion_ms)
         IS DISTINCT FROM (EXCLUDED.sessions, EXCLUDED.conversions, EXCLUDED.completions, EXCLUDED.completion_ms)`,
      [funnelId, DIMENSIONS, grain, starts, finer],
    );
  }
}
