import { isFiltered, SessionFilter } from '../query/metric-query';
import { cellsOf, segmentRollupRows } from '../segments/segment-sql';
import type { SegmentPlan } from '../segments/segment-state';
import { SqlParams } from '../sql/sql-params';
import type { OffsetPeriod } from '../time/time-zone';
import { offsetAtSql } from '../time/zone-sql';
import { pieceScans } from './cover-sql';
import { sessionJoinSql } from './session-filter-sql';

// The statements of the reads of page views at their own time per weekday-hour and per session
// attribute, rendered from their plan (SegmentPlanner): whole buckets of the folded segment
// rollups, and the raw events of the rest, each joined to its session for a filter.

/** A statement and its parameters. */
export interface Statement {
  text: string;
  values: unknown[];
}

/** Minutes since the epoch of a time. */
export const minuteOf = (time: string) => `floor(extract(epoch FROM ${time}) / 60)::bigint`;
/** The weekday-hour slot (0..167) of `h`, local hours since the epoch; 1970-01-01 was a Thursday (ISO weekday 4). */
export const SLOT = `((h / 24 + 3) % 7) * 24 + h % 24`;

/** Page views of the sessions the filter matches (all without one) per local weekday-hour slot (`slot`, `events`). */
export function activitySql(
  plan: SegmentPlan,
  funnelId: string,
  periods: OffsetPeriod[],
  dimension: string,
  type: string,
  filter: SessionFilter,
): Statement {
  const params = new SqlParams();
  const funnel = params.bind(funnelId);
  const offsetAt = offsetAtSql(periods, params);
  const localHour = (minutes: string) => `(${minutes} - ${offsetAt(minutes)}) / 60`;
  const minute = minuteOf('e.occurred_at');
  const eventType = params.bind(type);
  const join = isFiltered(filter) ? sessionJoinSql(funnel, filter, params) : '';
  return {
    text: `SELECT ${SLOT} AS slot, sum(b.events) AS events
     FROM (
       SELECT ${localHour('extract(epoch FROM r.bucket)::bigint / 60')} AS h,
              s.sign * (r.events -> ${params.bind(dimension)} -> '' ->> 0)::bigint AS events
       FROM ${segmentRollupRows(plan, funnel, filter, params, 'r.bucket, r.events')}
       UNION ALL
       SELECT ${localHour(minute)} AS h, e.sign AS events
       FROM (${pieceScans(
         plan.raw,
         params,
         (lo, hi, sign) => `SELECT ${sign} AS sign, e.occurred_at FROM metric_events e ${join}
           WHERE e.funnel_id = ${funnel} AND e.type = ${eventType} AND e.occurred_at >= ${lo} AND e.occurred_at < ${hi}`,
       )}) AS e
     ) AS b
     WHERE b.events IS NOT NULL
     GROUP BY 1`,
    values: params.values,
  };
}

/**
 * Page views that reported a time on page (`timed`) and its sum (`total_ms`) per value (`key`) of
 * the session attribute column `column`, over the events of the sessions the filter matches.
 */
export function timedPageViewsSql(
  plan: SegmentPlan,
  funnelId: string,
  type: string,
  column: string,
  filter: SessionFilter,
): Statement {
  const params = new SqlParams();
  const funnel = params.bind(funnelId);
  const eventType = params.bind(type);
  const join = sessionJoinSql(funnel, filter, params, isFiltered(filter) ? 'JOIN' : 'LEFT JOIN');
  return {
    text: `SELECT t.key, sum(t.timed) AS timed, sum(t.total_ms) AS total_ms
     FROM (
       SELECT k.segment_key AS key, k.sign * (k.value ->> 1)::bigint AS timed, k.sign * (k.value ->> 2)::bigint AS total_ms
       FROM ${cellsOf(
         segmentRollupRows(plan, funnel, filter, params, `r.${column}, r.events`),
         `r.events -> ${params.bind('page')}`,
         [
           [`r.${column}`, 'segment_key'],
           ['s.sign', 'sign'],
         ],
       )}
       UNION ALL
       SELECT e.key, e.sign, e.sign * e.time_on_page_ms
       FROM (${pieceScans(
         plan.raw,
         params,
         (
           lo,
           hi,
           sign,
         ) => `SELECT ${sign} AS sign, m.${column} AS key, e.time_on_page_ms FROM metric_events e ${join}
           WHERE e.funnel_id = ${funnel} AND e.type = ${eventType} AND e.time_on_page_ms IS NOT NULL
             AND e.occurred_at >= ${lo} AND e.occurred_at < ${hi}`,
       )}) AS e
     ) AS t
     GROUP BY 1`,
    values: params.values,
  };
}
