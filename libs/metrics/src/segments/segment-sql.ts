import { IN_SEGMENT, segments } from '../rollups/cover-sql';
import { sessionFilterSql } from '../rollups/session-filter-sql';
import type { SessionFilter } from '../query/metric-query';
import type { SqlParams } from '../sql/sql-params';
import { FINEST_SEGMENT_GRAIN } from '../time/buckets';
import type { SegmentPlan } from './segment-state';

// The segment rollups' part of a read: the rows of the plan's whole buckets whose
// segment the filter keeps (`r`, by the attribute columns), one index range per bucket range.

/** The plan's segment rollup rows `r` that the filter keeps, with `columns`. */
export const segmentRollupRows = (
  plan: SegmentPlan,
  funnel: string,
  filter: SessionFilter,
  params: SqlParams,
  columns: string,
) =>
  `${segments({ segments: plan.segments, raw: [], finest: FINEST_SEGMENT_GRAIN }, params)}
   CROSS JOIN LATERAL (
     SELECT ${columns} FROM metric_segment_rollups r
     WHERE r.funnel_id = ${funnel} AND ${IN_SEGMENT}${sessionFilterSql(filter, params, 'r')} OFFSET 0
   ) AS r`;

/**
 * One row per cell (`key`, `value`) of the JSON object `object` in each row of `rows`, beside the
 * `kept` columns of that row ([expression, name]), as the FROM item `k`. The object is expanded in
 * the select list, not joined laterally: joined, the planner memoized jsonb_each on the segment
 * row's whole document, hashing and copying every document for no hit (4,410 misses in 4,411
 * rows: 67 ms of a 76 ms read at 100 M events a month, docs/BENCHMARKS.md).
 */
export function cellsOf(
  rows: string,
  object: string,
  kept: [expression: string, name: string][],
  each: 'jsonb_each' | 'jsonb_each_text' = 'jsonb_each',
): string {
  const inner = [
    ...kept.map(([expression, name]) => `${expression} AS ${name}`),
    `${each}(${object}) AS cell`,
  ];
  const outer = [...kept.map(([, name]) => `x.${name}`), '(x.cell).key AS key', '(x.cell).value AS value'];
  return `(SELECT ${outer.join(', ')} FROM (SELECT ${inner.join(', ')} FROM ${rows}) AS x) AS k`;
}

/** Sessions per requested dimension (`wanted`, a text[]) and key, as rawSessionSums' branches return them. */
export const segmentSessionSums = (
  plan: SegmentPlan,
  funnel: string,
  filter: SessionFilter,
  params: SqlParams,
  wanted: string,
) =>
  `SELECT k.dimension, k.key, sum(k.sign * k.value::bigint) AS sessions, 0 AS conversions, 0 AS completions, 0 AS completion_ms
   FROM ${cellsOf(
     `${segmentRollupRows(plan, funnel, filter, params, 'r.sessions')} CROSS JOIN unnest(${wanted}) AS d(dimension)`,
     'r.sessions -> d.dimension',
     [
       ['d.dimension', 'dimension'],
       ['s.sign', 'sign'],
     ],
     'jsonb_each_text',
   )}
   GROUP BY 1, 2`;

/** The segments' session totals per segment key, under `dimension` (a name), as rawSessionSums' branches return them. */
export const segmentTotalSums = (
  plan: SegmentPlan,
  funnel: string,
  filter: SessionFilter,
  params: SqlParams,
  dimension: string,
) =>
  `SELECT ${params.bind(dimension)}::text AS dimension, r.segment AS key, sum(s.sign * r.started) AS sessions,
          sum(s.sign * r.conversions) AS conversions, sum(s.sign * r.completions) AS completions,
          sum(s.sign * r.completion_ms) AS completion_ms
   FROM ${segmentRollupRows(plan, funnel, filter, params, 'r.segment, r.started, r.conversions, r.completions, r.completion_ms')}
   GROUP BY r.segment`;

/**
 * An event dimension's (`dimension`, bound) cells per key: events, timed views, their total
 * time, the latest label (the newest; at equal times the greatest) and its time. A bucket read
 * whole for part of it (`within`, see planWindow) gives no label: its latest may lie in the part
 * subtracted, so the reader finds the label inside that part (partialLabelKeys).
 */
export const segmentEventSums = (
  plan: SegmentPlan,
  funnel: string,
  filter: SessionFilter,
  params: SqlParams,
  dimension: string,
) =>
  `SELECT k.key, sum(k.sign * (k.value ->> 0)::bigint) AS events, sum(k.sign * (k.value ->> 1)::bigint) AS timed,
          sum(k.sign * (k.value ->> 2)::bigint) AS total_ms,
          (array_agg(k.value ->> 3 ORDER BY (k.value ->> 4)::bigint DESC, (k.value ->> 3) COLLATE "C" DESC)
             FILTER (WHERE k.value ->> 3 IS NOT NULL AND NOT k.partial))[1] AS label,
          'epoch'::timestamptz + max((k.value ->> 4)::bigint) FILTER (WHERE NOT k.partial) * interval '1 millisecond' AS label_at
   FROM ${cellsOf(segmentRollupRows(plan, funnel, filter, params, 'r.events'), `r.events -> ${dimension}`, [
     ['(s.inside_lo > s.lo OR s.inside_hi < s.hi)', 'partial'],
     ['s.sign', 'sign'],
   ])}
   GROUP BY k.key`;

/**
 * The keys of an event dimension (`dimension`, bound) in the plan's buckets read whole for part of
 * them, each with that part (`inside_lo`, `inside_hi`), as rows `p`: where segmentEventSums leaves
 * the latest label to be found among the events. Empty when no bucket is read for part of it.
 */
export const partialLabelKeys = (
  plan: SegmentPlan,
  funnel: string,
  filter: SessionFilter,
  params: SqlParams,
  dimension: string,
) => {
  const partial = plan.segments.filter((s) => s.within && s.sign > 0);
  if (!partial.length) return null;
  return `(SELECT DISTINCT k.key, k.inside_lo, k.inside_hi FROM ${cellsOf(
    segmentRollupRows({ ...plan, segments: partial }, funnel, filter, params, 'r.events'),
    `r.events -> ${dimension}`,
    [
      ['s.inside_lo', 'inside_lo'],
      ['s.inside_hi', 'inside_hi'],
    ],
  )}) AS p`;
};

/**
 * Whether funnel `funnel` has a counted event (of the types in `types`, a text[]) at or after
 * `from` and before `to`: `= ANY` probes metric_events' key (funnel, type, time) once per type and
 * EXISTS stops at the first row (Citus cannot push down a LIMIT in a lateral over a table function).
 */
export const countedEventBetweenSql = (funnel: string, types: string, from: string, to: string) =>
  `EXISTS (SELECT 1 FROM metric_events e
     WHERE e.funnel_id = ${funnel} AND e.type = ANY(${types}) AND e.occurred_at >= ${from} AND e.occurred_at < ${to})`;
