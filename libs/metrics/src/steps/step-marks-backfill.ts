import type { RunSql } from '../rollups/session-backfill';
import { STEP_KINDS, StepKind } from './funnel-steps';
import { FILTER_COLUMNS, MARK_EPOCH_MS, MARK_KEY_SQL, MAX_MARK_KEY_ID } from './step-marks';

/** The step key of a metric_events row `e`, as stepKeyOf gives it at ingestion (null for other types). */
function stepKeySql(e: string): string {
  const cases = (Object.entries(STEP_KINDS) as [StepKind, (typeof STEP_KINDS)[StepKind]][]).map(
    ([kind, d]) => {
      const arg = !('match' in d) ? null : d.match === 'key' ? `${e}.key` : `(${e}.payload ->> 'questionId')`;
      return `WHEN '${d.type}' THEN ${arg ? `'${kind}:' || ${arg}` : `'${kind}'`}`;
    },
  );
  return `CASE ${e}.type ${cases.join(' ')} END`;
}

/**
 * Fills the step summaries from the stored events and sessions, as ingestion would have written
 * them (for a migration; raw events already dropped by retention cannot contribute). Keys are
 * numbered per funnel in key order; sessions without a step event get no row, as they reach none.
 */
export async function backfillStepMarks(run: RunSql): Promise<void> {
  const types = [...new Set(Object.values(STEP_KINDS).map((d) => `'${d.type}'`))].join(', ');
  await run(
    `INSERT INTO metric_step_keys (funnel_id, key, id)
     SELECT funnel_id, key, row_number() OVER (PARTITION BY funnel_id ORDER BY key)
     FROM (SELECT DISTINCT e.funnel_id, ${stepKeySql('e')} AS key FROM metric_events e WHERE e.type IN (${types})) AS k`,
    [],
  );
  await run(
    `INSERT INTO metric_session_steps (funnel_id, session_id, started_ms, ${FILTER_COLUMNS.join(', ')}, marks)
     SELECT g.funnel_id, g.session_id,
            (extract(epoch FROM m.started_at) * 1000)::bigint - ${MARK_EPOCH_MS},
            ${FILTER_COLUMNS.map((c) => `m.${c}`).join(', ')}, g.marks
     FROM (
       SELECT e.funnel_id, e.session_id,
              array_agg(DISTINCT k.id * ${MARK_KEY_SQL} + ((extract(epoch FROM e.occurred_at) * 1000)::bigint - ${MARK_EPOCH_MS})
                        ORDER BY k.id * ${MARK_KEY_SQL} + ((extract(epoch FROM e.occurred_at) * 1000)::bigint - ${MARK_EPOCH_MS})) AS marks
       FROM metric_events e
       JOIN metric_step_keys k ON k.funnel_id = e.funnel_id AND k.key = ${stepKeySql('e')} AND k.id <= ${MAX_MARK_KEY_ID}
       WHERE e.type IN (${types})
       GROUP BY e.funnel_id, e.session_id
     ) AS g
     LEFT JOIN metric_sessions m ON m.funnel_id = g.funnel_id AND m.session_id = g.session_id`,
    [],
  );
}
