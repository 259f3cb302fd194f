import { at } from '../sql/epoch';
import type { EventCounts, RollupRow, SessionCounts } from './rollup-deltas';

// Rollup increments travel as one JSON parameter, members named by the columns they fill; ingestion
// and backfills add them through the same statements.

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

/** Event rollup increments as the JSON rows eventRollupUpsertSql reads, named by column. */
export function eventRollupRowsJson(rows: RollupRow<EventCounts>[]): string {
  return JSON.stringify(
    rows.map(({ dimension, grain, bucket, key, counts: c }) => ({
      dimension,
      grain,
      bucket,
      key,
      events: c.events,
      timed: c.timed,
      total_ms: c.totalMs,
      label: c.label,
      label_at: c.labelAt,
    })),
  );
}

// The newer label wins; at the same time the greater, so the result does not depend on order.
const LABEL_IS_NEWER = `EXCLUDED.label_at IS NOT NULL AND (r.label_at IS NULL OR EXCLUDED.label_at > r.label_at
  OR (EXCLUDED.label_at = r.label_at AND EXCLUDED.label COLLATE "C" > r.label COLLATE "C"))`;

/** Adds event rollup increments (a JSON parameter of eventRollupRowsJson) to a funnel's rows. */
export function eventRollupUpsertSql(funnel: string, rows: string): string {
  return `INSERT INTO metric_event_rollups AS r (funnel_id, dimension, grain, bucket, key, events, timed, total_ms,
                                            label, label_at)
     SELECT ${funnel}, v.dimension, v.grain, ${at('v.bucket')}, v.key, v.events, v.timed, v.total_ms, v.label,
            ${at('v.label_at')}
     FROM json_to_recordset(${rows}) AS v(dimension text, grain int, bucket bigint, key text, events int,
       timed int, total_ms bigint, label text, label_at bigint)
     ON CONFLICT (funnel_id, dimension, grain, bucket, key) DO UPDATE SET
       events = r.events + EXCLUDED.events,
       timed = r.timed + EXCLUDED.timed,
       total_ms = r.total_ms + EXCLUDED.total_ms,
       label = CASE WHEN ${LABEL_IS_NEWER} THEN EXCLUDED.label ELSE r.label END,
       label_at = CASE WHEN ${LABEL_IS_NEWER} THEN EXCLUDED.label_at ELSE r.label_at END`;
}
