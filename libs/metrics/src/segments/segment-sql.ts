import { IN_SEGMENT, segments } from '../rollups/cover-sql';
import { sessionFilterSql } from '../rollups/session-filter-sql';
import type { SessionFilter } from '../query/metric-query';
import type { SqlParams } from '../sql/sql-params';
import type { SegmentPlan } from './segment-state';

// The segment rollups' part of a filtered read: the rows of the plan's whole buckets whose
// segment the filter keeps (`r`, by the attribute columns), one index range per bucket range.

/** The plan's segment rollup rows `r` that the filter keeps, with `columns`. */
export const segmentRollupRows = (
  plan: SegmentPlan,
  funnel: string,
  filter: SessionFilter,
  params: SqlParams,
  columns: string,
) =>
  `${segments({ segments: plan.segments, raw: [], finest: 60 }, params)}
   CROSS JOIN LATERAL (
     SELECT ${columns} FROM metric_segment_rollups r
     WHERE r.funnel_id = ${funnel} AND ${IN_SEGMENT}${sessionFilterSql(filter, params, 'r')} OFFSET 0
   ) AS r`;

/** Sessions per requested dimension (`wanted`, a text[]) and key, as rawSessionSums' branches return them. */
export const segmentSessionSums = (
  plan: SegmentPlan,
  funnel: string,
  filter: SessionFilter,
  params: SqlParams,
  wanted: string,
) =>
  `SELECT d.dimension, k.key, sum(k.value::bigint) AS sessions, 0 AS conversions, 0 AS completions, 0 AS completion_ms
   FROM ${segmentRollupRows(plan, funnel, filter, params, 'r.sessions')}
   CROSS JOIN unnest(${wanted}) AS d(dimension) CROSS JOIN jsonb_each_text(r.sessions -> d.dimension) AS k
   GROUP BY 1, 2`;

/**
 * An event dimension's (`dimension`, bound) cells per key: events, timed views, their total
 * time, the latest label (the newest; at equal times the greatest) and its time.
 */
export const segmentEventSums = (
  plan: SegmentPlan,
  funnel: string,
  filter: SessionFilter,
  params: SqlParams,
  dimension: string,
) =>
  `SELECT k.key, sum((k.value ->> 0)::bigint) AS events, sum((k.value ->> 1)::bigint) AS timed,
          sum((k.value ->> 2)::bigint) AS total_ms,
          (array_agg(k.value ->> 3 ORDER BY (k.value ->> 4)::bigint DESC, (k.value ->> 3) COLLATE "C" DESC)
             FILTER (WHERE k.value ->> 3 IS NOT NULL))[1] AS label,
          'epoch'::timestamptz + max((k.value ->> 4)::bigint) * interval '1 millisecond' AS label_at
   FROM ${segmentRollupRows(plan, funnel, filter, params, 'r.events')}
   CROSS JOIN jsonb_each(r.events -> ${dimension}) AS k
   GROUP BY k.key`;

/**
 * Whether funnel `funnel` has a counted event (of the types in `types`, a text[]) at or after
 * `from` and before `to`: one probe of metric_events' key (funnel, type, time) per type.
 */
export const countedEventBetweenSql = (funnel: string, types: string, from: string, to: string) =>
  `EXISTS (SELECT 1 FROM unnest(${types}) AS ty(type) CROSS JOIN LATERAL (
     SELECT 1 FROM metric_events e
     WHERE e.funnel_id = ${funnel} AND e.type = ty.type AND e.occurred_at >= ${from} AND e.occurred_at < ${to}
     LIMIT 1) AS e)`;
