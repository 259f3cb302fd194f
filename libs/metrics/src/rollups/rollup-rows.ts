import { at } from '../sql/epoch';
import { columnArrays } from '../sql/column-arrays';
import type { EventCounts, RollupRow, SessionCounts } from './rollup-deltas';

// Rollup increments travel as one array per column (columnArrays); ingestion adds them through
// these statements.

const SESSION_ROLLUP_ROWS = columnArrays<RollupRow<SessionCounts>>([
  ['dimension', 'text', (r) => r.dimension],
  ['grain', 'int', (r) => r.grain],
  ['bucket', 'bigint', (r) => r.bucket],
  ['key', 'text', (r) => r.key],
  ['sessions', 'int', (r) => r.counts.sessions],
  ['conversions', 'int', (r) => r.counts.conversions],
  ['completions', 'int', (r) => r.counts.completions],
  ['completion_ms', 'bigint', (r) => r.counts.completionMs],
]);

/** Session rollup increments as the parameters sessionRollupUpsertSql reads. */
export const sessionRollupValues = SESSION_ROLLUP_ROWS.values;

/** A session rollup row's counters, as columns. */
const SESSION_COUNTERS = ['sessions', 'conversions', 'completions', 'completion_ms'];
const counterList = (prefix: string) => SESSION_COUNTERS.map((c) => `${prefix}${c}`).join(', ');

/**
 * Adds session rollup increments (sessionRollupValues, bound from parameter `first` on) to a
 * funnel's rows.
 */
export function sessionRollupUpsertSql(funnel: string, first: number): string {
  return `INSERT INTO metric_session_rollups AS r (funnel_id, dimension, grain, bucket, key, ${counterList('')})
     SELECT ${funnel}, v.dimension, v.grain, ${at('v.bucket')}, v.key, ${counterList('v.')}
     FROM ${SESSION_ROLLUP_ROWS.sql(first)}
     ON CONFLICT (funnel_id, dimension, grain, bucket, key) DO UPDATE SET
       ${SESSION_COUNTERS.map((c) => `${c} = r.${c} + EXCLUDED.${c}`).join(', ')}`;
}

const EVENT_ROLLUP_ROWS = columnArrays<RollupRow<EventCounts>>([
  ['dimension', 'text', (r) => r.dimension],
  ['grain', 'int', (r) => r.grain],
  ['bucket', 'bigint', (r) => r.bucket],
  ['key', 'text', (r) => r.key],
  ['events', 'int', (r) => r.counts.events],
  ['timed', 'int', (r) => r.counts.timed],
  ['total_ms', 'bigint', (r) => r.counts.totalMs],
  ['label', 'text', (r) => r.counts.label],
  ['label_at', 'bigint', (r) => r.counts.labelAt],
]);

/** Event rollup increments as the parameters eventRollupUpsertSql reads (EVENT_ROLLUP_PARAMS of them). */
export const eventRollupValues = EVENT_ROLLUP_ROWS.values;
export const EVENT_ROLLUP_PARAMS = EVENT_ROLLUP_ROWS.count;

// The newer label wins; at the same time the greater, so the result does not depend on order.
const LABEL_IS_NEWER = `EXCLUDED.label_at IS NOT NULL AND (r.label_at IS NULL OR EXCLUDED.label_at > r.label_at
  OR (EXCLUDED.label_at = r.label_at AND EXCLUDED.label COLLATE "C" > r.label COLLATE "C"))`;

/** Adds event rollup increments (eventRollupValues, bound from parameter `first` on) to a funnel's rows. */
export function eventRollupUpsertSql(funnel: string, first: number): string {
  return `INSERT INTO metric_event_rollups AS r (funnel_id, dimension, grain, bucket, key, events, timed, total_ms,
                                            label, label_at)
     SELECT ${funnel}, v.dimension, v.grain, ${at('v.bucket')}, v.key, v.events, v.timed, v.total_ms, v.label,
            ${at('v.label_at')}
     FROM ${EVENT_ROLLUP_ROWS.sql(first)}
     ON CONFLICT (funnel_id, dimension, grain, bucket, key) DO UPDATE SET
       events = r.events + EXCLUDED.events,
       timed = r.timed + EXCLUDED.timed,
       total_ms = r.total_ms + EXCLUDED.total_ms,
       label = CASE WHEN ${LABEL_IS_NEWER} THEN EXCLUDED.label ELSE r.label END,
       label_at = CASE WHEN ${LABEL_IS_NEWER} THEN EXCLUDED.label_at ELSE r.label_at END`;
}
