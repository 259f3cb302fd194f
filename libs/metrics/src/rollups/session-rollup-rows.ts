import { at } from '../sql/epoch';
import type { RollupRow, SessionCounts } from './rollup-deltas';

/** Session rollup increments as the JSON rows sessionRollupUpsertSql reads, named by column. */
export function sessionRollupRowsJson(rows: RollupRow<SessionCounts>[]): string {
  return JSON.stringify(
    rows.map(({ dimension, grain, bucket, key, counts: c }) => ({
      dimension,
      grain,
      bucket,
      key,
      sessions: c.sessions,
      conversions: c.conversions,
      completions: c.completions,
      completion_ms: c.completionMs,
    })),
  );
}

/**
 * Adds session rollup increments (a JSON parameter of sessionRollupRowsJson) to a funnel's rows:
 * ingestion and backfills write through this one statement.
 */
export function sessionRollupUpsertSql(funnel: string, rows: string): string {
  return `INSERT INTO metric_session_rollups AS r (funnel_id, dimension, grain, bucket, key, sessions, conversions,
                                              completions, completion_ms)
     SELECT ${funnel}, v.dimension, v.grain, ${at('v.bucket')}, v.key, v.sessions, v.conversions, v.completions,
            v.completion_ms
     FROM json_to_recordset(${rows}) AS v(dimension text, grain int, bucket bigint, key text, sessions int,
       conversions int, completions int, completion_ms bigint)
     ON CONFLICT (funnel_id, dimension, grain, bucket, key) DO UPDATE SET
       sessions = r.sessions + EXCLUDED.sessions,
       conversions = r.conversions + EXCLUDED.conversions,
       completions = r.completions + EXCLUDED.completions,
       completion_ms = r.completion_ms + EXCLUDED.completion_ms`;
}
