import { START_ATTRIBUTES } from '../events/session-definitions';
import type { SessionFilter } from '../query/metric-query';
import type { SqlParams } from '../sql/sql-params';

/** Conditions (each after AND) that keep the sessions `alias` matching the filter. */
export function sessionFilterSql(filter: SessionFilter, params: SqlParams, alias = 'm'): string {
  return Object.entries(filter)
    .map(
      ([name, values]) =>
        ` AND ${alias}.${START_ATTRIBUTES[name as keyof SessionFilter].column} = ANY(${params.bind(values, 'text[]')})`,
    )
    .join('');
}

/**
 * The join from events `e` to their sessions `m` that keeps the events of the sessions matching
 * the filter (inner), or every event with its session's attributes when there are any (left).
 * Each event probes its session by key (LATERAL … LIMIT 1 is never turned into a join the planner
 * could reorder): for a funnel newer than the statistics, estimated at one session, a join was
 * planned with the sessions found by their filter inside, and read them again for every event.
 */
export function sessionJoinSql(
  funnel: string,
  filter: SessionFilter,
  params: SqlParams,
  kind: 'JOIN' | 'LEFT JOIN' = 'JOIN',
  events = 'e',
): string {
  return `${kind} LATERAL (
      SELECT * FROM metric_sessions m
      WHERE m.funnel_id = ${funnel} AND m.session_id = ${events}.session_id${sessionFilterSql(filter, params)} LIMIT 1
    ) AS m ON true`;
}
