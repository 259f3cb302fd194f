import { SESSION_DIMENSIONS } from '../events/session-definitions';
import type { SessionFilter } from '../query/metric-query';
import { inSessionsDocument } from '../segments/segment-rows';
import { segmentSessionSums, segmentTotalSums } from '../segments/segment-sql';
import type { SegmentPlan } from '../segments/segment-state';
import { SqlParams } from '../sql/sql-params';
import { pieceScans } from './cover-sql';
import type { Statement } from './event-sums-sql';
import { rawSessionSums } from './raw-sessions';
import { sessionFilterSql } from './session-filter-sql';

/**
 * The statement that sums session counters per dimension and key (`dimension`, `key`, `sessions`,
 * `conversions`, `completions`, `completion_ms`) over a plan: the segment rollups' whole buckets
 * (the `segment` totals, the cells of the `sessions` documents) and the raw sessions of the rest,
 * of the sessions the filter matches.
 */
export function sessionSumsSql(
  funnelId: string,
  dimensions: string[],
  filter: SessionFilter,
  plan: SegmentPlan,
): Statement {
  const params = new SqlParams();
  const funnel = params.bind(funnelId);
  const matching = sessionFilterSql(filter, params);
  const raw = rawSessionSums(dimensions, params);
  const edges = pieceScans(
    plan.raw,
    params,
    (lo, hi, sign) => `SELECT ${sign} AS sign, ${raw.columns} FROM metric_sessions m
      WHERE m.funnel_id = ${funnel} AND m.started_at >= ${lo} AND m.started_at < ${hi} ${raw.where}${matching}`,
  );
  const folded: string[] = [];
  if (dimensions.includes(SESSION_DIMENSIONS.segment))
    folded.push(segmentTotalSums(plan, funnel, filter, params, SESSION_DIMENSIONS.segment));
  const documented = dimensions.filter(inSessionsDocument);
  if (documented.length)
    folded.push(segmentSessionSums(plan, funnel, filter, params, params.bind(documented, 'text[]')));
  return {
    text: `WITH m AS (
       ${raw.grouped ? `SELECT ${raw.grouped.columns} FROM (${edges}) AS m GROUP BY ${raw.grouped.by}` : edges}
     )
     SELECT t.dimension, t.key, sum(t.sessions) AS sessions, sum(t.conversions) AS conversions,
            sum(t.completions) AS completions, sum(t.completion_ms) AS completion_ms
     FROM (
       ${raw.sql}
       ${folded.map((sql) => `UNION ALL ${sql}`).join(' ')}
     ) AS t
     GROUP BY t.dimension, t.key`,
    values: params.values,
  };
}
